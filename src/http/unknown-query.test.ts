import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, errorOf, type TestApp } from '../test/harness.ts';
import { issueSession } from '../auth/sessions.ts';
import { createClient } from '../modules/clients/clients.service.ts';

/**
 * CONTRACT §3: any query parameter that is neither a filter column nor a documented parameter of the
 * route is a 400, never ignored. Walks EVERY /api/ GET route with an unknown parameter, as a caller the
 * route admits (the other methods share the same hook, but validate their body first).
 */
let t: TestApp;
let admin: string;
let client: string;
before(async () => {
  t = await createTestApp();
  admin = (await t.login('Administrator')).token;
  const c = await createClient(t.db, { name: 'walk-client', type: 'sharphound' });
  client = (await issueSession(t.db, t.config, { clientId: c.id }, 600, 'test')).token;
});
after(() => t.close());

const concrete = (url: string) => url.replace(/:[^/]+/g, '1');

test('an unknown query parameter is a 400 naming it, on every /api/ route (the newcomer\'s /self?x, /api/version?x, ...)', async () => {
  const walked: string[] = [];
  for (const route of t.app.routeTable) {
    if (!route.url.startsWith('/api/') || route.method !== 'GET') continue;
    const name = `${route.method} ${route.url}`;
    // a route with a querystring schema of its own (the OIDC callback: the provider's code and state)
    if (!route.query) continue;
    const token = 'client' in route.access ? client : 'public' in route.access ? undefined : admin;
    const res = await t.request({ method: route.method, url: `${concrete(route.url)}?scent_unknown=1`, token });
    assert.deepEqual(errorOf(res), { status: 400, messages: ['the specified column cannot be filtered: scent_unknown'] }, `${name}: ${res.body}`);
    walked.push(name);
  }
  for (const named of ['GET /api/v2/self', 'GET /api/version', 'GET /api/v2/certtemplates/:object_id', 'GET /api/v2/asset-group-tags',
    'GET /api/v2/asset-group-tags/:asset_group_tag_id/selectors', 'GET /api/v2/jobs/available', 'GET /api/v2/spec']) {
    assert.ok(walked.includes(named), `${named} was not walked`);
  }
});

test('without the unknown parameter the same request answers 200 (the 400 is the parameter\'s doing)', async () => {
  const res = await t.request({ method: 'GET', url: '/api/v2/self', token: admin, query: { x: '1' } });
  assert.deepEqual(errorOf(res), { status: 400, messages: ['the specified column cannot be filtered: x'] });
  const ok = await t.request({ method: 'GET', url: '/api/v2/self', token: admin });
  assert.equal(ok.statusCode, 200);
});
