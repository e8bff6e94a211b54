/**
 * The wire rules of CONTRACT §1 as real clients meet them, over HTTP with axios (src/test/http-client.ts):
 * the exact JSON Content-Type on every kind of answer, body-less requests whatever their Content-Type,
 * non-JSON bodies, BloodHound's login answer.
 */
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { createClientApp, axiosErrorOf, type ClientApp } from '../test/http-client.ts';
import { upsertEdges, upsertNodes } from '../graph/store.repository.ts';
import { createUser } from '../modules/users/users.service.ts';
import { assertShape } from '../test/shape.ts';

let c: ClientApp;
let admin: string;
before(async () => {
  c = await createClientApp({ schedulerInterval: 0, ingestInterval: 0 });
  admin = (await c.login('Administrator')).token;
});
after(() => c.close());

const JSON_TYPE = 'application/json';

test('Content-Type is exactly application/json: data, errors, unknown routes, wrong methods', async () => {
  const http = c.http(admin);
  const answers = [
    await http.get('/api/v2/self'),
    await c.http().get('/api/v2/self'),
    await http.get('/api/v2/no-such-route'),
    await http.delete('/api/v2/self'),
    await http.get('/api/v2/asset-group-tags/notanumber/members'),
    await http.get('/api/v2/platform/ad/data-quality-stats?nope=1'),
    await c.http('garbage').get('/api/v2/self'),
  ];
  assert.deepEqual(answers.map((r) => r.status), [200, 401, 404, 405, 400, 400, 401]);
  for (const res of answers) assert.equal(res.headers['content-type'], JSON_TYPE, `${res.config.method} ${res.config.url}`);
});

test('Content-Type is exactly application/json: cached, gzipped and streamed answers', async () => {
  const http = c.http(admin);
  // A cached GET: the miss keeps the answer, the hit replays it.
  for (let i = 0; i < 2; i++) {
    const res = await http.get('/api/v2/asset-group-tags');
    assert.equal(res.status, 200);
    assert.equal(res.headers['content-type'], JSON_TYPE);
  }
  // Gzipped (axios asks for gzip; the OpenAPI document is far over 1 KiB).
  const raw = await http.get('/api/v2/spec', { decompress: false, responseType: 'arraybuffer' });
  assert.equal(raw.headers['content-encoding'], 'gzip');
  assert.equal(raw.headers['content-type'], JSON_TYPE);
  // Streamed: limit=0 members of a tag larger than one stream batch.
  const users = Array.from({ length: 2_050 }, (_, i) => ({ objectid: `W-${i}`, kinds: ['User', 'Base'], name: `W${i}@CORP.LOCAL`, environmentId: 'S-1-5-21-9' }));
  await upsertNodes(c.db.kysely, [{ objectid: 'W-GROUP', kinds: ['Group', 'Base'], name: 'W@CORP.LOCAL', environmentId: 'S-1-5-21-9' }, ...users]);
  await upsertEdges(c.db.kysely, users.map((u) => ({ start: { objectid: u.objectid }, end: { objectid: 'W-GROUP' }, kind: 'MemberOf' })));
  const tag = (await http.post('/api/v2/asset-group-tags', { name: 'Wire', type: 2 })).data.data;
  await http.post(`/api/v2/asset-group-tags/${tag.id}/selectors`, { name: 'w', seeds: [{ type: 1, value: 'W-GROUP' }] });
  const streamed = await http.get(`/api/v2/asset-group-tags/${tag.id}/members?limit=0`);
  assert.equal(streamed.status, 200);
  assert.equal(streamed.headers['transfer-encoding'], 'chunked');
  assert.equal(streamed.headers['content-type'], JSON_TYPE);
  assert.equal(streamed.data.data.members.length, 2_051);
});

