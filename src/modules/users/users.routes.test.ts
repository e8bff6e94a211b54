import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { errorOf } from '../../test/harness.ts';
import { axiosErrorOf, createClientApp, type ClientApp } from '../../test/http-client.ts';
import { assertShape } from '../../test/shape.ts';
import { createUser } from './users.service.ts';

/** Users, roles, permissions and the EULA as BloodHound's routes and JS client use them. */
let c: ClientApp;
let admin: string;
let adminId: string;
before(async () => {
  c = await createClientApp();
  ({ token: admin, userId: adminId } = await c.login('Administrator'));
});
after(() => c.close());

const GOOD = 'Correct-Horse-7!';
const call = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE' | 'PUT', url: string, body?: unknown, token = admin) =>
  c.request({ method, url, body, token });
const createVia = async (body: Record<string, unknown>) => {
  const res = await call('POST', '/api/v2/bloodhound-users', body);
  assert.equal(res.statusCode, 200, res.body);
  return res.json().data as { id: string; principal_name: string };
};
const login = (username: string, secret: string) =>
  c.request({ method: 'POST', url: '/api/v2/login', body: { login_method: 'secret', username, secret } });
const roleId = async (name: string) => {
  const row = await c.db.kysely.selectFrom('roles').select('id').where('name', '=', name).executeTakeFirstOrThrow();
  return row.id;
};

/** BloodHound's JS client types (js-client-library types.ts) for what they name; the seed's wrappers elsewhere. */
const ROLE = { id: 'integer', name: 'string', description: 'string', permissions: [{ id: 'integer', name: 'string', authority: 'string' }] };
const USER = {
  id: 'uuid', roles: [ROLE], principal_name: 'string', last_login: 'datetime', created_at: 'datetime', updated_at: 'datetime',
  is_disabled: 'boolean', eula_accepted: 'boolean', AuthSecret: 'any|null',
  sso_provider_id: { int32: 'integer', valid: 'boolean' }, email_address: { string: 'string', valid: 'boolean' },
};

test('create (as the JS client\'s createUser sends it): 200 with the user; the password works', async () => {
  const http = c.http(admin);
  const res = await http.post('/api/v2/bloodhound-users', {
    first_name: 'Ada', last_name: 'Lovelace', email_address: 'ada@example.test', principal: 'ada', roles: [await roleId('User')], secret: GOOD,
    needs_password_reset: false,
  });
  assert.equal(res.status, 200);
  assertShape(res.data, { data: USER });
  const user = res.data.data;
  assert.equal(user.principal_name, 'ada');
  assert.deepEqual(user.first_name, { string: 'Ada', valid: true });
  assert.deepEqual(user.roles.map((r: { name: string }) => r.name), ['User']);
  assert.equal(user.AuthSecret.digest_method, 'scrypt');
  assert.equal(user.AuthSecret.digest, undefined);
  const session = await login('ada', GOOD);
  assert.equal(session.statusCode, 200);
  assert.equal(session.json().data.auth_expired, false);
  const got = await http.get(`/api/v2/bloodhound-users/${user.id}`);
  assertShape(got.data, { data: USER });
  assert.deepEqual(got.data.data.roles, user.roles);
});

