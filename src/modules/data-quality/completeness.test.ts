/**
 * Completeness from the active principals' rows, at the size of a large import (300,000 principals):
 * the latest logon is found without spreading the rows into one call (that overflowed the stack of a
 * 1 GB import's analysis) and rows are grouped by environment in linear time.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { completenessOf } from './analysis.service.ts';

test('completeness over 300,000 principals: per environment and over all, active = within 14 days of the latest logon', () => {
  const T = 1_790_000_000;
  const DAY = 24 * 3600;
  const rows: Array<{ env: string | null; ts: number; covered: number }> = [];
  // A: 200,000 active principals, a quarter of them covered → 25 %
  for (let i = 0; i < 200_000; i++) rows.push({ env: 'A', ts: T - (i % 10) * DAY, covered: i % 4 === 0 ? 1 : 0 });
  // B: 50,000 active and covered, 50,000 that last logged on 15 days before the latest (inactive) → 100 %
  for (let i = 0; i < 100_000; i++) rows.push({ env: 'B', ts: i % 2 === 0 ? T : T - 15 * DAY, covered: i % 2 === 0 ? 1 : 0 });
  const out = completenessOf(rows);
  assert.equal(out.get('A'), 25);
  assert.equal(out.get('B'), 100);
  // over all: 250,000 active, 50,000 + 50,000 covered → 40 %
  assert.equal(out.all, 40);
});
