import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { createTestApp, errorOf, type TestApp } from '../../test/harness.ts';
import { multipart } from '../../test/multipart.ts';
import { generateSpKeyPair } from './saml.keys.ts';
import { SamlTestIdp } from '../../test/saml-idp.ts';

const ROOT = 'http://scent.test';
let t: TestApp;
let admin: string;
const idp = new SamlTestIdp('https://idp.example.test/entity');
before(async () => {
  t = await createTestApp({ rootUrl: ROOT });
  admin = (await t.login('Administrator')).token;
});
after(() => t.close());

type Part = [string, string] | [string, string, string];
const off: Part[] = [['config.auto_provision.enabled', 'false'], ['config.auto_provision.default_role_id', '0'], ['config.auto_provision.role_provision', 'false']];
const form = (name: string, metadata = idp.metadata(), config: Part[] = off): Part[] => [['name', name], ['metadata', metadata, 'idp.xml'], ...config];
const create = (parts: Part[], token = admin) => {
  const { body, headers } = multipart(parts);
  return t.request({ method: 'POST', url: '/api/v2/sso-providers/saml', token, body, headers });
};
const patch = (id: number, parts: Part[], token = admin) => {
  const { body, headers } = multipart(parts);
  return t.request({ method: 'PATCH', url: `/api/v2/sso-providers/${id}`, token, body, headers });
};
const RFC3339_MICROS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

test('create a SAML provider from IdP metadata: 200 with the SAMLProvider shape and its SP URIs', async () => {
  const res = await create(form('Okta Corp'));
  assert.equal(res.statusCode, 200, res.body);
  const { data } = res.json();
  assert.deepEqual(Object.keys(data).sort(), [
    'created_at', 'deleted_at', 'display_name', 'id', 'idp_issuer_uri', 'idp_sso_uri', 'name', 'principal_attribute_mappings',
    'root_uri_version', 'sp_acs_uri', 'sp_issuer_uri', 'sp_metadata_uri', 'sp_sso_uri', 'sso_provider_id', 'updated_at',
  ]);
  assert.equal(data.name, 'okta-corp');
  assert.equal(data.display_name, 'Okta Corp');
  assert.equal(data.idp_issuer_uri, 'https://idp.example.test/entity');
  assert.equal(data.idp_sso_uri, 'https://idp.test/sso/post');
  assert.equal(data.root_uri_version, 2);
  assert.equal(data.principal_attribute_mappings, null);
  assert.equal(data.sp_issuer_uri, `${ROOT}/api/v2/sso/okta-corp`);
  assert.equal(data.sp_sso_uri, `${ROOT}/api/v2/sso/okta-corp/login`);
  assert.equal(data.sp_metadata_uri, `${ROOT}/api/v2/sso/okta-corp/metadata`);
  assert.equal(data.sp_acs_uri, `${ROOT}/api/v2/sso/okta-corp/callback`);
  assert.match(data.created_at, RFC3339_MICROS);
  assert.deepEqual(data.deleted_at, { time: '0001-01-01T00:00:00Z', valid: false });

  const list = await t.request({ method: 'GET', url: '/api/v2/sso-providers?name=Okta%20Corp', token: admin });
  assert.equal(list.statusCode, 200, list.body);
  const [provider] = list.json().data;
  assert.equal(provider.id, data.sso_provider_id);
  assert.equal(provider.type, 'SAML');
  assert.equal(provider.slug, 'okta-corp');
  assert.equal(provider.login_uri, `${ROOT}/api/v2/sso/okta-corp/login`);
  assert.equal(provider.callback_uri, `${ROOT}/api/v2/sso/okta-corp/callback`);
  assert.deepEqual(provider.config, { auto_provision: { enabled: false, default_role_id: 0, role_provision: false } });
  assert.deepEqual(provider.details, data, 'the same object from list and create');
});

test('create: auto provisioning with a real role; an unknown role is a 400', async () => {
  const res = await create(form('Entra', idp.metadata(), [
    ['config.auto_provision.enabled', 'true'], ['config.auto_provision.default_role_id', '3'], ['config.auto_provision.role_provision', 'true'],
  ]));
  assert.equal(res.statusCode, 200, res.body);
  const list = await t.request({ method: 'GET', url: '/api/v2/sso-providers?name=Entra', token: admin });
  assert.deepEqual(list.json().data[0].config, { auto_provision: { enabled: true, default_role_id: 3, role_provision: true } });
  assert.deepEqual(errorOf(await create(form('Bad role', idp.metadata(), [
    ['config.auto_provision.enabled', 'true'], ['config.auto_provision.default_role_id', '999'], ['config.auto_provision.role_provision', 'false'],
  ]))), { status: 400, messages: ['"config.auto_provision.default_role_id" parameter is invalid'] });
});

