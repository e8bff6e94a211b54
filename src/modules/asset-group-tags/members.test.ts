import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { createTestApp, errorOf, DIALECT, type TestApp } from '../../test/harness.ts';
import { upsertEdges, upsertNodes } from '../../graph/store.repository.ts';
import { refreshTagMemberships } from './membership.service.ts';
import { buildTagGraph, ENV, ENV2 } from '../../test/tag-graph.ts';

let t: TestApp;
let admin: string;
let reader: string;
let ids: Map<string, number>;
const TIER_ZERO = 1;
const OWNED = 2;

before(async () => {
  t = await createTestApp();
  admin = (await t.login('Administrator')).token;
  reader = (await t.login('Read-Only')).token;
  ids = await buildTagGraph(t.db);
  // Tier Zero: G1 and its descendants; Owned: everything in OU-1 and its parents; both via HTTP.
  const seed = (tag: number, body: unknown) =>
    t.request({ method: 'POST', url: `/api/v2/asset-group-tags/${tag}/selectors`, token: admin, body });
  assert.equal((await seed(TIER_ZERO, { name: 'admins', seeds: [{ type: 1, value: 'G1' }] })).statusCode, 201);
  assert.equal((await seed(TIER_ZERO, { name: 'outliers', expansion: 0, seeds: [{ type: 1, value: 'C1' }, { type: 1, value: 'P1' }] })).statusCode, 201);
  assert.equal((await seed(OWNED, { name: 'ou', expansion: 1, seeds: [{ type: 1, value: 'OU-1' }] })).statusCode, 201);
});
after(() => t.close());

const members = (query: Record<string, string | string[]> = {}, tag = TIER_ZERO, token = reader) =>
  t.request({ method: 'GET', url: `/api/v2/asset-group-tags/${tag}/members`, token, query });
const oids = (res: { json(): { data: { members: Array<{ object_id: string }> } } }) => res.json().data.members.map((m) => m.object_id);

test('members happy path: seeds, transitive children, node ids, spec 2.13 shape', async () => {
  const res = await members();
  assert.equal(res.statusCode, 200);
  const body = res.json();
  assert.deepEqual(Object.keys(body), ['count', 'skip', 'limit', 'data']);
  assert.equal(body.count, 6);
  assert.equal(body.skip, 0);
  assert.equal(body.limit, 50);
  const byOid = Object.fromEntries(body.data.members.map((m: { object_id: string }) => [m.object_id, m]));
  assert.deepEqual(Object.keys(byOid).sort(), ['C1', 'G1', 'G2', 'P1', 'U1', 'U2']);
  assert.deepEqual(byOid.U1, {
    id: ids.get('U1'), object_id: 'U1', environment_id: ENV, primary_kind: 'User', name: 'ALICE@CORP.LOCAL',
    properties: { name: 'ALICE@CORP.LOCAL', domainsid: ENV, enabled: true }, source: 2, asset_group_tag_id: TIER_ZERO,
  });
  assert.equal(byOid.G1.source, 1);
  assert.equal(byOid.C1.source, 1);
  assert.equal(byOid.U2.source, 2, 'nested group members are children too');
  const idsInOrder = body.data.members.map((m: { id: number }) => m.id);
  assert.deepEqual(idsInOrder, [...idsInOrder].sort((a: number, b: number) => a - b), 'default order is node id');
});

test('members: parent expansion (OUs up, not the domain nor groups, as BloodHound) and the lowest source wins', async () => {
  const res = await members({ sort_by: 'objectid' }, OWNED);
  const got = Object.fromEntries(res.json().data.members.map((m: { object_id: string; source: number }) => [m.object_id, m.source]));
  assert.deepEqual(got, { G1: 2, G2: 2, 'OU-1': 1, U1: 2, U2: 2, U3: 2 });
});

