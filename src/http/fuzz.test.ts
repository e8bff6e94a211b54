import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { sql } from 'kysely';
import { createTestApp, type TestApp } from '../test/harness.ts';

/**
 * Hostile input, generated: for every route, random query strings, path segments and bodies get a
 * 2xx or a contract 4xx with the envelope — never a 5xx, never a hang — and GETs change nothing.
 * SCENT_FUZZ_RUNS sets the cases per route (default 60; `npm run test:long` uses 10,000).
 * Requests go over real HTTP on loopback (app.inject retains ~10 kB per request inside
 * light-my-request, which a 10,000-case run cannot afford).
 */
const RUNS = Number(process.env.SCENT_FUZZ_RUNS ?? 60);

let t: TestApp;
let token: string;
let base: string;
before(async () => {
  t = await createTestApp();
  token = (await t.login('Administrator')).token;
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(t.app.server.address() as { port: number }).port}`;
});

interface Answer {
  statusCode: number;
  body: string;
}

async function call(method: string, url: string, headers: Record<string, string>, payload?: string): Promise<Answer> {
  const res = await fetch(`${base}${url}`, { method, headers, body: payload, redirect: 'manual', signal: AbortSignal.timeout(30_000) });
  return { statusCode: res.status, body: await res.text() };
}
after(() => t.close());

const nasty = fc.oneof(
  fc.string(),
  fc.string({ unit: 'grapheme' }),
  fc.constantFrom("' OR 1=1 --", '"; drop table users; --', '%', '_', '\\', '\u0000', 'eq:', '~eq:%', 'gt:-1',
    'eq:null', 'neq:null', '-name', 'sort_by', '{"a":1}', '[1]', '1e309', '-0', '9'.repeat(40), 'İ', 'ǅ', '\u202e'),
  fc.tuple(fc.constantFrom('eq', '~eq', 'neq', 'gt', 'gte', 'lt', 'lte', 'like', ''), fc.string()).map(([p, v]) => `${p}:${v}`),
);

const key = fc.oneof(
  fc.constantFrom('name', 'slug', 'skip', 'limit', 'sort_by', 'type', 'start', 'end', 'status', 'client_id', 'event_id',
    'created_at', 'object_id', 'primary_kind', 'environments', 'hydrate_ous', 'hydrate_domains', 'id', '__proto__', 'constructor'),
  fc.string({ minLength: 1, maxLength: 12 }),
);

const queryString = fc.array(fc.tuple(key, nasty), { maxLength: 6 })
  .map((pairs) => pairs.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&'));

const body = fc.oneof(
  fc.json(),
  fc.jsonValue().map((v) => JSON.stringify(v)),
  fc.dictionary(fc.constantFrom('name', 'issuer', 'client_id', 'config', 'token_name', 'user_id', 'login_method', 'username', 'secret', 'rrule'), fc.jsonValue()).map((v) => JSON.stringify(v)),
  fc.string(),
);

async function snapshot(): Promise<string> {
  const tables = ['users', 'sessions', 'sso_providers', 'oidc_providers', 'roles', 'permissions'];
  const counts = [];
  for (const table of tables) {
    const r = await sql<{ n: number }>`select count(*) as n from ${sql.table(table)}`.execute(t.db.kysely);
    counts.push(`${table}=${Number(r.rows[0].n)}`);
  }
  return counts.join(',');
}

function assertContract(res: Answer, label: string) {
  assert.ok(res.statusCode < 500, `${label} → ${res.statusCode} ${res.body.slice(0, 300)}`);
  if (res.statusCode >= 400) {
    const parsed = JSON.parse(res.body);
    assert.equal(parsed.http_status, res.statusCode, label);
    assert.ok(Array.isArray(parsed.errors) && parsed.errors.length > 0, label);
  }
}

const concrete = (url: string, segment: string) => url.replace(/:[^/]+/g, encodeURIComponent(segment) || 'x');

test(`GET routes: ${RUNS} generated query strings and path ids each, no 5xx and nothing changes`, async () => {
  const before = await snapshot();
  const gets = t.app.routeTable.filter((r) => r.method === 'GET' && !('client' in r.access));
  for (const route of gets) {
    await fc.assert(
      fc.asyncProperty(queryString, nasty, async (qs, segment) => {
        const url = `${concrete(route.url, segment)}${qs ? `?${qs}` : ''}`;
        const res = await call('GET', url, { authorization: `Bearer ${token}` });
        assertContract(res, `GET ${url}`);
      }),
      { numRuns: RUNS },
    );
  }
  assert.equal(await snapshot(), before, 'GET requests changed stored data');
});

test(`write routes: ${RUNS} generated bodies each, no 5xx`, async () => {
  const writes = t.app.routeTable.filter((r) => ['POST', 'PUT', 'PATCH'].includes(r.method) && !r.url.includes('logout') && !('client' in r.access));
  for (const route of writes) {
    await fc.assert(
      fc.asyncProperty(body, fc.constantFrom('application/json', 'text/plain', 'application/json; charset=utf-8'), async (payload, type) => {
        const res = await call(route.method, concrete(route.url, '1'), { authorization: `Bearer ${token}`, 'content-type': type }, payload);
        assertContract(res, `${route.method} ${route.url} ${payload.slice(0, 80)}`);
      }),
      { numRuns: RUNS },
    );
  }
});

test('size and shape limits: huge headers, 10,000 repeated parameters, deep JSON', async () => {
  const many = Array.from({ length: 10_000 }, (_, i) => `name=n${i}`).join('&');
  // Over HTTP, Node refuses a request line that long before routing: 431 in the envelope.
  const res = await call('GET', `/api/v2/sso-providers?${many}`, { authorization: `Bearer ${token}` });
  assert.equal(res.statusCode, 431);
  assert.deepEqual(JSON.parse(res.body).errors, [{ context: '', message: 'request headers are too large' }]);
  const huge = await call('GET', '/health', { 'x-padding': 'x'.repeat(40_000) });
  assert.equal(huge.statusCode, 431);
  // Under the header limit, the query engine's own bound answers.
  const injected = await t.app.inject({ method: 'GET', url: `/api/v2/sso-providers?${many}`, headers: { authorization: `Bearer ${token}` } });
  assert.equal(injected.statusCode, 400);
  assert.equal(injected.json().errors[0].message, 'there are errors in the query parameter filters specified: name (more than 100 values)');
  const deep = '['.repeat(50_000) + ']'.repeat(50_000);
  const deepRes = await call('POST', '/api/v2/sso-providers/oidc', { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, deep);
  assertContract(deepRes, 'deep JSON');
  assert.equal(deepRes.statusCode, 400);
  const longValue = await call('GET', `/api/v2/sso-providers?name=~eq:${'a'.repeat(12_000)}`, { authorization: `Bearer ${token}` });
  assertContract(longValue, 'long value');
});