test('create: each missing, repeated or malformed form part is a 400 naming it', async () => {
  const md = idp.metadata();
  const cases: Array<[Part[], string]> = [
    [[['metadata', md, 'idp.xml'], ...off], 'form is missing "name" parameter'],
    [[['name', 'a'], ['name', 'b'], ['metadata', md, 'idp.xml'], ...off], 'expected only one "name" parameter'],
    [[['name', '  '], ['metadata', md, 'idp.xml'], ...off], 'name must not be empty'],
    [[['name', 'x'], ...off], 'form is missing "metadata" parameter'],
    [[['name', 'x'], ['metadata', md, 'a.xml'], ['metadata', md, 'b.xml'], ...off], 'expected only one "metadata" parameter'],
    [[['name', 'x'], ['metadata', md, 'idp.xml']], 'form is missing "config.auto_provision.enabled" parameter'],
    [form('x', md, [['config.auto_provision.enabled', 'yes']]), '"config.auto_provision.enabled" parameter could not be converted to bool'],
    [form('x', md, [['config.auto_provision.enabled', 'true']]), 'form is missing "config.auto_provision.default_role_id" parameter'],
    [form('x', md, [['config.auto_provision.enabled', 'true'], ['config.auto_provision.default_role_id', 'one']]),
      '"config.auto_provision.default_role_id" parameter could not be converted to int'],
    [form('x', md, [['config.auto_provision.enabled', 'true'], ['config.auto_provision.default_role_id', '3']]),
      'form is missing "config.auto_provision.role_provision" parameter'],
    [form('x', md, [['config.auto_provision.enabled', 'true'], ['config.auto_provision.default_role_id', '3'], ['config.auto_provision.role_provision', '2']]),
      '"config.auto_provision.role_provision" parameter could not be converted to bool'],
  ];
  for (const [parts, message] of cases) assert.deepEqual(errorOf(await create(parts)), { status: 400, messages: [message] }, message);
});