test('members filter: ~eq (index-served, short and long), eq/neq, OR within a column, environments', async () => {
  assert.deepEqual(oids(await members({ name: '~eq:alice' })), ['U1']);
  assert.deepEqual(oids(await members({ name: '~eq:Li' })), ['U1'], 'operand shorter than a trigram');
  assert.deepEqual(oids(await members({ name: '~eq:p%c' })), ['P1'], '% is literal');
  assert.deepEqual(oids(await members({ name: '~eq:a%c' })), []);
  assert.deepEqual(oids(await members({ name: ['~eq:alice', '~eq:nested'] })).sort(), ['G2', 'U1']);
  assert.deepEqual(oids(await members({ name: ['~eq:alice', 'eq:BOB@CORP.LOCAL'] })).sort(), ['U1', 'U2']);
  assert.deepEqual(oids(await members({ object_id: '~eq:g' })).sort(), ['G1', 'G2']);
  assert.deepEqual(oids(await members({ object_id: 'U2' })), ['U2']);
  assert.deepEqual(oids(await members({ primary_kind: 'eq:Group' })).sort(), ['G1', 'G2']);
  assert.deepEqual(oids(await members({ primary_kind: 'neq:User', name: 'neq:ADMINS@CORP.LOCAL' })).sort(), ['C1', 'G2']);
  const env = await members({ environments: [ENV2] });
  assert.equal(env.json().count, 1);
  assert.deepEqual(oids(env), ['C1']);
  assert.equal((await members({ environments: [ENV, ENV2], name: '~eq:corp' })).json().count, 5);
});

test('members sort: name, -name, objectid, -id', async () => {
  assert.deepEqual(oids(await members({ sort_by: 'name' })), ['G1', 'U1', 'U2', 'G2', 'P1', 'C1']);
  assert.deepEqual(oids(await members({ sort_by: '-name' })), ['C1', 'P1', 'G2', 'U2', 'U1', 'G1']);
  assert.deepEqual(oids(await members({ sort_by: 'objectid' })), ['C1', 'G1', 'G2', 'P1', 'U1', 'U2']);
  const asc = oids(await members());
  assert.deepEqual(oids(await members({ sort_by: '-id' })), [...asc].reverse());
});

test('members paging: skip/limit on the ord path and the filtered path, limit=0 = all', async () => {
  const all = oids(await members());
  const page = await members({ skip: '2', limit: '2' });
  assert.equal(page.json().count, 6);
  assert.deepEqual(oids(page), all.slice(2, 4));
  assert.deepEqual(oids(await members({ skip: '1', limit: '2', sort_by: '-id' })), [...all].reverse().slice(1, 3));
  assert.deepEqual(oids(await members({ skip: '1', limit: '2', name: '~eq:corp' })), ['G2', 'U1']);
  const rest = await members({ skip: '4', limit: '0' });
  assert.deepEqual([rest.json().limit, oids(rest)], [0, all.slice(4)]);
  const beyond = await members({ skip: '100' });
  assert.deepEqual([beyond.json().count, oids(beyond)], [6, []]);
});

test('members bad input: exact 400 messages', async () => {
  const cases: Array<[Record<string, string>, string]> = [
    [{ sort_by: 'kind' }, 'column format does not support sorting: kind'],
    [{ sort_by: '' }, 'empty sort_by parameter supplied'],
    [{ kind: 'eq:User' }, 'the specified column cannot be filtered: kind'],
    [{ name: 'gt:A' }, 'there are errors in the query parameter filters specified: name=gt:A (gt does not apply to a string column)'],
    // the newcomer's `name=foo:bar`: which parameter, and why
    [{ name: 'foo:bar' }, 'there are errors in the query parameter filters specified: name=foo:bar (a string operand may not contain a colon)'],
    [{ limit: '-1' }, 'query parameter "limit" is malformed'],
    [{ skip: 'x' }, 'query parameter "skip" is malformed'],
  ];
  for (const [query, message] of cases) assert.deepEqual(errorOf(await members(query)), { status: 400, messages: [message] }, message);
  const res = await t.request({ method: 'GET', url: '/api/v2/asset-group-tags/abc/members', token: reader });
  assert.deepEqual(errorOf(res), { status: 400, messages: ['id is malformed'] });
});

test('members 401, 403, 404', async () => {
  assert.deepEqual(errorOf(await members({}, TIER_ZERO, '')), { status: 401, messages: ['authentication is invalid'] });
  const uploader = (await t.login('Upload-Only')).token;
  assert.deepEqual(errorOf(await members({}, TIER_ZERO, uploader)), { status: 403, messages: ['not authorized'] });
  assert.deepEqual(errorOf(await members({}, 9999)), { status: 404, messages: ['resource not found'] });
  const counts = await t.request({ method: 'GET', url: '/api/v2/asset-group-tags/9999/members/counts', token: reader });
  assert.deepEqual(errorOf(counts), { status: 404, messages: ['resource not found'] });
});

test('member counts per primary kind, with environments', async () => {
  const res = await t.request({ method: 'GET', url: `/api/v2/asset-group-tags/${TIER_ZERO}/members/counts`, token: reader });
  assert.deepEqual(res.json(), { data: { total_count: 6, counts: { Computer: 1, Group: 2, User: 3 } } });
  const env = await t.request({ method: 'GET', url: `/api/v2/asset-group-tags/${TIER_ZERO}/members/counts`, token: reader, query: { environments: ENV } });
  assert.deepEqual(env.json(), { data: { total_count: 5, counts: { Group: 2, User: 3 } } });
});

