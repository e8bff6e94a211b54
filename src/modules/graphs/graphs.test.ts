import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, errorOf, type TestApp } from '../../test/harness.ts';
import { upsertEdges, upsertNodes } from '../../graph/store.repository.ts';

/*
 * Three shortest paths of length 3 from U1 to DA, one longer over ACL edges, one cheaper over an OpenGraph kind:
 *   U1 ─MemberOf→ G ─AdminTo→ C1 ─HasSession→ A1 ─MemberOf→ DA        (length 4: not shortest)
 *   U1 ─AdminTo→ C1, C2 ;  C1 ─HasSession→ A1 ;  C2 ─HasSession→ A1, A2 ;  A1, A2 ─MemberOf→ DA    (3 paths of length 3)
 *   U1 ─ForceChangePassword→ X ─MemberOf→ DA                           (length 2, only when ACL kinds are walked)
 *   U1 ─CustomLink→ DA                                                  (OpenGraph kind, not walked by default)
 *   OU ─Contains→ U1 (OU carries inheritance hash H; X has an inherited GenericAll from it)
 */
let t: TestApp;
let reader: string;
let ids: Map<string, number>;
before(async () => {
  t = await createTestApp();
  reader = (await t.login('Read-Only')).token;
  const n = (objectid: string, kind: string, props: Record<string, unknown> = {}) => ({ objectid, kinds: [kind, 'Base'], name: `${objectid}@T`, properties: { name: `${objectid}@T`, ...props }, sourceKind: 'Base' });
  await upsertNodes(t.db.kysely, [
    n('U1', 'User'), n('G', 'Group'), n('C1', 'Computer'), n('C2', 'Computer'), n('A1', 'User'), n('A2', 'User'), n('DA', 'Group'), n('X', 'User'),
    n('OU', 'OU', { inheritancehashes: ['H'] }), n('LONE', 'User'),
    { objectid: 'P1', kinds: ['Person'], name: 'P1', properties: {}, sourceKind: 'HR' },
  ]);
  const e = (s: string, k: string, d: string, properties?: Record<string, unknown>) => ({ start: { objectid: s }, end: { objectid: d }, kind: k, properties });
  await upsertEdges(t.db.kysely, [
    e('U1', 'MemberOf', 'G'), e('G', 'AdminTo', 'C1'), e('U1', 'AdminTo', 'C1'), e('U1', 'AdminTo', 'C2'),
    e('C1', 'HasSession', 'A1'), e('C2', 'HasSession', 'A1'), e('C2', 'HasSession', 'A2'), e('A1', 'MemberOf', 'DA'), e('A2', 'MemberOf', 'DA'),
    e('U1', 'ForceChangePassword', 'X'), e('X', 'MemberOf', 'DA'), e('U1', 'CustomLink', 'DA'),
    e('OU', 'Contains', 'X'), e('OU', 'GenericAll', 'X', { isacl: true, isinherited: true, inheritancehash: 'H' }),
  ]);
  ids = new Map((await t.db.kysely.selectFrom('nodes').select(['objectid', 'id']).execute()).map((r) => [r.objectid, Number(r.id)]));
});
after(() => t.close());

const get = (url: string, query: Record<string, string> = {}) => t.request({ method: 'GET', url: `/api/v2/${url}`, token: reader, query });
const oid = (id: string) => [...ids].find(([, v]) => String(v) === id)![0];
const pairs = (edges: Array<{ source: string; kind: string; target: string }>) => edges.map((e) => `${oid(e.source)}-${e.kind}->${oid(e.target)}`).sort();

