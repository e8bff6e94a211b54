import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { buildApp } from '../../app.ts';
import { createTestApp, type TestApp } from '../../test/harness.ts';
import { setDisabled } from '../users/users.repository.ts';
import { followProvider, startTestIdp, type TestIdp } from '../../test/oidc-idp.ts';

const ROOT = 'http://scent.test';
const SLUGS = ['jit', 'closed', 'gone'];
let t: TestApp;
let idp: TestIdp;
let admin: string;
const ids: Record<string, number> = {};

before(async () => {
  idp = await startTestIdp('scent', SLUGS.map((s) => `${ROOT}/api/v2/sso/${s}/callback`));
  t = await createTestApp({ rootUrl: ROOT });
  admin = (await t.login('Administrator')).token;
  const roles = await t.db.kysely.selectFrom('roles').select(['id', 'name']).execute();
  const readOnly = roles.find((r) => r.name === 'Read-Only')!.id;
  for (const [name, ap] of [
    ['jit', { enabled: true, default_role_id: readOnly, role_provision: true }],
    ['closed', { enabled: false }],
    ['gone', { enabled: true, default_role_id: readOnly }],
  ] as const) {
    const res = await t.request({ method: 'POST', url: '/api/v2/sso-providers/oidc', token: admin, body: { name, issuer: idp.issuer, client_id: 'scent', config: { auto_provision: ap } } });
    assert.equal(res.statusCode, 200, res.body);
    ids[name] = res.json().data.sso_provider_id;
  }
});
after(async () => {
  await t.close();
  await idp.close();
});

let n = 0;
function account(extra: Partial<{ email: string; roles: string[]; email_verified: boolean }> = {}) {
  const sub = `sub-${++n}`;
  idp.accounts.set(sub, { sub, email: `person${n}@corp.test`, given_name: 'Pat', family_name: `Doe${n}`, ...extra });
  idp.nextAccount = sub;
  return idp.accounts.get(sub)!;
}

const cookieOf = (setCookie: string | string[] | undefined, name: string) =>
  [setCookie ?? []].flat().map((c) => c.split(';')[0]).find((c) => c.startsWith(`${name}=`))?.slice(name.length + 1);

/** Login → provider → back to the callback URL (not yet called). */
async function begin(slug: string) {
  const res = await t.request({ method: 'GET', url: `/api/v2/sso/${slug}/login` });
  assert.equal(res.statusCode, 302, res.body);
  const location = String(res.headers.location);
  const state = cookieOf(res.headers['set-cookie'], 'scent_oidc_state');
  return { location, state, callback: () => followProvider(location, `${ROOT}/api/v2/sso/${slug}/callback`) };
}

async function finish(url: URL, state: string | undefined) {
  const res = await t.request({ method: 'GET', url: url.pathname + url.search, headers: state ? { cookie: `scent_oidc_state=${state}` } : {} });
  assert.equal(res.statusCode, 302, res.body);
  const location = new URL(String(res.headers.location));
  return { location, error: location.searchParams.get('error'), token: cookieOf(res.headers['set-cookie'], 'token') };
}

async function signIn(slug: string) {
  const flow = await begin(slug);
  return finish(await flow.callback(), flow.state);
}

async function self(token: string) {
  const res = await t.request({ method: 'GET', url: '/api/v2/self', token });
  assert.equal(res.statusCode, 200, res.body);
  return res.json().data;
}

test('login: discovery, then a redirect to the provider with PKCE S256, state and nonce kept server-side', async () => {
  const { location, state } = await begin('jit');
  const url = new URL(location);
  assert.equal(url.origin, idp.issuer);
  const p = url.searchParams;
  assert.equal(p.get('client_id'), 'scent');
  assert.equal(p.get('response_type'), 'code');
  assert.equal(p.get('redirect_uri'), `${ROOT}/api/v2/sso/jit/callback`);
  assert.equal(p.get('code_challenge_method'), 'S256');
  assert.match(p.get('scope')!, /\bopenid\b/);
  assert.ok(p.get('code_challenge') && p.get('nonce'));
  assert.equal(p.get('state'), state);
  const row = await t.db.kysely.selectFrom('oidc_login_states').selectAll().where('state', '=', state!).executeTakeFirstOrThrow();
  assert.equal(row.sso_provider_id, ids.jit);
  assert.equal(row.nonce, p.get('nonce'));
});

test('callback: JIT provisioning with the default role, a session, a redirect to the UI', async () => {
  const who = account();
  const { location, error, token } = await signIn('jit');
  assert.equal(error, null);
  assert.equal(location.href, `${ROOT}/ui/home`);
  const user = await self(token!);
  assert.equal(user.principal_name, who.email);
  assert.deepEqual(user.email_address, { string: who.email, valid: true });
  assert.deepEqual(user.first_name, { string: 'Pat', valid: true });
  assert.deepEqual(user.sso_provider_id, { int32: ids.jit, valid: true });
  assert.deepEqual(user.roles.map((r: { name: string }) => r.name), ['Read-Only']);
  // Signing in again finds the same user.
  const again = await signIn('jit');
  assert.equal((await self(again.token!)).id, user.id);
});

test('role mapping from the roles claim (role_provision), also on later sign-ins', async () => {
  const who = account({ roles: ['bh-power-user'] });
  const first = await signIn('jit');
  assert.deepEqual((await self(first.token!)).roles.map((r: { name: string }) => r.name), ['Power User']);
  who.roles = ['Administrator', 'not-a-role'];
  idp.nextAccount = who.sub;
  const second = await signIn('jit');
  assert.deepEqual((await self(second.token!)).roles.map((r: { name: string }) => r.name), ['Administrator']);
});

