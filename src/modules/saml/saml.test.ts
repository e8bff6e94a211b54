/**
 * SAML sign-in end to end against an in-process IdP (src/test/saml-idp.ts: its own key, metadata, responses
 * signed with xml-crypto): login, the ACS, provisioning, role mapping, and each attack as a named test
 * with its exact outcome (the `error=` code the browser is sent to, and the reason in the audit entry).
 */
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { createPublicKey, verify } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../app.ts';
import { issueSession } from '../../auth/sessions.ts';
import { createTestApp, type TestApp } from '../../test/harness.ts';
import { multipart, urlencoded } from '../../test/multipart.ts';
import { setDisabled } from '../users/users.repository.ts';
import { generateSpKeyPair } from './saml.keys.ts';
import { ROLE_ATTRIBUTE } from './saml.login.ts';
import { SamlTestIdp, type AuthnRequestInfo, type ResponseOptions } from '../../test/saml-idp.ts';

const ROOT = 'http://scent.test';
const EMAIL = 'http://schemas.xmlsoap.org/ws/2005/05/identity/claims/emailaddress';
const GIVEN = 'http://schemas.xmlsoap.org/ws/2005/05/identity/claims/givenname';
const SURNAME = 'http://schemas.xmlsoap.org/ws/2005/05/identity/claims/surname';
let t: TestApp;
let other: FastifyInstance; // a second instance on the same database
let admin: string;
const idp = new SamlTestIdp('https://idp.corp.test/saml');
const ids: Record<string, { sso: number; saml: number }> = {};

before(async () => {
  t = await createTestApp({ rootUrl: ROOT });
  other = await buildApp({ config: t.config, db: t.db });
  admin = (await t.login('Administrator')).token;
  const roles = await t.db.kysely.selectFrom('roles').select(['id', 'name']).execute();
  const readOnly = String(roles.find((r) => r.name === 'Read-Only')!.id);
  for (const [name, enabled, metadata] of [
    ['okta', 'true', idp.metadata()],
    ['closed', 'false', idp.metadata()],
    ['post-only', 'true', idp.metadata({ redirect: false })],
    ['doomed', 'true', idp.metadata()],
  ] as const) {
    const { body, headers } = multipart([
      ['name', name], ['metadata', metadata, 'idp.xml'], ['config.auto_provision.enabled', enabled],
      ['config.auto_provision.default_role_id', readOnly], ['config.auto_provision.role_provision', 'true'],
    ]);
    const res = await t.request({ method: 'POST', url: '/api/v2/sso-providers/saml', token: admin, body, headers });
    assert.equal(res.statusCode, 200, res.body);
    ids[name] = { sso: res.json().data.sso_provider_id, saml: res.json().data.id };
  }
});
after(async () => {
  await other.close();
  await t.close();
});

let n = 0;
const person = () => `person${++n}@corp.test`;
const cookieOf = (setCookie: string | string[] | undefined, name: string) =>
  [setCookie ?? []].flat().map((c) => c.split(';')[0]).find((c) => c.startsWith(`${name}=`))?.slice(name.length + 1);

/** GET login → the AuthnRequest the browser carries to the IdP. */
async function begin(slug: string, app: FastifyInstance = t.app): Promise<AuthnRequestInfo> {
  const res = await app.inject({ method: 'GET', url: `/api/v2/sso/${slug}/login` });
  assert.equal(res.statusCode, 302, res.body);
  return idp.readRedirect(String(res.headers.location));
}

/** The IdP's answer to `request`, for `email`. */
const answer = (request: AuthnRequestInfo, email: string, extra: Partial<ResponseOptions> = {}) =>
  idp.response({ inResponseTo: request.id, acs: request.acs, audience: request.issuer, email, attributes: { [EMAIL]: [email] }, ...extra });

/** The browser POSTs the SAMLResponse to the ACS. */
async function post(slug: string, samlResponse: string, app: FastifyInstance = t.app) {
  const { body, headers } = urlencoded({ SAMLResponse: samlResponse });
  const res = await app.inject({ method: 'POST', url: `/api/v2/sso/${slug}/callback`, payload: body, headers });
  assert.equal(res.statusCode, 302, res.body);
  const location = new URL(String(res.headers.location));
  return { location, error: location.searchParams.get('error'), token: cookieOf(res.headers['set-cookie'], 'token') };
}

