import { test } from 'node:test';
import assert from 'node:assert/strict';
import { keptBytes, wrapJoined } from './kept-bytes.ts';

test('kept bytes: the UTF-8 of each string, each its own range, across slabs and for large strings', () => {
  const texts = ['', 'a', '{"data":[]}', 'é€😀\ud800x', 'x'.repeat(5000), 'ü'.repeat(20_000), 'y'.repeat(40_000)];
  const made: Array<[string, Buffer]> = [];
  for (let i = 0; i < 200; i++) {
    const t = texts[i % texts.length] + i;
    made.push([t, keptBytes(t)]);
  }
  for (const [t, b] of made) assert.ok(b.equals(Buffer.from(t)), `bytes of ${t.slice(0, 20)}…`);
});

test('wrapJoined: head + parts joined by commas + tail', () => {
  for (const parts of [[], ['a'], ['a', 'b'], ['{"x":1}', '{"y":2}', '{"z":3}']]) {
    const expected = `[${parts.join(',')}]`;
    assert.equal(wrapJoined('[', [...parts], ']'), expected);
  }
});
