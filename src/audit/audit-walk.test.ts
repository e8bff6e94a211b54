/**
 * The audit walk: EVERY route of `app.routeTable` that writes (POST, PUT, PATCH, DELETE, or a route
 * declaring an audit action) leaves exactly one audit entry per request, found by its request id:
 * refused at the door (UnauthorizedAccessAttempt), failed (the route's action, status failure) and
 * succeeded (status success). A write route needs a success recipe below: add one with your route.
 */
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import type { LightMyRequestResponse } from 'fastify';
import { createTestApp, type InjectOptions, type TestApp } from '../test/harness.ts';
import { makeClient, makeJob } from '../test/collection.fixtures.ts';
import { createUser } from '../modules/users/users.service.ts';
import { issueSession } from '../auth/sessions.ts';
import { multipart } from '../test/multipart.ts';
import { SamlTestIdp } from '../test/saml-idp.ts';

let t: TestApp;
let admin: string;
before(async () => {
  t = await createTestApp({ schedulerInterval: 0, ingestInterval: 0 });
  admin = (await t.login('Administrator')).token;
});
after(() => t.close());

type Call = Omit<InjectOptions, 'method'>;
const ok = async (res: LightMyRequestResponse | Promise<LightMyRequestResponse>) => {
  const r = await res;
  assert.ok(r.statusCode < 300, r.body);
  return r.json().data;
};
const post = (url: string, body?: unknown, token = admin) => ok(t.request({ method: 'POST', url, token, body }));

const walkUser = async (name: string, password?: string) =>
  (await createUser(t.db, { principalName: name, email: null, roleName: 'User', password })).id;