test('shortest-path: every shortest path as a unified graph (no properties), with BloodHound\'s default kinds', async () => {
  const res = await get('graphs/shortest-path', { start_node: 'U1', end_node: 'DA', relationship_kinds: 'in:MemberOf,AdminTo,HasSession' });
  assert.equal(res.statusCode, 200);
  const { data } = res.json();
  assert.deepEqual(pairs(data.edges), [
    'A1-MemberOf->DA', 'A2-MemberOf->DA', 'C1-HasSession->A1', 'C2-HasSession->A1', 'C2-HasSession->A2', 'U1-AdminTo->C1', 'U1-AdminTo->C2',
  ]);
  assert.deepEqual(Object.keys(data.nodes).map(oid).sort(), ['A1', 'A2', 'C1', 'C2', 'DA', 'U1']);
  const u1 = data.nodes[String(ids.get('U1'))];
  assert.deepEqual({ ...u1, lastSeen: typeof u1.lastSeen }, { label: 'U1@T', kind: 'User', kinds: ['User', 'Base'], objectId: 'U1', isTierZero: false, isOwnedObject: false, lastSeen: 'string' });
  assert.deepEqual(Object.keys(data.edges[0]).sort(), ['kind', 'label', 'lastSeen', 'source', 'target']);
  // Default kinds: every AD and Azure kind, so the ACL path of length 2 wins; the OpenGraph kind is not walked.
  assert.deepEqual(pairs((await get('graphs/shortest-path', { start_node: 'u1', end_node: 'da' })).json().data.edges), ['U1-ForceChangePassword->X', 'X-MemberOf->DA']);
  assert.equal(pairs((await get('graphs/shortest-path', { start_node: 'U1', end_node: 'DA', relationship_kinds: 'nin:ForceChangePassword, GenericAll' })).json().data.edges).length, 7);
  assert.deepEqual(errorOf(await get('graphs/shortest-path', { start_node: 'U1', end_node: 'DA', relationship_kinds: 'nin:ForceChangePassword,HasSession' })), { status: 404, messages: ['resource not found'] });
  assert.deepEqual(pairs((await get('graphs/shortest-path', { start_node: 'U1', end_node: 'DA', relationship_kinds: 'in:CustomLink' })).json().data.edges), ['U1-CustomLink->DA']);
});

test('shortest-path: 404 without a path or for an unknown object id; 400 for malformed input', async () => {
  assert.deepEqual(errorOf(await get('graphs/shortest-path', { start_node: 'DA', end_node: 'U1' })), { status: 404, messages: ['resource not found'] });
  assert.deepEqual(errorOf(await get('graphs/shortest-path', { start_node: 'U1', end_node: 'LONE' })), { status: 404, messages: ['resource not found'] });
  assert.deepEqual(errorOf(await get('graphs/shortest-path', { start_node: 'U1', end_node: 'NOPE' })), { status: 404, messages: ['resource not found'] });
  const cases: Array<[Record<string, string>, string]> = [
    [{ end_node: 'DA' }, 'query parameter "start_node" is malformed'],
    [{ start_node: 'U1' }, 'query parameter "end_node" is malformed'],
    [{ start_node: '', end_node: 'DA' }, 'query parameter "start_node" is malformed'],
    [{ start_node: 'U1', end_node: 'DA', relationship_kinds: 'MemberOf' }, 'query parameter "relationship_kinds" is malformed'],
    [{ start_node: 'U1', end_node: 'DA', relationship_kinds: 'in:' }, 'query parameter "relationship_kinds" is malformed'],
    [{ start_node: 'U1', end_node: 'DA', relationship_kinds: 'in:MemberOf,NoSuchKind' }, 'query parameter "relationship_kinds" is malformed'],
    [{ start_node: 'U1', end_node: 'DA', other: 'x' }, 'the specified column cannot be filtered: other'],
  ];
  for (const [query, message] of cases) assert.deepEqual(errorOf(await get('graphs/shortest-path', query)), { status: 400, messages: [message] }, JSON.stringify(query));
});

test('pathfinding: shortest paths over every kind as a flat graph map; {} when there is none', async () => {
  const res = await get('pathfinding', { start_node: 'U1', end_node: 'DA' });
  assert.equal(res.statusCode, 200);
  const data = res.json().data as Record<string, { id1?: string; id2?: string; label: { text: string } }>;
  const links = Object.entries(data).filter(([k]) => k.startsWith('rel_')).map(([, v]) => `${oid(v.id1!)}-${v.label.text}->${oid(v.id2!)}`);
  assert.deepEqual(links, ['U1-CustomLink->DA']);
  assert.deepEqual(Object.keys(data).filter((k) => !k.startsWith('rel_')).map(oid).sort(), ['DA', 'U1']);
  assert.deepEqual((await get('pathfinding', { start_node: 'DA', end_node: 'U1' })).json(), { data: {} });
});

