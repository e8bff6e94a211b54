import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { errorOf } from '../../test/harness.ts';
import { axiosErrorOf, createClientApp, type ClientApp } from '../../test/http-client.ts';
import { assertShape } from '../../test/shape.ts';
import { durationMicros } from './parameters.ts';

/** GET /api/v2/features, PUT /api/v2/features/{id}/toggle, GET|PUT /api/v2/config (issue 13). */
let c: ClientApp;
let admin: string;
before(async () => {
  c = await createClientApp();
  admin = (await c.login('Administrator')).token;
});
after(() => c.close());

const FLAG = { id: 'integer', key: 'string', name: 'string', description: 'string', enabled: 'boolean', user_updatable: 'boolean', created_at: 'datetime', updated_at: 'datetime' };
const PARAMETER = { id: 'integer', key: 'string', name: 'string', description: 'string', value: 'object', created_at: 'datetime', updated_at: 'datetime' };
const DAY = 24 * 3600 * 1_000_000;

test('features (the JS client\'s getFeatureFlags): BloodHound\'s ids and keys; only honoured flags are user-updatable', async () => {
  const { token } = await c.login('Read-Only');
  const res = await c.http(token).get('/api/v2/features');
  assert.equal(res.status, 200);
  assertShape(res.data, { data: [FLAG] });
  const byKey = new Map(res.data.data.map((f: { key: string }) => [f.key, f]));
  assert.deepEqual(byKey.get('tier_management_engine'), { ...(byKey.get('tier_management_engine') as object), id: 16, enabled: true, user_updatable: true });
  assert.equal((byKey.get('oidc_support') as { id: number }).id, 13);
  assert.deepEqual(res.data.data.filter((f: { user_updatable: boolean }) => f.user_updatable).map((f: { key: string }) => f.key), ['tier_management_engine']);
  const power = await c.login('Power User');
  assert.deepEqual(axiosErrorOf(await c.http(power.token).get('/api/v2/features')), { status: 403, messages: ['not authorized'] });
});

test('toggle (body-less PUT, as the JS client sends it): tier_management_engine off makes the tag routes 404; on again', async () => {
  const http = c.http(admin);
  assert.equal((await http.get('/api/v2/asset-group-tags')).status, 200);
  const off = await http.put('/api/v2/features/16/toggle');
  assert.equal(off.status, 200);
  assert.deepEqual(off.data, { data: { enabled: false } });
  assert.deepEqual(axiosErrorOf(await http.get('/api/v2/asset-group-tags')), { status: 404, messages: ['resource not found'] });
  assert.deepEqual(axiosErrorOf(await http.get('/api/v2/asset-group-tags/1/members')), { status: 404, messages: ['resource not found'] });
  assert.deepEqual((await http.put('/api/v2/features/16/toggle')).data, { data: { enabled: true } });
  assert.equal((await http.get('/api/v2/asset-group-tags')).status, 200);
});

test('toggle: not updatable 403 with BloodHound\'s text, unknown 404, malformed 400, permission', async () => {
  const put = (id: string, token = admin) => c.request({ method: 'PUT', url: `/api/v2/features/${id}/toggle`, token });
  assert.deepEqual(errorOf(await put('13')), { status: 403, messages: ['Feature flag oidc_support(13) is not user updatable.'] });
  assert.deepEqual(errorOf(await put('14')), { status: 404, messages: ['resource not found'] });
  assert.deepEqual(errorOf(await put('x')), { status: 400, messages: ['id is malformed'] });
  const { token } = await c.login('User');
  assert.deepEqual(errorOf(await put('16', token)), { status: 403, messages: ['not authorized'] });
  const flag = await c.db.kysely.selectFrom('feature_flags').select('enabled').where('id', '=', 13).executeTakeFirstOrThrow();
  assert.equal(flag.enabled, 1, 'unchanged');
});

test('config (the JS client\'s getConfiguration / updateConfiguration): the password window, set and used', async () => {
  const http = c.http(admin);
  const res = await http.get('/api/v2/config');
  assertShape(res.data, { data: [PARAMETER] });
  assert.deepEqual(res.data.data.map((p: { key: string; value: unknown }) => [p.key, p.value]), [['auth.password_expiration_window', { duration: 'P90D' }]]);
  const one = await http.get('/api/v2/config?parameter=eq:auth.password_expiration_window');
  assert.equal(one.data.data.length, 1);
  const put = await http.put('/api/v2/config', { key: 'auth.password_expiration_window', value: { duration: 'P30D' } });
  assert.deepEqual(put.data, { data: { key: 'auth.password_expiration_window', value: { duration: 'P30D' } } });
  const created = (await http.post('/api/v2/bloodhound-users', { principal: 'window-user', secret: 'Window-Pass-42' })).data.data;
  const left = Date.parse(created.AuthSecret.expires_at) - Date.now();
  assert.ok(left > 29 * DAY / 1000 && left <= 30 * DAY / 1000, `expires in ${left} ms`);
  assert.deepEqual((await http.get('/api/v2/config')).data.data[0].value, { duration: 'P30D' });
});

test('config: BloodHound\'s 400s', async () => {
  const get = (qs: string) => c.request({ method: 'GET', url: `/api/v2/config?${qs}`, token: admin });
  const put = (body: unknown) => c.request({ method: 'PUT', url: '/api/v2/config', token: admin, body });
  assert.deepEqual(errorOf(await get('parameter=eq:prune.ttl')), { status: 400, messages: ['Configuration parameter prune.ttl is not valid.'] });
  assert.deepEqual(errorOf(await get('parameter=neq:x')), { status: 400, messages: ['the specified filter predicate is not supported for this column: parameter neq'] });
  assert.deepEqual(errorOf(await put({ key: 'analysis.citrix_rdp_support', value: { enabled: true } })), { status: 400, messages: ['Configuration parameter analysis.citrix_rdp_support is not valid.'] });
  assert.deepEqual(errorOf(await put({ key: 'auth.password_expiration_window', value: {} })), { status: 400, messages: ['missing or invalid property: value'] });
  assert.deepEqual(errorOf(await put({ key: 'auth.password_expiration_window', value: { duration: 'P1D', x: 1 } })), { status: 400, messages: ['value property contains an invalid field'] });
  assert.deepEqual(errorOf(await put({ key: 'auth.password_expiration_window', value: { duration: '90 days' } })), { status: 400, messages: ['value.duration must be a positive ISO-8601 duration (e.g. P90D)'] });
  assert.deepEqual(errorOf(await put({ key: 'auth.password_expiration_window' })), { status: 400, messages: ['value is required'] });
  const { token } = await c.login('User');
  assert.deepEqual(errorOf(await c.request({ method: 'PUT', url: '/api/v2/config', token, body: { key: 'x', value: {} } })), { status: 403, messages: ['not authorized'] });
});

test('ISO-8601 durations', () => {
  assert.equal(durationMicros('P90D'), 90 * DAY);
  assert.equal(durationMicros('P1Y2M1W'), (365 + 60 + 7) * DAY);
  assert.equal(durationMicros('PT12H30M'), 45_000 * 1_000_000);
  for (const bad of ['P', 'PT', '90D', 'P1.5D', 'P1DT', '']) assert.equal(durationMicros(bad), null, bad);
});