test('an existing user of the provider is found by email; other users are not taken over', async () => {
  const linked = await t.login('User', { ssoProviderName: 'closed' });
  const row = await t.db.kysely.selectFrom('users').selectAll().where('id', '=', linked.userId).executeTakeFirstOrThrow();
  account({ email: row.email_address!.toUpperCase() });
  const ok = await signIn('closed');
  assert.equal(ok.error, null);
  assert.equal((await self(ok.token!)).id, linked.userId);

  const passwordUser = await t.login('User');
  const other = await t.db.kysely.selectFrom('users').selectAll().where('id', '=', passwordUser.userId).executeTakeFirstOrThrow();
  account({ email: other.email_address! });
  assert.equal((await signIn('jit')).error, 'user_not_linked');

  account();
  const closed = await signIn('closed');
  assert.equal(closed.error, 'user_not_found');
  assert.equal(closed.location.href.split('?')[0], `${ROOT}/ui/login`);
  assert.equal(closed.token, undefined);

  await setDisabled(t.db.kysely, linked.userId, true);
  account({ email: row.email_address! });
  assert.equal((await signIn('closed')).error, 'user_disabled');
  account({ email_verified: false });
  assert.equal((await signIn('jit')).error, 'missing_email');
});

test('a wrong nonce fails the callback', async () => {
  account();
  const flow = await begin('jit');
  const url = await flow.callback();
  await t.db.kysely.updateTable('oidc_login_states').set({ nonce: 'not-the-nonce-that-was-sent' }).where('state', '=', flow.state!).execute();
  assert.equal((await finish(url, flow.state)).error, 'id_token_invalid');
});

test('an expired authorization code fails the callback', async () => {
  account();
  idp.codeTtl = 1;
  try {
    const flow = await begin('jit');
    const url = await flow.callback();
    await sleep(2100);
    assert.equal((await finish(url, flow.state)).error, 'token_exchange_failed');
  } finally {
    idp.codeTtl = 60;
  }
});

test('the provider deleted mid-flow: the callback fails cleanly', async () => {
  account();
  const flow = await begin('gone');
  const url = await flow.callback();
  assert.equal((await t.request({ method: 'DELETE', url: `/api/v2/sso-providers/${ids.gone}`, token: admin })).statusCode, 200);
  const res = await finish(url, flow.state);
  assert.equal(res.error, 'invalid_state');
  assert.equal(res.token, undefined);
  const login = await t.request({ method: 'GET', url: '/api/v2/sso/gone/login' });
  assert.equal(login.headers.location, `${ROOT}/ui/login?error=provider_not_found`);
});

test('state: bound to the browser, single use; provider errors redirect too', async () => {
  account();
  const flow = await begin('jit');
  const url = await flow.callback();
  assert.equal((await finish(url, undefined)).error, 'invalid_state');
  const flow2 = await begin('jit');
  const url2 = await flow2.callback();
  assert.equal((await finish(url2, flow2.state)).error, null);
  assert.equal((await finish(url2, flow2.state)).error, 'invalid_state'); // replay
  const flow3 = await begin('jit');
  const denied = new URL(`${ROOT}/api/v2/sso/jit/callback?error=access_denied&state=${flow3.state}`);
  assert.equal((await finish(denied, flow3.state)).error, 'provider_error');
  assert.equal((await finish(new URL(`${ROOT}/api/v2/sso/jit/callback`), undefined)).error, 'invalid_state');
});

test('several instances: a sign-in started on one instance finishes on another', async () => {
  const who = account();
  const flow = await begin('jit');
  const url = await flow.callback();
  const other = await buildApp({ config: t.config, db: t.db });
  try {
    const res = await other.inject({ method: 'GET', url: url.pathname + url.search, headers: { cookie: `scent_oidc_state=${flow.state}` } });
    assert.equal(res.headers.location, `${ROOT}/ui/home`);
    const token = cookieOf(res.headers['set-cookie'], 'token');
    assert.equal((await self(token!)).principal_name, who.email);
  } finally {
    await other.close();
  }
});

test('an unreachable provider: the login redirects with error=provider_unreachable', async () => {
  const res = await t.request({ method: 'POST', url: '/api/v2/sso-providers/oidc', token: admin, body: { name: 'down', issuer: 'http://127.0.0.1:9', client_id: 'scent', config: {} } });
  assert.equal(res.statusCode, 200, res.body);
  const login = await t.request({ method: 'GET', url: '/api/v2/sso/down/login' });
  assert.equal(login.statusCode, 302);
  assert.equal(login.headers.location, `${ROOT}/ui/login?error=provider_unreachable`);
  assert.equal(await t.db.kysely.selectFrom('oidc_login_states').select('state').where('sso_provider_id', '=', res.json().data.sso_provider_id).executeTakeFirst(), undefined);
});

test('sign-ins are audited: LoginAttempt success with the user, failure with the reason', async () => {
  const latest = () => t.db.kysely.selectFrom('audit_logs').selectAll().where('action', '=', 'LoginAttempt').orderBy('id', 'desc').executeTakeFirstOrThrow();
  const who = account();
  const { token } = await signIn('jit');
  const ok = await latest();
  assert.deepEqual([ok.status, ok.actor_id, ok.actor_name], ['success', (await self(token!)).id, who.email]);
  assert.deepEqual(JSON.parse(ok.fields), { slug: 'jit', auth_type: 'oidc' });
  await finish(new URL(`${ROOT}/api/v2/sso/jit/callback`), undefined);
  const failed = await latest();
  assert.equal(failed.status, 'failure');
  assert.equal(JSON.parse(failed.fields).error, 'invalid_state');
});