test('create: validation as BloodHound (one role, known role ids, password rule, unique principal and e-mail)', async () => {
  const user = await roleId('User');
  const post = (body: unknown) => call('POST', '/api/v2/bloodhound-users', body);
  assert.deepEqual(errorOf(await post({ principal: 'two-roles', roles: [user, user + 1] })), { status: 400, messages: ['a user can only have one role'] });
  assert.deepEqual(errorOf(await post({ principal: 'no-such-role', roles: [999] })), { status: 400, messages: ['role id is invalid'] });
  assert.deepEqual(errorOf(await post({ principal: ' ', roles: [user] })), { status: 400, messages: ['principal must not be empty'] });
  assert.deepEqual(errorOf(await post({ principal: 'weak', secret: 'short' })), {
    status: 400,
    messages: ['secret must have at least 12 characters', 'secret must have at least 1 uppercase characters',
      'secret must have at least 1 special characters', 'secret must have at least 1 numeric characters'],
  });
  assert.deepEqual(errorOf(await post({ principal: 'weak2', secret: 'ALLUPPERCASE-12' })), {
    status: 400, messages: ['secret must have at least 1 lowercase characters'],
  });
  assert.deepEqual(errorOf(await post({ principal: 'sso', sso_provider_id: 4242 })), { status: 400, messages: ['sso provider id is invalid'] });
  assert.deepEqual(errorOf(await post({ principal: 'typed', roles: 'User', is_disabled: 'no' })), {
    status: 400, messages: ['roles must be array', 'is_disabled must be boolean'],
  });
  await createVia({ principal: 'unique-one', email_address: 'Unique@Example.test', roles: [user] });
  assert.deepEqual(errorOf(await post({ principal: 'unique-one', roles: [user] })), { status: 409, messages: ['principal name must be unique'] });
  assert.deepEqual(errorOf(await post({ principal: 'unique-two', email_address: 'unique@example.TEST' })), { status: 409, messages: ['email must be unique'] });
  const left = await c.db.kysely.selectFrom('users').select('principal_name').where('principal_name', 'in', ['unique-two', 'two-roles', 'weak', 'sso']).execute();
  assert.deepEqual(left, [], 'nothing half-written');
});

test('create: needs_password_reset gives a password that logs in once, restricted to setting a new one', async () => {
  const created = await createVia({ principal: 'resetme', roles: [await roleId('User')], secret: GOOD, needs_password_reset: true });
  const res = await login('resetme', GOOD);
  assert.equal(res.statusCode, 200);
  const { session_token: token, auth_expired } = res.json().data;
  assert.equal(auth_expired, true);
  assert.equal((await call('GET', '/api/v2/self', undefined, token)).statusCode, 200);
  assert.deepEqual(errorOf(await call('GET', '/api/v2/saved-queries', undefined, token)), { status: 403, messages: ['not authorized'] });
  const put = await call('PUT', `/api/v2/bloodhound-users/${created.id}/secret`, { current_secret: GOOD, secret: 'Brand-New-Pass-8' }, token);
  assert.equal(put.statusCode, 200, put.body);
  assert.equal(put.body, '');
  assert.equal((await call('GET', '/api/v2/saved-queries', undefined, token)).statusCode, 200, 'the same session has its rights back');
  assert.deepEqual(errorOf(await login('resetme', GOOD)), { status: 401, messages: ['authentication is invalid'] }, 'the old password is gone');
  assert.equal((await login('resetme', 'Brand-New-Pass-8')).json().data.auth_expired, false);
});

test('list: {data: {users}} with filters and sorting as BloodHound; errors', async () => {
  for (const name of ['list-b', 'list-a', 'list-c']) await createVia({ principal: name, email_address: `${name}@list.test`, roles: [await roleId('Read-Only')] });
  const get = (qs: string) => call('GET', `/api/v2/bloodhound-users?${qs}`);
  const names = async (qs: string) => (await get(qs)).json().data.users.map((u: { principal_name: string }) => u.principal_name);
  assert.deepEqual(await names('principal_name=~eq:list-&sort_by=-principal_name'), ['list-c', 'list-b', 'list-a']);
  assert.deepEqual(await names('email_address=list-a@list.test'), ['list-a']);
  assert.deepEqual(await names('principal_name=~eq:list-&principal_name=neq:list-b&sort_by=email_address'), ['list-a', 'list-c']);
  const res = await c.http(admin).get('/api/v2/bloodhound-users');
  assertShape(res.data, { data: { users: [USER] } });
  assert.deepEqual(errorOf(await get('role=x')), { status: 400, messages: ['the specified column cannot be filtered: role'] });
  assert.deepEqual(errorOf(await get('sort_by=roles')), { status: 400, messages: ['column format does not support sorting: roles'] });
  assert.deepEqual(errorOf(await get('created_at=gt:yesterday')), {
    status: 400, messages: ['there are errors in the query parameter filters specified: created_at=gt:yesterday (expected an RFC-3339 date-time such as 2024-01-02T03:04:05Z)'],
  });
  const { token } = await c.login('Power User');
  assert.deepEqual(errorOf(await call('GET', '/api/v2/bloodhound-users', undefined, token)), { status: 403, messages: ['not authorized'] });
});

