import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, errorOf, type TestApp } from '../../test/harness.ts';

let t: TestApp;
let admin: string;
let reader: string;
before(async () => {
  t = await createTestApp();
  admin = (await t.login('Administrator')).token;
  reader = (await t.login('Read-Only')).token;
});
after(() => t.close());

const req = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, body?: unknown, token = admin) =>
  t.request({ method, url: `/api/v2/asset-group-tags${url}`, token, body });

test('seeded tags: Tier Zero (tier) and Owned (owned), BloodHound shape', async () => {
  const res = await req('GET', '', undefined, reader);
  assert.equal(res.statusCode, 200);
  const { tags } = res.json().data;
  assert.deepEqual(tags.map((x: { id: number; name: string; type: number }) => [x.id, x.name, x.type]), [[1, 'Tier Zero', 1], [2, 'Owned', 3]]);
  assert.deepEqual(Object.keys(tags[0]).sort(), [
    'analysis_enabled', 'created_at', 'created_by', 'deleted_at', 'deleted_by', 'description', 'glyph', 'id', 'kind_id', 'name',
    'position', 'require_certify', 'type', 'updated_at', 'updated_by',
  ]);
  const pick = (x: Record<string, unknown>) =>
    [x.kind_id, x.position, x.require_certify, x.analysis_enabled, x.glyph, x.deleted_at, x.deleted_by];
  const never = { time: '0001-01-01T00:00:00Z', valid: false };
  // Plain values or null, as BloodHound writes them; deleted_at keeps the seed's wrapper.
  assert.deepEqual(pick(tags[0]), [1, 1, false, true, 'gem', never, null]);
  assert.deepEqual(pick(tags[1]), [2, null, null, null, 'skull', never, null]);
  const one = await req('GET', '/1', undefined, reader);
  assert.equal(one.json().data.tag.name, 'Tier Zero');
  assert.equal(one.json().data.tag.counts, undefined);
});

test('create, read, update, delete a label tag', async () => {
  const created = await req('POST', '', { name: 'Crown Jewels', type: 2, description: 'db servers', require_certify: true });
  assert.equal(created.statusCode, 201);
  const tag = created.json().data;
  assert.deepEqual([tag.name, tag.type, tag.description, tag.require_certify, tag.kind_id, tag.analysis_enabled], ['Crown Jewels', 2, 'db servers', true, tag.id, null]);
  const patched = await req('PATCH', `/${tag.id}`, { name: 'Jewels', glyph: 'diamond' });
  assert.deepEqual([patched.statusCode, patched.json().data.name, patched.json().data.glyph], [200, 'Jewels', 'diamond']);
  const cleared = await req('PATCH', `/${tag.id}`, { glyph: null, require_certify: null });
  assert.deepEqual([cleared.json().data.glyph, cleared.json().data.require_certify], [null, null]);
  const tier = (await req('POST', '', { name: 'Tier One', type: 1, position: 2 })).json().data;
  assert.deepEqual([tier.analysis_enabled, tier.kind_id], [false, tier.id]);
  // The creator is shown by email address when one tag is read.
  const me = await t.db.kysely.selectFrom('users').select(['id', 'email_address']).where('id', '=', tier.created_by).executeTakeFirstOrThrow();
  assert.deepEqual([(await req('GET', `/${tier.id}`)).json().data.tag.created_by, tier.created_by], [me.email_address, me.id]);
  assert.equal((await req('DELETE', `/${tier.id}`)).statusCode, 204);
  assert.equal((await req('DELETE', `/${tag.id}`)).statusCode, 204);
  assert.deepEqual(errorOf(await req('GET', `/${tag.id}`)), { status: 404, messages: ['resource not found'] });
});

test('tag bad input: duplicate name 409, type owned 400, unknown field 400, malformed id, built-ins kept', async () => {
  assert.deepEqual(errorOf(await req('POST', '', { name: 'Owned', type: 2 })), { status: 409, messages: ['asset group tag name must be unique'] });
  assert.equal(errorOf(await req('POST', '', { name: 'X', type: 3 })).status, 400);
  assert.equal(errorOf(await req('POST', '', { name: 'X', type: 2, colour: 'red' })).status, 400);
  assert.equal(errorOf(await req('POST', '', { type: 2 })).status, 400);
  assert.deepEqual(errorOf(await req('PATCH', '/abc', { name: 'x' })), { status: 400, messages: ['id is malformed'] });
  assert.deepEqual(errorOf(await req('DELETE', '/1')), { status: 409, messages: ['a built-in asset group tag cannot be deleted'] });
  assert.deepEqual(errorOf(await req('DELETE', '/2')), { status: 409, messages: ['a built-in asset group tag cannot be deleted'] });
  assert.deepEqual(errorOf(await req('PATCH', '/999', { name: 'x' })), { status: 404, messages: ['resource not found'] });
});

