import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, errorOf, type TestApp } from '../../test/harness.ts';
import { buildTagGraph, ENV, ENV2 } from '../../test/tag-graph.ts';

let t: TestApp;
let admin: string;
let reader: string;
let ids: Map<string, number>;
let tag: number;
let admins: { id: number; [k: string]: unknown };
let bob: { id: number; [k: string]: unknown };

const req = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, body?: unknown, token = admin) =>
  t.request({ method, url: `/api/v2/asset-group-tags${url}`, token, body });
const members = async (url: string) => {
  const res = await req('GET', url, undefined, reader);
  assert.equal(res.statusCode, 200, res.body);
  return Object.fromEntries(res.json().data.members.map((m: { object_id: string; source: number }) => [m.object_id, m.source]));
};

before(async () => {
  t = await createTestApp();
  admin = (await t.login('Administrator', { name: 'selector-admin' })).token;
  reader = (await t.login('Read-Only')).token;
  ids = await buildTagGraph(t.db);
  tag = (await req('POST', '', { name: 'Lab', type: 2 })).json().data.id;
  const a = await req('POST', `/${tag}/selectors`, { name: 'admins', description: 'the admins group', seeds: [{ type: 1, value: 'G1' }] });
  const b = await req('POST', `/${tag}/selectors`, { name: 'bob', expansion: 0, auto_certify: null, seeds: [{ type: 1, value: 'U2' }, { type: 1, value: 'C1' }] });
  assert.deepEqual([a.statusCode, b.statusCode], [201, 201], a.body + b.body);
  admins = a.json().data;
  bob = b.json().data;
});
after(() => t.close());

test('a selector in BloodHound\'s shape: plain nullable values, seeds with selector_id', async () => {
  assert.deepEqual(Object.keys(admins), [
    'id', 'asset_group_tag_id', 'created_at', 'created_by', 'updated_at', 'updated_by', 'disabled_at', 'disabled_by', 'name',
    'description', 'auto_certify', 'is_default', 'allow_disable', 'expansion', 'seeds',
  ]);
  assert.deepEqual([admins.asset_group_tag_id, admins.disabled_at, admins.disabled_by, admins.auto_certify, admins.is_default, admins.allow_disable],
    [tag, null, null, 0, false, true]);
  assert.deepEqual(bob.seeds, [{ selector_id: bob.id, type: 1, value: 'C1' }, { selector_id: bob.id, type: 1, value: 'U2' }]);
  const one = (await req('GET', `/${tag}/selectors/${bob.id}`, undefined, reader)).json().data.selector;
  assert.equal(one.created_by, 'selector-admin@example.test', 'GET one shows the creator by email address');
  assert.deepEqual({ ...one, created_by: bob.created_by, updated_by: bob.updated_by }, bob);
});

test('selectors list: paged envelope, sort, BloodHound filters, counts per selector', async () => {
  const page = (await req('GET', `/${tag}/selectors?limit=1&skip=1&sort_by=-name`, undefined, reader)).json();
  assert.deepEqual([page.count, page.skip, page.limit, page.data.selectors.map((s: { name: string }) => s.name)], [2, 1, 1, ['admins']]);
  const names = async (query: string) =>
    (await req('GET', `/${tag}/selectors?${query}`, undefined, reader)).json().data.selectors.map((s: { name: string }) => s.name);
  assert.deepEqual(await names(''), ['admins', 'bob']);
  assert.deepEqual(await names('name=~eq:ADM'), ['admins']);
  assert.deepEqual(await names('description=~eq:group&is_default=false'), ['admins']);
  assert.deepEqual(await names('type=1&auto_certify=0&disabled_at=eq:null'), ['admins', 'bob']);
  assert.deepEqual(await names('type=neq:1'), []);
  const counted = (await req('GET', `/${tag}/selectors?counts=true`, undefined, reader)).json().data.selectors;
  assert.deepEqual(counted.map((s: { counts: unknown }) => s.counts), [{ members: 4 }, { members: 2 }]);
  const inEnv2 = (await req('GET', `/${tag}/selectors?counts=true&environments=${ENV2}`, undefined, reader)).json().data.selectors;
  assert.deepEqual(inEnv2.map((s: { counts: unknown }) => s.counts), [{ members: 0 }, { members: 1 }]);
  for (const [query, message] of [
    ['nope=1', 'the specified column cannot be filtered: nope'],
    ['sort_by=description', 'column format does not support sorting: description'],
    ['limit=-1', 'query parameter "limit" is malformed'],
    ['created_by=~eq:x', 'the specified filter predicate is not supported for this column: created_by ~eq'],
  ]) {
    assert.deepEqual(errorOf(await req('GET', `/${tag}/selectors?${query}`, undefined, reader)), { status: 400, messages: [message] }, query);
  }
});

