import { test } from 'node:test';
import assert from 'node:assert/strict';
import { largestFirst } from './entities.service.ts';

test('largestFirst: the k largest ids, largest first (heap for a short page of a long list, sort otherwise)', () => {
  let seed = 1;
  const rand = (n: number) => (seed = (seed * 1103515245 + 12345) % 2147483648) % n;
  for (let trial = 0; trial < 500; trial++) {
    const ids = [...new Set(Array.from({ length: rand(400) }, () => rand(1000)))];
    const k = rand(80);
    assert.deepEqual(largestFirst(ids, k), [...ids].sort((a, b) => b - a).slice(0, k), `k=${k} of ${ids.length}`);
  }
  const ascending = Array.from({ length: 1000 }, (_, i) => i + 1);
  assert.deepEqual(largestFirst(ascending, 3), [1000, 999, 998]);
  assert.deepEqual(largestFirst([...ascending].reverse(), 3), [1000, 999, 998]);
  assert.deepEqual(largestFirst([5, 1, 3]), [5, 3, 1], 'every one when k is not given');
  assert.deepEqual(largestFirst([], 10), []);
  assert.deepEqual(largestFirst([4, 2], 0), []);
});