test('get: malformed and unknown ids', async () => {
  assert.deepEqual(errorOf(await call('GET', '/api/v2/bloodhound-users/not-a-uuid')), { status: 400, messages: ['id is malformed'] });
  assert.deepEqual(errorOf(await call('GET', '/api/v2/bloodhound-users/00000000-0000-4000-8000-000000000000')), { status: 404, messages: ['resource not found'] });
});

test('patch (as the JS client\'s updateUser sends it): 200, empty body; names, role, disabling ends sessions', async () => {
  const target = await createVia({ principal: 'patch-me', email_address: 'patch@example.test', roles: [await roleId('Read-Only')], secret: GOOD });
  const { session_token } = (await login('patch-me', GOOD)).json().data;
  const res = await c.http(admin).patch(`/api/v2/bloodhound-users/${target.id}`, {
    first_name: 'Pat', last_name: 'Ch', email_address: 'patched@example.test', principal: 'patched', roles: [await roleId('Power User')], is_disabled: true,
  });
  assert.equal(res.status, 200);
  assert.equal(res.data, '');
  assert.equal(res.headers['content-type'], undefined);
  const user = (await call('GET', `/api/v2/bloodhound-users/${target.id}`)).json().data;
  assert.equal(user.principal_name, 'patched');
  assert.deepEqual(user.email_address, { string: 'patched@example.test', valid: true });
  assert.deepEqual(user.roles.map((r: { name: string }) => r.name), ['Power User']);
  assert.equal(user.is_disabled, true);
  assert.deepEqual(errorOf(await call('GET', '/api/v2/self', undefined, session_token)), { status: 401, messages: ['authentication is invalid'] });
  // Empty strings are ignored (BloodHound: only non-empty members change).
  assert.equal((await call('PATCH', `/api/v2/bloodhound-users/${target.id}`, { first_name: '', is_disabled: false })).statusCode, 200);
  const again = (await call('GET', `/api/v2/bloodhound-users/${target.id}`)).json().data;
  assert.deepEqual([again.first_name, again.is_disabled], [{ string: 'Pat', valid: true }, false]);
});

test('patch: BloodHound\'s refusals (self disable, own role, own SSO provider, role provisioning, duplicates)', async () => {
  const self = `/api/v2/bloodhound-users/${adminId}`;
  assert.deepEqual(errorOf(await call('PATCH', self, { is_disabled: true })), { status: 400, messages: ['user attempted to disable themselves'] });
  assert.deepEqual(errorOf(await call('PATCH', self, { roles: [await roleId('User')] })), { status: 400, messages: ['user attempted to change own role'] });
  const provider = (await call('POST', '/api/v2/sso-providers/oidc', {
    name: 'Provisioning IdP', issuer: 'https://idp.example.test', client_id: 'c',
    config: { auto_provision: { enabled: true, default_role_id: await roleId('User'), role_provision: true } },
  })).json().data;
  assert.deepEqual(errorOf(await call('PATCH', self, { sso_provider_id: provider.sso_provider_id })), {
    status: 400, messages: ['user attempted to change own SSO Provider'],
  });
  assert.equal((await call('PATCH', self, { first_name: 'Admin' })).statusCode, 200, 'own names may change');
  const provisioned = await createVia({ principal: 'provisioned', roles: [await roleId('User')], sso_provider_id: provider.sso_provider_id });
  assert.deepEqual(errorOf(await call('PATCH', `/api/v2/bloodhound-users/${provisioned.id}`, {
    roles: [await roleId('Administrator')], sso_provider_id: provider.sso_provider_id,
  })), { status: 400, messages: ['user attempted to change a role for a SSO Provider with role provision enabled'] });
  const other = await createVia({ principal: 'dup-target', email_address: 'dup@example.test' });
  await createVia({ principal: 'dup-holder', email_address: 'holder@example.test' });
  const url = `/api/v2/bloodhound-users/${other.id}`;
  assert.deepEqual(errorOf(await call('PATCH', url, { principal: 'dup-holder' })), { status: 409, messages: ['principal name must be unique'] });
  assert.deepEqual(errorOf(await call('PATCH', url, { email_address: 'HOLDER@example.test' })), { status: 409, messages: ['email must be unique'] });
  assert.deepEqual(errorOf(await call('PATCH', url, { roles: [1, 2] })), { status: 400, messages: ['a user can only have one role'] });
  assert.deepEqual(errorOf(await call('PATCH', '/api/v2/bloodhound-users/00000000-0000-4000-8000-000000000000', {})), { status: 404, messages: ['resource not found'] });
  assert.deepEqual(errorOf(await call('PATCH', '/api/v2/bloodhound-users/x', {})), { status: 400, messages: ['id is malformed'] });
});

