import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Admission, BoundedCache } from './bounded-cache.ts';

test('bounded cache: holds at most its bytes, oldest out first, oversized entries not kept, re-set recounted', () => {
  const cache = new BoundedCache<string>(800, (v) => v.length); // an entry may take up to 100 bytes
  for (let i = 0; i < 10; i++) cache.set(`k${i}`, 'x'.repeat(98)); // 100 bytes each with the key
  assert.equal(cache.size, 8);
  assert.equal(cache.get('k0'), undefined);
  assert.equal(cache.get('k1'), undefined);
  assert.equal(cache.get('k9')?.length, 98);
  cache.set('big', 'x'.repeat(200));
  assert.equal(cache.get('big'), undefined, 'larger than an eighth of the bound');
  assert.equal(cache.size, 8);
  // Setting a key again replaces it and counts the new size: after shrinking k9, one more fits.
  cache.set('k9', 'y');
  cache.set('k10', 'x'.repeat(94)); // 97 bytes: exactly what k9 gave back
  assert.equal(cache.size, 9);
  assert.equal(cache.get('k9'), 'y');
  cache.delete('k9');
  assert.equal(cache.get('k9'), undefined);
});

test('bounded cache, random eviction: bounded the same, and a cycle larger than the cache still hits about the share that fits', () => {
  const cache = new BoundedCache<string>(800, (v) => v.length, 'random');
  for (let i = 0; i < 10; i++) cache.set(`k${i}`, 'x'.repeat(98));
  assert.equal(cache.size, 8);
  cache.set('k3', 'y'); // re-set: recounted, its slot reused
  cache.delete('k3');
  assert.equal(cache.get('k3'), undefined);
  for (let i = 0; i < 10; i++) cache.delete(`k${i}`);
  assert.equal(cache.size, 0);
  // 12 keys asked in turn, 8 fit: oldest-first eviction never hits, random keeps a share.
  const hits = (c: BoundedCache<string>) => {
    let n = 0;
    for (let round = 0; round < 50; round++) {
      for (let i = 0; i < 12; i++) {
        if (c.get(`c${i}`) !== undefined) n++;
        else c.set(`c${i}`, 'x'.repeat(97));
      }
    }
    return n;
  };
  assert.equal(hits(new BoundedCache<string>(800, (v) => v.length)), 0);
  assert.ok(hits(cache) > 100);
  assert.ok(cache.size <= 8);
});

test('bounded cache: oldest first follows the order of the sets, through deletes and re-sets', () => {
  const cache = new BoundedCache<string>(800, (v) => v.length);
  for (let i = 0; i < 8; i++) cache.set(`k${i}`, 'x'.repeat(98)); // full
  cache.delete('k0'); // the oldest
  cache.delete('k4'); // one in the middle
  cache.set('k1', 'x'.repeat(98)); // set again: now the newest
  cache.set('a', 'x'.repeat(99));
  cache.set('b', 'x'.repeat(99));
  cache.set('c', 'x'.repeat(99)); // full again: k2, the oldest left, goes
  assert.deepEqual(['k1', 'k2', 'k3', 'k5', 'a', 'b', 'c'].map((k) => cache.get(k) !== undefined), [true, false, true, true, true, true, true]);
  cache.set('d', 'x'.repeat(99)); // then k3
  assert.equal(cache.get('k3'), undefined);
  assert.ok(cache.get('k5') !== undefined && cache.get('k1') !== undefined);
  for (const k of ['k1', 'k5', 'k6', 'k7', 'a', 'b', 'c', 'd']) cache.delete(k);
  assert.equal(cache.size, 0);
  cache.set('e', 'x'.repeat(99)); // the list emptied cleanly
  assert.equal(cache.size, 1);
});

test('bounded cache: full once a new entry as large as the largest kept would make another go', () => {
  const cache = new BoundedCache<string>(800, (v) => v.length); // the largest entry kept: 100 bytes with its key
  for (let i = 0; i < 7; i++) cache.set(`k${i}`, 'x'.repeat(97));
  assert.equal(cache.full, false); // 693 + 100 ≤ 800
  cache.set('k7', 'x'.repeat(97));
  assert.equal(cache.full, true); // 792 + 100 > 800
  cache.delete('k7');
  assert.equal(cache.full, false);
});

test('admission: a key is seen before from its second time on; its salt tells keys apart', () => {
  const a = new Admission();
  assert.equal(a.seenBefore('client-1', '"etag-a"'), false);
  assert.equal(a.seenBefore('client-1', '"etag-a"'), true);
  assert.equal(a.seenBefore('client-1', '"etag-a"'), true);
  assert.equal(a.seenBefore('client-1', '"etag-b"'), false);
  assert.equal(a.seenBefore('client-2', '"etag-a"'), false);
  // Many keys: most are remembered (one slot each of 65,536; a later key may take an earlier one's slot: 10,000 keys
  // lose about 7 %, and each miss of the second pass takes a slot again).
  let remembered = 0;
  for (let i = 0; i < 10_000; i++) a.seenBefore(`k${i}`);
  for (let i = 0; i < 10_000; i++) if (a.seenBefore(`k${i}`)) remembered++;
  assert.ok(remembered > 8_000, `${remembered} of 10,000`);
});