test('kinds and source kinds', async () => {
  const { kinds } = (await get('graphs/kinds')).json().data as { kinds: string[] };
  for (const k of ['User', 'AZUser', 'MemberOf', 'AZMemberOf', 'CustomLink', 'Person', 'Tag_Tier_Zero', 'Tag_Owned']) assert.ok(kinds.includes(k), k);
  assert.deepEqual(kinds, [...kinds].sort());
  assert.deepEqual((await get('graphs/source-kinds')).json(), { data: { kinds: [{ id: 1, name: 'Base' }, { id: 2, name: 'AZBase' }, { id: 3, name: 'HR' }, { id: 0, name: 'Sourceless' }] } });
});

test('edge routes: ACL inheritance path; composition and relay targets; 400 / 404', async () => {
  const q = (kind: string, from: string, to: string) => ({ edge_type: kind, source_node: String(ids.get(from)), target_node: String(ids.get(to)) });
  const res = await get('graphs/acl-inheritance', q('GenericAll', 'OU', 'X'));
  assert.equal(res.statusCode, 200);
  const { data } = res.json();
  assert.deepEqual(pairs(data.edges), ['OU-Contains->X', 'OU-GenericAll->X']);
  assert.deepEqual(data.edges.find((e: { kind: string }) => e.kind === 'GenericAll').properties, { isacl: true, isinherited: true, inheritancehash: 'H' });
  assert.deepEqual((await get('graphs/acl-inheritance', q('MemberOf', 'X', 'DA'))).json(), { data: { nodes: {}, edges: [] } }, 'not an inherited ACE');
  assert.deepEqual((await get('graphs/edge-composition', q('MemberOf', 'X', 'DA'))).json(), { data: { nodes: {}, edges: [] } });
  assert.deepEqual((await get('graphs/relay-targets', q('MemberOf', 'X', 'DA'))).json(), { data: { nodes: {}, edges: [] } });
  assert.deepEqual(errorOf(await get('graphs/edge-composition', q('AdminTo', 'X', 'DA'))), { status: 404, messages: ['resource not found'] });
  const cases: Array<[Record<string, string>, string]> = [
    [{ source_node: '1', target_node: '2' }, 'query parameter "edge_type" is malformed'],
    [{ edge_type: 'MemberOf', target_node: '2' }, 'query parameter "source_node" is malformed'],
    [{ edge_type: 'MemberOf', source_node: 'x', target_node: '2' }, 'query parameter "source_node" is malformed'],
    [{ edge_type: 'Member-Of', source_node: '1', target_node: '2' }, 'query parameter "edge_type" is malformed'],
  ];
  for (const [query, message] of cases) assert.deepEqual(errorOf(await get('graphs/acl-inheritance', query)), { status: 400, messages: [message] }, JSON.stringify(query));
});

test('graph answers over the configured bound are a 400 naming it', async () => {
  const small = await createTestApp({ graphResultLimit: 5 });
  try {
    const n = (objectid: string) => ({ objectid, kinds: ['User', 'Base'], name: objectid, properties: {}, sourceKind: 'Base' });
    await upsertNodes(small.db.kysely, ['S', 'M1', 'M2', 'E'].map(n));
    await upsertEdges(small.db.kysely, [['S', 'M1'], ['S', 'M2'], ['M1', 'E'], ['M2', 'E']].map(([s, d]) => ({ start: { objectid: s }, end: { objectid: d }, kind: 'AdminTo' })));
    const token = (await small.login('Read-Only')).token;
    const res = await small.request({ method: 'GET', url: '/api/v2/graphs/shortest-path', token, query: { start_node: 'S', end_node: 'E' } });
    assert.deepEqual(errorOf(res), { status: 400, messages: ['the answer would exceed the graph result limit of 5 nodes and edges (--graph-result-limit); narrow the request or page through it'] });
  } finally {
    await small.close();
  }
});
