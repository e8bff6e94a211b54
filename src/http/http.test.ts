import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { buildApp } from '../app.ts';
import { testConfig } from '../config.ts';
import { createDb } from '../db/create-db.ts';
import { createTestApp, DIALECT, errorOf, type TestApp } from '../test/harness.ts';
import { route } from './route.ts';

const boom = route({
  method: 'GET',
  url: '/test/boom',
  config: { access: { public: true } },
  handler: async () => {
    throw new Error('SELECT secret FROM internals -- stack and SQL must not leak');
  },
});

const SLOW_MARK = `scent-slow-${randomUUID()}`;

/** Runs database statements until the deadline stops it (SQLite: between statements; PG: cancelled). */
const slow = route({
  method: 'GET',
  url: '/test/slow',
  config: { access: { public: true } },
  handler: async (request) => {
    const { db } = request.server;
    if (db.dialect === 'postgres') {
      await sql.raw(`select pg_sleep(20) /* ${SLOW_MARK} */`).execute(db.kysely);
    } else {
      const until = Date.now() + 20_000;
      while (Date.now() < until) {
        await sql`with recursive c(x) as (select 1 union all select x + 1 from c where x < 20000) select count(*) from c`.execute(db.kysely);
      }
    }
    return { done: true };
  },
});

let t: TestApp;
before(async () => {
  t = await createTestApp({ allowUnlimitedWait: false }, [boom, slow]);
});
after(() => t.close());

test('unknown route: 404 envelope with X-Request-Id', async () => {
  const res = await t.request({ method: 'GET', url: '/api/v2/nope' });
  assert.deepEqual(errorOf(res), { status: 404, messages: ['resource not found'] });
  assert.match(String(res.headers['x-request-id']), /^[0-9a-f-]{36}$/);
});

test('wrong method on a known path: 405 with Allow', async () => {
  const res = await t.request({ method: 'PUT', url: '/api/v2/sso-providers/oidc' });
  assert.deepEqual(errorOf(res), { status: 405, messages: ['method not allowed'] });
  // PATCH and DELETE match too: /api/v2/sso-providers/:sso_provider_id
  assert.equal(res.headers.allow, 'POST, PATCH, DELETE');
});

test('500 carries no internals', async () => {
  const res = await t.request({ method: 'GET', url: '/test/boom' });
  assert.deepEqual(errorOf(res), {
    status: 500,
    messages: ['an internal error has occurred that is preventing the service from servicing this request'],
  });
  assert.doesNotMatch(res.body, /secret|SELECT|stack/);
});

test('413 for a body over the limit', async () => {
  const { token } = await t.login('Administrator');
  const res = await t.request({
    method: 'POST', url: '/api/v2/sso-providers/oidc', token,
    body: JSON.stringify({ name: 'x'.repeat(11 * 1024 * 1024) }),
    headers: { 'content-type': 'application/json' },
  });
  assert.deepEqual(errorOf(res), { status: 413, messages: ['request body is too large'] });
});

test('Prefer: default and echoed values', async () => {
  let res = await t.request({ method: 'GET', url: '/health' });
  assert.equal(res.headers['preference-applied'], 'wait=30');
  res = await t.request({ method: 'GET', url: '/health', headers: { prefer: 'wait=0' } });
  assert.equal(res.headers['preference-applied'], 'wait=30');
  res = await t.request({ method: 'GET', url: '/health', headers: { prefer: 'wait=7' } });
  assert.equal(res.headers['preference-applied'], 'wait=7');
});

test('Prefer: a malformed wait is 400, also among other preferences', async () => {
  for (const value of ['wait=abc', 'wait=-2', 'wait=1.5', 'wait=', 'wait', 'respond-async, wait=x', 'wait=5s; foo=bar']) {
    const res = await t.request({ method: 'GET', url: '/health', headers: { prefer: value } });
    assert.deepEqual(errorOf(res), {
      status: 400,
      messages: ["Prefer header has an invalid value: expected 'wait=N' where N is -1 or a non-negative integer"],
    }, value);
  }
});

test('Prefer (RFC 7240): other preferences are ignored, parameters and quotes allowed, the first wait counts', async () => {
  const cases: Array<[string, string]> = [
    ['wait=5, return=minimal', 'wait=5'],
    ['return=minimal, wait=5', 'wait=5'],
    ['respond-async', 'wait=30'],
    ['handling=lenient; strict, respond-async', 'wait=30'],
    ['Wait = 7 ; foo="a,b", wait=9', 'wait=7'],
    ['wait="12"', 'wait=12'],
    ['foo="x, wait=abc", wait=4', 'wait=4'],
  ];
  for (const [value, applied] of cases) {
    const res = await t.request({ method: 'GET', url: '/health', headers: { prefer: value } });
    assert.equal(res.statusCode, 200, value);
    assert.equal(res.headers['preference-applied'], applied, value);
  }
});