async function signIn(slug: string, email: string, extra: Partial<ResponseOptions> = {}) {
  const request = await begin(slug);
  return post(slug, answer(request, email, extra).samlResponse);
}

async function self(token: string) {
  const res = await t.request({ method: 'GET', url: '/api/v2/self', token });
  assert.equal(res.statusCode, 200, res.body);
  return res.json().data;
}

/** The audit entry of the last sign-in attempt: status and reason. */
async function lastAttempt() {
  const row = await t.db.kysely.selectFrom('audit_logs').selectAll().where('action', '=', 'LoginAttempt').orderBy('id', 'desc').executeTakeFirstOrThrow();
  return { status: row.status, ...JSON.parse(row.fields) };
}

/** A refused response: the browser goes to the login page with `code`, no session; the audit says why. */
async function refused(res: Awaited<ReturnType<typeof post>>, code: string, reason: string | RegExp) {
  assert.equal(res.location.origin + res.location.pathname, `${ROOT}/ui/login`);
  assert.equal(res.error, code);
  assert.equal(res.token, undefined);
  const entry = await lastAttempt();
  assert.equal(entry.status, 'failure');
  assert.equal(entry.error, code);
  if (typeof reason === 'string') assert.equal(entry.reason, reason);
  else assert.match(entry.reason, reason);
}

