import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { errorOf } from '../../test/harness.ts';
import { axiosErrorOf, createClientApp, type ClientApp } from '../../test/http-client.ts';
import { assertShape, exact } from '../../test/shape.ts';
import { createUser } from '../users/users.service.ts';
import { issueSession } from '../../auth/sessions.ts';

/** GET /api/v2/sso-providers without authentication, and PATCH of an OIDC provider (CONTRACT §2, issue 13). */
let c: ClientApp;
let admin: string;
before(async () => {
  c = await createClientApp();
  admin = (await c.login('Administrator')).token;
});
after(() => c.close());

const valid = (name: string, extra: Record<string, unknown> = {}) => ({
  name, issuer: 'https://idp.example.test/realms/x', client_id: 'scent', config: { auto_provision: { enabled: false } }, ...extra,
});
const create = async (name: string, extra: Record<string, unknown> = {}) => {
  const res = await c.request({ method: 'POST', url: '/api/v2/sso-providers/oidc', token: admin, body: valid(name, extra) });
  assert.equal(res.statusCode, 200, res.body);
  return res.json().data as { id: number; sso_provider_id: number; client_id: string; issuer: string };
};
const patch = (id: number | string, body: unknown, token = admin) =>
  c.request({ method: 'PATCH', url: `/api/v2/sso-providers/${id}`, token, body });
const listed = async (name: string, token?: string) => {
  const res = await c.request({ method: 'GET', url: `/api/v2/sso-providers?name=${encodeURIComponent(name)}`, token });
  assert.equal(res.statusCode, 200, res.body);
  return res.json().data[0];
};

/** What a login page needs (BloodHound's login page reads these). */
const PUBLIC_PROVIDER = exact({
  id: 'integer', name: 'string', slug: 'string', type: 'string', login_uri: 'string', callback_uri: 'string',
  created_at: 'datetime', updated_at: 'datetime',
});

test('list without authentication (axios, as the login page): what a login page needs, no config or details', async () => {
  const p = await create('Public IdP');
  const res = await c.http().get('/api/v2/sso-providers');
  assert.equal(res.status, 200);
  const mine = res.data.data.find((x: { id: number }) => x.id === p.sso_provider_id);
  assertShape(mine, PUBLIC_PROVIDER);
  assert.equal(mine.slug, 'public-idp');
  assert.equal(mine.type, 'OIDC');
  assert.equal(mine.login_uri, `${c.config.rootUrl}/api/v2/sso/public-idp/login`);
  assert.equal(mine.callback_uri, `${c.config.rootUrl}/api/v2/sso/public-idp/callback`);
});

test('list: a signed-in user without auth/ManageProviders sees the public view; a manager sees config and details', async () => {
  await create('Viewed IdP');
  const { token } = await c.login('User');
  assertShape(await listed('Viewed IdP', token), PUBLIC_PROVIDER);
  const full = await c.http(admin).get('/api/v2/sso-providers?name=Viewed%20IdP');
  // BloodHound's SSOProvider type (js-client-library types.ts).
  assertShape(full.data, {
    data: [{
      id: 'integer', name: 'string', slug: 'string', type: 'string', login_uri: 'string', callback_uri: 'string',
      created_at: 'datetime', updated_at: 'datetime',
      details: { id: 'integer', client_id: 'string', issuer: 'string', sso_provider_id: 'integer', created_at: 'datetime', updated_at: 'datetime' },
      config: { auto_provision: { enabled: 'boolean', default_role_id: 'integer', role_provision: 'boolean' } },
    }],
  });
});

test('list: a bad or signed-out token is still 401 (as BloodHound: authentication runs before public routes)', async () => {
  assert.deepEqual(errorOf(await c.request({ method: 'GET', url: '/api/v2/sso-providers', token: 'not-a-jwt' })), {
    status: 401, messages: ['authentication is invalid'],
  });
  const { token } = await c.login('User');
  assert.equal((await c.request({ method: 'POST', url: '/api/v2/logout', token })).statusCode, 200);
  assert.deepEqual(axiosErrorOf(await c.http(token).get('/api/v2/sso-providers')), { status: 401, messages: ['authentication is invalid'] });
  assert.deepEqual(errorOf(await c.request({ method: 'GET', url: '/api/v2/sso-providers?issuer=x' })), {
    status: 400, messages: ['the specified column cannot be filtered: issuer'],
  });
});

test('PATCH: members given change, others stay; the slug follows the name; answers the OIDC provider', async () => {
  const p = await create('Before Rename');
  const res = await c.http(admin).patch(`/api/v2/sso-providers/${p.sso_provider_id}`, { name: 'After Rename', client_id: 'new-client' });
  assert.equal(res.status, 200);
  assertShape(res.data, { data: exact({ id: 'integer', client_id: 'string', issuer: 'string', sso_provider_id: 'integer', created_at: 'datetime', updated_at: 'datetime', deleted_at: 'object' }) });
  assert.equal(res.data.data.client_id, 'new-client');
  assert.equal(res.data.data.issuer, 'https://idp.example.test/realms/x');
  assert.equal(res.data.data.id, p.id);
  const after = await listed('After Rename', admin);
  assert.equal(after.slug, 'after-rename');
  assert.deepEqual(after.config, { auto_provision: { enabled: false, default_role_id: 0, role_provision: false } });
  assert.equal((await patch(p.sso_provider_id, { issuer: 'https://other.example.test/' })).json().data.issuer, 'https://other.example.test/');
  assert.equal((await listed('After Rename', admin)).details.client_id, 'new-client');
});