test('Prefer: wait=-1 needs the feature, and the refusal names the flag', async () => {
  const res = await t.request({ method: 'GET', url: '/health', headers: { prefer: 'wait=-1' } });
  assert.deepEqual(errorOf(res), {
    status: 400,
    messages: ['Prefer header has an invalid value: failed to bypass limits: feature disabled (wait=-1 is honoured only when the server runs with --allow-unlimited-wait)'],
  });
  const open = await createTestApp({ allowUnlimitedWait: true });
  try {
    const ok = await open.request({ method: 'GET', url: '/health', headers: { prefer: 'return=minimal, wait=-1' } });
    assert.equal(ok.statusCode, 200);
    assert.equal(ok.headers['preference-applied'], 'wait=-1');
  } finally {
    await open.close();
  }
});

test(`Prefer deadline: slow database work is stopped and answered 504 (${DIALECT})`, async () => {
  const started = Date.now();
  const res = await t.request({ method: 'GET', url: '/test/slow', headers: { prefer: 'wait=1' } });
  const elapsed = Date.now() - started;
  assert.deepEqual(errorOf(res), { status: 504, messages: ['request timed out'] });
  assert.ok(elapsed < 5000, `answered after ${elapsed} ms`);
  if (DIALECT === 'postgres') {
    // The statement was cancelled server-side, not left running.
    await new Promise((r) => setTimeout(r, 300));
    // Only this test's statement (marked): other suites may run their own slow statements on the same cluster.
    const running = await sql<{ n: number }>`select count(*)::int as n from pg_stat_activity where query like ${`%${SLOW_MARK}%`} and state = 'active' and pid <> pg_backend_pid()`.execute(t.db.kysely);
    assert.equal(running.rows[0].n, 0);
  }
});

test('503 when the database is unreachable, and /health says so', async () => {
  const db = createDb('postgres://postgres@127.0.0.1:1/none');
  const app = await buildApp({ config: testConfig(), db });
  try {
    const res = await app.inject({ method: 'POST', url: '/api/v2/login', payload: { login_method: 'secret', username: 'a', secret: 'b' } });
    assert.deepEqual(errorOf(res), { status: 503, messages: ['the database is unavailable'] });
    const health = await app.inject({ method: 'GET', url: '/health' });
    assert.equal(health.statusCode, 503);
    assert.deepEqual(health.json(), { status: 'degraded', database: 'unreachable', dialect: 'postgres' });
  } finally {
    await app.close();
    await db.close();
  }
});

test('/health and the OpenAPI document are public', async () => {
  const health = await t.request({ method: 'GET', url: '/health' });
  assert.deepEqual(health.json(), { status: 'ok', database: 'reachable', dialect: DIALECT });
  const spec = await t.request({ method: 'GET', url: '/api/v2/spec' });
  assert.equal(spec.statusCode, 200);
  const doc = spec.json();
  assert.equal(doc.openapi, '3.0.3');
  for (const path of ['/api/v2/sso-providers/oidc', '/api/v2/sso-providers/{sso_provider_id}', '/api/v2/login', '/api/v2/self']) {
    assert.ok(doc.paths[path], `spec documents ${path}`);
  }
  const docs = await t.request({ method: 'GET', url: '/api/v2/docs' });
  assert.match(docs.body, /swagger-ui-bundle\.js/);
  const asset = await t.request({ method: 'GET', url: '/api/v2/docs/swagger-ui.css' });
  assert.equal(asset.statusCode, 200);
});

test('start-up fails for a route that declares no access', async () => {
  const db = createDb('sqlite::memory:');
  const undeclared = { method: 'GET', url: '/x', config: {}, handler: async () => ({}) } as never;
  await assert.rejects(buildApp({ config: testConfig(), db, extraRoutes: [undeclared] }), /declares no access/);
  await db.close();
});

test('NUL characters: in a path id 400, in a stored field 400 (never 500) on both databases', async () => {
  const { token } = await t.login('Administrator');
  const res = await t.request({ method: 'DELETE', url: '/api/v2/sso-providers/1%00', token });
  assert.deepEqual(errorOf(res), { status: 400, messages: ['id is malformed'] });
  const created = await t.request({
    method: 'POST', url: '/api/v2/sso-providers/oidc', token,
    body: { name: 'nul\u0000name', issuer: 'https://idp.example.test', client_id: 'c', config: {} },
  });
  if (DIALECT === 'postgres') {
    assert.deepEqual(errorOf(created), { status: 400, messages: ['the request contains characters that cannot be stored (NUL)'] });
  } else {
    assert.equal(created.statusCode, 200, 'SQLite stores NUL like any other character');
  }
});