test('login: 302 to the IdP with an AuthnRequest signed by Scent (RSA-SHA256), remembered in the database', async () => {
  const res = await t.request({ method: 'GET', url: '/api/v2/sso/okta/login' });
  assert.equal(res.statusCode, 302);
  const location = new URL(String(res.headers.location));
  assert.equal(location.origin + location.pathname, 'https://idp.test/sso/redirect');
  const request = idp.readRedirect(location.href);
  assert.equal(request.acs, `${ROOT}/api/v2/sso/okta/callback`);
  assert.equal(request.issuer, `${ROOT}/api/v2/sso/okta`);
  assert.equal(request.destination, 'https://idp.test/sso/redirect');
  assert.equal(location.searchParams.get('SigAlg'), 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256');
  // HTTP-Redirect binding signature: over the raw query parameters in order, with Scent's SP key.
  const raw = location.search.slice(1).split('&');
  const signed = raw.filter((p) => /^(SAMLRequest|RelayState|SigAlg)=/.test(p)).join('&');
  const cert = (await t.request({ method: 'GET', url: `/api/v2/sso-providers/${ids.okta.sso}/signing-certificate`, token: admin })).body;
  assert.ok(verify('sha256', Buffer.from(signed), createPublicKey(cert), Buffer.from(location.searchParams.get('Signature')!, 'base64')));
  const row = await t.db.kysely.selectFrom('saml_requests').selectAll().where('id', '=', request.id).executeTakeFirstOrThrow();
  assert.equal(row.sso_provider_id, ids.okta.sso);
  assert.equal(row.answered_at, null);
});

test('expired requests and used assertions are cleared when a sign-in starts', async () => {
  const past = (Date.now() - 1000) * 1000;
  await t.db.kysely.insertInto('saml_requests').values({ id: '_old-request', sso_provider_id: ids.okta.sso, expires_at: past, created_at: past, answered_at: null }).execute();
  await t.db.kysely.insertInto('saml_used_assertions').values({ issuer: idp.entityId, assertion_id: '_old-assertion', expires_at: past, created_at: past }).execute();
  await begin('okta');
  assert.equal(await t.db.kysely.selectFrom('saml_requests').select('id').where('id', '=', '_old-request').executeTakeFirst(), undefined);
  assert.equal(await t.db.kysely.selectFrom('saml_used_assertions').select('assertion_id').where('assertion_id', '=', '_old-assertion').executeTakeFirst(), undefined);
});

test('login: an IdP without HTTP-Redirect gets an auto-submitting HTTP-POST form', async () => {
  const res = await t.request({ method: 'GET', url: '/api/v2/sso/post-only/login' });
  assert.equal(res.statusCode, 200);
  assert.equal(res.headers['content-type'], 'text/html; charset=utf-8');
  assert.match(res.body, /<form [^>]*action="https:\/\/idp.test\/sso\/post"/);
  const request = idp.readPostForm(res.body);
  assert.equal(request.acs, `${ROOT}/api/v2/sso/post-only/callback`);
  const email = person();
  const done = await post('post-only', answer(request, email).samlResponse);
  assert.equal(done.error, null);
});

test('ACS: a signed assertion signs in; JIT provisioning with names from the attributes, linked to the provider', async () => {
  const email = person();
  const res = await signIn('okta', email, { attributes: { [EMAIL]: [email], [GIVEN]: ['Ada'], [SURNAME]: ['Lovelace'] } });
  assert.equal(res.error, null);
  assert.equal(res.location.href, `${ROOT}/ui/home`);
  const user = await self(res.token!);
  assert.equal(user.principal_name, email);
  assert.deepEqual(user.email_address, { string: email, valid: true });
  assert.deepEqual(user.first_name, { string: 'Ada', valid: true });
  assert.deepEqual(user.last_name, { string: 'Lovelace', valid: true });
  assert.deepEqual(user.sso_provider_id, { int32: ids.okta.sso, valid: true });
  assert.deepEqual(user.saml_provider_id, { int32: ids.okta.saml, valid: true });
  assert.deepEqual(user.roles.map((r: { name: string }) => r.name), ['Read-Only']);
  const entry = await lastAttempt();
  assert.deepEqual(entry, { status: 'success', slug: 'okta', auth_type: 'saml' });
  // Again: the same user, a new session.
  const again = await signIn('okta', email);
  assert.equal((await self(again.token!)).id, user.id);
});

test('ACS: a signed Response (assertion unsigned) and a doubly signed one are accepted too; BloodHound\'s name defaults apply', async () => {
  const a = person();
  const res = await signIn('okta', a, { sign: 'response' });
  assert.equal(res.error, null);
  const user = await self(res.token!);
  assert.deepEqual([user.first_name.string, user.last_name.string], [a, 'Last name not found']);
  assert.equal((await signIn('okta', person(), { sign: 'both' })).error, null);
});

test('ACS: the principal falls back to an email-format NameID when no email attribute is sent', async () => {
  const email = person();
  const res = await signIn('okta', email, { attributes: {} });
  assert.equal(res.error, null);
  assert.equal((await self(res.token!)).principal_name, email);
});

test('role provisioning: exactly one bh-<role> value maps to that role, otherwise the default role (BloodHound)', async () => {
  const one = await signIn('okta', person(), { attributes: { [EMAIL]: [`p${n}@corp.test`], [ROLE_ATTRIBUTE]: ['bh-power-user', 'not-a-role'] } });
  assert.deepEqual((await self(one.token!)).roles.map((r: { name: string }) => r.name), ['Power User']);
  const two = await signIn('okta', person(), { attributes: { [EMAIL]: [`q${n}@corp.test`], [ROLE_ATTRIBUTE]: ['bh-administrator', 'bh-user'] } });
  assert.deepEqual((await self(two.token!)).roles.map((r: { name: string }) => r.name), ['Read-Only']);
});

test('users: an existing linked user signs in; others are refused with the reason', async () => {
  const linked = await t.login('User', { ssoProviderName: 'closed' });
  const row = await t.db.kysely.selectFrom('users').selectAll().where('id', '=', linked.userId).executeTakeFirstOrThrow();
  const ok = await signIn('closed', row.email_address!.toUpperCase());
  assert.equal(ok.error, null);
  const user = await self(ok.token!);
  assert.equal(user.id, linked.userId);
  assert.deepEqual(user.saml_provider_id, { int32: ids.closed.saml, valid: true });

  await refused(await signIn('closed', person()), 'user_not_found', 'user_not_found');
  const passwordUser = await t.login('User');
  const pw = await t.db.kysely.selectFrom('users').selectAll().where('id', '=', passwordUser.userId).executeTakeFirstOrThrow();
  await refused(await signIn('okta', pw.email_address!), 'user_not_linked', 'user_not_linked');
  await setDisabled(t.db.kysely, linked.userId, true);
  await refused(await signIn('closed', row.email_address!), 'user_disabled', 'user_disabled');
});

test('a NameID that is not an email and no email attribute: missing_email', async () => {
  const request = await begin('okta');
  const { xml } = idp.responseXml({ inResponseTo: request.id, acs: request.acs, audience: request.issuer, email: 'opaque-id' });
  const signed = idp.sign(xml.replace('nameid-format:emailAddress', 'nameid-format:persistent'), 'Assertion');
  await refused(await post('okta', Buffer.from(signed).toString('base64')), 'missing_email', 'Invalid assertion: no valid email address found');
});

test('attack: unsigned response', async () => {
  const email = person();
  await refused(await signIn('okta', email, { sign: 'none' }), 'saml_response_invalid', 'Invalid signature');
  assert.equal(await t.db.kysely.selectFrom('users').select('id').where('principal_name', '=', email).executeTakeFirst(), undefined);
});

test('attack: signature wrapping (a valid signature over another element)', async () => {
  // Mallory has a genuine signed assertion for herself; she moves it aside (into the Response's
  // Extensions) and puts an assertion for the administrator, carrying the genuine signature, in its place.
  const request = await begin('okta');
  const { xml } = answer(request, 'mallory@corp.test');
  const original = /<saml:Assertion [\s\S]*<\/saml:Assertion>/.exec(xml)![0];
  const signature = /<Signature [\s\S]*<\/Signature>/.exec(original)![0];
  const unsigned = original.replace(signature, '');
  const evil = unsigned.replace(/ ID="[^"]+"/, ' ID="_evil"').replaceAll('mallory@corp.test', 'admin@corp.test')
    .replace('</saml:Issuer>', `</saml:Issuer>${signature}`);
  const wrapped = xml.replace(original, evil).replace('<samlp:Status>', `<samlp:Extensions>${unsigned}</samlp:Extensions><samlp:Status>`);
  await refused(await post('okta', Buffer.from(wrapped).toString('base64')), 'saml_response_invalid',
    'Invalid signature: Referenced node does not refer to it\'s parent element');
  // The genuine assertion alone (signature and all) next to a second assertion: refused as well.
  const request2 = await begin('okta');
  const genuine = answer(request2, 'mallory@corp.test').xml;
  const second = /<saml:Assertion [\s\S]*<\/saml:Assertion>/.exec(idp.responseXml({ inResponseTo: request2.id, acs: request2.acs, audience: request2.issuer, email: 'admin@corp.test' }).xml)![0];
  const doubled = genuine.replace('</samlp:Response>', `${second}</samlp:Response>`);
  await refused(await post('okta', Buffer.from(doubled).toString('base64')), 'saml_response_invalid', 'Invalid signature: multiple assertions');
});

test('attack: wrong audience', async () => {
  const request = await begin('okta');
  const res = await post('okta', answer(request, person(), { audience: 'https://evil.example/sp' }).samlResponse);
  await refused(res, 'saml_response_invalid', `SAML assertion audience mismatch. Expected: ${ROOT}/api/v2/sso/okta Received: https://evil.example/sp`);
});

test('attack: wrong destination and wrong recipient', async () => {
  const r1 = await begin('okta');
  const d = await post('okta', answer(r1, person(), { sign: 'both', destination: 'https://evil.example/acs' }).samlResponse);
  await refused(d, 'saml_response_invalid', 'Destination is not this provider\'s ACS: https://evil.example/acs');
  const r2 = await begin('okta');
  const r = await post('okta', answer(r2, person(), { recipient: 'https://evil.example/acs' }).samlResponse);
  await refused(r, 'saml_response_invalid', 'Recipient is not this provider\'s ACS: https://evil.example/acs');
});

test('attack: a response from another issuer, signed with the right key', async () => {
  const request = await begin('okta');
  const res = await post('okta', answer(request, person(), { issuer: 'https://evil.example/idp' }).samlResponse);
  await refused(res, 'saml_response_invalid', 'Unknown SAML issuer. Expected: https://idp.corp.test/saml Received: https://evil.example/idp');
});

test('attack: expired assertion; the time window allows a small clock skew (60 s)', async () => {
  const request = await begin('okta');
  const expired = await post('okta', answer(request, person(), { notBefore: -600_000, notOnOrAfter: -120_000 }).samlResponse);
  await refused(expired, 'saml_response_invalid', 'No valid subject confirmation found among those available in the SAML assertion');
  const early = await begin('okta');
  const future = await post('okta', answer(early, person(), { notBefore: 300_000, notOnOrAfter: 600_000 }).samlResponse);
  await refused(future, 'saml_response_invalid', 'SAML assertion not yet valid');
  const skewed = await begin('okta');
  assert.equal((await post('okta', answer(skewed, person(), { notBefore: 30_000 }).samlResponse)).error, null, 'IdP clock 30 s ahead');
  const late = await begin('okta');
  assert.equal((await post('okta', answer(late, person(), { notOnOrAfter: -30_000 }).samlResponse)).error, null, 'IdP clock 30 s behind');
});

test('attack: replayed assertion, on the same instance and on another one sharing the database', async () => {
  const request = await begin('okta');
  const { samlResponse, assertionId } = answer(request, person());
  assert.equal((await post('okta', samlResponse)).error, null);
  await refused(await post('okta', samlResponse), 'assertion_replayed', `assertion ${assertionId} was accepted before`);
  await refused(await post('okta', samlResponse, other), 'assertion_replayed', `assertion ${assertionId} was accepted before`);
});

test('attack: the same response posted to two instances at once: exactly one sign-in', async () => {
  const request = await begin('okta');
  const { samlResponse } = answer(request, person());
  const results = await Promise.all([post('okta', samlResponse, t.app), post('okta', samlResponse, other)]);
  assert.deepEqual(results.map((r) => r.error).sort(), ['assertion_replayed', null]);
  assert.equal(results.filter((r) => r.token).length, 1);
});

test('attack: a second response to an answered request (a fresh assertion) is refused', async () => {
  const request = await begin('okta');
  const email = person();
  assert.equal((await post('okta', answer(request, email).samlResponse)).error, null);
  await refused(await post('okta', answer(request, email).samlResponse), 'invalid_state', `request ${request.id} was answered before or is not this provider's`);
});

test('a response to a request made by another instance sharing the database is accepted', async () => {
  const request = await begin('okta', other);
  const email = person();
  const res = await post('okta', answer(request, email).samlResponse, t.app);
  assert.equal(res.error, null);
  assert.equal((await self(res.token!)).principal_name, email);
});

test('attack: a response to a request Scent never made, to none (IdP-initiated), or to another provider\'s request', async () => {
  const request = await begin('okta');
  await refused(await post('okta', answer(request, person(), { inResponseTo: '_made-up' }).samlResponse), 'invalid_state', 'InResponseTo is not valid');
  await refused(await post('okta', answer(request, person(), { inResponseTo: undefined }).samlResponse), 'invalid_state', 'InResponseTo is missing from response');
  const closed = await begin('closed');
  const res = await post('okta', answer({ ...closed, acs: request.acs, issuer: request.issuer }, person()).samlResponse);
  await refused(res, 'invalid_state', `request ${closed.id} was answered before or is not this provider's`);
  const untouched = await t.db.kysely.selectFrom('saml_requests').select('answered_at').where('id', '=', closed.id).executeTakeFirstOrThrow();
  assert.equal(untouched.answered_at, null, 'the other provider\'s request is still open');
});

test('attack: a certificate that is not the one in the metadata', async () => {
  const request = await begin('okta');
  const attacker = generateSpKeyPair('Attacker IdP');
  await refused(await post('okta', answer(request, person(), { signer: attacker }).samlResponse), 'saml_response_invalid', 'Invalid signature');
  const both = await begin('okta');
  await refused(await post('okta', answer(both, person(), { signer: attacker, sign: 'both' }).samlResponse), 'saml_response_invalid', 'Invalid signature');
});

test('attack: XML with a DOCTYPE / entity declarations', async () => {
  const request = await begin('okta');
  const { xml } = answer(request, person());
  const hostile = `<?xml version="1.0"?><!DOCTYPE samlp:Response [<!ENTITY who SYSTEM "file:///etc/passwd">]>${xml}`;
  await refused(await post('okta', Buffer.from(hostile).toString('base64')), 'saml_response_invalid', 'XML with a DOCTYPE or entity declarations is not accepted');
});

test('the IdP refuses the sign-in (a non-success status): provider_error', async () => {
  const request = await begin('okta');
  const xml = `<samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="_denied" Version="2.0" ` +
    `IssueInstant="${new Date().toISOString()}" Destination="${request.acs}" InResponseTo="${request.id}"><saml:Issuer>${idp.entityId}</saml:Issuer>` +
    '<samlp:Status><samlp:StatusCode Value="urn:oasis:names:tc:SAML:2.0:status:Responder"><samlp:StatusCode Value="urn:oasis:names:tc:SAML:2.0:status:AuthnFailed"/></samlp:StatusCode>' +
    '<samlp:StatusMessage>User cancelled</samlp:StatusMessage></samlp:Status></samlp:Response>';
  await refused(await post('okta', Buffer.from(xml).toString('base64')), 'provider_error', 'SAML provider returned Responder error: User cancelled');
});

test('failures never show a JSON page: no SAMLResponse, garbage, an unknown provider', async () => {
  await refused(await post('okta', ''), 'saml_response_invalid', 'no SAMLResponse in the form');
  await refused(await post('okta', Buffer.from('<not-saml/>').toString('base64')), 'saml_response_invalid', 'the SAMLResponse is not a SAML 2.0 Response');
  await refused(await post('okta', 'bm90IHhtbA=='), 'saml_response_invalid', 'the SAMLResponse is not well-formed XML');
  await refused(await post('nobody', 'x'), 'provider_not_found', 'provider_not_found');
  const login = await t.request({ method: 'GET', url: '/api/v2/sso/nobody/login' });
  assert.equal(login.statusCode, 302);
  assert.equal(login.headers.location, `${ROOT}/ui/login?error=provider_not_found`);
  const json = await t.app.inject({ method: 'POST', url: '/api/v2/sso/okta/callback', payload: { SAMLResponse: 'x' } });
  assert.equal(json.statusCode, 302);
  assert.equal(json.headers.location, `${ROOT}/ui/login?error=saml_response_invalid`);
});

test('delete a SAML provider: its users are kept, unlinked (saml_provider_id cleared) and signed out', async () => {
  const email = person();
  const res = await signIn('doomed', email);
  const user = await self(res.token!);
  assert.deepEqual(user.saml_provider_id, { int32: ids.doomed.saml, valid: true });
  const del = await t.request({ method: 'DELETE', url: `/api/v2/sso-providers/${ids.doomed.sso}`, token: admin });
  assert.equal(del.statusCode, 200, del.body);
  const affected = del.json().data.affected_users;
  assert.deepEqual(affected.map((u: { id: string }) => u.id), [user.id]);
  assert.deepEqual(affected[0].saml_provider_id, { int32: ids.doomed.saml, valid: true }, 'as they were before the delete');
  assert.equal((await t.request({ method: 'GET', url: '/api/v2/self', token: res.token! })).statusCode, 401, 'signed out');
  const { token } = await issueSession(t.db, t.config, { userId: user.id }, 60, 'test');
  const after = await self(token);
  assert.deepEqual(after.saml_provider_id, { int32: 0, valid: false });
  assert.deepEqual(after.sso_provider_id, { int32: 0, valid: false });
  assert.equal(await t.db.kysely.selectFrom('saml_providers').select('id').where('id', '=', ids.doomed.saml).executeTakeFirst(), undefined);
  assert.equal((await t.db.kysely.selectFrom('saml_requests').select('id').where('sso_provider_id', '=', ids.doomed.sso).execute()).length, 0);
  const login = await t.request({ method: 'GET', url: '/api/v2/sso/doomed/login' });
  assert.equal(login.headers.location, `${ROOT}/ui/login?error=provider_not_found`);
});