test('selector members: what each selector selected, with its own source', async () => {
  assert.deepEqual(await members(`/${tag}/selectors/${admins.id}/members`), { G1: 1, G2: 2, U1: 2, U2: 2 });
  assert.deepEqual(await members(`/${tag}/selectors/${bob.id}/members`), { C1: 1, U2: 1 });
  assert.deepEqual(await members(`/${tag}/members`), { C1: 1, G1: 1, G2: 2, U1: 2, U2: 1 }, 'the tag: lowest source over its selectors');
  const res = (await req('GET', `/${tag}/selectors/${admins.id}/members?sort_by=-name&limit=2&environments=${ENV}`, undefined, reader)).json();
  assert.deepEqual([res.count, res.limit, res.data.members.map((m: { name: string }) => m.name)], [4, 2, ['NESTED@CORP.LOCAL', 'BOB@CORP.LOCAL']]);
  assert.deepEqual(res.data.members[1], {
    id: ids.get('U2'), object_id: 'U2', environment_id: ENV, primary_kind: 'User', name: 'BOB@CORP.LOCAL',
    properties: { name: 'BOB@CORP.LOCAL', domainsid: ENV }, source: 2, asset_group_tag_id: tag,
  });
  assert.deepEqual(errorOf(await req('GET', `/${tag}/selectors/${admins.id}/members?name=x`, undefined, reader)),
    { status: 400, messages: ['the specified column cannot be filtered: name'] });
});

test('selector member counts: per primary kind, environments filter, the tag\'s own counts as the union', async () => {
  const counts = async (url: string) => (await req('GET', url, undefined, reader)).json();
  assert.deepEqual(await counts(`/${tag}/selectors/${admins.id}/members/counts`), { data: { total_count: 4, counts: { Group: 2, User: 2 } } });
  assert.deepEqual(await counts(`/${tag}/selectors/${bob.id}/members/counts`), { data: { total_count: 2, counts: { Computer: 1, User: 1 } } });
  assert.deepEqual(await counts(`/${tag}/selectors/${bob.id}/members/counts?environments=${ENV2}`), { data: { total_count: 1, counts: { Computer: 1 } } });
  assert.deepEqual(await counts(`/${tag}/selectors/${bob.id}/members/counts?environments=${ENV}&environments=${ENV2}`),
    { data: { total_count: 2, counts: { Computer: 1, User: 1 } } });
  assert.deepEqual(errorOf(await req('GET', `/${tag}/selectors/999/members/counts`, undefined, reader)), { status: 404, messages: ['resource not found'] });
  assert.deepEqual(errorOf(await req('GET', `/${tag}/selectors/x/members/counts`, undefined, reader)), { status: 400, messages: ['id is malformed'] });
  assert.deepEqual(errorOf(await req('GET', `/${tag}/selectors/${bob.id}/members/counts?kind=User`, undefined, reader)),
    { status: 400, messages: ['the specified column cannot be filtered: kind'] });
  const uploader = (await t.login('Upload-Only')).token;
  assert.deepEqual(errorOf(await req('GET', `/${tag}/selectors/${bob.id}/members/counts`, undefined, uploader)), { status: 403, messages: ['not authorized'] });
});