test('patch: linking to a provider removes the password; absent sso_provider_id unlinks (as BloodHound); then a password again', async () => {
  const provider = (await call('POST', '/api/v2/sso-providers/oidc', { name: 'Link IdP', issuer: 'https://idp.example.test', client_id: 'c', config: {} })).json().data;
  const user = await createVia({ principal: 'linked', roles: [await roleId('User')], secret: GOOD });
  const url = `/api/v2/bloodhound-users/${user.id}`;
  assert.equal((await call('PATCH', url, { sso_provider_id: provider.sso_provider_id })).statusCode, 200);
  let got = (await call('GET', url)).json().data;
  assert.deepEqual([got.sso_provider_id, got.AuthSecret], [{ int32: provider.sso_provider_id, valid: true }, null]);
  assert.deepEqual(errorOf(await login('linked', GOOD)), { status: 401, messages: ['authentication is invalid'] });
  assert.deepEqual(errorOf(await call('PUT', `${url}/secret`, { secret: GOOD })), { status: 400, messages: ['Invalid operation, user is SSO'] });
  assert.deepEqual(errorOf(await call('DELETE', `${url}/secret`)), { status: 409, messages: ['user has SAML auth enabled'] });
  assert.equal((await call('PATCH', url, { first_name: 'Unlinked' })).statusCode, 200);
  got = (await call('GET', url)).json().data;
  assert.deepEqual(got.sso_provider_id, { int32: 0, valid: false });
  assert.equal((await call('PUT', `${url}/secret`, { secret: GOOD })).statusCode, 200);
  assert.equal((await login('linked', GOOD)).statusCode, 200);
});

test('a user unlinked by an SSO-provider delete can be given a password again', async () => {
  const provider = (await call('POST', '/api/v2/sso-providers/oidc', { name: 'Going IdP', issuer: 'https://idp.example.test', client_id: 'c', config: {} })).json().data;
  const user = await createUser(c.db, { principalName: 'orphan', email: null, roleName: 'User', ssoProviderName: 'Going IdP' });
  assert.deepEqual(errorOf(await call('PUT', `/api/v2/bloodhound-users/${user.id}/secret`, { secret: GOOD })), { status: 400, messages: ['Invalid operation, user is SSO'] });
  assert.equal((await call('DELETE', `/api/v2/sso-providers/${provider.sso_provider_id}`)).statusCode, 200);
  const res = await c.http(admin).put(`/api/v2/bloodhound-users/${user.id}/secret`, { secret: GOOD, needs_password_reset: true });
  assert.equal(res.status, 200);
  const session = await login('orphan', GOOD);
  assert.equal(session.statusCode, 200);
  assert.equal(session.json().data.auth_expired, true);
});