test('an empty body is no body, whatever its Content-Type (axios sends x-www-form-urlencoded)', async () => {
  const http = c.http(admin);
  const start = await http.post('/api/v2/file-upload/start');
  assert.equal(start.config.headers['Content-Type'], 'application/x-www-form-urlencoded', 'axios behaves as in Node');
  assert.ok(start.status < 300, JSON.stringify(start.data));
  const end = await http.post(`/api/v2/file-upload/${start.data.data.id}/end`);
  assert.equal(end.status, 200, JSON.stringify(end.data));
  const client = (await http.post('/api/v2/clients', { name: 'wire-client', type: 'sharphound' })).data.data;
  const token = await http.put(`/api/v2/clients/${client.id}/token`);
  assert.equal(token.status, 200, JSON.stringify(token.data));
  const job = (await http.post(`/api/v2/clients/${client.id}/jobs`, {})).data.data;
  const cancel = await http.put(`/api/v2/jobs/${job.id}/cancel`);
  assert.equal(cancel.status, 200, JSON.stringify(cancel.data));
  // The same with any other label on an empty body.
  for (const type of ['text/plain', 'application/json', 'application/octet-stream', 'multipart/form-data; boundary=x', 'not a media type']) {
    const res = await http.post('/api/v2/file-upload/start', '', { headers: { 'Content-Type': type } });
    assert.ok(res.status < 300, `${type}: ${JSON.stringify(res.data)}`);
  }
  // On a route that reads a body, an empty one under any label is answered as no body at all.
  const none = axiosErrorOf(await http.post('/api/v2/sso-providers/oidc', undefined, { headers: { 'Content-Type': '' } }));
  assert.deepEqual(none, { status: 400, messages: ['request body must be object'] });
  for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'application/json', 'not a media type']) {
    const res = await http.post('/api/v2/sso-providers/oidc', '', { headers: { 'Content-Type': type } });
    assert.deepEqual(axiosErrorOf(res), none, type);
  }
});

test('logout with axios: 200 with Location /ui, empty body, and the session is gone', async () => {
  const { token } = await c.login('Read-Only');
  const out = await c.http(token).post('/api/v2/logout');
  assert.equal(out.status, 200);
  assert.equal(out.headers.location, '/ui');
  assert.equal(out.data, '');
  assert.deepEqual(axiosErrorOf(await c.http(token).get('/api/v2/self')), { status: 401, messages: ['authentication is invalid'] });
});

test('a JSON body sent as text/plain (or any non-JSON type) is refused with the contract message', async () => {
  const body = JSON.stringify({ name: 'x', issuer: 'https://idp.example.test', client_id: 'c', config: {} });
  for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'text/plain; charset=utf-8', 'application/xml']) {
    const res = await c.http(admin).post('/api/v2/sso-providers/oidc', body, { headers: { 'Content-Type': type } });
    assert.deepEqual(axiosErrorOf(res), { status: 400, messages: ['content type must be application/json'] }, type);
  }
  // No Content-Type at all on a body that has bytes: the same.
  const bare = await c.http(admin).post('/api/v2/sso-providers/oidc', Buffer.from(body), { headers: { 'Content-Type': '' } });
  assert.deepEqual(axiosErrorOf(bare), { status: 400, messages: ['content type must be application/json'] });
  // Any spelling of application/json is JSON.
  const upper = await c.http(admin).post('/api/v2/sso-providers/oidc', body.replace('"x"', '"y"'), { headers: { 'Content-Type': 'Application/JSON; charset=UTF-8' } });
  assert.equal(upper.status, 200, JSON.stringify(upper.data));
  // A route that reads no body ignores one of any type (as BloodHound's handlers do).
  const logout = await c.http((await c.login('User')).token).post('/api/v2/logout', 'ignored', { headers: { 'Content-Type': 'text/plain' } });
  assert.equal(logout.status, 200);
});

test('login answers BloodHound\'s fields, as the JS client types them (LoginResponse)', async () => {
  const user = await createUser(c.db, { principalName: 'wire-login', email: 'Wire.Login@Example.test', roleName: 'User', password: 'a-Password-1234!' });
  for (const username of ['wire-login', 'wire.login@example.test', '  wire-login  ']) {
    const res = await c.http().post('/api/v2/login', { login_method: 'secret', username, secret: 'a-Password-1234!' });
    assert.equal(res.status, 200, username);
    assert.equal(res.headers['content-type'], JSON_TYPE);
    assertShape(res.data, { data: { user_id: 'uuid', auth_expired: 'boolean', eula_accepted: 'boolean', session_token: 'string', user_name: 'string' } });
    assert.equal(res.data.data.user_id, user.id);
    assert.equal(res.data.data.user_name, 'wire-login');
    assert.equal(res.data.data.auth_expired, false);
  }
  const bad = await c.http().post('/api/v2/login', { login_method: 'totp', username: 'wire-login', secret: 'x' });
  assert.deepEqual(axiosErrorOf(bad), { status: 400, messages: ['Login method totp is not supported.'] });
  const upper = await c.http().post('/api/v2/login', { login_method: 'SECRET', username: 'wire-login', secret: 'a-Password-1234!' });
  assert.equal(upper.status, 200);
});
