/**
 * Planner shapes (src/cypher/match.ts, plan.ts) that change where matching starts or what a scan
 * reads, never the answer: start candidates from relationship kinds (the nodes having an edge of a
 * neighbouring relationship's kinds), presence tests for null-rejecting predicates, relationship-property
 * predicates pushed down (the relationships a one-step pattern may take, and their ends), a MATCH reading
 * nothing of the incoming rows matched once for all of them, one-node conjuncts tested in SQL before
 * reading details (with the threshold at one row), matches streamed into the grouping of an aggregating
 * WITH / RETURN (compared in order: the very rows), conjuncts decided while probing by kept columns and
 * objectid tail hashes, and scans answered
 * from kept property columns and objectid suffixes (src/cypher/property-columns.ts), and everything read
 * from the node store (src/cypher/node-store.ts: scans, the probe, prefilters, far ends). Each must give
 * the rows of the plan without it (as a multiset: starting elsewhere may list them in another order,
 * which Cypher leaves open without ORDER BY; a final LIMIT is compared without it, then by count):
 * checked on every Active Directory query of the Query Library plus constructed ones, on the
 * SharpHound v6 fixture after ingest and analysis.
 */
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { test } from 'node:test';
import { executeQuery, type ExecuteOptions } from '../../cypher/execute.ts';
import { GraphSource } from '../../cypher/graph-source.ts';
import { AD_QUERIES } from '../../cypher/library.test-helpers.ts';
import { prepareCypher } from '../../cypher/prepare.ts';
import { CypherError } from '../../cypher/errors.ts';
import { FIXTURES } from '../../test/fixture-path.ts';
import { ingestFiles } from '../../graph/ingest/ingest.service.ts';
import { createTestApp } from '../../test/harness.ts';
import { analyzeGraph } from '../data-quality/analysis.service.ts';