test('member info: the member with its properties and the selectors that selected it', async () => {
  const res = await req('GET', `/${tag}/members/${ids.get('U2')}`, undefined, reader);
  assert.equal(res.statusCode, 200);
  const { member } = res.json().data;
  assert.deepEqual(Object.keys(member), [
    'id', 'object_id', 'environment_id', 'primary_kind', 'name', 'properties', 'source', 'asset_group_tag_id', 'selectors',
  ]);
  assert.deepEqual([member.object_id, member.source, member.asset_group_tag_id, member.properties.name], ['U2', 1, tag, 'BOB@CORP.LOCAL']);
  assert.deepEqual(member.selectors.map((s: { name: string }) => s.name), ['admins', 'bob']);
  assert.deepEqual(member.selectors[1], bob);
  assert.deepEqual(errorOf(await req('GET', `/${tag}/members/${ids.get('U4')}`, undefined, reader)), { status: 404, messages: ['resource not found'] });
  assert.deepEqual(errorOf(await req('GET', `/999/members/${ids.get('U2')}`, undefined, reader)), { status: 404, messages: ['resource not found'] });
  assert.deepEqual(errorOf(await req('GET', `/${tag}/members/x`, undefined, reader)), { status: 400, messages: ['id is malformed'] });
  assert.deepEqual(errorOf(await req('GET', `/${tag}/members/${ids.get('U2')}?a=1`, undefined, reader)), { status: 400, messages: ['the specified column cannot be filtered: a'] });
});

test('PATCH a selector: disabling refreshes membership; enabling brings it back', async () => {
  const disabled = await req('PATCH', `/${tag}/selectors/${bob.id}`, { id: bob.id, disabled: true });
  assert.equal(disabled.statusCode, 200, disabled.body);
  const row = await t.db.kysely.selectFrom('users').select('id').where('principal_name', '=', 'selector-admin').executeTakeFirstOrThrow();
  assert.equal(disabled.json().data.disabled_by, row.id);
  assert.match(disabled.json().data.disabled_at, /^\d{4}-\d\d-\d\dT/);
  assert.deepEqual(await members(`/${tag}/members`), { G1: 1, G2: 2, U1: 2, U2: 2 }, 'C1 left, U2 now reached only as a child');
  assert.deepEqual(errorOf(await req('GET', `/${tag}/selectors/${bob.id}/members`, undefined, reader)), { status: 409, messages: ['selector is disabled'] });
  assert.deepEqual(errorOf(await req('GET', `/${tag}/members/${ids.get('C1')}`, undefined, reader)), { status: 404, messages: ['resource not found'] });
  const counted = (await req('GET', `/${tag}/selectors?counts=true&disabled_at=neq:null`, undefined, reader)).json().data.selectors;
  assert.deepEqual(counted.map((s: { name: string; counts: unknown }) => [s.name, s.counts]), [['bob', { members: 0 }]]);

  const enabled = await req('PATCH', `/${tag}/selectors/${bob.id}`, { disabled: false, description: 'bob and a computer' });
  assert.deepEqual([enabled.json().data.disabled_at, enabled.json().data.disabled_by, enabled.json().data.description], [null, null, 'bob and a computer']);
  assert.deepEqual(await members(`/${tag}/members`), { C1: 1, G1: 1, G2: 2, U1: 2, U2: 1 });

  const reseeded = await req('PATCH', `/${tag}/selectors/${bob.id}`, { seeds: [{ type: 1, value: 'U4' }] });
  assert.deepEqual(reseeded.json().data.seeds, [{ selector_id: bob.id, type: 1, value: 'U4' }]);
  assert.deepEqual(await members(`/${tag}/selectors/${bob.id}/members`), { U4: 1 });
  await req('PATCH', `/${tag}/selectors/${bob.id}`, { seeds: [{ type: 1, value: 'U2' }, { type: 1, value: 'C1' }] });
});