test('PATCH: config replaces auto provisioning; disabled provisioning is stored all-off; an unknown role is 400', async () => {
  const p = await create('Provisioned');
  assert.equal((await patch(p.sso_provider_id, { config: { auto_provision: { enabled: true, default_role_id: 3, role_provision: true } } })).statusCode, 200);
  assert.deepEqual((await listed('Provisioned', admin)).config, { auto_provision: { enabled: true, default_role_id: 3, role_provision: true } });
  assert.deepEqual(errorOf(await patch(p.sso_provider_id, { config: { auto_provision: { enabled: true, default_role_id: 999 } } })), {
    status: 400, messages: ['role id is invalid'],
  });
  assert.equal((await patch(p.sso_provider_id, { name: 'Provisioned' })).statusCode, 200);
  assert.deepEqual((await listed('Provisioned', admin)).config.auto_provision.default_role_id, 3, 'no config: unchanged');
  assert.equal((await patch(p.sso_provider_id, { config: { auto_provision: { enabled: false, default_role_id: 3, role_provision: true } } })).statusCode, 200);
  assert.deepEqual((await listed('Provisioned', admin)).config, { auto_provision: { enabled: false, default_role_id: 0, role_provision: false } });
});

test('PATCH: validation and 409s as create; nothing half-written', async () => {
  const p = await create('Patch Target');
  await create('Taken Name');
  assert.deepEqual(errorOf(await patch(p.sso_provider_id, { name: 'Taken Name' })), { status: 409, messages: ['sso provider name must be unique'] });
  assert.deepEqual(errorOf(await patch(p.sso_provider_id, { name: 'taken name', client_id: 'changed' })), { status: 409, messages: ['sso provider name must be unique'] });
  assert.equal((await listed('Patch Target', admin)).details.client_id, 'scent', 'the OIDC row did not change either');
  assert.deepEqual(errorOf(await patch(p.sso_provider_id, { name: '', issuer: 'not a url', client_id: 7, config: { auto_provision: { enabled: 'yes' } } })), {
    status: 400,
    messages: ['name must not be empty', 'issuer must be an absolute https URL (http only on loopback: localhost, 127.0.0.1, [::1])', 'client_id must be string', 'config.auto_provision.enabled must be boolean'],
  });
  assert.deepEqual(errorOf(await patch(p.sso_provider_id, { client_id: ' ' })), { status: 400, messages: ['client_id must not be empty'] });
  assert.deepEqual(errorOf(await patch(p.sso_provider_id, { name: '   ' })), { status: 400, messages: ['name must not be empty'] });
  assert.deepEqual(errorOf(await patch(p.sso_provider_id, { config: null })), { status: 400, messages: ['config must be object'] });
  assert.deepEqual(errorOf(await patch(p.sso_provider_id, 'name=x', admin)), { status: 400, messages: ['content type must be application/json'] });
  assert.deepEqual(errorOf(await patch(987654, { name: 'x' })), { status: 404, messages: ['resource not found'] });
  assert.deepEqual(errorOf(await patch('abc', { name: 'x' })), { status: 400, messages: ['id is malformed'] });
  const { token } = await c.login('Power User');
  assert.deepEqual(errorOf(await patch(p.sso_provider_id, { name: 'x' }, token)), { status: 403, messages: ['not authorized'] });
  assert.deepEqual(errorOf(await patch(p.sso_provider_id, { name: 'x' }, '')), { status: 401, messages: ['authentication is invalid'] });
  const still = await listed('Patch Target', admin);
  assert.equal(still.details.client_id, 'scent');
});

test('PATCH: the provider\'s users are signed out (their sign-in settings changed); others stay', async () => {
  const p = await create('Session Keeper');
  const linked = await createUser(c.db, { principalName: 'patched-sso', email: null, roleName: 'User', ssoProviderName: 'Session Keeper' });
  const { token: ssoToken } = await issueSession(c.db, c.config, { userId: linked.id }, 3600, 'oidc');
  const { token: bystander } = await c.login('User');
  assert.equal((await patch(p.sso_provider_id, { client_id: 'rotated' })).statusCode, 200);
  assert.deepEqual(errorOf(await c.request({ method: 'GET', url: '/api/v2/self', token: ssoToken })), { status: 401, messages: ['authentication is invalid'] });
  assert.equal((await c.request({ method: 'GET', url: '/api/v2/self', token: bystander })).statusCode, 200);
});
