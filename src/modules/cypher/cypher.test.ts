import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { upsertEdges, upsertNodes } from '../../graph/store.repository.ts';
import { createTestApp, errorOf, type TestApp } from '../../test/harness.ts';
import { graphLimitMessage } from '../../graph/answers/limits.ts';
import { MUTATION_DENIED } from './cypher.routes.ts';

let t: TestApp;
let reader: string;
const URL = '/api/v2/graphs/cypher';
const D = 'S-1-5-21-1-2-3';

before(async () => {
  t = await createTestApp();
  reader = (await t.login('Read-Only')).token;
  await upsertNodes(t.db.kysely, [
    { objectid: `${D}-1001`, kinds: ['User', 'Base'], name: 'ALICE@CORP.LOCAL', environmentId: D, properties: { name: 'ALICE@CORP.LOCAL', enabled: true, hasspn: true, pwdlastset: 1000 }, sourceKind: 'Base' },
    { objectid: `${D}-1002`, kinds: ['User', 'Base'], name: 'BOB@CORP.LOCAL', environmentId: D, properties: { name: 'BOB@CORP.LOCAL', enabled: false }, sourceKind: 'Base' },
    { objectid: `${D}-512`, kinds: ['Group', 'Base'], name: 'DOMAIN ADMINS@CORP.LOCAL', environmentId: D, properties: { name: 'DOMAIN ADMINS@CORP.LOCAL' }, sourceKind: 'Base' },
    { objectid: `${D}-2001`, kinds: ['Computer', 'Base'], name: 'WS1.CORP.LOCAL', environmentId: D, properties: { name: 'WS1.CORP.LOCAL', enabled: true }, sourceKind: 'Base' },
  ]);
  await upsertEdges(t.db.kysely, [
    { start: { objectid: `${D}-1001` }, end: { objectid: `${D}-512` }, kind: 'MemberOf', properties: { isacl: false } },
    { start: { objectid: `${D}-2001` }, end: { objectid: `${D}-1002` }, kind: 'HasSession', properties: {} },
    { start: { objectid: `${D}-1002` }, end: { objectid: `${D}-2001` }, kind: 'AdminTo', properties: {} },
  ]);
});
after(() => t.close());

const run = (query: string, token = reader, extra: Record<string, unknown> = {}) =>
  t.request({ method: 'POST', url: URL, token, body: { query, ...extra } });

test('a node query answers BloodHound\'s unified graph: nodes keyed by id, no edges, no properties unless asked', async () => {
  const res = await run('MATCH (n:User) WHERE n.enabled = true RETURN n');
  assert.equal(res.statusCode, 200);
  assert.equal(res.headers['content-type'], 'application/json');
  const { data } = res.json();
  assert.deepEqual(Object.keys(data), ['nodes', 'edges']);
  const nodes = Object.values(data.nodes) as Array<Record<string, unknown>>;
  assert.equal(nodes.length, 1);
  assert.deepEqual(Object.keys(nodes[0]).sort(), ['isOwnedObject', 'isTierZero', 'kind', 'kinds', 'label', 'lastSeen', 'objectId']);
  assert.deepEqual([nodes[0].label, nodes[0].kind, nodes[0].kinds, nodes[0].objectId], ['ALICE@CORP.LOCAL', 'User', ['User', 'Base'], `${D}-1001`]);
  assert.match(nodes[0].lastSeen as string, /^\d{4}-\d\d-\d\dT/);
});

