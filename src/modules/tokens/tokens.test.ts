import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, errorOf, type TestApp } from '../../test/harness.ts';

let t: TestApp;
let admin: { token: string; userId: string };
let alice: { token: string; userId: string };
let bob: { token: string; userId: string };
before(async () => {
  t = await createTestApp();
  admin = await t.login('Administrator');
  alice = await t.login('User');
  bob = await t.login('Read-Only');
});
after(() => t.close());

const create = (token: string, body: unknown) => t.request({ method: 'POST', url: '/api/v2/tokens', token, body });
const list = (token: string, query?: Record<string, string | string[]>) => t.request({ method: 'GET', url: '/api/v2/tokens', token, query });
const remove = (token: string, id: string) => t.request({ method: 'DELETE', url: `/api/v2/tokens/${id}`, token });
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

test('create: own token, key shown once, BloodHound AuthToken shape', async () => {
  const res = await create(alice.token, { token_name: 'laptop' });
  assert.equal(res.statusCode, 200);
  const { data } = res.json();
  assert.deepEqual(Object.keys(data).sort(),
    ['created_at', 'deleted_at', 'hmac_method', 'id', 'key', 'last_access', 'name', 'updated_at', 'user_id']);
  assert.match(data.id, UUID);
  assert.equal(data.user_id, alice.userId);
  assert.equal(data.name, 'laptop');
  assert.equal(data.hmac_method, 'hmac-sha2-256');
  assert.equal(data.last_access, '0001-01-01T00:00:00Z');
  assert.equal(Buffer.from(data.key, 'base64').length, 48);
  const stored = await t.db.kysely.selectFrom('auth_tokens').selectAll().where('id', '=', data.id).executeTakeFirstOrThrow();
  assert.ok(!stored.key_sealed.includes(data.key), 'the key is not stored in clear');
  const listed = (await list(alice.token)).json().data.tokens.find((x: { id: string }) => x.id === data.id);
  assert.equal(listed.key, undefined);
  assert.equal(listed.name, 'laptop');
});

test('create for another user needs auth/ManageUsers; unknown user 404; bad input 400', async () => {
  assert.deepEqual(errorOf(await create(alice.token, { token_name: 'x', user_id: bob.userId })), { status: 403, messages: ['not authorized'] });
  const res = await create(admin.token, { token_name: 'for bob', user_id: bob.userId });
  assert.equal(res.statusCode, 200);
  assert.equal(res.json().data.user_id, bob.userId);
  assert.deepEqual(errorOf(await create(admin.token, { token_name: 'x', user_id: '00000000-0000-4000-8000-000000000000' })),
    { status: 404, messages: ['resource not found'] });
  assert.deepEqual(errorOf(await create(alice.token, { token_name: '', user_id: 'nope' })),
    { status: 400, messages: ['token_name must not be empty', 'user_id must be a UUID'] });
  assert.deepEqual(errorOf(await create(alice.token, { token_name: '   ' })), { status: 400, messages: ['token_name must not be empty'] });
});

test('permissions: Upload-Only cannot create tokens; no credentials is 401', async () => {
  const uploader = await t.login('Upload-Only');
  assert.deepEqual(errorOf(await create(uploader.token, { token_name: 'x' })), { status: 403, messages: ['not authorized'] });
  assert.deepEqual(errorOf(await t.request({ method: 'GET', url: '/api/v2/tokens' })), { status: 401, messages: ['authentication is invalid'] });
});

test('list: own tokens only without auth/ManageUsers; filters and sort', async () => {
  const carol = await t.login('User');
  for (const name of ['b-token', 'a-token', 'build bot']) assert.equal((await create(carol.token, { token_name: name })).statusCode, 200);
  const mine = (await list(carol.token, { sort_by: 'name' })).json().data.tokens;
  assert.deepEqual(mine.map((x: { name: string }) => x.name), ['a-token', 'b-token', 'build bot']);
  assert.ok(mine.every((x: { user_id: string }) => x.user_id === carol.userId));
  const desc = (await list(carol.token, { sort_by: '-name' })).json().data.tokens;
  assert.deepEqual(desc.map((x: { name: string }) => x.name), ['build bot', 'b-token', 'a-token']);
  const found = (await list(carol.token, { name: '~eq:BOT' })).json().data.tokens;
  assert.deepEqual(found.map((x: { name: string }) => x.name), ['build bot']);
  const byAdmin = (await list(admin.token, { user_id: carol.userId })).json().data.tokens;
  assert.equal(byAdmin.length, 3);
  const all = (await list(admin.token)).json().data.tokens;
  assert.ok(all.some((x: { user_id: string }) => x.user_id === alice.userId));
  assert.equal((await list(carol.token, { user_id: carol.userId })).json().data.tokens.length, 3);
  assert.deepEqual(errorOf(await list(carol.token, { user_id: alice.userId })), { status: 403, messages: ['not authorized'] });
  assert.deepEqual(errorOf(await list(carol.token, { user_id: `neq:${carol.userId}` })), { status: 403, messages: ['not authorized'] });
  assert.deepEqual(errorOf(await list(carol.token, { key: 'x' })), { status: 400, messages: ['the specified column cannot be filtered: key'] });
  assert.deepEqual(errorOf(await list(carol.token, { sort_by: 'key' })), { status: 400, messages: ['column format does not support sorting: key'] });
});

test('delete: own 200, someone else\'s 403 unless auth/ManageUsers, unknown 404, malformed 400', async () => {
  const own = (await create(alice.token, { token_name: 'temp' })).json().data.id;
  const bobs = (await create(bob.token, { token_name: 'bobs' })).json().data.id;
  assert.deepEqual(errorOf(await remove(alice.token, bobs)), { status: 403, messages: ['not authorized'] });
  const ok = await remove(alice.token, own);
  assert.equal(ok.statusCode, 200);
  assert.equal(ok.body, '');
  assert.deepEqual(errorOf(await remove(alice.token, own)), { status: 404, messages: ['resource not found'] });
  assert.equal((await remove(admin.token, bobs)).statusCode, 200);
  assert.deepEqual(errorOf(await remove(alice.token, 'not-a-uuid')), { status: 400, messages: ['id is malformed'] });
});
