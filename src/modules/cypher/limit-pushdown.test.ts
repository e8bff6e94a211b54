/**
 * LIMIT pushdown (src/cypher/execute.ts limitPushdown): a simple `MATCH … RETURN … LIMIT n` (one
 * fixed-length pattern part, or one shortestPath / allShortestPaths) stops
 * matching once it has its rows. Its answer must be exactly the answer of matching everything first:
 * checked on the Query Library's queries with LIMIT (and the library's queries given a small LIMIT)
 * plus constructed ones, on the SharpHound v6 fixture, after ingest and analysis.
 */
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { test } from 'node:test';
import { executeQuery, limitPushdown } from '../../cypher/execute.ts';
import { GraphSource } from '../../cypher/graph-source.ts';
import { AD_QUERIES } from '../../cypher/library.test-helpers.ts';
import { prepareCypher } from '../../cypher/prepare.ts';
import { CypherError } from '../../cypher/errors.ts';
import type { Limits } from '../../cypher/context.ts';
import { FIXTURES } from '../../test/fixture-path.ts';
import { ingestFiles } from '../../graph/ingest/ingest.service.ts';
import { createTestApp } from '../../test/harness.ts';
import { analyzeGraph } from '../data-quality/analysis.service.ts';
import { upsertEdges, upsertNodes } from '../../graph/store.repository.ts';

const CONSTRUCTED = [
  'MATCH (n:User) RETURN n LIMIT 5',
  'MATCH (n) RETURN n.name SKIP 7 LIMIT 20',
  'MATCH (u:User)-[:MemberOf]->(g:Group) RETURN u.name, g.name SKIP 3 LIMIT 4',
  'MATCH (u:User)-[r:MemberOf]->(g:Group) WHERE u.enabled = true RETURN u, r, g LIMIT 17',
  'MATCH p = (x)-[:MemberOf]->(g:Group)<-[:MemberOf]-(y) WHERE x.name < y.name RETURN p LIMIT 25',
  'MATCH (c:Computer)<-[:AdminTo|MemberOf|HasSession]-(x) RETURN c, x LIMIT 3',
  'MATCH (n)-[]-(m) RETURN n, m LIMIT 40',
  'MATCH (n)-[]-(m) WHERE (m)-[:MemberOf]->() RETURN n, m LIMIT 10',
  'MATCH (u:User)-[:MemberOf*1..]->(g:Group) RETURN u, g LIMIT 3',
  'MATCH (n:User) RETURN n LIMIT 0',
  // Sparse: most anchors match nothing, so several chunks of anchors are extended before the rows exist.
  'MATCH (n)-[r]->(m) WHERE size(m.name) % 3 = 0 RETURN n, r, m LIMIT 30',
  'MATCH (n)-[r]->(m) WHERE size(m.name) % 3 = 1 RETURN n.name, m.name SKIP 5 LIMIT 60',
  // (Without `size(n.name) % 5 = 0` the assertion holds as well, but matching everything passes the row
  // bound and is run again with room for 2M rows: ~110 s here. The narrower query keeps the same shape.)
  'MATCH (n)<-[r]-(m)-[s]->(o) WHERE size(o.name) % 2 = 0 AND n <> o AND size(n.name) % 5 = 0 RETURN n, m, o LIMIT 50',
  'MATCH (g:Group)<-[:MemberOf]-(n) WHERE size(n.name) % 2 = 0 RETURN g.name, n.name LIMIT 33',
  // Constants first (as 'Enabled users inactive for 180 days' opens): still the simple shape.
  'WITH 3 AS k, 1 AS r MATCH (n:User) WHERE size(n.name) % k = r RETURN n.name, k LIMIT 6',
  'WITH 2 AS k WITH k * 2 AS m MATCH (g:Group)<-[:MemberOf]-(n) WHERE size(n.name) % m = 0 RETURN g, n SKIP 1 LIMIT 8',
  // shortestPath: rows per start node in breadth-first order of the far ends, WHERE applied as they come.
  'MATCH p = shortestPath((u:User)-[:MemberOf*1..]->(g:Group)) RETURN p LIMIT 5',
  'MATCH p = shortestPath((s)-[*1..]->(t:Group)) WHERE s <> t AND size(s.name) % 2 = 0 RETURN p LIMIT 7',
  'MATCH p = allShortestPaths((s:Base)-[:AD_ATTACK_PATHS*1..]->(t:Tag_Tier_Zero)) WHERE s <> t RETURN p SKIP 2 LIMIT 9',
  'MATCH p = shortestPath((s:Base)-[:AD_ATTACK_PATHS*1..]->(t:Tag_Tier_Zero)) WHERE s <> t RETURN p LIMIT 1',
  // Searched to depth 1, 2, 4, … while the rows are not there yet (the first levels of a deeper search).
  'MATCH p = shortestPath((s)-[:AD_ATTACK_PATHS*1..]->(t:Tag_Tier_Zero)) WHERE s <> t RETURN p LIMIT 1000',
  'MATCH p = shortestPath((g:Group)<-[:MemberOf|AdminTo|HasSession|GenericAll*1..]-(x)) WHERE size(x.name) % 3 = 0 RETURN p LIMIT 60',
  'MATCH p = shortestPath((u:User)-[*0..5]->(x)) RETURN p SKIP 10 LIMIT 40',
  'MATCH p = allShortestPaths((c:Computer)-[*1..]-(x)) WHERE x:User OR x:Group RETURN p LIMIT 80',
];