const CONSTRUCTED = [
  'MATCH p = (n)-[:AdminTo]->(c:Computer) RETURN p',
  'MATCH (n)<-[:MemberOf]-(m) RETURN n.name AS name, count(m) AS c ORDER BY name',
  'MATCH (g:Group)<-[:MemberOf*1..]-(u:User) RETURN g.name, u.name',
  'MATCH (a)-[:HasSession|AdminTo]-(b) RETURN a, b',
  'MATCH (a)-[:NoSuchKind]->(b) RETURN a',
  'MATCH (a)-[:MemberOf*0..1]->(b:Group) RETURN a, b',
  'MATCH (u:User) WHERE u.email <> "" RETURN u.name',
  'MATCH (u:User) WHERE toUpper(u.name) <> "X" RETURN u.name',
  'MATCH (n) WHERE n.name =~ "(?i).*ADMIN.*" RETURN n',
  'MATCH (n:User) WHERE ANY(s IN n.serviceprincipalnames WHERE s CONTAINS "/") RETURN n',
  'MATCH (n:Base) WHERE size(n.description) > 3 OR n.hasspn = true RETURN n',
  "MATCH (n:Group) WHERE n.objectid ENDS WITH '-512' OR n.objectid ENDS WITH '-519' OR n.objectid ENDS WITH 'S-1-5-32-544' RETURN n",
  "MATCH (n:Base) WHERE toUpper(n.objectid) ENDS WITH '-500' AND n.enabled = true RETURN n",
  "MATCH (n) WHERE n.objectid ENDS WITH '-512' OR n.objectid ENDS WITH 'S-1-5-32-544' RETURN n",
  "MATCH (n) WHERE n.objectid ENDS WITH '-513' AND n.name STARTS WITH 'DOMAIN' RETURN n",
  'MATCH (n) WHERE n.enabled = false AND n.hasspn = true RETURN n.name',
  'MATCH (n) WHERE n.pwdlastset > 1600000000 OR n.lastlogon > 1600000000 RETURN n.name',
  'MATCH (n:User) WHERE n.admincount = true AND n.pwdlastset > 0 AND n.description STARTS WITH "B" RETURN n',
  'MATCH (n:Computer) WHERE n.operatingsystem CONTAINS "Windows" OR n.haslaps = false RETURN n',
  "MATCH (n) WHERE 'DES-CBC-MD5' IN n.supportedencryptiontypes OR n.serviceprincipalnames IS NOT NULL RETURN n",
  'MATCH (n:User) WHERE n.pwdlastset < 1700000000 AND n.lastlogon >= 0 AND n.sidhistory <> [] RETURN n',
  'MATCH p=(n)-[r]->(m) WHERE r.isacl RETURN p',
  'MATCH p=(n:User)-[r:MemberOf]->(g:Group) WHERE r.isprimarygroup = true AND NOT g.objectid ENDS WITH "-513" RETURN p',
  'MATCH (n)-[r:GenericAll|WriteDacl|Owns]->(m) WHERE r.isacl = true AND r.isinherited = false RETURN n.name, m.name',
  'MATCH (n)<-[r]-(m) WHERE r.nosuchprop = 1 RETURN n',
  'MATCH (a)-[r:MemberOf]-(b) WHERE r.isprimarygroup RETURN a, b',
  'MATCH (a)-[r:MemberOf]->(b)-[s:AD_ATTACK_PATHS]->(c) WHERE s.isacl AND NOT r.isprimarygroup RETURN a, c',
  'MATCH (a)-[r]->(b) WHERE r.isacl AND a.domainsid <> b.domainsid RETURN a, r, b',
  'MATCH (a)-[r]->(b) WHERE a.enabled = b.enabled AND a.domainsid = b.domainsid RETURN a, type(r), b',
  'MATCH (a)<-[:MemberOf]-(b) WHERE b.serviceprincipalnames <> a.serviceprincipalnames OR a.hasspn = b.hasspn RETURN a, b',
  'MATCH (a:User)-[r]->(b) WHERE b.admincount <> a.admincount RETURN a, b',
  "MATCH (n:Base) WHERE (n.objectid ENDS WITH '-512' OR n.name STARTS WITH 'ADMIN' OR n.objectid ENDS WITH '-500') AND n.enabled = true RETURN n",
  "MATCH (n) WHERE n.objectid ENDS WITH '-513' OR n.objectid ENDS WITH 'S-1-5-11' OR n.hasspn RETURN n.name",
  'MATCH (n)-[r:AD_ATTACK_PATHS]->(m) WHERE NOT r:MemberOf RETURN n, r, m',
  'MATCH (n)-[r:MemberOf|AdminTo|HasSession]->(m) WHERE r:AdminTo|HasSession AND n.enabled RETURN n, r',
  'MATCH (n)-[r:MemberOf]->(m) WHERE NOT r:MemberOf RETURN n',
  'MATCH (n:Base)-[r:AD_ATTACK_PATHS]->(m:Base) WHERE NOT r:MemberOf AND NOT ((n:Tag_Tier_Zero) OR COALESCE(n.system_tags, "") CONTAINS "admin_tier_0") RETURN n, m',
  'MATCH (m:User) OPTIONAL MATCH (g:Group)<-[:MemberOf*1..]-(n:Base) WHERE g.objectid ENDS WITH "-512" RETURN m.name, n.name',
  'MATCH (m:Computer) OPTIONAL MATCH (g:Group {name: "NO SUCH GROUP"}) RETURN m, g',
  'MATCH (m:Computer) WITH m LIMIT 5 MATCH (g:Group)<-[r:MemberOf]-(u:User) RETURN m.name, g.name, u.name',
  'MATCH (m:Computer) WITH m LIMIT 3 MATCH p = shortestPath((u:User)-[:AD_ATTACK_PATHS*1..]->(g:Group)) RETURN m, p',
  'MATCH (m:Computer) WITH m LIMIT 3 MATCH (u:User)-[:MemberOf*1..2]->(g:Group) RETURN m, u, g',
  // Matches streamed into the grouping of the aggregating WITH / RETURN after the MATCH (compared in order too).
  'MATCH (n:Base)-[r:AD_ATTACK_PATHS]->(m:Base) WHERE NOT r:MemberOf AND NOT ((n:Tag_Tier_Zero) OR COALESCE(n.system_tags, "") CONTAINS "admin_tier_0") WITH n, COLLECT(DISTINCT(m)) AS endNodes WHERE SIZE(endNodes) >= 2 RETURN n, size(endNodes)',
  'MATCH (g:Group)<-[:MemberOf]-(u) RETURN g.name, count(u), collect(u.name), collect(DISTINCT u.enabled), min(u.name), max(u.name)',
  'MATCH (u:User) RETURN count(*), count(u.email), sum(size(u.name)), avg(size(u.name))',
  'MATCH (u:User)-[r]->(x) WITH u, type(r) AS t, count(*) AS c WHERE c > 1 RETURN u.name, t, c ORDER BY c DESC, u.name LIMIT 20',
  'MATCH p = (u:User)-[:MemberOf]->(g:Group)-[:MemberOf]->(h) RETURN h, collect(p) AS ps',
  'MATCH (g:Group)<-[:MemberOf]-(u) WITH g, count(u) AS c ORDER BY c DESC LIMIT 3 WHERE c > 1 RETURN g.name, c',
  'MATCH (n)-[r]->(m) WITH DISTINCT n, count(m) AS c, collect(DISTINCT type(r)) AS ts WHERE c >= 2 AND size(ts) > 1 RETURN n, c, ts ORDER BY c',
  'MATCH (n:Computer)-[r]-(m) WITH n, m, count(r) AS c WHERE (n)-[:MemberOf]->() RETURN n.name, m.name, c',
  // Objectid suffix tests decided by the objectid tail hashes while probing (the rest read their details).
  "MATCH (n:Base)-[:MemberOf*0..]->(m:Group) WHERE n.objectid =~ '.*-(S-1-5-32-544|512|519)$' OR m.objectid =~ '(?i).*-(513|515)' OR n.objectid =~ '.*-500' RETURN n, m",
  "MATCH p=(t:Group)<-[:MemberOf*..]-(s:Group) WHERE NOT s.objectid ENDS WITH '-512' AND NOT s.objectid ENDS WITH '-519' RETURN p",
  "MATCH (n)-[r]->(m) WHERE NOT (n.objectid ENDS WITH '-513' XOR m.objectid =~ '.*-(512|S-1-5-11)') RETURN n, m",
  'MATCH (n:NoSuchLabel) RETURN count(n)',
  'MATCH (n:NoSuchLabel) RETURN n.name, count(n)',
  'MATCH (n:Group) WHERE n.name STARTS WITH "DOMAIN" WITH n.name AS name, count(*) AS c MATCH (m:Group {name: name}) RETURN m, c',
  // A far end narrowed by a scan of its own conjuncts (a name prefix, an enabled flag) before the walk tests it.
  'MATCH p=(n:Base)-[:MemberOf]->(g:Group) WHERE n.name STARTS WITH "DOMAIN" RETURN p',
  'MATCH (g:Group)<-[:MemberOf*1..]-(u:User) WHERE u.enabled = true AND g.objectid ENDS WITH "-512" RETURN g.name, u.name',
  'UNWIND [1, 2, 3] AS x OPTIONAL MATCH (u:User)-[:MemberOf]->(g) WHERE g.name STARTS WITH "DOMAIN" RETURN x, u.name, g.name',
];