test('paths bring their nodes and edges; include_properties adds properties and the sorted key lists', async () => {
  const res = await run('MATCH p = (u:User)-[:MemberOf]->(g:Group) RETURN p', reader, { include_properties: true });
  assert.equal(res.statusCode, 200);
  const { data } = res.json();
  assert.deepEqual(Object.keys(data).sort(), ['edge_keys', 'edges', 'node_keys', 'nodes']);
  assert.equal(Object.keys(data.nodes).length, 2);
  assert.equal(data.edges.length, 1);
  const [edge] = data.edges;
  assert.deepEqual([edge.label, edge.kind, edge.properties], ['MemberOf', 'MemberOf', { isacl: false }]);
  assert.equal(data.nodes[edge.source].objectId, `${D}-1001`);
  assert.equal(data.nodes[edge.target].objectId, `${D}-512`);
  assert.deepEqual(data.edge_keys, ['isacl']);
  // objectid: every node has it, as in BloodHound's graph (these were stored without it).
  assert.deepEqual(data.node_keys, ['enabled', 'hasspn', 'name', 'objectid', 'pwdlastset']);
});

test('with include_properties every node has properties, a placeholder too (its objectid): bhcli reads them', async () => {
  await upsertEdges(t.db.kysely, [{ start: { objectid: `${D}-1002` }, end: { objectid: 'S-1-5-21-9-9-9-512', kinds: ['Group', 'Base'] }, kind: 'MemberOf', properties: {} }]);
  const res = await run("MATCH (g:Group) WHERE g.objectid = 'S-1-5-21-9-9-9-512' RETURN g", reader, { include_properties: true });
  assert.equal(res.statusCode, 200, res.body);
  assert.deepEqual(Object.values(res.json().data.nodes).map((n) => (n as { properties: unknown }).properties), [{ objectid: 'S-1-5-21-9-9-9-512' }]);
  const bare = await run("MATCH (g:Group) WHERE g.objectid = 'S-1-5-21-9-9-9-512' RETURN g");
  assert.equal('properties' in (Object.values(bare.json().data.nodes)[0] as object), false);
});

test('scalar columns come back as literals; an empty result is 404 resource not found', async () => {
  const res = await run('MATCH (n:User) RETURN count(n) AS users, collect(n.name) AS names');
  assert.equal(res.statusCode, 200);
  assert.deepEqual(res.json().data.literals, [{ key: 'users', value: 2 }, { key: 'names', value: ['ALICE@CORP.LOCAL', 'BOB@CORP.LOCAL'] }]);
  assert.deepEqual(errorOf(await run('MATCH (n:User) WHERE n.name = "NOBODY" RETURN n')), { status: 404, messages: ['resource not found'] });
});

test('syntax errors, unsupported constructs and mutations are 400 with the reason and its position', async () => {
  assert.deepEqual(errorOf(await run('MATCH (n:User)\nRETRUN n')), {
    status: 400, messages: ["line 2:0 mismatched input 'RETRUN' expecting {',', '-', ';', '<', 'CALL', 'CREATE', 'DELETE', 'DETACH', 'DROP', 'FOREACH', 'LOAD', 'MATCH', ...}"],
  });
  assert.deepEqual(errorOf(await run('CALL db.labels()')), { status: 400, messages: ['line 1:0 procedure invocation is not supported'] });
  assert.deepEqual(errorOf(await run('MATCH (n) DETACH DELETE n')), { status: 400, messages: ['line 1:10 updating clauses are not supported'] });
  assert.deepEqual(errorOf(await run('MATCH (n) WHERE n.name = $name RETURN n')), { status: 400, messages: ['line 1:25 user-specified parameters are not supported'] });
  assert.deepEqual(errorOf(await run('  ')), { status: 400, messages: ['invalid input'] });
  assert.deepEqual(errorOf(await run('RETURN 1 / 0')), { status: 400, messages: ['line 1:7 / by zero'] });
});

test('access: graphdb/Read; no token 401; a body without a query 400', async () => {
  const uploader = (await t.login('Upload-Only')).token;
  assert.deepEqual(errorOf(await run('MATCH (n) RETURN n', uploader)), { status: 403, messages: ['not authorized'] });
  assert.deepEqual(errorOf(await t.request({ method: 'POST', url: URL, body: { query: 'MATCH (n) RETURN n' } })), { status: 401, messages: ['authentication is invalid'] });
  const res = await t.request({ method: 'POST', url: URL, token: reader, body: {} });
  assert.equal(res.statusCode, 400);
});

