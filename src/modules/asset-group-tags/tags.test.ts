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
    'created_at', 'created_by', 'deleted_at', 'deleted_by', 'description', 'glyph', 'id', 'name', 'position',
    'require_certify', 'type', 'updated_at', 'updated_by',
  ]);
  assert.deepEqual(tags[0].position, { int32: 1, valid: true });
  assert.deepEqual(tags[1].position, { int32: 0, valid: false });
  const one = await req('GET', '/1', undefined, reader);
  assert.equal(one.json().data.tag.name, 'Tier Zero');
});

test('create, read, update, delete a label tag', async () => {
  const created = await req('POST', '', { name: 'Crown Jewels', type: 2, description: 'db servers', require_certify: true });
  assert.equal(created.statusCode, 201);
  const tag = created.json().data;
  assert.deepEqual([tag.name, tag.type, tag.description, tag.require_certify], ['Crown Jewels', 2, 'db servers', { bool: true, valid: true }]);
  const patched = await req('PATCH', `/${tag.id}`, { name: 'Jewels', glyph: 'gem' });
  assert.deepEqual([patched.statusCode, patched.json().data.name, patched.json().data.glyph], [200, 'Jewels', { string: 'gem', valid: true }]);
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

test('selectors: create, list, delete; bad seeds 400; unknown selector 404', async () => {
  const created = await req('POST', '/2/selectors', { name: 'mine', seeds: [{ type: 1, value: 'S-1' }, { type: 1, value: 'S-1' }] });
  assert.equal(created.statusCode, 201);
  const sel = created.json().data;
  assert.deepEqual([sel.asset_group_tag_id, sel.expansion, sel.seeds], [2, 2, [{ type: 1, value: 'S-1' }]]);
  const list = await req('GET', '/2/selectors', undefined, reader);
  assert.deepEqual(list.json().data.selectors.map((s: { id: number }) => s.id), [sel.id]);
  assert.equal(errorOf(await req('POST', '/2/selectors', { name: 'cypher', seeds: [{ type: 2, value: 'MATCH (n) RETURN n' }] })).status, 400);
  assert.equal(errorOf(await req('POST', '/2/selectors', { name: 'none', seeds: [] })).status, 400);
  assert.equal(errorOf(await req('POST', '/2/selectors', { name: 'x', expansion: 4, seeds: [{ type: 1, value: 'S' }] })).status, 400);
  assert.deepEqual(errorOf(await req('DELETE', `/1/selectors/${sel.id}`)), { status: 404, messages: ['resource not found'] });
  assert.equal((await req('DELETE', `/2/selectors/${sel.id}`)).statusCode, 204);
  assert.deepEqual(errorOf(await req('GET', '/77/selectors')), { status: 404, messages: ['resource not found'] });
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