/** Library queries with a LIMIT as they are, and those without one given a small LIMIT (when that still parses). */
function queries(): string[] {
  const out = [...CONSTRUCTED];
  for (const { query } of AD_QUERIES) {
    if (/\bLIMIT\b/i.test(query)) out.push(query);
    else {
      const limited = `${query.trimEnd()}\nLIMIT 3`;
      try {
        prepareCypher(limited);
        out.push(limited);
      } catch (err) {
        if (!(err instanceof CypherError)) throw err;
      }
    }
  }
  return out;
}

test('LIMIT pushdown: the same rows as matching everything first', async () => {
  const t = await createTestApp();
  try {
    const files = readdirSync(FIXTURES).filter((f) => f.endsWith('.json') && !f.startsWith('expected')).sort();
    const outcomes = await ingestFiles(t.db, files.map((f) => ({ path: FIXTURES + f })));
    assert.deepEqual(outcomes.filter((o) => o.error), []);
    await analyzeGraph(t.db);
    let pushed = 0;
    for (const text of queries()) {
      const prepared = prepareCypher(text);
      const stopAfter = prepared.query.parts.length === 1 ? limitPushdown(prepared.query.parts[0]) : null;
      const run = async (limitPushdown: boolean, limits?: Limits) => {
        try {
          return (await executeQuery(prepared, new GraphSource(t.db), limits, { limitPushdown })).rows;
        } catch (err) {
          if (err instanceof CypherError) return err.message;
          throw err;
        }
      };
      let full = await run(false);
      const fast = await run(true);
      // Matching everything may pass the row bound where stopping early does not: then it gets room to give its rows.
      if (typeof full === 'string' && full.includes('too large') && typeof fast !== 'string') full = await run(false, { maxRows: 2_000_000, maxCost: 100_000_000 });
      assert.deepEqual(fast, full, text);
      if (stopAfter !== null) pushed++;
    }
    assert.ok(pushed >= 10, `pushed ${pushed}`);
  } finally {
    await t.close();
  }
});

test('LIMIT pushdown applies to the simplest shape only', () => {
  const of = (q: string) => limitPushdown(prepareCypher(q).query.parts[0]);
  assert.equal(of('MATCH (n:User) RETURN n SKIP 2 LIMIT 5'), 7);
  assert.equal(of('MATCH p = (a)-[:MemberOf]->(b) WHERE a.enabled RETURN p LIMIT 5'), 5);
  assert.equal(of('WITH 180 AS days MATCH (n:User) WHERE n.lastlogon < days RETURN n LIMIT 5'), 5);
  assert.equal(of('WITH 1 AS a WITH a + 1 AS b, datetime().epochseconds AS now MATCH (n) RETURN n, b SKIP 1 LIMIT 5'), 6);
  for (const q of [
    'MATCH (n:User) RETURN n',
    'MATCH (n:User) RETURN n ORDER BY n.name LIMIT 5',
    'MATCH (n:User) RETURN DISTINCT n LIMIT 5',
    'MATCH (n:User) RETURN count(n) LIMIT 5',
    'OPTIONAL MATCH (n:User) RETURN n LIMIT 5',
    'MATCH (n:User) WITH n RETURN n LIMIT 5',
    'MATCH (n:User), (m:Group) RETURN n, m LIMIT 5',
    'MATCH (n:User) WHERE (n)-[:MemberOf]->() RETURN n LIMIT 5',
    'MATCH (n:User) RETURN n LIMIT toInteger(5)',
    'WITH 1 AS a WHERE a > 0 MATCH (n:User) RETURN n LIMIT 5',
    'WITH count(*) AS c MATCH (n:User) RETURN n LIMIT 5',
    'WITH DISTINCT 1 AS a MATCH (n:User) RETURN n LIMIT 5',
    'UNWIND [1, 2] AS a MATCH (n:User) RETURN n LIMIT 5',
    'WITH 1 AS a MATCH (n:User) WITH n RETURN n LIMIT 5',
  ]) assert.equal(of(q), null, q);
});