const MUTATIONS: Array<[string, string]> = [
  ['CREATE (n:User {name: "X"})', 'line 1:0 updating clauses are not supported'],
  ["MERGE (n:User {name: 'X'}) RETURN n", 'line 1:0 updating clauses are not supported'],
  ["MATCH (n:User) SET n.owned = true RETURN n", 'line 1:15 updating clauses are not supported'],
  ['MATCH (n:User) DELETE n', 'line 1:15 updating clauses are not supported'],
  ['MATCH (n:User) REMOVE n.enabled RETURN n', 'line 1:15 updating clauses are not supported'],
  ["CALL db.labels() YIELD label RETURN label", 'line 1:0 procedure invocation is not supported'],
];

test('mutation refusal: every updating clause is a 400 naming where it is, and nothing changes', async () => {
  const admin = (await t.login('Administrator')).token;
  const before = await t.db.kysely.selectFrom('nodes').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  for (const [query, message] of MUTATIONS) assert.deepEqual(errorOf(await run(query, admin)), { status: 400, messages: [message] }, query);
  const after = await t.db.kysely.selectFrom('nodes').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  assert.equal(Number(after.n), Number(before.n));
});

test('with --cypher-mutations, a caller without graphdb/Mutate gets 403 (BloodHound\'s text); with it, shortcuts are refused and execution is not there yet', async () => {
  const m = await createTestApp({ cypherMutations: true });
  try {
    const token = (await m.login('Read-Only')).token;
    for (const [query] of MUTATIONS.slice(0, 5).filter(([q]) => !q.startsWith('MERGE'))) {
      assert.deepEqual(errorOf(await m.request({ method: 'POST', url: URL, token, body: { query } })), { status: 403, messages: [MUTATION_DENIED] }, query);
    }
    // MERGE is outside the subset even then (as in BloodHound's translation).
    assert.deepEqual(errorOf(await m.request({ method: 'POST', url: URL, token, body: { query: MUTATIONS[1][0] } })), { status: 400, messages: ['line 1:0 MERGE is not supported'] });
    const admin = (await m.login('Administrator')).token;
    const ask = (query: string) => m.request({ method: 'POST', url: URL, token: admin, body: { query } });
    assert.deepEqual(errorOf(await ask('MATCH (a)-[r:AD_ATTACK_PATHS]->(b) DELETE r')), { status: 400, messages: ['relationship type shortcuts are not supported in graph mutations'] });
    assert.deepEqual(errorOf(await ask('CREATE (n:User {name: "X"})')), { status: 400, messages: ['updating clauses are not supported yet'] });
    assert.equal((await ask('MATCH (n) RETURN count(n) AS n')).statusCode, 200, 'reads still run');
  } finally {
    await m.close();
  }
});

test('an answer over --graph-result-limit is a 400 naming the bound', async () => {
  const small = await createTestApp({ graphResultLimit: 2 });
  try {
    await upsertNodes(small.db.kysely, [1, 2, 3].map((i) => ({ objectid: `N-${i}`, kinds: ['User', 'Base'], name: `U${i}`, environmentId: null, properties: {}, sourceKind: 'Base' })));
    const token = (await small.login('Read-Only')).token;
    const res = await small.request({ method: 'POST', url: URL, token, body: { query: 'MATCH (n:User) RETURN n' } });
    assert.deepEqual(errorOf(res), { status: 400, messages: [graphLimitMessage(2)] });
    const ok = await small.request({ method: 'POST', url: URL, token, body: { query: 'MATCH (n:User) RETURN n LIMIT 2' } });
    assert.equal(ok.statusCode, 200);
  } finally {
    await small.close();
  }
});

