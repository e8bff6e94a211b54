import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { upsertEdges, upsertNodes } from '../graph/store.repository.ts';
import { createTestApp, errorOf, type TestApp } from '../test/harness.ts';
import { CypherError } from './errors.ts';
import { executeQuery } from './execute.ts';
import { GraphSource } from './graph-source.ts';
import { prepareCypher } from './prepare.ts';

/** A complete directed graph on `n` nodes: its simple paths grow like n!, a query that never ends. */
async function clique(t: TestApp, n: number, prefix: string) {
  const ids = Array.from({ length: n }, (_, i) => `${prefix}-${i}`);
  await upsertNodes(t.db.kysely, ids.map((objectid) => ({ objectid, kinds: ['Group', 'Base'], name: objectid, environmentId: null, properties: {}, sourceKind: 'Base' })));
  await upsertEdges(t.db.kysely, ids.flatMap((a) => ids.filter((b) => b !== a).map((b) => ({ start: { objectid: a }, end: { objectid: b }, kind: 'MemberOf' }))));
}

let t: TestApp;
let token: string;
before(async () => {
  t = await createTestApp();
  token = (await t.login('Read-Only')).token;
  await clique(t, 12, 'K12');
  await clique(t, 6, 'K6');
});
after(() => t.close());

test('Prefer: wait bounds a query that would run for hours: 504 request timed out', async () => {
  const started = Date.now();
  const res = await t.request({
    method: 'POST', url: '/api/v2/graphs/cypher', token, headers: { prefer: 'wait=1' },
    // Few rows and few counted steps (under both guards), each step slow: reversing a 20,000-character string
    // five million times. Only the deadline can stop it.
    body: { query: "WITH reduce(s = '', x IN range(1, 10000) | s + 'ab') AS big RETURN reduce(n = 0, x IN range(1, 5000000) | n + size(reverse(big))) AS total" },
  });
  assert.deepEqual(errorOf(res), { status: 504, messages: ['request timed out'] });
  assert.ok(Date.now() - started < 15_000, `took ${Date.now() - started} ms`);
});

test('the cost guard and the result bound answer 400 naming them', async () => {
  const source = new GraphSource(t.db);
  const run = (q: string, limits: { maxRows: number; maxCost: number }) => executeQuery(prepareCypher(q), source, limits);
  await assert.rejects(run("MATCH p=(a:Group)-[:MemberOf*1..]->(b) WHERE a.name = 'K6-0' RETURN p", { maxRows: 1_000_000, maxCost: 5_000 }),
    (err: unknown) => err instanceof CypherError && err.message.startsWith('query is too expensive: it would examine more than 5000 graph elements'));
  // 6 × 6 × 6 = 216 rows.
  await assert.rejects(run('MATCH (a:Group), (b:Group), (c:Group) RETURN a, b, c', { maxRows: 100, maxCost: 1_000_000 }),
    (err: unknown) => err instanceof CypherError && err.message === 'query result is too large: more than 100 rows; add a LIMIT or narrow the query');
  // Bounded, the same walk runs. Trails (a relationship at most once; nodes may repeat) of 1 to 3 hops from
  // one node of K6: 5, then 5 * 5, then 120 (a trail a→x→a has 4 ways on, a→x→y with y ≠ a has 5).
  const { rows } = await run("MATCH p=(a:Group)-[:MemberOf*1..3]->(b) WHERE a.name = 'K6-0' RETURN count(p) AS n", { maxRows: 1_000_000, maxCost: 10_000_000 });
  assert.deepEqual(rows, [{ n: 150 }]);
});