test('create: the metadata is checked now (entity id, POST SSO service, signing certificate), not at the first sign-in', async () => {
  const good = idp.metadata();
  const badCert = Buffer.from('not a certificate at all').toString('base64');
  const cases: Array<[string, string]> = [
    ['', 'metadata is empty'],
    ['<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata"', 'metadata is not well-formed XML: unexpected end of input'],
    ['<html><body>Sign in</body></html>', 'metadata does not describe an identity provider (no IDPSSODescriptor)'],
    [good.replace(/ entityID="[^"]*"/, ''), 'metadata does not have an entityID'],
    [idp.metadata({ post: false }), 'metadata does not have a SSO service that supports HTTP POST binding'],
    [good.replace('https://idp.test/sso/post', 'javascript:alert(1)'), 'metadata SSO service location is not an http(s) URL: javascript:alert(1)'],
    [idp.metadata({ cert: badCert }), 'metadata signing certificate is not a valid X.509 certificate'],
    [idp.metadata({ cert: 'MII%%%' }), 'metadata signing certificate is not valid base64'],
    [good.replace(/<md:KeyDescriptor[\s\S]*<\/md:KeyDescriptor>/, ''), 'metadata does not have a signing certificate'],
    [`<!DOCTYPE md [<!ENTITY e SYSTEM "file:///etc/passwd">]>${good.replace(/^<\?xml[^>]*>/, '')}`, 'XML with a DOCTYPE or entity declarations is not accepted'],
  ];
  for (const [metadata, message] of cases) {
    assert.deepEqual(errorOf(await create(form('checked', metadata))), { status: 400, messages: [message] }, message);
  }
  const none = await t.db.kysely.selectFrom('sso_providers').select('id').where('name', '=', 'checked').execute();
  assert.deepEqual(none, [], 'nothing half-written');
});

test('create: metadata as Entra ID publishes it (BOM, default namespace, signed document, WS-Fed role descriptors, repeated certificate)', async () => {
  const cert = idp.keys.cert.replace(/-----[^-]+-----/g, '').replace(/\s+/g, '');
  const entra = `\uFEFF<?xml version="1.0" encoding="utf-8"?><EntityDescriptor ID="_0b3b2a3c" entityID="https://sts.windows.net/7f1b0f5e-0000-4000-8000-000000000000/" xmlns="urn:oasis:names:tc:SAML:2.0:metadata">` +
    `<Signature xmlns="http://www.w3.org/2000/09/xmldsig#"><SignedInfo><CanonicalizationMethod Algorithm="http://www.w3.org/2001/10/xml-exc-c14n#"/></SignedInfo><SignatureValue>AAAA</SignatureValue></Signature>` +
    `<RoleDescriptor xsi:type="fed:SecurityTokenServiceType" protocolSupportEnumeration="http://docs.oasis-open.org/wsfed/federation/200706" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:fed="http://docs.oasis-open.org/wsfed/federation/200706">` +
    `<KeyDescriptor use="signing"><KeyInfo xmlns="http://www.w3.org/2000/09/xmldsig#"><X509Data><X509Certificate>${cert}</X509Certificate></X509Data></KeyInfo></KeyDescriptor></RoleDescriptor>` +
    `<IDPSSODescriptor protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol">` +
    `<KeyDescriptor use="signing"><KeyInfo xmlns="http://www.w3.org/2000/09/xmldsig#"><X509Data><X509Certificate>${cert}</X509Certificate></X509Data></KeyInfo></KeyDescriptor>` +
    `<KeyDescriptor use="signing"><KeyInfo xmlns="http://www.w3.org/2000/09/xmldsig#"><X509Data><X509Certificate>\n  ${cert.match(/.{1,76}/g)!.join('\n')}\n</X509Certificate></X509Data></KeyInfo></KeyDescriptor>` +
    `<SingleLogoutService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect" Location="https://login.microsoftonline.com/7f1b0f5e-0000-4000-8000-000000000000/saml2"/>` +
    `<SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect" Location="https://login.microsoftonline.com/7f1b0f5e-0000-4000-8000-000000000000/saml2"/>` +
    `<SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST" Location="https://login.microsoftonline.com/7f1b0f5e-0000-4000-8000-000000000000/saml2"/>` +
    `</IDPSSODescriptor></EntityDescriptor>`;
  const res = await create(form('Entra Shaped', entra));
  assert.equal(res.statusCode, 200, res.body);
  assert.equal(res.json().data.idp_issuer_uri, 'https://sts.windows.net/7f1b0f5e-0000-4000-8000-000000000000/');
  assert.equal(res.json().data.idp_sso_uri, 'https://login.microsoftonline.com/7f1b0f5e-0000-4000-8000-000000000000/saml2');
});

test('create: a taken name or slug is a 409; a JSON body is a 400; 401 and 403', async () => {
  assert.equal((await create(form('Shared Name'))).statusCode, 200);
  for (const name of ['Shared Name', 'shared-name']) {
    assert.deepEqual(errorOf(await create(form(name))), { status: 409, messages: ['sso provider name must be unique'] }, name);
  }
  const oidc = await t.request({ method: 'POST', url: '/api/v2/sso-providers/oidc', token: admin, body: { name: 'Shared OIDC', issuer: 'https://o.example.test', client_id: 'c', config: {} } });
  assert.equal(oidc.statusCode, 200);
  assert.deepEqual(errorOf(await create(form('Shared OIDC'))), { status: 409, messages: ['sso provider name must be unique'] });
  assert.deepEqual(errorOf(await t.request({ method: 'POST', url: '/api/v2/sso-providers/saml', token: admin, body: { name: 'json' } })), {
    status: 400, messages: ['content type must be multipart/form-data'],
  });
  const { body, headers } = multipart(form('anonymous'));
  assert.equal((await t.request({ method: 'POST', url: '/api/v2/sso-providers/saml', body, headers })).statusCode, 401);
  assert.deepEqual(errorOf(await create(form('as user'), (await t.login('User')).token)), { status: 403, messages: ['not authorized'] });
});

test('PATCH a SAML provider: name (slug and SP URIs follow), metadata, config; its users are signed out', async () => {
  const created = (await create(form('Before'))).json().data;
  const id = created.sso_provider_id;
  const member = await t.login('User', { ssoProviderName: 'Before' });
  const renamed = await patch(id, [['name', 'After Rename']]);
  assert.equal(renamed.statusCode, 200, renamed.body);
  const data = renamed.json().data;
  assert.equal(data.id, created.id);
  assert.equal(data.display_name, 'After Rename');
  assert.equal(data.sp_acs_uri, `${ROOT}/api/v2/sso/after-rename/callback`);
  assert.equal(data.idp_issuer_uri, created.idp_issuer_uri, 'metadata untouched');
  assert.equal((await t.request({ method: 'GET', url: '/api/v2/self', token: member.token })).statusCode, 401, 'signed out');

  const other = new SamlTestIdp('https://other-idp.example.test');
  const swapped = await patch(id, [['metadata', other.metadata({ redirect: false }), 'new.xml'], ...off.map(([k]) => [k, k.endsWith('id') ? '2' : 'true'] as Part)]);
  assert.equal(swapped.statusCode, 200, swapped.body);
  assert.equal(swapped.json().data.idp_issuer_uri, 'https://other-idp.example.test');
  assert.equal(swapped.json().data.display_name, 'After Rename');
  const list = await t.request({ method: 'GET', url: '/api/v2/sso-providers?name=After%20Rename', token: admin });
  assert.deepEqual(list.json().data[0].details, swapped.json().data);
  assert.deepEqual(list.json().data[0].config, { auto_provision: { enabled: true, default_role_id: 2, role_provision: true } });
});

test('PATCH a SAML provider: bad parts are 400s and change nothing; taken name 409; unknown 404; JSON 400', async () => {
  const { sso_provider_id: id } = (await create(form('Patch Errors'))).json().data;
  await create(form('Patch Taken'));
  assert.deepEqual(errorOf(await patch(id, [['metadata', idp.metadata({ post: false }), 'x.xml']])), {
    status: 400, messages: ['metadata does not have a SSO service that supports HTTP POST binding'],
  });
  assert.deepEqual(errorOf(await patch(id, [['config.auto_provision.enabled', 'true']])), {
    status: 400, messages: ['form is missing "config.auto_provision.default_role_id" parameter'],
  });
  assert.deepEqual(errorOf(await patch(id, [['name', 'Patch Taken']])), { status: 409, messages: ['sso provider name must be unique'] });
  assert.deepEqual(errorOf(await patch(987654, [['name', 'nobody']])), { status: 404, messages: ['resource not found'] });
  assert.deepEqual(errorOf(await t.request({ method: 'PATCH', url: `/api/v2/sso-providers/${id}`, token: admin, body: { name: 'json' } })), {
    status: 400, messages: ['content type must be multipart/form-data'],
  });
  const row = await t.db.kysely.selectFrom('sso_providers').select(['name', 'config']).where('id', '=', id).executeTakeFirstOrThrow();
  assert.deepEqual(row, { name: 'Patch Errors', config: JSON.stringify({ auto_provision: { enabled: false, default_role_id: 0, role_provision: false } }) });
});

test('signing certificate: Scent\'s SP certificate as a PEM download, the one in the SP metadata; 404 for others', async () => {
  const { sso_provider_id: id } = (await create(form('Cert Check'))).json().data;
  const res = await t.request({ method: 'GET', url: `/api/v2/sso-providers/${id}/signing-certificate`, token: admin });
  assert.equal(res.statusCode, 200);
  assert.equal(res.headers['content-type'], 'application/x-pem-file');
  assert.equal(res.headers['content-disposition'], 'attachment; filename="cert-check-signing-certificate.pem"');
  const cert = new X509Certificate(res.body);
  assert.equal(cert.subject, 'CN=Scent SAML service provider');
  const metadata = await t.request({ method: 'GET', url: '/api/v2/sso/cert-check/metadata' });
  assert.equal(metadata.statusCode, 200);
  assert.equal(metadata.headers['content-type'], 'application/samlmetadata+xml');
  assert.ok(metadata.body.replace(/\s+/g, '').includes(cert.raw.toString('base64')), 'the metadata publishes the same certificate');
  assert.match(metadata.body, /entityID="http:\/\/scent\.test\/api\/v2\/sso\/cert-check"/);
  assert.match(metadata.body, /Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST" Location="http:\/\/scent\.test\/api\/v2\/sso\/cert-check\/callback"/);

  const oidc = (await t.request({ method: 'POST', url: '/api/v2/sso-providers/oidc', token: admin, body: { name: 'Not SAML', issuer: 'https://o.example.test', client_id: 'c', config: {} } })).json().data;
  for (const bad of [oidc.sso_provider_id, 999999, 'abc', '99999999999']) {
    assert.deepEqual(errorOf(await t.request({ method: 'GET', url: `/api/v2/sso-providers/${bad}/signing-certificate`, token: admin })), {
      status: 404, messages: ['resource not found'],
    }, String(bad));
  }
  assert.deepEqual(errorOf(await t.request({ method: 'GET', url: '/api/v2/sso/not-saml/metadata' })), { status: 404, messages: ['resource not found'] });
  assert.equal((await t.request({ method: 'GET', url: `/api/v2/sso-providers/${id}/signing-certificate`, token: (await t.login('User')).token })).statusCode, 403);
});

test('the SP key pair: generated once per database (every instance publishes the same), or taken from configuration', async () => {
  const { sso_provider_id: id } = (await create(form('Key Source'))).json().data;
  const first = (await t.request({ method: 'GET', url: `/api/v2/sso-providers/${id}/signing-certificate`, token: admin })).body;
  const stored = await t.db.kysely.selectFrom('settings').select('value').where('key', '=', 'saml_sp_key_pair').executeTakeFirstOrThrow();
  assert.equal(JSON.parse(stored.value).cert, first);
  const { buildApp } = await import('../../app.ts');
  const configured = generateSpKeyPair('Configured SP');
  const other = await buildApp({ config: { ...t.config, samlSpCert: configured.cert, samlSpKey: configured.key }, db: t.db });
  try {
    const res = await other.inject({ method: 'GET', url: `/api/v2/sso-providers/${id}/signing-certificate`, headers: { authorization: `Bearer ${admin}` } });
    assert.equal(new X509Certificate(res.body).subject, 'CN=Configured SP');
  } finally {
    await other.close();
  }
});

test('anonymous listing: a SAML provider shows what a login page needs, no details or config', async () => {
  await create(form('Public SAML'));
  const res = await t.request({ method: 'GET', url: '/api/v2/sso-providers?name=Public%20SAML' });
  assert.equal(res.statusCode, 200, res.body);
  const [provider] = res.json().data;
  assert.deepEqual(Object.keys(provider).sort(), ['callback_uri', 'created_at', 'id', 'login_uri', 'name', 'slug', 'type', 'updated_at']);
  assert.equal(provider.type, 'SAML');
  assert.equal(provider.login_uri, `${ROOT}/api/v2/sso/public-saml/login`);
});

test('PATCH: one route for both types, each with its own body; audited as UpdateSSOIdentityProvider', async () => {
  const { sso_provider_id: id } = (await create(form('Audited Patch'))).json().data;
  const res = await patch(id, [['name', 'Audited Patch 2']]);
  assert.equal(res.statusCode, 200, res.body);
  const entry = await t.db.kysely.selectFrom('audit_logs').selectAll().where('request_id', '=', String(res.headers['x-request-id'])).executeTakeFirstOrThrow();
  assert.deepEqual([entry.action, entry.status, JSON.parse(entry.fields)], ['UpdateSSOIdentityProvider', 'success', { sso_provider_id: id, name: 'Audited Patch 2' }]);
  const oidc = (await t.request({ method: 'POST', url: '/api/v2/sso-providers/oidc', token: admin, body: { name: 'Patch OIDC', issuer: 'https://o.example.test', client_id: 'c', config: {} } })).json().data;
  assert.deepEqual(errorOf(await patch(oidc.sso_provider_id, [['name', 'by form']])), { status: 400, messages: ['content type must be application/json'] });
  const json = await t.request({ method: 'PATCH', url: `/api/v2/sso-providers/${oidc.sso_provider_id}`, token: admin, body: { client_id: 'rotated' } });
  assert.equal(json.statusCode, 200, json.body);
  assert.equal(json.json().data.client_id, 'rotated');
});

test('OpenAPI: the SAML form (with the metadata file) and the ACS form are documented', async () => {
  const spec = (await t.request({ method: 'GET', url: '/api/v2/spec' })).json();
  const create = spec.paths['/api/v2/sso-providers/saml'].post.requestBody.content['multipart/form-data'].schema;
  assert.deepEqual(create.required, ['name', 'metadata', 'config.auto_provision.enabled']);
  assert.equal(create.properties.metadata.format, 'binary');
  assert.ok(spec.paths['/api/v2/sso-providers/{sso_provider_id}'].patch.requestBody.content['multipart/form-data']);
  assert.ok(spec.paths['/api/v2/sso-providers/{sso_provider_id}'].patch.requestBody.content['application/json']);
  assert.deepEqual(spec.paths['/api/v2/sso/{slug}/callback'].post.requestBody.content['application/x-www-form-urlencoded'].schema.required, ['SAMLResponse']);
});