test('start candidates from relationship kinds, presence tests, relationship predicates, property columns and objectid suffixes: the same rows as without them', async () => {
  const t = await createTestApp();
  try {
    const files = readdirSync(FIXTURES).filter((f) => f.endsWith('.json') && !f.startsWith('expected')).sort();
    const outcomes = await ingestFiles(t.db, files.map((f) => ({ path: FIXTURES + f })));
    assert.deepEqual(outcomes.filter((o) => o.error), []);
    await analyzeGraph(t.db);
    const taken = { edgeAnchors: 0, presence: 0, edgePushdown: 0, matchOnce: 0, sqlNarrow: 0, columns: 0, streamAggregation: 0, groupsClosedEarly: 0, prefilter: 0, prefilterDropped: 0, wide: 0, wideScans: 0, edgeColumns: 0, farEnds: 0, storeScans: 0, storeProbes: 0, pairTests: 0, tailScans: 0 };
    const finalLimit = /\bLIMIT\s+\d+\s*;?\s*$/i;
    for (const query of [...CONSTRUCTED, ...AD_QUERIES.map((q) => q.query)]) {
      for (const text of finalLimit.test(query) ? [query.replace(finalLimit, ''), query] : [query]) {
        await compare(text, finalLimit.test(text));
      }
    }
    async function compare(text: string, limited: boolean) {
      const prepared = prepareCypher(text);
      // `store`: the node store read by every scan (storeFrom 0), the wide columns and the objectid tails, and used by the probe and prefilters.
      const run = async (options: ExecuteOptions, columns = true, wide = false, store = false) => {
        try {
          const source = new GraphSource(t.db, store ? { store: true, storeFrom: 0, wideScansFrom: 0, ...(wide ? { keptColumns: false, wideScansFrom: 0 } : {}) } : wide ? { keptColumns: false, wideScansFrom: 0, store: false } : { columns, store: false });
          try {
            return await runWith(source);
          } finally {
            taken.columns += source.stats.columnScans;
            taken.wideScans += source.stats.wideScans;
            taken.storeScans += source.stats.storeScans;
            taken.tailScans += source.stats.tailScans;
          }
        } catch (err) {
          if (err instanceof CypherError) return err.message;
          throw err;
        }
        async function runWith(source: GraphSource) {
          const result = await executeQuery(prepared, source, undefined, options);
          taken.edgeAnchors += options.edgeAnchors === false ? 0 : result.ctx.plan.edgeAnchorsTaken;
          taken.presence += options.presence === false ? 0 : result.ctx.plan.presenceTaken;
          taken.edgePushdown += options.edgePushdown === false ? 0 : result.ctx.plan.edgePushdownTaken;
          taken.matchOnce += options.matchOnce === false ? 0 : result.ctx.plan.matchOnceTaken;
          taken.sqlNarrow += result.ctx.plan.sqlNarrowTaken;
          taken.streamAggregation += options.streamAggregation === false ? 0 : result.ctx.plan.streamAggregationTaken;
          taken.groupsClosedEarly += result.ctx.plan.groupsClosedEarly;
          taken.prefilter += result.ctx.plan.prefilterTaken;
          taken.prefilterDropped += result.ctx.plan.prefilterDropped;
          taken.wide += result.ctx.plan.wideTaken;
          taken.edgeColumns += result.ctx.plan.edgeColumnsTaken;
          taken.farEnds += result.ctx.plan.farEndsTaken;
          taken.storeProbes += result.ctx.plan.storeTaken;
          taken.pairTests += options.pairTests === false ? 0 : result.ctx.plan.pairTestsTaken;
          return result.rows;
        }
      };
      const canonical = (rows: unknown[] | string) => (typeof rows === 'string' ? rows : limited ? rows.length : rows.map((r) => JSON.stringify(r)).sort());
      const plainRows = await run({ edgeAnchors: false, presence: false, edgePushdown: false, matchOnce: false, sqlNarrowAt: Infinity, streamAggregation: false, prefilter: false }, false);
      const plain = canonical(plainRows);
      // Streaming the matches into the grouping gives the very rows, in the same order.
      const rowsOf = (rows: unknown[] | string) => (typeof rows === 'string' ? rows : rows.map((r) => JSON.stringify(r)));
      assert.deepEqual(rowsOf(await run({ edgeAnchors: false, presence: false, edgePushdown: false, matchOnce: false, sqlNarrowAt: Infinity }, false)), rowsOf(plainRows), text);
      assert.deepEqual(canonical(await run({ edgeAnchors: false, presence: false, edgePushdown: false, matchOnce: false, sqlNarrowAt: Infinity })), plain, text);
      assert.deepEqual(canonical(await run({ sqlNarrowAt: 1 })), plain, text);
      // Every step's matches prefiltered; wide columns read for every key the probe, the prefilter and the scans meet.
      assert.deepEqual(canonical(await run({ sqlNarrowAt: 1, wideAt: 1 })), plain, text);
      assert.deepEqual(canonical(await run({ sqlNarrowAt: 1, wideAt: 1 }, true, true)), plain, text);
      assert.deepEqual(canonical(await run({ sqlNarrowAt: 1, wideAt: 1, prefilter: false }, true, true)), plain, text);
      assert.deepEqual(canonical(await run({ sqlNarrowAt: 1, farEnds: false })), plain, text);
      // The node store: every scan, wide column and objectid tail read from it; columns held for the probe and prefilters.
      assert.deepEqual(canonical(await run({}, true, false, true)), plain, text);
      assert.deepEqual(canonical(await run({ sqlNarrowAt: 1, wideAt: 1 }, true, false, true)), plain, text);
      assert.deepEqual(canonical(await run({ sqlNarrowAt: 1, wideAt: 1, farEnds: false }, true, true, true)), plain, text);
      assert.deepEqual(canonical(await run({ sqlNarrowAt: 1, wideAt: 1, pairTests: false }, true, false, true)), plain, text);
      assert.deepEqual(canonical(await run({ edgeAnchors: false, presence: false, edgePushdown: false })), plain, text);
      assert.deepEqual(canonical(await run({ presence: false, edgePushdown: false })), plain, text);
      assert.deepEqual(canonical(await run({ edgeAnchors: false, edgePushdown: false })), plain, text);
      assert.deepEqual(canonical(await run({ edgeAnchors: false, presence: false })), plain, text);
      assert.deepEqual(canonical(await run({})), plain, text);
    }
    assert.ok(taken.edgeAnchors >= 20, `start candidates from relationship kinds taken ${taken.edgeAnchors} times`);
    assert.ok(taken.presence >= 5, `presence tests taken ${taken.presence} times`);
    assert.ok(taken.edgePushdown >= 10, `relationship predicates pushed down ${taken.edgePushdown} times`);
    assert.ok(taken.matchOnce >= 10, `independent MATCH matched once ${taken.matchOnce} times`);
    assert.ok(taken.sqlNarrow >= 20, `one-node conjuncts tested in SQL first ${taken.sqlNarrow} times`);
    assert.ok(taken.columns >= 20, `scans from property columns taken ${taken.columns} times`);
    assert.ok(taken.streamAggregation >= 20, `matches streamed into a grouping ${taken.streamAggregation} times`);
    assert.ok(taken.prefilter >= 50, `steps prefiltered ${taken.prefilter} times`);
    assert.ok(taken.prefilterDropped >= 1000, `matches dropped by the prefilter: ${taken.prefilterDropped}`);
    assert.ok(taken.farEnds >= 10, `far ends narrowed by a scan ${taken.farEnds} times`);
    assert.ok(taken.edgeColumns >= 5, `relationship columns read for the prefilter ${taken.edgeColumns} times`);
    assert.ok(taken.wideScans >= 10, `scans from wide columns ${taken.wideScans} times`);
    assert.ok(taken.wide >= 20, `wide columns read for the probe and the prefilter ${taken.wide} times`);
    assert.ok(taken.groupsClosedEarly >= 100, `groups finished as their anchor changed: ${taken.groupsClosedEarly}`);
    assert.ok(taken.storeScans >= 20, `scans from the node store ${taken.storeScans} times`);
    assert.ok(taken.tailScans >= 3, `scans testing objectid suffixes inside ORs by the store's tail hashes ${taken.tailScans} times`);
    assert.ok(taken.pairTests >= 5, `start / far end comparisons tested by column codes ${taken.pairTests} times`);
    assert.ok(taken.storeProbes >= 20, `node store columns held for the probe and prefilters ${taken.storeProbes} times`);
  } finally {
    await t.close();
  }
});