test('membership follows the graph after an ingest (refreshTagMemberships) and selector deletes', async () => {
  await upsertNodes(t.db.kysely, [{ objectid: 'U9', kinds: ['User', 'Base'], name: 'NEWBIE@CORP.LOCAL', environmentId: ENV }]);
  await upsertEdges(t.db.kysely, [{ start: { objectid: 'U9' }, end: { objectid: 'G2' }, kind: 'MemberOf' }]);
  assert.equal((await members()).json().count, 6, 'materialised: unchanged until the analysis runs');
  await refreshTagMemberships(t.db);
  assert.ok(oids(await members()).includes('U9'));
  assert.deepEqual(oids(await members({ name: '~eq:newbie' })), ['U9']);
  const selectors = (await t.request({ method: 'GET', url: `/api/v2/asset-group-tags/${TIER_ZERO}/selectors`, token: reader })).json().data.selectors;
  const outliers = selectors.find((s: { name: string }) => s.name === 'outliers');
  const del = await t.request({ method: 'DELETE', url: `/api/v2/asset-group-tags/${TIER_ZERO}/selectors/${outliers.id}`, token: admin });
  assert.equal(del.statusCode, 204);
  assert.deepEqual(oids(await members()).sort(), ['G1', 'G2', 'U1', 'U2', 'U9']);
  assert.deepEqual(oids(await members({ name: '~eq:p%cent' })), [], 'index rows removed with the members');
});

test('~eq on name is served by the trigram index (query plan)', async () => {
  const plan = DIALECT === 'sqlite'
    ? await sql<{ detail: string }>`explain query plan select m.id from asset_group_tag_members m
        where m.tag_id = 1 and m.id in (select rowid from asset_group_tag_members_fts where asset_group_tag_members_fts match 'name : "ali"')`.execute(t.db.kysely)
    : await t.db.kysely.transaction().execute(async (trx) => {
      await sql`set local enable_seqscan = off`.execute(trx);
      return sql<{ 'QUERY PLAN': string }>`explain select m.id from asset_group_tag_members m
        where lower(m.name) like ('%' || lower(cast(${'ali'} as text)) || '%') escape '\\'`.execute(trx);
    });
  const text = plan.rows.map((r) => Object.values(r).join(' ')).join('\n');
  assert.match(text, DIALECT === 'sqlite' ? /VIRTUAL TABLE INDEX/ : /asset_group_tag_members_name_trgm/, text);
});

test('limit=0 on a tag larger than one stream batch: every member once, in order, valid JSON', async () => {
  const size = 2_050;
  const users = Array.from({ length: size }, (_, i) => ({ objectid: `BIG-${i}`, kinds: ['User', 'Base'], name: `BIG${i}@CORP.LOCAL`, environmentId: ENV }));
  await upsertNodes(t.db.kysely, [{ objectid: 'BIG-GROUP', kinds: ['Group', 'Base'], name: 'BIG@CORP.LOCAL', environmentId: ENV }, ...users]);
  await upsertEdges(t.db.kysely, users.map((u) => ({ start: { objectid: u.objectid }, end: { objectid: 'BIG-GROUP' }, kind: 'MemberOf' })));
  const tag = (await t.request({ method: 'POST', url: '/api/v2/asset-group-tags', token: admin, body: { name: 'Big', type: 2 } })).json().data;
  await t.request({ method: 'POST', url: `/api/v2/asset-group-tags/${tag.id}/selectors`, token: admin, body: { name: 'big', seeds: [{ type: 1, value: 'BIG-GROUP' }] } });
  const queries: Array<Record<string, string>> = [{ limit: '0' }, { limit: '0', skip: '5' }, { limit: '0', name: '~eq:big' }, { limit: '0', sort_by: '-name' }];
  for (const query of queries) {
    const res = await members(query, tag.id);
    assert.equal(res.statusCode, 200);
    const body = res.json();
    const skip = Number(query.skip ?? 0);
    assert.equal(body.count, size + 1);
    assert.equal(body.data.members.length, size + 1 - skip, JSON.stringify(query));
    assert.equal(new Set(oids(res)).size, size + 1 - skip);
  }
  const asc = (await members({ limit: '0' }, tag.id)).json().data.members.map((m: { id: number }) => m.id);
  assert.deepEqual(asc, [...asc].sort((a: number, b: number) => a - b));
});