/** A request that succeeds, per write route ("METHOD url" as registered). */
const SUCCESS: Record<string, () => Promise<Call>> = {
  'POST /api/v2/login': async () => {
    await createUser(t.db, { principalName: 'walk-login', email: null, roleName: 'User', password: 'walk-Password-1!' });
    return { url: '/api/v2/login', body: { login_method: 'secret', username: 'walk-login', secret: 'walk-Password-1!' } };
  },
  'POST /api/v2/logout': async () => ({ url: '/api/v2/logout', token: (await t.login('User')).token }),
  'POST /api/v2/sso-providers/oidc': async () => ({
    url: '/api/v2/sso-providers/oidc', body: { name: 'walk-oidc', issuer: 'https://idp.example.test', client_id: 'c', config: {} },
  }),
  'PATCH /api/v2/sso-providers/:sso_provider_id': async () => {
    const p = await post('/api/v2/sso-providers/oidc', { name: 'walk-patched', issuer: 'https://idp.example.test', client_id: 'c', config: {} });
    return { url: `/api/v2/sso-providers/${p.sso_provider_id}`, body: { client_id: 'walk-rotated' } };
  },
  'DELETE /api/v2/sso-providers/:sso_provider_id': async () => {
    const p = await post('/api/v2/sso-providers/oidc', { name: 'walk-gone', issuer: 'https://idp.example.test', client_id: 'c', config: {} });
    return { url: `/api/v2/sso-providers/${p.sso_provider_id}` };
  },
  'POST /api/v2/bloodhound-users': async () => ({ url: '/api/v2/bloodhound-users', body: { principal: 'walk-created', roles: [3] } }),
  'PATCH /api/v2/bloodhound-users/:user_id': async () => ({ url: `/api/v2/bloodhound-users/${await walkUser('walk-patched')}`, body: { first_name: 'W' } }),
  'DELETE /api/v2/bloodhound-users/:user_id': async () => ({ url: `/api/v2/bloodhound-users/${await walkUser('walk-deleted')}` }),
  'PUT /api/v2/bloodhound-users/:user_id/secret': async () => ({
    url: `/api/v2/bloodhound-users/${await walkUser('walk-secret')}/secret`, body: { secret: 'Walk-Password-1!' },
  }),
  'DELETE /api/v2/bloodhound-users/:user_id/secret': async () => ({ url: `/api/v2/bloodhound-users/${await walkUser('walk-expired', 'Walk-Password-1!')}/secret` }),
  'PUT /api/v2/accept-eula': async () => ({ url: '/api/v2/accept-eula' }),
  'POST /api/v2/sso-providers/saml': async () => ({ url: '/api/v2/sso-providers/saml', ...samlForm('walk-saml') }),
  'PUT /api/v2/features/:feature_id/toggle': async () => {
    await ok(t.request({ method: 'PUT', url: '/api/v2/features/16/toggle', token: admin })); // off: the call below turns it on again
    return { url: '/api/v2/features/16/toggle' };
  },
  'PUT /api/v2/config': async () => ({ url: '/api/v2/config', body: { key: 'auth.password_expiration_window', value: { duration: 'P90D' } } }),
  'POST /api/v2/tokens': async () => ({ url: '/api/v2/tokens', body: { token_name: 'walk' } }),
  'DELETE /api/v2/tokens/:token_id': async () => ({ url: `/api/v2/tokens/${(await post('/api/v2/tokens', { token_name: 'gone' })).id}` }),
  'POST /api/v2/clients': async () => ({ url: '/api/v2/clients', body: { name: 'walk-client', type: 'sharphound' } }),
  'PUT /api/v2/clients/:client_id': async () => ({ url: `/api/v2/clients/${(await makeClient(t, admin, 'walk-rename')).id}`, body: { name: 'walk-renamed' } }),
  'DELETE /api/v2/clients/:client_id': async () => ({ url: `/api/v2/clients/${(await makeClient(t, admin, 'walk-gone')).id}` }),
  'PUT /api/v2/clients/:client_id/token': async () => ({ url: `/api/v2/clients/${(await makeClient(t, admin, 'walk-token')).id}/token` }),
  'POST /api/v2/clients/:client_id/jobs': async () => ({ url: `/api/v2/clients/${(await makeClient(t, admin, 'walk-job')).id}/jobs`, body: {} }),
  'PUT /api/v2/jobs/:job_id/cancel': async () => {
    const c = await makeClient(t, admin, 'walk-cancel');
    return { url: `/api/v2/jobs/${(await makeJob(t, admin, c.id)).id}/cancel` };
  },
  'POST /api/v2/jobs/start': async () => {
    const c = await makeClient(t, admin, 'walk-start');
    return { url: '/api/v2/jobs/start', token: c.token, body: { id: (await makeJob(t, admin, c.id)).id } };
  },
  'POST /api/v2/jobs/end': async () => {
    const c = await makeClient(t, admin, 'walk-end');
    await post('/api/v2/jobs/start', { id: (await makeJob(t, admin, c.id)).id }, c.token);
    return { url: '/api/v2/jobs/end', token: c.token, body: { status: 2, message: 'done' } };
  },
  'POST /api/v2/events': async () => ({
    url: '/api/v2/events', body: { client_id: (await makeClient(t, admin, 'walk-event')).id, rrule: 'FREQ=DAILY', title: 'walk' },
  }),
  'PUT /api/v2/events/:event_id': async () => {
    const c = await makeClient(t, admin, 'walk-event-put');
    const ev = await post('/api/v2/events', { client_id: c.id, rrule: 'FREQ=DAILY' });
    return { url: `/api/v2/events/${ev.id}`, body: { client_id: c.id, rrule: 'FREQ=WEEKLY;BYDAY=MO' } };
  },
  'DELETE /api/v2/events/:event_id': async () => {
    const c = await makeClient(t, admin, 'walk-event-delete');
    return { url: `/api/v2/events/${(await post('/api/v2/events', { client_id: c.id, rrule: 'FREQ=DAILY' })).id}` };
  },
  'POST /api/v2/file-upload/start': async () => ({ url: '/api/v2/file-upload/start' }),
  'POST /api/v2/file-upload/:file_upload_job_id': async () => ({
    url: `/api/v2/file-upload/${(await post('/api/v2/file-upload/start')).id}`,
    body: '{"meta": {"type": "users", "version": 6, "count": 0}, "data": []}', headers: { 'content-type': 'application/json' },
  }),
  'POST /api/v2/file-upload/:file_upload_job_id/end': async () => ({ url: `/api/v2/file-upload/${(await post('/api/v2/file-upload/start')).id}/end` }),
  'POST /api/v2/asset-group-tags': async () => ({ url: '/api/v2/asset-group-tags', body: { name: 'walk-tag', type: 2 } }),
  'PATCH /api/v2/asset-group-tags/:asset_group_tag_id': async () => ({
    url: `/api/v2/asset-group-tags/${(await post('/api/v2/asset-group-tags', { name: 'walk-patch', type: 2 })).id}`, body: { description: 'x' },
  }),
  'DELETE /api/v2/asset-group-tags/:asset_group_tag_id': async () => ({
    url: `/api/v2/asset-group-tags/${(await post('/api/v2/asset-group-tags', { name: 'walk-delete', type: 2 })).id}`,
  }),
  'POST /api/v2/asset-group-tags/:asset_group_tag_id/selectors': async () => {
    const tag = await post('/api/v2/asset-group-tags', { name: 'walk-selector', type: 2 });
    return { url: `/api/v2/asset-group-tags/${tag.id}/selectors`, body: { name: 's', seeds: [{ type: 1, value: 'S-1-5-21-1' }] } };
  },
  'PATCH /api/v2/asset-group-tags/:asset_group_tag_id/selectors/:selector_id': async () => {
    const tag = await post('/api/v2/asset-group-tags', { name: 'walk-selector-patch', type: 2 });
    const selector = await post(`/api/v2/asset-group-tags/${tag.id}/selectors`, { name: 's', seeds: [{ type: 1, value: 'S-1-5-21-1' }] });
    return { url: `/api/v2/asset-group-tags/${tag.id}/selectors/${selector.id}`, body: { name: 'renamed' } };
  },
  'DELETE /api/v2/asset-group-tags/:asset_group_tag_id/selectors/:selector_id': async () => {
    const tag = await post('/api/v2/asset-group-tags', { name: 'walk-selector-delete', type: 2 });
    const selector = await post(`/api/v2/asset-group-tags/${tag.id}/selectors`, { name: 's', seeds: [{ type: 1, value: 'S-1-5-21-1' }] });
    return { url: `/api/v2/asset-group-tags/${tag.id}/selectors/${selector.id}` };
  },
  'POST /api/v2/clear-database': async () => ({ url: '/api/v2/clear-database', body: { deleteDataQualityHistory: true } }),
  'POST /api/v2/saved-queries': async () => ({ url: '/api/v2/saved-queries', body: { name: 'walk-q', query: 'MATCH (n) RETURN n' } }),
  'PUT /api/v2/saved-queries/:saved_query_id': async () => ({ url: `/api/v2/saved-queries/${(await savedQuery('walk-put')).id}`, body: { description: 'd' } }),
  'DELETE /api/v2/saved-queries/:saved_query_id': async () => ({ url: `/api/v2/saved-queries/${(await savedQuery('walk-delete')).id}` }),
  'PUT /api/v2/saved-queries/:saved_query_id/permissions': async () => ({
    url: `/api/v2/saved-queries/${(await savedQuery('walk-share')).id}/permissions`, body: { user_ids: [(await t.login('User')).userId] },
  }),
  'DELETE /api/v2/saved-queries/:saved_query_id/permissions': async () => {
    const q = await savedQuery('walk-unshare');
    const { userId } = await t.login('User');
    await ok(t.request({ method: 'PUT', url: `/api/v2/saved-queries/${q.id}/permissions`, token: admin, body: { user_ids: [userId] } }));
    return { url: `/api/v2/saved-queries/${q.id}/permissions`, body: { user_ids: [userId] } };
  },
  'POST /api/v2/saved-queries/import': async () => ({ url: '/api/v2/saved-queries/import', body: { name: 'walk-import', query: 'MATCH (n) RETURN n' } }),
};

