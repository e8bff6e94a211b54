import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { upsertNodes } from '../graph/store.repository.ts';
import { refreshTagMemberships } from '../modules/asset-group-tags/membership.service.ts';
import { heldStore } from './node-store.ts';
import { cypherSeedNodes, SeedGraph, SelectorSource } from './selectors.ts';
import { executeQuery } from './execute.ts';
import { GraphSource } from './graph-source.ts';
import { prepareCypher } from './prepare.ts';
import { buildTagGraph, ENV } from '../test/tag-graph.ts';
import { createTestApp, errorOf, type TestApp } from '../test/harness.ts';

let t: TestApp;
let admin: string;
let tag: number;

const req = (method: 'GET' | 'POST' | 'PATCH', url: string, body?: unknown) =>
  t.request({ method, url: `/api/v2/asset-group-tags${url}`, token: admin, body });
const members = async (selector: number) => {
  const res = await req('GET', `/${tag}/selectors/${selector}/members?limit=0`);
  assert.equal(res.statusCode, 200, res.body);
  return Object.fromEntries(res.json().data.members.map((m: { object_id: string; source: number }) => [m.object_id, m.source]));
};

before(async () => {
  t = await createTestApp();
  admin = (await t.login('Administrator')).token;
  await buildTagGraph(t.db);
  tag = (await req('POST', '', { name: 'Cypher Lab', type: 2 })).json().data.id;
});
after(() => t.close());

test('a Cypher seed selects what its query returns, expanded like object-id seeds (identical membership)', async () => {
  const byId = await req('POST', `/${tag}/selectors`, { name: 'by id', seeds: [{ type: 1, value: 'G1' }] });
  const byCypher = await req('POST', `/${tag}/selectors`, { name: 'by cypher', seeds: [{ type: 2, value: "MATCH (g:Group) WHERE g.name STARTS WITH 'ADMINS@' RETURN g" }] });
  assert.deepEqual([byId.statusCode, byCypher.statusCode], [201, 201], byCypher.body);
  assert.deepEqual(byCypher.json().data.seeds.map((s: { type: number }) => s.type), [2]);
  const expected = await members(byId.json().data.id);
  assert.deepEqual(await members(byCypher.json().data.id), expected);
  assert.deepEqual(Object.keys(expected).sort(), ['G1', 'G2', 'U1', 'U2']);
  // Paths count too: every node on them is a seed.
  const paths = await req('POST', `/${tag}/selectors`, { name: 'paths', expansion: 0, seeds: [{ type: 2, value: 'MATCH p=(:User)-[:MemberOf]->(:Group {objectid: "G2"}) RETURN p' }] });
  assert.deepEqual(await members(paths.json().data.id), { U2: 1, G2: 1 });
});

test('membership follows the graph: re-derived after an ingest', async () => {
  const s = await req('POST', `/${tag}/selectors`, { name: 'enabled users', expansion: 0, seeds: [{ type: 2, value: 'MATCH (u:User) WHERE u.enabled = true RETURN u' }] });
  assert.deepEqual(await members(s.json().data.id), { U1: 1 });
  await upsertNodes(t.db.kysely, [{ objectid: 'U9', kinds: ['User', 'Base'], name: 'NEW@CORP.LOCAL', environmentId: ENV, properties: { enabled: true }, sourceKind: 'Base' }]);
  await refreshTagMemberships(t.db);
  assert.deepEqual(await members(s.json().data.id), { U1: 1, U9: 1 });
});

