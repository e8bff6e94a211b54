import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { webcrypto } from 'node:crypto';
import { createTestApp, errorOf, type TestApp } from '../test/harness.ts';
import { setDisabled } from '../modules/users/users.repository.ts';

/**
 * An independent signer written from the documented algorithm (docs/wire-contract.md "Signed requests"), on
 * WebCrypto rather than the package's node:crypto signer.
 */
async function hmac(key: Uint8Array, data: Uint8Array): Promise<Uint8Array> {
  const k = await webcrypto.subtle.importKey('raw', key, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  return new Uint8Array(await webcrypto.subtle.sign('HMAC', k, data));
}
async function independentSign(key: string, method: string, target: string, date: string, body: string): Promise<string> {
  const enc = new TextEncoder();
  const k1 = await hmac(enc.encode(key), enc.encode(`${method}${target}`));
  const k2 = await hmac(k1, enc.encode(date.slice(0, 13)));
  return Buffer.from(await hmac(k2, enc.encode(body))).toString('base64');
}

let t: TestApp;
let user: { token: string; userId: string };
let tokenId: string;
let key: string;
let base: string;
before(async () => {
  t = await createTestApp();
  user = await t.login('User');
  const created = (await t.request({ method: 'POST', url: '/api/v2/tokens', token: user.token, body: { token_name: 'signer' } })).json().data;
  tokenId = created.id;
  key = created.key;
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
});
after(() => t.close());

const now = () => new Date().toISOString();

async function signed(method: 'GET' | 'POST' | 'DELETE', url: string, body = '', opts: { date?: string; sign?: { target?: string; body?: string }; headers?: Record<string, string> } = {}) {
  const date = opts.date ?? now();
  const signature = await independentSign(key, method, opts.sign?.target ?? url, date, opts.sign?.body ?? body);
  return t.app.inject({
    method, url, payload: body || undefined,
    headers: {
      authorization: `bhesignature ${tokenId}`, requestdate: date, signature,
      ...(body ? { 'content-type': 'application/json' } : {}), ...opts.headers,
    },
  });
}

/** Real HTTP with the request target sent byte for byte as signed. */
function rawHttp(method: string, target: string, headers: Record<string, string>, body = ''): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${base}/`, { method, path: target, headers }, (res) => {
      let data = '';
      res.on('data', (c) => (data += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: data }));
    });
    req.on('error', reject);
    // Several small writes: the server digests the body as it streams in.
    for (let i = 0; i < body.length; i += 7) req.write(body.slice(i, i + 7));
    req.end();
  });
}

test('GET /api/version signed; records last access', async () => {
  const res = await signed('GET', '/api/version');
  assert.equal(res.statusCode, 200);
  assert.deepEqual(res.json().data.API, { current_version: 'v2', deprecated_version: 'none' });
  assert.equal(res.json().data.product_edition, 'enterprise');
  assert.match(res.json().data.server_version, /^v\d+\.\d+\.\d+/);
  const row = await t.db.kysely.selectFrom('auth_tokens').select('last_access').where('id', '=', tokenId).executeTakeFirstOrThrow();
  assert.ok(row.last_access !== null && Math.abs(row.last_access / 1000 - Date.now()) < 10_000);
});

test('GET /api/version with a bearer token; without credentials 401', async () => {
  assert.equal((await t.request({ method: 'GET', url: '/api/version', token: user.token })).statusCode, 200);
  assert.deepEqual(errorOf(await t.request({ method: 'GET', url: '/api/version' })), { status: 401, messages: ['authentication is invalid'] });
});

test('POST with a JSON body, over real HTTP in small chunks', async () => {
  const body = JSON.stringify({ token_name: 'made by a signed request' });
  const date = now();
  const res = await rawHttp('POST', '/api/v2/tokens', {
    authorization: `bhesignature ${tokenId}`, requestdate: date, 'content-type': 'application/json',
    signature: await independentSign(key, 'POST', '/api/v2/tokens', date, body),
  }, body);
  assert.equal(res.status, 200, res.body);
  assert.equal(JSON.parse(res.body).data.user_id, user.userId);
});

test('query strings with encoded characters are signed as sent (path and query)', async () => {
  const target = '/api/v2/tokens?name=~eq:made%20by%20a%20signed&sort_by=-created_at&created_at=gte:2000-01-01T00:00:00%2B00:00';
  const date = now();
  const headers = { authorization: `bhesignature ${tokenId}`, requestdate: date, signature: await independentSign(key, 'GET', target, date, '') };
  const res = await rawHttp('GET', target, headers);
  assert.equal(res.status, 200, res.body);
  assert.deepEqual(JSON.parse(res.body).data.tokens.map((x: { name: string }) => x.name), ['made by a signed request']);
  // The same query, decoded differently on the wire, is a different target: 401.
  const res2 = await rawHttp('GET', target.replace('%20by', '+by'), headers);
  assert.equal(res2.status, 401);
  // Path only, query not signed: 401.
  const res3 = await rawHttp('GET', target, { ...headers, signature: await independentSign(key, 'GET', '/api/v2/tokens', date, '') });
  assert.equal(res3.status, 401);
});

test('empty body: POST /api/v2/logout signed over nothing', async () => {
  const res = await signed('POST', '/api/v2/logout');
  assert.equal(res.statusCode, 200);
  // Logging out a signed request ends no session: the token still works.
  assert.equal((await signed('GET', '/api/version')).statusCode, 200);
});

test('a different body, method or date hour: 401', async () => {
  const body = JSON.stringify({ token_name: 'x' });
  assert.deepEqual(errorOf(await signed('POST', '/api/v2/tokens', body, { sign: { body: '{"token_name":"y"}' } })),
    { status: 401, messages: ['authentication is invalid'] });
  const date = now();
  const res = await t.app.inject({ method: 'GET', url: '/api/version', headers: {
    authorization: `bhesignature ${tokenId}`, requestdate: date, signature: await independentSign(key, 'POST', '/api/version', date, '') } });
  assert.equal(errorOf(res).status, 401);
  const shifted = new Date(Date.now() - 3600_000).toISOString();
  const res2 = await t.app.inject({ method: 'GET', url: '/api/version', headers: {
    authorization: `bhesignature ${tokenId}`, requestdate: date, signature: await independentSign(key, 'GET', '/api/version', shifted, '') } });
  assert.equal(errorOf(res2).status, 401);
  const count = await t.db.kysely.selectFrom('auth_tokens').select('id').where('name', '=', 'x').execute();
  assert.equal(count.length, 0, 'nothing was created by a request whose signature failed');
});

test('clock window: ±1 hour', async () => {
  const ok = new Date(Date.now() - 50 * 60_000).toISOString();
  assert.equal((await signed('GET', '/api/version', '', { date: ok })).statusCode, 200);
  const old = new Date(Date.now() - 61 * 60_000).toISOString();
  assert.deepEqual(errorOf(await signed('GET', '/api/version', '', { date: old })), { status: 401, messages: ['authentication is invalid'] });
  const future = new Date(Date.now() + 61 * 60_000).toISOString();
  assert.deepEqual(errorOf(await signed('GET', '/api/version', '', { date: future })), { status: 401, messages: ['authentication is invalid'] });
});

test('missing or malformed headers: 400 with BloodHound\'s texts', async () => {
  const ask = (headers: Record<string, string>) => t.app.inject({ method: 'GET', url: '/api/version', headers });
  const sig = await independentSign(key, 'GET', '/api/version', now(), '');
  assert.deepEqual(errorOf(await ask({ authorization: `bhesignature ${tokenId}`, signature: sig })), { status: 400, messages: ['no request date header'] });
  assert.deepEqual(errorOf(await ask({ authorization: `bhesignature ${tokenId}`, requestdate: 'yesterday', signature: sig })),
    { status: 400, messages: ['malformed request date'] });
  assert.deepEqual(errorOf(await ask({ authorization: `bhesignature ${tokenId}`, requestdate: now() })), { status: 400, messages: ['no signature header'] });
  assert.deepEqual(errorOf(await ask({ authorization: `bhesignature ${tokenId}`, requestdate: now(), signature: 'not base64!' })),
    { status: 400, messages: ['malformed signature header'] });
  assert.deepEqual(errorOf(await ask({ authorization: 'bhesignature 1234', requestdate: now(), signature: sig })),
    { status: 400, messages: ['Token ID is malformed.'] });
});

test('unknown or deleted token 401; disabled user 403', async () => {
  const date = now();
  const res = await t.app.inject({ method: 'GET', url: '/api/version', headers: {
    authorization: 'bhesignature 00000000-0000-4000-8000-000000000000', requestdate: date, signature: await independentSign(key, 'GET', '/api/version', date, '') } });
  assert.deepEqual(errorOf(res), { status: 401, messages: ['authentication is invalid'] });

  const other = await t.login('User');
  const created = (await t.request({ method: 'POST', url: '/api/v2/tokens', token: other.token, body: { token_name: 'soon disabled' } })).json().data;
  const ask = async () => {
    const d = now();
    return t.app.inject({ method: 'GET', url: '/api/version', headers: {
      authorization: `bhesignature ${created.id}`, requestdate: d, signature: await independentSign(created.key, 'GET', '/api/version', d, '') } });
  };
  assert.equal((await ask()).statusCode, 200);
  await setDisabled(t.db.kysely, other.userId, true);
  assert.deepEqual(errorOf(await ask()), { status: 403, messages: ['user is disabled'] });
  await setDisabled(t.db.kysely, other.userId, false);
  assert.equal((await t.request({ method: 'DELETE', url: `/api/v2/tokens/${created.id}`, token: other.token })).statusCode, 200);
  assert.deepEqual(errorOf(await ask()), { status: 401, messages: ['authentication is invalid'] });
});

test('permissions still apply to a signed request', async () => {
  // A User may not manage SSO providers, however they authenticate.
  assert.deepEqual(errorOf(await signed('POST', '/api/v2/sso-providers/oidc', JSON.stringify({ name: 'x', issuer: 'https://x.test', client_id: 'c', config: {} }))),
    { status: 403, messages: ['not authorized'] });
});