test('kept property columns, wide columns, relationship columns and objectid suffixes follow every write to nodes and edges', async () => {
  const t = await createTestApp();
  try {
    const outcomes = await ingestFiles(t.db, readdirSync(FIXTURES).filter((f) => f.endsWith('.json') && !f.startsWith('expected')).sort().map((f) => ({ path: FIXTURES + f })));
    assert.deepEqual(outcomes.filter((o) => o.error), []);
    const { token } = await t.login('Read-Only');
    const names = async (query: string) => {
      const res = await t.request({ method: 'POST', url: '/api/v2/graphs/cypher', token, body: { query } });
      if (res.statusCode === 404) return [];
      assert.equal(res.statusCode, 200, res.body);
      return (res.json().data.literals as Array<{ value: string }>).map((l) => l.value).sort();
    };
    const probe = 'MATCH (n) WHERE n.scentprobe = 7 RETURN n.name';
    const suffix = "MATCH (n) WHERE n.objectid ENDS WITH '-424242' RETURN n.name";
    // The same through wide columns (every key read as one: scans and the probe over a step's matches).
    const wideNames = async (query: string) => {
      const result = await executeQuery(prepareCypher(query), new GraphSource(t.db, { keptColumns: false, wideScansFrom: 0, store: false }), undefined, { sqlNarrowAt: 1, wideAt: 1 });
      return result.rows.map((r) => Object.values(r)[0] as string).sort();
    };
    // The same through the node store (read by every scan, held for the probe; name and objectid tails from it too).
    const storeNames = async (query: string) => {
      const source = new GraphSource(t.db, { store: true, storeFrom: 0, wideScansFrom: 0 });
      const result = await executeQuery(prepareCypher(query), source, undefined, { sqlNarrowAt: 1, wideAt: 1 });
      assert.ok(source.storeHeld(), query);
      return result.rows.map((r) => Object.values(r)[0] as string).sort();
    };
    const byName = (name: unknown) => `MATCH (n) WHERE n.name = ${JSON.stringify(name)} AND n.scentprobe = 7 RETURN n.name`;
    const wideProbe = 'MATCH (n)-[r]->(m) WHERE n.scentprobe = 7 AND m.objectid <> n.name RETURN DISTINCT n.name';
    assert.deepEqual(await names(probe), []);
    assert.deepEqual(await names(suffix), []);
    assert.deepEqual(await wideNames(probe), []);
    assert.deepEqual(await wideNames(wideProbe), []);
    assert.deepEqual(await storeNames(probe), []);
    assert.deepEqual(await storeNames(suffix), []);
    assert.deepEqual(await storeNames(wideProbe), []);
    // A write through the database layer (as any ingest): the next scan reads the columns again.
    const node = await t.db.kysely.selectFrom('nodes').select(['id', 'objectid', 'name', 'properties']).where('kind', '=', 'User').orderBy('id').executeTakeFirstOrThrow();
    const objectid = `${node.objectid}-424242`;
    const properties = { ...JSON.parse(node.properties), scentprobe: 7, objectid };
    await t.db.kysely.updateTable('nodes').set({ properties: JSON.stringify(properties), objectid }).where('id', '=', node.id).execute();
    const name = (properties.name as string | undefined) ?? node.name;
    assert.deepEqual(await names(probe), [name]);
    assert.deepEqual(await names(suffix), [name]);
    assert.deepEqual(await wideNames(probe), [name]);
    assert.deepEqual(await storeNames(probe), [name]);
    assert.deepEqual(await storeNames(suffix), [name]);
    assert.deepEqual(await storeNames(byName(name)), [name]);
    // A name written: the store's name column follows (the property, as Cypher reads it).
    await t.db.kysely.updateTable('nodes').set({ properties: JSON.stringify({ ...properties, name: 'SCENT PROBE RENAMED' }) }).where('id', '=', node.id).execute();
    assert.deepEqual(await storeNames(byName('SCENT PROBE RENAMED')), ['SCENT PROBE RENAMED']);
    assert.deepEqual(await storeNames(byName(name)), []);
    await t.db.kysely.updateTable('nodes').set({ properties: JSON.stringify(properties) }).where('id', '=', node.id).execute();
    // Relationship columns (a step's prefilter reading `r.x` of its kinds) follow writes to edges.
    const edgeProbe = 'MATCH (a)-[r:MemberOf]->(b) WHERE r.scentprobe = 7 RETURN a.objectid';
    assert.deepEqual(await wideNames(edgeProbe), []);
    const edge = await t.db.kysely.selectFrom('edges').select(['id', 'start_id', 'properties']).where('kind', '=', 'MemberOf').orderBy('id').executeTakeFirstOrThrow();
    await t.db.kysely.updateTable('edges').set({ properties: JSON.stringify({ ...JSON.parse(edge.properties), scentprobe: 7 }) }).where('id', '=', edge.id).execute();
    const start = await t.db.kysely.selectFrom('nodes').select(['objectid', 'properties']).where('id', '=', edge.start_id).executeTakeFirstOrThrow();
    assert.deepEqual(await wideNames(edgeProbe), [(JSON.parse(start.properties).objectid as string | undefined) ?? start.objectid]);
    const outbound = Number((await t.db.kysely.selectFrom('edges').select((eb) => eb.fn.countAll().as('c')).where('start_id', '=', node.id).executeTakeFirstOrThrow()).c);
    assert.deepEqual(await wideNames(wideProbe), outbound > 0 ? [name] : []);
  } finally {
    await t.close();
  }
});