test('bad seeds: BloodHound\'s messages (type, mixed types, invalid or updating Cypher)', async () => {
  const post = (seeds: unknown) => req('POST', `/${tag}/selectors`, { name: `bad ${Math.random()}`, seeds });
  assert.deepEqual(errorOf(await post([{ type: 3, value: 'x' }])), { status: 400, messages: ['invalid seed type 3'] });
  assert.deepEqual(errorOf(await post([{ type: 1, value: 'G1' }, { type: 2, value: 'MATCH (n) RETURN n' }])), { status: 400, messages: ['all seeds must be of the same type'] });
  assert.deepEqual(errorOf(await post([{ type: 2, value: 'MATCH (n) RETURN' }])).messages[0].startsWith('cypher is invalid: line 1:16 unexpected end of query'), true);
  assert.deepEqual(errorOf(await post([{ type: 2, value: 'MATCH (n) DETACH DELETE n' }])), { status: 400, messages: ['cypher is invalid: line 1:10 updating clauses are not supported'] });
});

test('after an ingest the seeds read every node and only the edge kinds they name: the same nodes as through the engine', async () => {
  const lab = (await req('POST', '', { name: 'Seed Graph Lab', type: 2 })).json().data.id;
  const add = async (value: string) => {
    const res = await req('POST', `/${lab}/selectors`, { name: `seed ${Math.random()}`, expansion: 0, seeds: [{ type: 2, value }] });
    assert.equal(res.statusCode, 201, res.body);
  };
  await add('MATCH (u:User)-[:MemberOf*1..]->(g:Group {objectid: "G1"}) RETURN u');
  await add("MATCH (g:Group) WHERE g.name STARTS WITH 'NESTED@' RETURN g");
  // A shortest path's far end is scanned exactly: the Group predicate runs on the groups' rows only.
  await add("MATCH p = shortestPath((u:User)-[:MemberOf*1..]->(g:Group)) WHERE g.name STARTS WITH 'ADMINS@' RETURN p");
  await add('MATCH (o)-[:Contains]->(m:User) RETURN o, m');
  const seeds = (selected: Map<number, Set<number>>) => [...selected].map(([s, ids]) => [s, [...ids].sort((a, b) => a - b)]);
  const graph = new SeedGraph(t.db);
  const snapshot = await graph.snapshot();
  // The 4 MemberOf and 3 Contains edges of the test graph; nothing else.
  assert.equal(snapshot?.edgeCount, 7);
  const expected = seeds(await cypherSeedNodes(t.db, lab));
  assert.deepEqual(seeds(await cypherSeedNodes(t.db, lab, graph)), expected);
  const names = new Map((await t.db.kysely.selectFrom('nodes').select(['id', 'objectid']).execute()).map((n) => [Number(n.id), n.objectid]));
  assert.deepEqual(expected.map(([, ids]) => (ids as number[]).map((id) => names.get(id)).sort()), [
    ['U1', 'U2'], ['G2'], ['G1', 'G2', 'U1', 'U2'], ['OU-1', 'U3'],
  ]);
  // A pattern that names no kind needs every edge: the engine's view.
  await add('MATCH (n:User)-[]->(g:Group {objectid: "G2"}) RETURN n');
  const full = new SeedGraph(t.db);
  assert.equal(await full.snapshot(), null);
  assert.deepEqual(seeds(await cypherSeedNodes(t.db, lab, full)), seeds(await cypherSeedNodes(t.db, lab)));
});

test('the selectors\' source never reads the node store (a refresh after an ingest would hold every node\'s properties)', async () => {
  const own = await createTestApp();
  try {
    await buildTagGraph(own.db);
    // An objectid suffix over every node and a property, scanned as over a large graph (storeFrom 0): the scans a
    // query through the route answers from the store.
    const query = prepareCypher("MATCH (n) WHERE n.objectid ENDS WITH '1' AND n.name CONTAINS '@' RETURN n.objectid AS id ORDER BY id");
    const selected = await executeQuery(query, new SelectorSource(own.db, null, { storeFrom: 0 }));
    assert.deepEqual(selected.rows.map((r) => r.id), ['G1', 'OU-1', 'P1', 'U1']);
    assert.equal(heldStore(own.db), null);
    // The route's source does read it on the same scan (so the assertion above can fail).
    await executeQuery(query, new GraphSource(own.db, { storeFrom: 0 }));
    assert.notEqual(heldStore(own.db), null);
  } finally {
    await own.close();
  }
});