test('LIMIT pushdown stops within one node\'s relationships: a node with more of them than the row bound still answers', async () => {
  const t = await createTestApp();
  try {
    // One unresolved SID holding an ACE on 30,000 objects, as a domain-wide principal's inherited ACEs do.
    const u = (objectid: string, kind = 'User') => ({ objectid, kinds: [kind, 'Base'], name: objectid, properties: { name: objectid, objectid } });
    await upsertNodes(t.db.kysely, [u('S-1-5-21-1-519', 'Group'), ...Array.from({ length: 30_000 }, (_, i) => u(`OBJ-${i}`))]);
    await upsertEdges(t.db.kysely, Array.from({ length: 30_000 }, (_, i) => ({ start: { objectid: 'S-1-5-21-1-519' }, end: { objectid: `OBJ-${i}` }, kind: 'GenericAll', properties: { isacl: true } })));
    const text = 'MATCH p=(n:Base)-[r]->(:Base) WHERE r.isacl AND n.name CONTAINS "S-1-5-21-" RETURN p LIMIT 5';
    const limits: Limits = { maxRows: 25_000, maxCost: 20_000_000 };
    const rows = await executeQuery(prepareCypher(text), new GraphSource(t.db), limits);
    assert.equal(rows.rows.length, 5);
    // Matching everything passes the bound: the early stop is what answers.
    await assert.rejects(executeQuery(prepareCypher(text), new GraphSource(t.db), limits, { limitPushdown: false }), /too large/);
  } finally {
    await t.close();
  }
});

test('matches streamed into a grouping leave a step as they are filtered: a start node with more relationships than the row bound is grouped, not refused', async () => {
  const t = await createTestApp();
  try {
    // A principal with an ACE on 30,000 objects (a domain-wide principal's inherited ACEs), and one with two.
    const u = (objectid: string, kind = 'User') => ({ objectid, kinds: [kind, 'Base'], name: objectid, properties: { name: objectid, objectid } });
    await upsertNodes(t.db.kysely, [u('S-1-5-21-1-1105', 'Group'), u('S-1-5-21-1-1106', 'Group'), ...Array.from({ length: 30_000 }, (_, i) => u(`OBJ-${i}`))]);
    await upsertEdges(t.db.kysely, [
      ...Array.from({ length: 30_000 }, (_, i) => ({ start: { objectid: 'S-1-5-21-1-1105' }, end: { objectid: `OBJ-${i}` }, kind: 'GenericAll', properties: { isacl: true } })),
      ...[0, 1].map((i) => ({ start: { objectid: 'S-1-5-21-1-1106' }, end: { objectid: `OBJ-${i}` }, kind: 'GenericWrite', properties: { isacl: true } })),
    ]);
    const text = 'MATCH (n:Base)-[r:AD_ATTACK_PATHS]->(m:Base) WHERE NOT r:MemberOf WITH n, COLLECT(DISTINCT(m)) AS endNodes WHERE SIZE(endNodes) >= 1000 RETURN n.objectid AS id, size(endNodes) AS c';
    const limits: Limits = { maxRows: 25_000, maxCost: 20_000_000 };
    const result = await executeQuery(prepareCypher(text), new GraphSource(t.db), limits);
    assert.deepEqual(result.rows, [{ id: 'S-1-5-21-1-1105', c: 30_000 }]);
    // Grouping every match at once passes the bound.
    await assert.rejects(executeQuery(prepareCypher(text), new GraphSource(t.db), limits, { streamAggregation: false }), /too large/);
  } finally {
    await t.close();
  }
});