const samlForm = (name: string) => multipart([
  ['name', name], ['metadata', new SamlTestIdp().metadata(), 'idp.xml'], ['config.auto_provision.enabled', 'false'],
  ['config.auto_provision.default_role_id', '0'], ['config.auto_provision.role_provision', 'false'],
]);
const savedQuery = (name: string) => post('/api/v2/saved-queries', { name, query: 'MATCH (n) RETURN n' });

/** Audited routes whose success needs an outside party; their failures are still walked. */
const NO_SUCCESS_RECIPE: Record<string, string> = {
  'GET /api/v2/sso/:slug/callback': 'needs an OpenID provider: src/modules/oidc/oidc.test.ts checks its entries',
  'POST /api/v2/sso/:slug/callback': 'needs a SAML response to a request: src/modules/saml/saml.test.ts checks its entries',
};

const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const key = (r: { method: string; url: string }) => `${r.method} ${r.url}`;
const concrete = (url: string) => url.replace(/:[^/]+/g, '1');

async function entriesOf(res: LightMyRequestResponse) {
  const id = res.headers['x-request-id'];
  return t.db.kysely.selectFrom('audit_logs').selectAll().where('request_id', '=', String(id)).execute();
}

function audited() {
  return t.app.routeTable.filter((r) => r.method !== 'HEAD' && (WRITES.has(r.method) || (r.audit && 'action' in r.audit)));
}

test('every write route declares an audit action or a reasoned exemption, and has a success recipe', () => {
  const missing = audited().filter((r) => r.audit && 'action' in r.audit && !SUCCESS[key(r)] && !NO_SUCCESS_RECIPE[key(r)]).map(key);
  assert.deepEqual(missing, [], 'add a success recipe to src/audit/audit-walk.test.ts');
  for (const r of audited()) assert.ok(r.audit, key(r));
  assert.ok(audited().length >= 25, `only ${audited().length} audited routes`);
});