test('secret: one\'s own needs the current password; another\'s needs auth/ManageUsers; rules and ids', async () => {
  const me = await createVia({ principal: 'self-changer', roles: [await roleId('Read-Only')], secret: GOOD });
  const other = await createVia({ principal: 'someone-else', roles: [await roleId('Read-Only')], secret: GOOD });
  const { session_token: token } = (await login('self-changer', GOOD)).json().data;
  const mine = `/api/v2/bloodhound-users/${me.id}/secret`;
  assert.deepEqual(errorOf(await call('PUT', mine, { current_secret: 'wrong', secret: 'Another-Pass-9' }, token)), { status: 403, messages: ['Invalid current password'] });
  assert.deepEqual(errorOf(await call('PUT', mine, { secret: 'Another-Pass-9' }, token)), { status: 403, messages: ['Invalid current password'] });
  assert.deepEqual(errorOf(await call('PUT', mine, { current_secret: GOOD, secret: 'weak' }, token)), {
    status: 400,
    messages: ['secret must have at least 12 characters', 'secret must have at least 1 uppercase characters',
      'secret must have at least 1 special characters', 'secret must have at least 1 numeric characters'],
  });
  assert.deepEqual(errorOf(await call('PUT', mine, { current_secret: GOOD }, token)), { status: 400, messages: ['secret is required'] });
  assert.deepEqual(errorOf(await call('PUT', `/api/v2/bloodhound-users/${other.id}/secret`, { secret: 'Another-Pass-9' }, token)), {
    status: 403, messages: ['not authorized'],
  });
  assert.deepEqual(errorOf(await call('DELETE', `/api/v2/bloodhound-users/${other.id}/secret`, undefined, token)), { status: 403, messages: ['not authorized'] });
  assert.equal((await c.http(token).put(mine, { current_secret: GOOD, secret: 'Another-Pass-9', needs_password_reset: false })).status, 200);
  assert.equal((await login('self-changer', 'Another-Pass-9')).statusCode, 200);
  assert.deepEqual(errorOf(await call('PUT', '/api/v2/bloodhound-users/nope/secret', { secret: GOOD })), { status: 400, messages: ['id is malformed'] });
  assert.deepEqual(errorOf(await call('PUT', '/api/v2/bloodhound-users/00000000-0000-4000-8000-000000000000/secret', { secret: GOOD })), {
    status: 404, messages: ['resource not found'],
  });
  const upload = await c.login('Upload-Only');
  assert.deepEqual(errorOf(await call('PUT', mine, { secret: GOOD }, upload.token)), { status: 403, messages: ['not authorized'] });
});

test('expire a password (axios body-less DELETE): the next login is restricted to setting a new one', async () => {
  const user = await createVia({ principal: 'expiring', roles: [await roleId('User')], secret: GOOD });
  const { session_token: before } = (await login('expiring', GOOD)).json().data;
  const res = await c.http(admin).delete(`/api/v2/bloodhound-users/${user.id}/secret`);
  assert.equal(res.status, 200);
  assert.equal(res.data, '');
  const after = (await login('expiring', GOOD)).json().data;
  assert.equal(after.auth_expired, true);
  assert.deepEqual(errorOf(await call('GET', '/api/v2/saved-queries', undefined, before)), { status: 403, messages: ['not authorized'] }, 'password sessions too');
  const noSecret = await createVia({ principal: 'no-secret' });
  assert.deepEqual(errorOf(await call('DELETE', `/api/v2/bloodhound-users/${noSecret.id}/secret`)), {
    status: 400, messages: ['user does not have a secret auth provider registered'],
  });
});

test('delete: 200 empty; sessions end; not yourself; unknown', async () => {
  const user = await createVia({ principal: 'doomed-user', roles: [await roleId('User')], secret: GOOD });
  const { session_token } = (await login('doomed-user', GOOD)).json().data;
  const res = await c.http(admin).delete(`/api/v2/bloodhound-users/${user.id}`);
  assert.equal(res.status, 200);
  assert.equal(res.data, '');
  assert.deepEqual(errorOf(await call('GET', '/api/v2/self', undefined, session_token)), { status: 401, messages: ['authentication is invalid'] });
  assert.deepEqual(errorOf(await call('GET', `/api/v2/bloodhound-users/${user.id}`)), { status: 404, messages: ['resource not found'] });
  assert.deepEqual(errorOf(await call('DELETE', `/api/v2/bloodhound-users/${user.id}`)), { status: 404, messages: ['resource not found'] });
  assert.deepEqual(errorOf(await call('DELETE', `/api/v2/bloodhound-users/${adminId}`)), { status: 400, messages: ['User cannot delete themselves'] });
});