test('PATCH / DELETE rules: auto_certify, names, default selectors, other tags', async () => {
  const patch = (body: unknown, selector = admins.id, tagId = tag) => req('PATCH', `/${tagId}/selectors/${selector}`, body);
  assert.deepEqual(errorOf(await patch({ auto_certify: 1 })), { status: 400, messages: ['auto_certify is only available for asset group tags of tag_type = 1 (zones)'] });
  assert.deepEqual(errorOf(await patch({ name: 'bob' })), { status: 409, messages: ['asset group tag selector name must be unique'] });
  assert.deepEqual(errorOf(await patch({ colour: 'red' })).status, 400);
  assert.deepEqual(errorOf(await req('POST', `/${tag}/selectors`, { name: 'admins', seeds: [{ type: 1, value: 'U1' }] })),
    { status: 409, messages: ['asset group tag selector name must be unique'] });
  assert.deepEqual(errorOf(await patch({ name: 'x' }, admins.id, 1)), { status: 404, messages: ['selector is not part of asset group tag'] });
  assert.deepEqual(errorOf(await req('GET', `/1/selectors/${admins.id}`, undefined, reader)), { status: 404, messages: ['selector is not part of asset group tag'] });
  assert.deepEqual(errorOf(await req('DELETE', `/1/selectors/${admins.id}`)), { status: 404, messages: ['selector is not part of asset group tag'] });
  assert.deepEqual(errorOf(await req('GET', `/${tag}/selectors/99999`, undefined, reader)), { status: 404, messages: ['resource not found'] });
  assert.deepEqual(errorOf(await req('GET', `/${tag}/selectors/abc`, undefined, reader)), { status: 400, messages: ['id is malformed'] });

  // Tier Zero (a zone) takes auto_certify 0..2; a default selector only changes auto_certify and disabled.
  const tz = (await req('POST', '/1/selectors', { name: 'tz default', auto_certify: 2, seeds: [{ type: 1, value: 'U3' }] })).json().data;
  assert.equal(tz.auto_certify, 2);
  assert.deepEqual(errorOf(await patch({ auto_certify: 3 }, tz.id, 1)), { status: 400, messages: ['auto_certify must be an input value of 0 to 2'] });
  await t.db.kysely.updateTable('asset_group_tag_selectors').set({ is_default: 1, allow_disable: 0 }).where('id', '=', tz.id).execute();
  assert.deepEqual(errorOf(await patch({ name: 'renamed' }, tz.id, 1)), { status: 403, messages: ['default selectors only support modifying auto_certify and disabled_at'] });
  assert.deepEqual(errorOf(await patch({ disabled: true }, tz.id, 1)), { status: 403, messages: ['this selector cannot be disabled'] });
  assert.equal((await patch({ auto_certify: 1 }, tz.id, 1)).json().data.auto_certify, 1);
  assert.deepEqual(errorOf(await req('DELETE', `/1/selectors/${tz.id}`)), { status: 403, messages: ['cannot delete a default selector'] });
  assert.deepEqual(errorOf(await patch({ name: 'x' }, tz.id, 1, )).status, 403);
  assert.deepEqual(errorOf(await req('PATCH', `/1/selectors/${tz.id}`, { name: 'x' }, reader)), { status: 403, messages: ['not authorized'] });
});

test('deleting a selector removes what it selected', async () => {
  const extra = (await req('POST', `/${tag}/selectors`, { name: 'dave', expansion: 0, seeds: [{ type: 1, value: 'U4' }] })).json().data;
  assert.equal((await members(`/${tag}/members`)).U4, 1);
  assert.equal((await req('DELETE', `/${tag}/selectors/${extra.id}`)).statusCode, 204);
  assert.equal((await members(`/${tag}/members`)).U4, undefined);
  const left = await t.db.kysely.selectFrom('asset_group_tag_selector_nodes').select('node_id').where('selector_id', '=', extra.id).execute();
  assert.deepEqual(left, []);
});