test('relationship properties are read only for the rows that the conjuncts on nodes keep, whatever their order', async () => {
  const t = await createTestApp();
  try {
    const outcomes = await ingestFiles(t.db, readdirSync(FIXTURES).filter((f) => f.endsWith('.json') && !f.startsWith('expected')).sort().map((f) => ({ path: FIXTURES + f })));
    assert.deepEqual(outcomes.filter((o) => o.error), []);
    const run = (q: string) => executeQuery(prepareCypher(q), new GraphSource(t.db));
    const all = (await run('MATCH (a)-[r]->(b) RETURN count(r) AS c')).rows[0].c as number;
    const crossing = (await run('MATCH (a)-[r]->(b) WHERE a.domainsid <> b.domainsid RETURN count(r) AS c')).rows[0].c as number;
    assert.ok(crossing < all / 2, `${crossing} of ${all} edges cross domains`);
    for (const q of ['MATCH (a)-[r]->(b) WHERE a.domainsid <> b.domainsid AND r.isacl RETURN r', 'MATCH (a)-[r]->(b) WHERE r.isacl AND a.domainsid <> b.domainsid RETURN r']) {
      const result = await run(q);
      assert.ok(result.ctx.edgeProps.size <= crossing, `${q}: read the properties of ${result.ctx.edgeProps.size} relationships, ${crossing} cross domains`);
    }
  } finally {
    await t.close();
  }
});
