import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import pg from 'pg';
import { Deadline, requestScope } from '../../db/deadline.ts';
import { DeadlineError } from '../../http/errors.ts';
import { createTestApp, DIALECT, errorOf, PG_URL } from '../../test/harness.ts';
import { upsertNodes } from '../store.repository.ts';
import { KindLists, KindTable } from './kinds.ts';
import { shortestPaths, shortestTree, trails } from './paths.ts';
import { SnapshotBuilder } from './snapshot.ts';
import { walk } from './traverse.ts';

/** A chain 1 → 2 → ... → n plus n star edges from 1: enough steps for the deadline checks to run. */
function bigSnapshot(n: number) {
  const kinds = new KindTable();
  const b = new SnapshotBuilder(kinds, new KindLists(kinds));
  for (let i = 1; i <= n; i++) b.addNode(i, '["User","Base"]', null);
  let id = 0;
  for (let i = 1; i < n; i++) b.addEdge(++id, i, i + 1, 'MemberOf');
  return { g: b.build(), mask: kinds.mask(['MemberOf']) };
}

test('traversals stop when the request deadline has passed (504, CONTRACT §4)', () => {
  const { g, mask } = bigSnapshot(60_000);
  const expired = new Deadline(Date.now() - 1);
  assert.throws(() => requestScope.run(expired, () => walk(g, [0], { direction: 'outbound', kinds: mask })), DeadlineError);
  assert.throws(() => requestScope.run(expired, () => shortestPaths(g, [0], [g.nodeCount - 1], mask)), DeadlineError);
  // Without a deadline the same work completes.
  assert.equal(walk(g, [0], { direction: 'outbound', kinds: mask }).order.length, 60_000);
  assert.equal(shortestPaths(g, [0], [g.nodeCount - 1], mask)?.length, 59_999);
  // Cypher's walks: breadth-first levels and trails (a trail far longer than the call stack is deep).
  const none = () => false;
  assert.throws(() => requestScope.run(expired, () => shortestTree(g, 0, mask, 'outbound', Infinity, true)), DeadlineError);
  assert.throws(() => requestScope.run(expired, () => trails(g, 0, mask, 'both', 1, Infinity, none, () => {})), DeadlineError);
  assert.equal(shortestTree(g, 0, mask, 'outbound', Infinity, true).order.length, 59_999);
  let longest = 0;
  trails(g, 0, mask, 'outbound', 1, Infinity, none, (slots) => void (longest = Math.max(longest, slots.length)));
  assert.equal(longest, 59_999);
});

test(`graph routes honour Prefer: wait (echo; 504 when the database holds the answer back) on ${DIALECT}`, async () => {
  const t = await createTestApp();
  try {
    const token = (await t.login('Read-Only')).token;
    await upsertNodes(t.db.kysely, [{ objectid: 'U1', kinds: ['User', 'Base'], name: 'U1', properties: {}, sourceKind: 'Base' }]);
    const ask = (wait: string) => t.request({ method: 'GET', url: '/api/v2/users/U1', token, headers: { prefer: wait } });
    const ok = await ask('wait=5');
    assert.equal(ok.statusCode, 200);
    assert.equal(ok.headers['preference-applied'], 'wait=5');
    assert.deepEqual(errorOf(await ask('wait=x')), { status: 400, messages: ["Prefer header has an invalid value: expected 'wait=N' where N is -1 or a non-negative integer"] });
    if (DIALECT !== 'postgres') return;
    // Another session holds an exclusive lock on nodes: the answer cannot be read before the deadline.
    const locker = new pg.Client({ connectionString: t.db.url });
    await locker.connect();
    try {
      await locker.query('begin');
      await locker.query('lock table nodes in access exclusive mode');
      await sql`select 1`.execute(t.db.kysely);
      const started = Date.now();
      const res = await t.request({ method: 'GET', url: '/api/v2/users/U1', token, headers: { prefer: 'wait=1' }, query: { counts: 'false' } });
      assert.deepEqual(errorOf(res), { status: 504, messages: ['request timed out'] });
      assert.ok(Date.now() - started < 5000);
    } finally {
      await locker.query('rollback').catch(() => {});
      await locker.end();
    }
    assert.equal((await ask('wait=5')).statusCode, 200, 'served again once the lock is gone');
  } finally {
    await t.close();
  }
});
void PG_URL;