test('refused requests (no credentials, another role, a user on a client route): one UnauthorizedAccessAttempt each', async () => {
  const readOnly = (await t.login('Read-Only')).token;
  for (const r of audited()) {
    if (!r.audit || !('action' in r.audit) || 'public' in r.access) continue;
    const anonymous = await t.request({ method: r.method as 'POST', url: concrete(r.url) });
    const tokens = [undefined, readOnly, ...('client' in r.access ? [admin] : [])];
    for (const token of tokens) {
      const res = token === undefined ? anonymous : await t.request({ method: r.method as 'POST', url: concrete(r.url), token });
      if (res.statusCode < 400) continue; // Read-Only may call it
      const entries = await entriesOf(res);
      assert.equal(entries.length, 1, `${key(r)} ${token ? 'token' : 'anonymous'} → ${res.statusCode}`);
      const [e] = entries;
      assert.equal(e.status, 'failure');
      if (res.statusCode === 401 || (res.statusCode === 403 && token === readOnly) || 'client' in r.access) {
        assert.equal(e.action, 'UnauthorizedAccessAttempt', `${key(r)} → ${res.statusCode}`);
        assert.equal(JSON.parse(e.fields).endpoint, `${r.method} ${concrete(r.url)}`);
      }
      assert.ok(JSON.parse(e.fields).error, `${key(r)}: the failure says why`);
    }
  }
});

test('bad requests by an admitted caller: one failure entry under the route\'s action', async () => {
  const client = await makeClient(t, admin, 'walk-bad');
  for (const r of audited()) {
    if (!r.audit || !('action' in r.audit)) continue;
    // A fresh administrator each time: this walk also signs out (POST /api/v2/logout).
    const token = 'client' in r.access ? client.token : 'public' in r.access ? undefined : (await t.login('Administrator')).token;
    const res = await t.request({ method: r.method as 'POST', url: concrete(r.url).replace('/1/', '/999999/').replace(/\/1$/, '/999999'), token, body: r.method === 'DELETE' ? undefined : { bogus: [] } });
    const entries = await entriesOf(res);
    assert.equal(entries.length, 1, `${key(r)} → ${res.statusCode} ${res.body.slice(0, 200)}`);
    assert.equal(entries[0].action, r.audit.action, key(r));
    assert.equal(entries[0].status, res.statusCode < 300 ? 'success' : 'failure', `${key(r)} → ${res.statusCode}`);
  }
});

test('successful requests: exactly one success entry, with the actor and the request id', async () => {
  for (const r of audited()) {
    const recipe = SUCCESS[key(r)];
    if (!recipe || !r.audit || !('action' in r.audit)) continue;
    const call = await recipe();
    const res = await t.request({ method: r.method as 'POST', token: call.url === '/api/v2/login' ? undefined : admin, ...call });
    assert.ok(res.statusCode < 300, `${key(r)} → ${res.statusCode} ${res.body.slice(0, 300)}`);
    const entries = await entriesOf(res);
    assert.equal(entries.length, 1, key(r));
    const [e] = entries;
    assert.equal(e.action, r.audit.action, key(r));
    assert.equal(e.status, 'success', key(r));
    assert.ok(e.actor_id, `${key(r)}: an actor`);
    assert.match(e.commit_id, /^[0-9a-f-]{36}$/);
  }
});

test('exempt write routes change nothing and leave no entry', async () => {
  for (const r of audited()) {
    if (!r.audit || !('exempt' in r.audit)) continue;
    const res = await t.request({ method: r.method as 'POST', url: concrete(r.url), token: admin, body: {} });
    assert.equal((await entriesOf(res)).length, 0, key(r));
  }
});

test('a signed-out token on a write route is refused and audited once', async () => {
  const user = await createUser(t.db, { principalName: 'walk-revoked', email: null, roleName: 'Administrator' });
  const { token, sessionId } = await issueSession(t.db, t.config, { userId: user.id }, 600, 'test');
  await t.db.kysely.deleteFrom('sessions').where('id', '=', sessionId).execute();
  const res = await t.request({ method: 'POST', url: '/api/v2/clients', token, body: { name: 'x', type: 'sharphound' } });
  assert.equal(res.statusCode, 401);
  const entries = await entriesOf(res);
  assert.equal(entries.length, 1);
  assert.equal(entries[0].action, 'UnauthorizedAccessAttempt');
});