test('accept-eula (the JS client\'s body-less PUT): 202, and the user has accepted', async () => {
  const { token, userId } = await c.login('Read-Only');
  await c.db.kysely.updateTable('users').set({ eula_accepted: 0 }).where('id', '=', userId).execute();
  const res = await c.http(token).put('/api/v2/accept-eula');
  assert.equal(res.status, 202);
  assert.equal(res.data, '');
  assert.equal((await call('GET', '/api/v2/self', undefined, token)).json().data.eula_accepted, true);
  assert.deepEqual(axiosErrorOf(await c.http().put('/api/v2/accept-eula')), { status: 401, messages: ['authentication is invalid'] });
});

test('roles and permissions (JS client getRoles / permissionList): lists, filters, one by id', async () => {
  const { token } = await c.login('Read-Only');
  const http = c.http(token);
  const roles = await http.get('/api/v2/roles');
  assertShape(roles.data, { data: { roles: [ROLE] } });
  assert.deepEqual(roles.data.data.roles.map((r: { name: string }) => r.name), ['Administrator', 'Power User', 'User', 'Read-Only', 'Upload-Only']);
  const admins = roles.data.data.roles[0];
  assert.equal(admins.permissions.length, 22);
  const one = await http.get(`/api/v2/roles/${admins.id}`);
  assert.deepEqual(one.data.data, admins);
  const names = (await http.get('/api/v2/roles?name=~eq:user&sort_by=-name')).data.data.roles.map((r: { name: string }) => r.name);
  assert.deepEqual(names, ['User', 'Power User']);
  const perms = await http.get('/api/v2/permissions?authority=auth&sort_by=name');
  assertShape(perms.data, { data: { permissions: [{ id: 'integer', name: 'string', authority: 'string', created_at: 'datetime' }] } });
  assert.deepEqual(perms.data.data.permissions.map((p: { name: string }) => p.name), ['AcceptEULA', 'CreateToken', 'ManageProviders', 'ManageSelf', 'ManageUsers', 'ReadUsers']);
  const p = perms.data.data.permissions[0];
  assert.deepEqual((await http.get(`/api/v2/permissions/${p.id}`)).data.data, p);
  assert.deepEqual(axiosErrorOf(await http.get('/api/v2/roles/999')), { status: 404, messages: ['resource not found'] });
  assert.deepEqual(axiosErrorOf(await http.get('/api/v2/permissions/x')), { status: 400, messages: ['id is malformed'] });
  assert.deepEqual(axiosErrorOf(await http.get('/api/v2/permissions?scope=x')), { status: 400, messages: ['the specified column cannot be filtered: scope'] });
  assert.deepEqual(axiosErrorOf(await http.get('/api/v2/roles?sort_by=permissions')), { status: 400, messages: ['column format does not support sorting: permissions'] });
  const upload = await c.login('Upload-Only');
  assert.deepEqual(axiosErrorOf(await c.http(upload.token).get('/api/v2/roles')), { status: 403, messages: ['not authorized'] });
});

test('users minimal (the JS client\'s listUsersMinimal, for sharing saved queries): enabled users, names and e-mail only', async () => {
  const shown = await createVia({ principal: 'minimal-shown', first_name: 'Min', email_address: 'minimal@example.test' });
  const hidden = await createVia({ principal: 'minimal-hidden', email_address: 'minimal-hidden@example.test' });
  await call('PATCH', `/api/v2/bloodhound-users/${hidden.id}`, { is_disabled: true });
  const res = await c.http(admin).get('/api/v2/bloodhound-users-minimal?email_address=~eq:minimal');
  assertShape(res.data, { data: { users: [{ id: 'uuid', first_name: 'string|null', last_name: 'string|null', email_address: 'string|null' }] } });
  assert.deepEqual(res.data.data.users, [{ id: shown.id, email_address: 'minimal@example.test', first_name: 'Min', last_name: '' }]);
  assert.deepEqual(axiosErrorOf(await c.http(admin).get('/api/v2/bloodhound-users-minimal?principal_name=x')), {
    status: 400, messages: ['the specified column cannot be filtered: principal_name'],
  });
  const { token } = await c.login('User');
  assert.deepEqual(axiosErrorOf(await c.http(token).get('/api/v2/bloodhound-users-minimal')), { status: 403, messages: ['not authorized'] });
});
