import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { SignJWT, UnsecuredJWT, decodeJwt } from 'jose';
import { createTestApp, errorOf, type TestApp } from '../test/harness.ts';
import { setPassword } from '../modules/users/users.repository.ts';
import { createUser, disableUser } from '../modules/users/users.service.ts';
import { issueSession } from './sessions.ts';

let t: TestApp;
before(async () => {
  t = await createTestApp();
});
after(() => t.close());

const AUTH_INVALID = { status: 401, messages: ['authentication is invalid'] };
const self = (token?: string, headers?: Record<string, string>) => t.request({ method: 'GET', url: '/api/v2/self', token, headers });

test('no Authorization header, wrong scheme or garbage: 401', async () => {
  assert.deepEqual(errorOf(await self()), AUTH_INVALID);
  assert.deepEqual(errorOf(await self(undefined, { authorization: 'Basic YWRtaW46YWRtaW4=' })), AUTH_INVALID);
  assert.deepEqual(errorOf(await self(undefined, { authorization: 'Bearer' })), AUTH_INVALID);
  assert.deepEqual(errorOf(await self('not.a.jwt')), AUTH_INVALID);
});

test('tampered, unsigned, wrong-key and expired tokens: 401', async () => {
  const { token } = await t.login('User');
  const [h, p, s] = token.split('.');
  const claims = decodeJwt(token);
  const tampered = `${h}.${Buffer.from(JSON.stringify({ ...claims, sub: 'someone-else' })).toString('base64url')}.${s}`;
  assert.deepEqual(errorOf(await self(tampered)), AUTH_INVALID);
  const none = new UnsecuredJWT({ ...claims }).encode();
  assert.deepEqual(errorOf(await self(none)), AUTH_INVALID);
  const wrongKey = await new SignJWT({ ...claims }).setProtectedHeader({ alg: 'HS256' }).sign(new TextEncoder().encode('another-key-another-key-another-key!'));
  assert.deepEqual(errorOf(await self(wrongKey)), AUTH_INVALID);
  const hs512 = await new SignJWT({ ...claims }).setProtectedHeader({ alg: 'HS512' }).sign(new TextEncoder().encode(t.config.jwtSecret!));
  assert.deepEqual(errorOf(await self(hs512)), AUTH_INVALID);
  const user = await createUser(t.db, { principalName: 'short-lived', email: null, roleName: 'User' });
  // A 4 s session: valid at once (even on a loaded machine), refused once it has expired.
  const issued = Date.now();
  const { token: expiring } = await issueSession(t.db, t.config, { userId: user.id }, 4, 'test');
  const early = await self(expiring);
  if (Date.now() - issued < 3000) assert.equal(early.statusCode, 200);
  await new Promise((r) => setTimeout(r, Math.max(0, issued + 5100 - Date.now())));
  assert.deepEqual(errorOf(await self(expiring)), AUTH_INVALID);
  assert.ok(p);
});

test('login, self and logout; logout revokes at once', async () => {
  const user = await createUser(t.db, { principalName: 'alice', email: 'alice@example.test', roleName: 'Read-Only', password: 'correct horse' });
  const bad = await t.request({ method: 'POST', url: '/api/v2/login', body: { login_method: 'secret', username: 'alice', secret: 'wrong' } });
  assert.deepEqual(errorOf(bad), AUTH_INVALID);
  const unknown = await t.request({ method: 'POST', url: '/api/v2/login', body: { login_method: 'secret', username: 'nobody', secret: 'x' } });
  assert.deepEqual(errorOf(unknown), AUTH_INVALID);
  const res = await t.request({ method: 'POST', url: '/api/v2/login', body: { login_method: 'secret', username: 'alice', secret: 'correct horse' } });
  assert.equal(res.statusCode, 200);
  const { data } = res.json();
  assert.equal(data.user_id, user.id);
  assert.equal(data.auth_expired, false);
  const me = await self(data.session_token);
  assert.equal(me.statusCode, 200);
  const body = me.json().data;
  assert.equal(body.principal_name, 'alice');
  assert.deepEqual(body.email_address, { string: 'alice@example.test', valid: true });
  assert.deepEqual(body.sso_provider_id, { int32: 0, valid: false });
  assert.equal(body.roles[0].name, 'Read-Only');
  assert.equal(body.AuthSecret.digest_method, 'scrypt');
  assert.equal(body.AuthSecret.digest, undefined);
  assert.doesNotMatch(me.body, /scrypt\$/, 'the digest never leaves the server');
  assert.notEqual(body.last_login, '0001-01-01T00:00:00Z');
  const out = await t.request({ method: 'POST', url: '/api/v2/logout', token: data.session_token });
  assert.equal(out.statusCode, 200);
  assert.deepEqual(errorOf(await self(data.session_token)), AUTH_INVALID);
});

test('login: wrong login method and bad bodies are 400', async () => {
  const res = await t.request({ method: 'POST', url: '/api/v2/login', body: { login_method: 'totp', username: 'a', secret: 'b' } });
  assert.deepEqual(errorOf(res), { status: 400, messages: ['Login method totp is not supported.'] });
  const missing = await t.request({ method: 'POST', url: '/api/v2/login', body: { login_method: 'secret' } });
  assert.deepEqual(errorOf(missing), { status: 400, messages: ['username is required', 'secret is required'] });
});

test('disabled users: 403 on requests, and login refused', async () => {
  const user = await createUser(t.db, { principalName: 'bob', email: null, roleName: 'User' });
  await setPassword(t.db.kysely, user.id, 'pw-bob');
  const { token } = await issueSession(t.db, t.config, { userId: user.id }, 3600, 'test');
  await t.db.kysely.updateTable('users').set({ is_disabled: 1 }).where('id', '=', user.id).execute();
  assert.deepEqual(errorOf(await self(token)), { status: 403, messages: ['user is disabled'] });
  const login = await t.request({ method: 'POST', url: '/api/v2/login', body: { login_method: 'secret', username: 'bob', secret: 'pw-bob' } });
  assert.deepEqual(errorOf(login), { status: 403, messages: ['user is disabled'] });
  await disableUser(t.db, 'bob');
  assert.deepEqual(errorOf(await self(token)), AUTH_INVALID, 'disabling through the service revokes sessions');
});

test('deleted users lose their sessions', async () => {
  const { token, userId } = await t.login('User');
  await t.db.kysely.deleteFrom('users').where('id', '=', userId).execute();
  assert.deepEqual(errorOf(await self(token)), AUTH_INVALID);
});

test('missing permission: 403 not authorized', async () => {
  const { token } = await t.login('Read-Only');
  const res = await t.request({ method: 'POST', url: '/api/v2/sso-providers/oidc', token, body: {} });
  assert.deepEqual(errorOf(res), { status: 403, messages: ['not authorized'] });
});

test('the signing key is generated once and shared through the database', async () => {
  const other = await createTestApp({ jwtSecret: undefined });
  try {
    const user = await createUser(other.db, { principalName: 'carol', email: null, roleName: 'User' });
    const { token } = await issueSession(other.db, other.config, { userId: user.id }, 60, 'test');
    const row = await other.db.kysely.selectFrom('settings').selectAll().where('key', '=', 'jwt_signing_key').executeTakeFirstOrThrow();
    assert.ok(row.value.length >= 48);
    const res = await other.request({ method: 'GET', url: '/api/v2/self', token });
    assert.equal(res.statusCode, 200);
  } finally {
    await other.close();
  }
});
