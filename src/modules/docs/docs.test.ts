import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, type TestApp } from '../../test/harness.ts';

let t: TestApp;
before(async () => {
  t = await createTestApp();
});
after(() => t.close());

test('/favicon.ico: a 32×32 icon, public, cacheable (it was a 404 in every browser tab)', async () => {
  const res = await t.app.inject({ method: 'GET', url: '/favicon.ico' });
  assert.equal(res.statusCode, 200);
  assert.equal(res.headers['content-type'], 'image/x-icon');
  assert.equal(res.headers['cache-control'], 'public, max-age=86400');
  const ico = res.rawPayload;
  // ICONDIR: reserved 0, type 1 (icon), one image; its entry: 32×32, 32 bits, data right after the directory
  assert.deepEqual([ico.readUInt16LE(0), ico.readUInt16LE(2), ico.readUInt16LE(4)], [0, 1, 1]);
  assert.deepEqual([ico[6], ico[7], ico.readUInt16LE(12)], [32, 32, 32]);
  const size = ico.readUInt32LE(14);
  const offset = ico.readUInt32LE(18);
  assert.equal(offset + size, ico.length);
  // the bitmap: 40-byte header, then BGRA rows bottom-up; the centre is the red disc, a corner transparent
  assert.equal(ico.readUInt32LE(offset), 40);
  const pixel = (x: number, y: number) => [...ico.subarray(offset + 40 + ((31 - y) * 32 + x) * 4, offset + 40 + ((31 - y) * 32 + x) * 4 + 4)];
  assert.deepEqual(pixel(16, 16), [46, 45, 179, 255]);
  assert.equal(pixel(0, 0)[3], 0);
  const head = await t.app.inject({ method: 'HEAD', url: '/favicon.ico' });
  assert.equal(head.statusCode, 200);
});

test('the API docs page links the icon', async () => {
  const res = await t.app.inject({ method: 'GET', url: '/api/v2/docs' });
  assert.match(res.body, /<link rel="icon" href="\/favicon.ico">/);
});