test('tag permissions: reads need graphdb/Read, writes graphdb/Write; 401 without a token', async () => {
  assert.deepEqual(errorOf(await req('GET', '', undefined, '')), { status: 401, messages: ['authentication is invalid'] });
  assert.deepEqual(errorOf(await req('POST', '', { name: 'Nope', type: 2 }, reader)), { status: 403, messages: ['not authorized'] });
  assert.deepEqual(errorOf(await req('POST', '/1/selectors', { name: 'n', seeds: [{ type: 1, value: 'S' }] }, reader)), { status: 403, messages: ['not authorized'] });
  const uploader = (await t.login('Upload-Only')).token;
  assert.deepEqual(errorOf(await req('GET', '/1', undefined, uploader)), { status: 403, messages: ['not authorized'] });
  const power = (await t.login('Power User')).token;
  assert.equal((await req('POST', '', { name: 'Power label', type: 2 }, power)).statusCode, 201);
});

test('tags list: counts=true, BloodHound filters, unknown parameters 400', async () => {
  const sel = await req('POST', '/2/selectors', { name: 'owned seed', seeds: [{ type: 1, value: 'S-1-5-21-9-1' }] });
  assert.equal(sel.statusCode, 201);
  const counted = (await req('GET', '?counts=true&type=neq:2', undefined, reader)).json().data.tags;
  // Tier Zero: BloodHound's 42 default selectors (migration 0030)
  assert.deepEqual(counted.map((x: { counts: unknown }) => x.counts), [
    { selectors: 42, custom_selectors: 0, default_selectors: 42, disabled_selectors: 0, members: 0 },
    { selectors: 1, custom_selectors: 1, default_selectors: 0, disabled_selectors: 0, members: 0 },
  ]);
  const names = async (query: string) => (await req('GET', query, undefined, reader)).json().data.tags.map((x: { name: string }) => x.name);
  assert.deepEqual(await names('?type=3'), ['Owned']);
  assert.deepEqual(await names('?type=neq:3&name=~eq:zero'), ['Tier Zero']);
  assert.deepEqual(await names('?analysis_enabled=true'), ['Tier Zero']);
  assert.deepEqual(await names('?glyph=neq:null'), ['Tier Zero', 'Owned']);
  assert.deepEqual(await names('?require_certify=eq:null&type=3'), ['Owned']);
  assert.deepEqual(errorOf(await req('GET', '?nope=1', undefined, reader)), { status: 400, messages: ['the specified column cannot be filtered: nope'] });
  assert.deepEqual(errorOf(await req('GET', '?counts=maybe', undefined, reader)), { status: 400, messages: ['query parameter "counts" is malformed'] });
  assert.deepEqual(errorOf(await req('GET', '?type=gt:1', undefined, reader)), {
    status: 400, messages: ['the specified filter predicate is not supported for this column: type gt'],
  });
  assert.deepEqual(errorOf(await req('GET', '/1?x=1', undefined, reader)), { status: 400, messages: ['the specified column cannot be filtered: x'] });
  assert.equal((await req('DELETE', `/2/selectors/${sel.json().data.id}`)).statusCode, 204);
});

test('tag PATCH analysis_enabled: fixed for Tier Zero (403), zones only (400), multi-tier off (403)', async () => {
  assert.deepEqual(errorOf(await req('PATCH', '/1', { analysis_enabled: false })), { status: 403, messages: ['tier zero analysis_enabled cannot be modified'] });
  assert.deepEqual(errorOf(await req('PATCH', '/2', { analysis_enabled: true })), { status: 400, messages: ['only zones support modifying analysis_enabled'] });
  const tier = (await req('POST', '', { name: 'Tier Two', type: 1, position: 3 })).json().data;
  assert.deepEqual(errorOf(await req('PATCH', `/${tier.id}`, { analysis_enabled: true })), { status: 403, messages: ['multi-tier analysis is not enabled for privilege zones'] });
  assert.equal((await req('DELETE', `/${tier.id}`)).statusCode, 204);
});
