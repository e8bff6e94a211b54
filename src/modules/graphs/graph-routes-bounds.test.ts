/**
 * Every route that answers from the graph honours the two bounds of CONTRACT §4 / §8, walked as one
 * table: `Prefer: wait=N` is applied (echoed in Preference-Applied) and a malformed preference is
 * the 400; an answer larger than --graph-result-limit is the 400 naming the bound. The deadline
 * itself (504) is checked inside the engine's traversals (src/graph/engine/deadline.test.ts) and on
 * PostgreSQL against a held lock there.
 */
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, errorOf, type TestApp } from '../../test/harness.ts';
import { upsertEdges, upsertNodes } from '../../graph/store.repository.ts';
import { graphLimitMessage } from '../../graph/answers/limits.ts';

const LIMIT = 4;
let t: TestApp;
let reader: string;
let ids: Map<string, number>;
before(async () => {
  t = await createTestApp({ graphResultLimit: LIMIT });
  reader = (await t.login('Read-Only')).token;
  const n = (objectid: string, kinds: string[], name = `${objectid}@CORP.LOCAL`) => ({ objectid, kinds, name, properties: { name }, sourceKind: 'Base' });
  // U ─MemberOf→ G1..G5 ; U ─AdminTo→ C1, C2 ─HasSession→ A ─MemberOf→ DA ; AZG ←AZMemberOf─ AZU1..AZU5
  await upsertNodes(t.db.kysely, [
    n('U', ['User', 'Base']), n('A', ['User', 'Base']), n('DA', ['Group', 'Base']), n('C1', ['Computer', 'Base']), n('C2', ['Computer', 'Base']),
    ...[1, 2, 3, 4, 5].map((i) => n(`G${i}`, ['Group', 'Base'], `GROUP${i}@CORP.LOCAL`)),
    n('AZG', ['AZGroup', 'AZBase']), ...[1, 2, 3, 4, 5].map((i) => n(`AZU${i}`, ['AZUser', 'AZBase'])),
    n('S-1-5-21-1', ['Domain', 'Base'], 'CORP.LOCAL'),
  ]);
  const e = (s: string, kind: string, d: string) => ({ start: { objectid: s }, end: { objectid: d }, kind });
  await upsertEdges(t.db.kysely, [
    ...[1, 2, 3, 4, 5].map((i) => e('U', 'MemberOf', `G${i}`)),
    e('U', 'AdminTo', 'C1'), e('U', 'AdminTo', 'C2'), e('C1', 'HasSession', 'A'), e('C2', 'HasSession', 'A'), e('A', 'MemberOf', 'DA'),
    ...[1, 2, 3, 4, 5].map((i) => e(`AZU${i}`, 'AZMemberOf', 'AZG')),
  ]);
  ids = new Map((await t.db.kysely.selectFrom('nodes').select(['objectid', 'id']).execute()).map((r) => [r.objectid, Number(r.id)]));
});
after(() => t.close());

interface Call { method: 'GET' | 'POST'; url: string; query?: Record<string, string>; body?: unknown }
const get = (url: string, query: Record<string, string> = {}): Call => ({ method: 'GET', url: `/api/v2/${url}`, query });
const cypher = (query: string): Call => ({ method: 'POST', url: '/api/v2/graphs/cypher', body: { query } });
const edge = () => ({ edge_type: 'MemberOf', source_node: String(ids.get('A')), target_node: String(ids.get('DA')) });
const send = (c: Call, prefer?: string) =>
  t.request({ method: c.method, url: c.url, token: reader, query: c.query, body: c.body, headers: prefer ? { prefer } : {} });

/** Routes answering within the bound. */
const small = (): Call[] => [
  get('users/U'), get('users/U/memberships', { limit: '2' }), get('groups/DA/members'), get('computers/C1/sessions', { type: 'graph' }),
  get('search', { q: 'GROUP1' }), get('graph-search', { query: 'GROUP1' }),
  get('graphs/shortest-path', { start_node: 'A', end_node: 'DA' }), get('pathfinding', { start_node: 'A', end_node: 'DA' }),
  get('graphs/kinds'), get('graphs/source-kinds'), get('available-domains'),
  get('graphs/acl-inheritance', edge()), get('graphs/edge-composition', edge()), get('graphs/relay-targets', edge()),
  get('azure/groups', { object_id: 'AZG' }), get('azure/groups', { object_id: 'AZG', related_entity_type: 'group-members', limit: '2' }),
  cypher("MATCH (n:Group {name: 'GROUP1@CORP.LOCAL'}) RETURN n"),
];

/** The same routes asked for more than the bound. */
const large = (): Call[] => [
  get('users/U/memberships', { limit: '0' }), get('users/U/memberships', { type: 'graph' }),
  get('search', { q: 'GROUP', limit: '0' }), get('graph-search', { query: 'GROUP' }),
  get('graphs/shortest-path', { start_node: 'U', end_node: 'DA' }), get('pathfinding', { start_node: 'U', end_node: 'DA' }),
  get('azure/groups', { object_id: 'AZG', related_entity_type: 'group-members', limit: '0' }),
  get('azure/groups', { object_id: 'AZG', related_entity_type: 'group-members', type: 'graph' }),
  cypher('MATCH p = (:User)-[:MemberOf]->(:Group) RETURN p'),
];

test('every graph route applies Prefer: wait and refuses a malformed one', async () => {
  for (const c of small()) {
    const label = `${c.method} ${c.url} ${JSON.stringify(c.query ?? c.body)}`;
    const ok = await send(c, 'wait=7');
    assert.equal(ok.statusCode, 200, `${label}: ${ok.body.slice(0, 300)}`);
    assert.equal(ok.headers['preference-applied'], 'wait=7', label);
    assert.deepEqual(errorOf(await send(c, 'wait=soon')), {
      status: 400, messages: ["Prefer header has an invalid value: expected 'wait=N' where N is -1 or a non-negative integer"],
    }, label);
  }
});

test('every graph route answers over --graph-result-limit with the 400 naming the bound', async () => {
  for (const c of large()) {
    const label = `${c.method} ${c.url} ${JSON.stringify(c.query ?? c.body)}`;
    assert.deepEqual(errorOf(await send(c)), { status: 400, messages: [graphLimitMessage(LIMIT)] }, label);
  }
});