test('shortestPath / allShortestPaths to one far end (an objectid) and to a label: every shortest path, or one', async () => {
  // SU ─AdminTo→ SC1, SC2 ; SC1 ─HasSession→ SA1 ; SC2 ─HasSession→ SA1, SA2 ; SA1, SA2 ─MemberOf→ ST ; SU ─GenericAll→ SX ─GenericAll→ SY ─MemberOf→ ST
  const n = (o: string, kind: string) => ({ objectid: o, kinds: [kind, 'Base'], name: `${o}@SP.LOCAL`, environmentId: 'SP', properties: { name: `${o}@SP.LOCAL` }, sourceKind: 'Base' });
  await upsertNodes(t.db.kysely, [n('SU', 'User'), n('SC1', 'Computer'), n('SC2', 'Computer'), n('SA1', 'User'), n('SA2', 'User'), n('ST', 'Group'), n('SX', 'User'), n('SY', 'User')]);
  const e = (s: string, kind: string, d: string) => ({ start: { objectid: s }, end: { objectid: d }, kind, properties: {} });
  await upsertEdges(t.db.kysely, [e('SU', 'AdminTo', 'SC1'), e('SU', 'AdminTo', 'SC2'), e('SC1', 'HasSession', 'SA1'), e('SC2', 'HasSession', 'SA1'), e('SC2', 'HasSession', 'SA2'),
    e('SA1', 'MemberOf', 'ST'), e('SA2', 'MemberOf', 'ST'), e('SU', 'GenericAll', 'SX'), e('SX', 'GenericAll', 'SY'), e('SY', 'MemberOf', 'ST')]);
  const paths = async (query: string) => {
    const res = await run(query);
    assert.equal(res.statusCode, 200, res.body);
    const { nodes, edges } = res.json().data as { nodes: Record<string, { objectId: string }>; edges: Array<{ source: string; kind: string; target: string }> };
    return edges.map((x) => `${nodes[x.source].objectId}-${x.kind}->${nodes[x.target].objectId}`).sort();
  };
  const all = ['SA1-MemberOf->ST', 'SA2-MemberOf->ST', 'SC1-HasSession->SA1', 'SC2-HasSession->SA1', 'SC2-HasSession->SA2', 'SU-AdminTo->SC1', 'SU-AdminTo->SC2',
    'SU-GenericAll->SX', 'SX-GenericAll->SY', 'SY-MemberOf->ST'];
  for (const far of ["(t:Group {objectid: 'ST'})", '(t:Group)']) {
    const where = far === '(t:Group)' ? " WHERE t.name STARTS WITH 'ST@'" : '';
    // Every shortest path (length 3): the three through the computers and the one through SX, SY.
    assert.deepEqual(await paths(`MATCH p = allShortestPaths((u:User {objectid: 'SU'})-[*1..]->${far})${where} RETURN p`), all, far);
    // Walked from the far end (an inbound pattern): the same paths.
    assert.deepEqual(await paths(`MATCH p = allShortestPaths(${far}<-[*1..]-(u:User {objectid: 'SU'}))${where} RETURN p`), all, far);
    // One path of length 3.
    const one = await paths(`MATCH p = shortestPath((u:User {objectid: 'SU'})-[*1..]->${far})${where} RETURN p`);
    assert.equal(one.length, 3, far);
    assert.ok(one.every((x) => all.includes(x)), far);
    // Kinds and bounds apply.
    assert.deepEqual(await paths(`MATCH p = shortestPath((u:User {objectid: 'SU'})-[:GenericAll|MemberOf*1..]->${far})${where} RETURN p`), ['SU-GenericAll->SX', 'SX-GenericAll->SY', 'SY-MemberOf->ST'], far);
    assert.equal((await run(`MATCH p = shortestPath((u:User {objectid: 'SU'})-[*1..2]->${far})${where} RETURN p`)).statusCode, 404, far);
  }
});
