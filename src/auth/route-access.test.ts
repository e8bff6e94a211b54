import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, errorOf, type TestApp } from '../test/harness.ts';
import { ROLE_NAMES, ROLE_PERMISSIONS, type RoleName } from './permissions.ts';
import { issueSession } from './sessions.ts';
import { createUser } from '../modules/users/users.service.ts';
import { createClient } from '../modules/clients/clients.service.ts';

/**
 * Walks EVERY registered route with every built-in role, with no credentials, and with a collection
 * client's token, and checks allow/deny against the role map (CONTRACT §2).
 */
let t: TestApp;
const userIds = new Map<RoleName, string>();
before(async () => {
  t = await createTestApp();
  for (const role of ROLE_NAMES) {
    const user = await createUser(t.db, { principalName: `walk-${role}`, email: null, roleName: role });
    userIds.set(role, user.id);
  }
});
after(() => t.close());

const concrete = (url: string) => url.replace(/:[^/]+/g, '1').replace(/\*$/, 'x');

async function freshToken(subject: { userId: string } | { clientId: string }) {
  return (await issueSession(t.db, t.config, subject, 600, 'test')).token;
}

test('every route declares its access, and the walk covers them', () => {
  const routes = t.app.routeTable.filter((r) => r.method !== 'HEAD');
  assert.ok(routes.length >= 8, `only ${routes.length} routes`);
  for (const r of routes) assert.ok(r.access, `${r.method} ${r.url}`);
});

test('roles × routes: allowed roles pass the guard, others get 403 not authorized', async () => {
  const checked: string[] = [];
  for (const route of t.app.routeTable) {
    if (route.method === 'HEAD' || !('permissions' in route.access)) continue;
    const required = route.access.permissions;
    for (const role of ROLE_NAMES) {
      const token = await freshToken({ userId: userIds.get(role)! });
      const res = await t.request({ method: route.method as 'GET', url: concrete(route.url), token });
      const allowed = required.every((p) => ROLE_PERMISSIONS[role].includes(p));
      const label = `${role} ${route.method} ${route.url} → ${res.statusCode} ${res.body.slice(0, 200)}`;
      if (allowed) {
        // Past the guard: no 401 and no guard refusal (a route's own 403, e.g. a flag that is not
        // user-updatable, says something else).
        assert.ok(res.statusCode !== 401, label);
        if (res.statusCode === 403) assert.notDeepEqual(errorOf(res).messages, ['not authorized'], label);
        assert.ok(res.statusCode < 500, label);
      } else {
        assert.deepEqual(errorOf(res), { status: 403, messages: ['not authorized'] }, label);
      }
      checked.push(label);
    }
  }
  assert.ok(checked.length > 0);
});

test('no credentials: 401 on every non-public route; public routes never ask', async () => {
  for (const route of t.app.routeTable) {
    if (route.method === 'HEAD') continue;
    const res = await t.request({ method: route.method as 'GET', url: concrete(route.url) });
    const label = `${route.method} ${route.url} → ${res.statusCode}`;
    if ('public' in route.access) assert.ok(res.statusCode !== 401 && res.statusCode !== 403, label);
    else assert.deepEqual(errorOf(res), { status: 401, messages: ['authentication is invalid'] }, label);
  }
});

test('a collection client on user routes gets 403; a user on client routes gets 404', async () => {
  const client = await createClient(t.db, { name: 'walker', type: 'sharphound' } as never);
  const clientToken = await freshToken({ clientId: client.id });
  for (const route of t.app.routeTable) {
    if (route.method === 'HEAD' || 'public' in route.access) continue;
    if ('permissions' in route.access) {
      const res = await t.request({ method: route.method as 'GET', url: concrete(route.url), token: clientToken });
      assert.deepEqual(errorOf(res), { status: 403, messages: ['not authorized'] }, `${route.method} ${route.url}`);
    } else {
      const token = await freshToken({ userId: userIds.get('Administrator')! });
      const res = await t.request({ method: route.method as 'GET', url: concrete(route.url), token });
      assert.deepEqual(errorOf(res), { status: 404, messages: ['resource not found'] }, `${route.method} ${route.url}`);
    }
  }
});
