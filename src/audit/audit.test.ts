/**
 * The audit mechanism: the entry commits with the change or not at all; a failed change leaves a
 * failure entry and nothing of the change; login attempts are recorded with who tried.
 */
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { Type } from '@sinclair/typebox';
import { createTestApp, errorOf, type TestApp } from '../test/harness.ts';
import { route } from '../http/route.ts';
import { badRequest } from '../http/errors.ts';
import { createUser } from '../modules/users/users.service.ts';
import { audited, auditNote } from './audit.ts';
import { buildApp } from '../app.ts';

/** Test-only routes: a change that writes a setting, then fails or not. */
const testRoutes = [
  route<{ Body: { key: string; fail?: 'change' | 'entry' } }>({
    method: 'POST',
    url: '/test/audited-setting',
    config: { access: { permissions: ['app/WriteAppConfig'] }, audit: { action: 'UpdateParameter' } },
    schema: { body: Type.Object({ key: Type.String(), fail: Type.Optional(Type.String()) }) },
    handler: async (request) => {
      const { key, fail } = request.body;
      let calls = 0;
      await audited(request, async (db) => {
        await db.kysely.insertInto('settings').values({ key, value: 'v', updated_at: 0 }).execute();
        if (fail === 'change') throw badRequest('the change failed after its first write');
        // Serialising the entry's fields fails once (the success entry), not for the failure entry.
        if (fail === 'entry') auditNote(request, { fields: { trap: { toJSON: () => (calls++ === 0 ? (() => { throw new Error('no'); })() : 'ok') } } });
      });
      return { data: { key } };
    },
  }),
];

let t: TestApp;
let admin: { token: string; userId: string };
before(async () => {
  t = await createTestApp({}, testRoutes);
  admin = await t.login('Administrator');
});
after(() => t.close());

const entries = (requestId: unknown) =>
  t.db.kysely.selectFrom('audit_logs').selectAll().where('request_id', '=', String(requestId)).execute();
const setting = (key: string) => t.db.kysely.selectFrom('settings').selectAll().where('key', '=', key).executeTakeFirst();
const call = (body: unknown) => t.request({ method: 'POST', url: '/test/audited-setting', token: admin.token, body });

test('success: the change and its entry commit together; the entry names the actor, request and source', async () => {
  const res = await call({ key: 'audit-ok' });
  assert.equal(res.statusCode, 200);
  assert.ok(await setting('audit-ok'));
  const [e, ...more] = await entries(res.headers['x-request-id']);
  assert.equal(more.length, 0);
  assert.equal(e.status, 'success');
  assert.equal(e.action, 'UpdateParameter');
  assert.equal(e.actor_id, admin.userId);
  assert.match(e.actor_name, /^administrator-\d+$/);
  assert.equal(e.actor_email, `${e.actor_name}@example.test`);
  assert.equal(e.source_ip_address, '127.0.0.1');
  assert.deepEqual(JSON.parse(e.fields), {});
});

test('a change that fails after writing leaves nothing of it, and one failure entry (never a success)', async () => {
  const res = await call({ key: 'audit-fail', fail: 'change' });
  assert.deepEqual(errorOf(res), { status: 400, messages: ['the change failed after its first write'] });
  assert.equal(await setting('audit-fail'), undefined);
  const list = await entries(res.headers['x-request-id']);
  assert.deepEqual(list.map((e) => [e.action, e.status, JSON.parse(e.fields).error]), [
    ['UpdateParameter', 'failure', 'the change failed after its first write'],
  ]);
});

test('an entry that cannot be written takes the change with it', async () => {
  const res = await call({ key: 'audit-entry-fail', fail: 'entry' });
  assert.equal(res.statusCode, 500);
  assert.equal(await setting('audit-entry-fail'), undefined, 'no change without its entry');
  const list = await entries(res.headers['x-request-id']);
  assert.deepEqual(list.map((e) => e.status), ['failure']);
});

test('validation failures and refusals are entries too', async () => {
  const bad = await call({ nope: 1 });
  assert.equal(bad.statusCode, 400);
  assert.deepEqual((await entries(bad.headers['x-request-id'])).map((e) => [e.action, e.status, JSON.parse(e.fields).error]), [
    ['UpdateParameter', 'failure', 'key is required'],
  ]);
  const reader = await t.login('Read-Only');
  const refused = await t.request({ method: 'POST', url: '/test/audited-setting', token: reader.token, body: { key: 'x' } });
  assert.equal(refused.statusCode, 403);
  const [e] = await entries(refused.headers['x-request-id']);
  assert.equal(e.action, 'UnauthorizedAccessAttempt');
  assert.equal(e.actor_id, reader.userId, 'the refused caller is named');
  assert.deepEqual(JSON.parse(e.fields), { endpoint: 'POST /test/audited-setting', error: 'not authorized' });
});

test('login attempts: success and failure, with who tried', async () => {
  const user = await createUser(t.db, { principalName: 'audit-login', email: 'audit-login@example.test', roleName: 'User', password: 'audit-Password-1!' });
  const login = (username: string, secret: string) => t.request({ method: 'POST', url: '/api/v2/login', body: { login_method: 'secret', username, secret } });
  const good = await login('audit-login', 'audit-Password-1!');
  const wrong = await login('audit-login', 'wrong');
  const unknown = await login('nobody-here', 'x');
  const rows = await Promise.all([good, wrong, unknown].map((r) => entries(r.headers['x-request-id'])));
  assert.deepEqual(rows.map(([e]) => [e.action, e.status, e.actor_id, e.actor_name]), [
    ['LoginAttempt', 'success', user.id, 'audit-login'],
    ['LoginAttempt', 'failure', user.id, 'audit-login'],
    ['LoginAttempt', 'failure', '', ''],
  ]);
  assert.deepEqual(JSON.parse(rows[1][0].fields), { username: 'audit-login', auth_type: 'secret', error: 'authentication is invalid' });
  assert.doesNotMatch(JSON.stringify(rows), /audit-Password|wrong/, 'no secret is ever recorded');
  const out = await t.request({ method: 'POST', url: '/api/v2/logout', token: good.json().data.session_token });
  assert.deepEqual((await entries(out.headers['x-request-id'])).map((e) => [e.action, e.status, e.actor_id]), [['Logout', 'success', user.id]]);
});

test('start-up refuses a write route without an audit declaration', async () => {
  const bare = route({ method: 'DELETE', url: '/test/unaudited', config: { access: { permissions: [] } }, handler: async () => ({}) });
  await assert.rejects(buildApp({ config: t.config, db: t.db, extraRoutes: [bare] }), /DELETE \/test\/unaudited declares no audit/);
  const unknown = route({ method: 'POST', url: '/test/bad-action', config: { access: { permissions: [] }, audit: { action: 'Nope' as never } }, handler: async () => ({}) });
  await assert.rejects(buildApp({ config: t.config, db: t.db, extraRoutes: [unknown] }), /unknown audit action Nope/);
});
