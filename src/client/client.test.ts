import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { webcrypto } from 'node:crypto';
import type { AddressInfo } from 'node:net';
// Through the package's exports map, as a consumer imports it.
import { SIGNATURE_VECTORS, ScentApiError, ScentClient, signRequest } from 'scent/client';
import { createTestApp, type TestApp } from '../test/harness.ts';

async function hmac(key: Uint8Array, data: Uint8Array): Promise<Uint8Array> {
  const k = await webcrypto.subtle.importKey('raw', key, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  return new Uint8Array(await webcrypto.subtle.sign('HMAC', k, data));
}
/** Independent of the package: WebCrypto, from the description in docs/wire-contract.md. */
async function independentSign(key: string, method: string, target: string, date: string, body: string): Promise<string> {
  const enc = new TextEncoder();
  const k1 = await hmac(enc.encode(key), enc.encode(method + target));
  const k2 = await hmac(k1, enc.encode(date.slice(0, 13)));
  return Buffer.from(await hmac(k2, enc.encode(body))).toString('base64');
}

test('published test vectors: package signer, independent signer and docs/wire-contract.md agree', async () => {
  const readme = readFileSync(new URL('../../docs/wire-contract.md', import.meta.url), 'utf8');
  assert.ok(SIGNATURE_VECTORS.length >= 3);
  for (const v of SIGNATURE_VECTORS) {
    assert.equal(signRequest(v), v.signature, v.name);
    assert.equal(await independentSign(v.key, v.method, v.target, v.requestDate, v.body), v.signature, v.name);
    assert.ok(readme.includes(v.signature), `docs/wire-contract.md lists the vector "${v.name}"`);
    assert.ok(readme.includes(v.target), `docs/wire-contract.md lists the target of "${v.name}"`);
  }
});

let t: TestApp;
let base: string;
let admin: { token: string; userId: string };
before(async () => {
  t = await createTestApp();
  admin = await t.login('Administrator');
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
});
after(() => t.close());

test('bearer client creates an API token; a signing client uses it against the live server', async () => {
  const bearer = new ScentClient({ baseUrl: base, credentials: { bearer: admin.token } });
  const token = await bearer.createToken({ token_name: 'client test ~ key' });
  const bh = new ScentClient({ baseUrl: base, credentials: { tokenId: token.id, tokenKey: token.key }, wait: 10 });
  assert.equal((await bh.version()).API.current_version, 'v2');
  const found = await bh.listTokens({ name: '~eq:test ~ key', sort_by: ['-created_at', 'name'] });
  assert.deepEqual(found.map((x) => x.id), [token.id]);
  assert.notEqual(found[0].last_access, '0001-01-01T00:00:00Z');

  const provider = await bh.createOidcProvider({ name: 'Client IdP', issuer: 'https://idp.example.test', client_id: 'scent', config: {} });
  assert.equal(provider.client_id, 'scent');
  assert.deepEqual(await bh.deleteSsoProvider(provider.sso_provider_id), { affected_users: [] });
  await assert.rejects(bh.deleteSsoProvider(provider.sso_provider_id), (err: ScentApiError) => {
    assert.equal(err.status, 404);
    assert.deepEqual(err.messages, ['resource not found']);
    assert.ok(err.requestId);
    return true;
  });

  await bh.deleteToken(token.id);
  await assert.rejects(bh.version(), (err: ScentApiError) => err.status === 401 && err.messages[0] === 'authentication is invalid');
});

test('the seven endpoints: method, path and query as documented, signed over what is sent', async () => {
  const seen: Array<{ method: string; target: string; headers: Headers; body?: string }> = [];
  const recording: typeof fetch = async (input, init) => {
    const url = new URL(String(input));
    seen.push({ method: String(init?.method), target: url.pathname + url.search, headers: new Headers(init?.headers), body: init?.body as string | undefined });
    return new Response(JSON.stringify({ data: { members: [] } }), { status: 200, headers: { 'content-type': 'application/json' } });
  };
  const key = 'k3y';
  const bh = new ScentClient({ baseUrl: 'https://bh.example.test/prefix', credentials: { tokenId: '11111111-2222-4333-8444-555555555555', tokenKey: key }, fetch: recording });
  await bh.deleteSsoProvider(7);
  await bh.createOidcProvider({ name: 'n', issuer: 'https://i.test', client_id: 'c', config: { auto_provision: { enabled: false } } });
  await bh.getDataQualityStats('ad', { start: '2026-01-01T00:00:00+01:00', sort_by: '-created_at', limit: 5 });
  await bh.listAvailableJobs({ hydrate_ous: false, status: '~eq:complete' });
  await bh.getEvent(3);
  await bh.listAssetGroupTagMembers(1, { environments: ['S-1-5-21-1', 'S-1-5-21-2'], name: '~eq:adm' });
  await bh.listCertTemplateControllers('S-1-5-21-9/x y', { type: 'list', skip: 0 });
  assert.deepEqual(seen.map((s) => `${s.method} ${s.target}`), [
    'DELETE /prefix/api/v2/sso-providers/7',
    'POST /prefix/api/v2/sso-providers/oidc',
    'GET /prefix/api/v2/platform/ad/data-quality-stats?start=2026-01-01T00%3A00%3A00%2B01%3A00&sort_by=-created_at&limit=5',
    'GET /prefix/api/v2/jobs/available?hydrate_ous=false&status=~eq%3Acomplete',
    'GET /prefix/api/v2/events/3',
    'GET /prefix/api/v2/asset-group-tags/1/members?environments=S-1-5-21-1&environments=S-1-5-21-2&name=~eq%3Aadm',
    'GET /prefix/api/v2/certtemplates/S-1-5-21-9%2Fx%20y/controllers?type=list&skip=0',
  ]);
  for (const s of seen) {
    assert.equal(s.headers.get('authorization'), 'bhesignature 11111111-2222-4333-8444-555555555555');
    const expected = await independentSign(key, s.method, s.target, s.headers.get('requestdate')!, s.body ?? '');
    assert.equal(s.headers.get('signature'), expected, s.target);
  }
});
