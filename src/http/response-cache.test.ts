/**
 * Cached answers and cached sessions (src/http/response-cache.ts, src/auth/sessions.ts) are only as
 * good as their invalidation (src/db/data-versions.ts). Two handles on one database stand for two
 * processes (SQLite: another connection to the file, e.g. `scent users disable`) or two instances
 * (PostgreSQL: another pool and its own change listener).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../app.ts';
import { issueSession } from '../auth/sessions.ts';
import { testConfig } from '../config.ts';
import { createDb, type Db } from '../db/create-db.ts';
import { classify } from '../db/data-versions.ts';
import { migrateToLatest } from '../db/migrate.ts';
import { nowMicros, toRfc3339 } from '../db/time.ts';
import { createUser } from '../modules/users/users.service.ts';
import { insertClient } from '../modules/clients/clients.repository.ts';
import { DIALECT, createTestDb, errorOf, type TestDb } from '../test/harness.ts';
import { FOREIGN_PROBE_MS } from '../db/data-versions.ts';
import { withGraphTransaction } from '../graph/bulk/writer.ts';

let url: string;
let holder: TestDb | null = null;
let dir: string | null = null;
let statements = 0;
let mine: Db;
let other: Db;
let app: FastifyInstance;
let token: string;

before(async () => {
  if (DIALECT === 'postgres') {
    holder = await createTestDb(); // owns the schema (dropped on close)
    url = holder.url;
  } else {
    dir = mkdtempSync(join(tmpdir(), 'scent-cache-'));
    url = `sqlite:${join(dir, 'db.sqlite')}`;
  }
  mine = createDb(url, { log: () => void statements++ });
  if (DIALECT === 'sqlite') await migrateToLatest(mine);
  other = createDb(url);
  const config = testConfig({ databaseUrl: url, jwtSecret: 'test-secret-that-is-long-enough-for-hs256!!' });
  app = await buildApp({ config, db: mine });
  await app.ready();
  const user = await createUser(mine, { principalName: 'cache-admin', email: 'cache@example.test', roleName: 'Administrator' });
  token = (await issueSession(mine, config, { userId: user.id }, 3600, 'test')).token;
  await untilUsable(mine);
  await drainNotifications();
});

/**
 * PostgreSQL: waits until the notifications of every write committed so far have reached `mine`
 * (they arrive in commit order, so the notice of one more write through the other handle is last).
 */
let barrier = 0;
async function drainNotifications() {
  if (DIALECT !== 'postgres') return;
  const before = mine.versions.snapshot(['settings']);
  await other.kysely.insertInto('settings').values({ key: `test-barrier-${++barrier}`, value: '', updated_at: nowMicros() }).execute();
  await eventually(async () => mine.versions.snapshot(['settings']) !== before);
}

after(async () => {
  await app.close();
  await mine.close();
  await other.close();
  await holder?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** PostgreSQL caches only once the change listener is connected. */
async function untilUsable(db: Db) {
  for (let i = 0; i < 100 && !db.versions.usable(); i++) await new Promise((r) => setTimeout(r, 50));
  assert.ok(db.versions.usable(), 'the change listener connected');
}

const get = (path: string, auth = token) => app.inject({ method: 'GET', url: path, headers: { authorization: `Bearer ${auth}` } });

/** Waits until FOREIGN_PROBE_MS have passed by the clock since the write that just returned. */
async function outlastProbeWindow() {
  const committed = performance.now(); // on the clock: a timer can fire early against a stale loop time
  while (performance.now() - committed <= FOREIGN_PROBE_MS) await new Promise((r) => setTimeout(r, 1));
}

/**
 * What another process / instance wrote must be visible: on SQLite to the first request that starts
 * FOREIGN_PROBE_MS after the commit (the data_version probe), on PostgreSQL once its notification
 * arrives (milliseconds; bounded here).
 */
async function eventually(check: () => Promise<boolean>) {
  if (DIALECT === 'sqlite') await outlastProbeWindow();
  const deadline = Date.now() + (DIALECT === 'sqlite' ? 0 : 3000);
  for (;;) {
    if (await check()) return;
    if (Date.now() >= deadline) assert.fail('the change did not become visible');
    await new Promise((r) => setTimeout(r, 20));
  }
}

test(`response cache on ${DIALECT}: a repeated GET is answered without SQL, with the same bytes`, async () => {
  await drainNotifications();
  const first = await get('/api/v2/asset-group-tags');
  assert.equal(first.statusCode, 200);
  const before = statements;
  const second = await get('/api/v2/asset-group-tags');
  assert.equal(second.statusCode, 200);
  assert.equal(second.body, first.body);
  assert.equal(second.headers['content-type'], first.headers['content-type']);
  assert.equal(statements, before, 'no statement ran for the cached answer (nor for the cached session)');
  // Another query string is another answer.
  const other = await get('/api/v2/asset-group-tags/1');
  assert.equal(other.statusCode, 200);
  assert.equal(other.json().data.tag.id, 1);
});

test(`response cache on ${DIALECT}: a write through the API retires the answer at once`, async () => {
  const before = (await get('/api/v2/asset-group-tags')).json().data.tags.length;
  const created = await app.inject({
    method: 'POST', url: '/api/v2/asset-group-tags', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    payload: JSON.stringify({ name: 'Cached label', type: 2, description: '' }),
  });
  assert.equal(created.statusCode, 201, created.body);
  const after = (await get('/api/v2/asset-group-tags')).json().data.tags;
  assert.equal(after.length, before + 1);
  assert.ok(after.some((t: { name: string }) => t.name === 'Cached label'));
});

test(`response cache on ${DIALECT}: a write by another process or instance retires the answer`, async () => {
  assert.equal((await get('/api/v2/asset-group-tags/2')).json().data.tag.name, 'Owned');
  await other.kysely.updateTable('asset_group_tags').set({ name: 'Owned elsewhere' }).where('id', '=', 2).execute();
  await eventually(async () => (await get('/api/v2/asset-group-tags/2')).json().data.tag.name === 'Owned elsewhere');
  await other.kysely.updateTable('asset_group_tags').set({ name: 'Owned' }).where('id', '=', 2).execute();
  await eventually(async () => (await get('/api/v2/asset-group-tags/2')).json().data.tag.name === 'Owned');
});

test(`session cache on ${DIALECT}: revocation and disabling by another process or instance`, async () => {
  const config = testConfig({ databaseUrl: url, jwtSecret: 'test-secret-that-is-long-enough-for-hs256!!' });
  const user = await createUser(mine, { principalName: 'cache-user', email: 'cache-user@example.test', roleName: 'Read-Only' });
  const { token: t1, sessionId } = await issueSession(mine, config, { userId: user.id }, 3600, 'test');
  const { token: t2 } = await issueSession(mine, config, { userId: user.id }, 3600, 'test');
  assert.equal((await get('/api/v2/asset-group-tags', t1)).statusCode, 200);
  assert.equal((await get('/api/v2/asset-group-tags', t1)).statusCode, 200); // now from the session cache
  await other.kysely.deleteFrom('sessions').where('id', '=', sessionId).execute();
  await eventually(async () => (await get('/api/v2/asset-group-tags', t1)).statusCode === 401);
  assert.deepEqual(errorOf(await get('/api/v2/asset-group-tags', t1)), { status: 401, messages: ['authentication is invalid'] });
  assert.equal((await get('/api/v2/asset-group-tags', t2)).statusCode, 200);
  await other.kysely.updateTable('users').set({ is_disabled: 1 }).where('id', '=', user.id).execute();
  await eventually(async () => (await get('/api/v2/asset-group-tags', t2)).statusCode === 403);
  assert.deepEqual(errorOf(await get('/api/v2/asset-group-tags', t2)), { status: 403, messages: ['user is disabled'] });
});

test(`data-quality page cache on ${DIALECT}: the default range follows the clock without a write`, async () => {
  const now = nowMicros();
  const THIRTY_DAYS = 30 * 24 * 3600 * 1_000_000;
  const row = (createdAt: number, domains: number) => ({
    created_at: createdAt, updated_at: createdAt, deleted_at: null, run_id: crypto.randomUUID(), domains,
  });
  // One record about to leave the 30-day window, one dated 1.5 s ahead (another instance's clock).
  await mine.kysely.insertInto('ad_data_quality_aggregations')
    .values([row(now - THIRTY_DAYS + 1_500_000, 1), row(now - 1_000_000, 2), row(now + 1_500_000, 3)] as never).execute();
  const domains = async () => {
    const body = (await get('/api/v2/platform/ad/data-quality-stats')).json();
    assert.ok(Date.parse(body.end) * 1000 <= nowMicros() + 1000, 'end is now');
    return body.data.map((r: { domains: number }) => r.domains).join(',');
  };
  assert.equal(await domains(), '2,1');
  assert.equal(await domains(), '2,1'); // cached
  await new Promise((r) => setTimeout(r, Math.max(0, (now + 1_600_000 - nowMicros()) / 1000)));
  assert.equal(await domains(), '3,2', 'the early record left the window, the future one entered it');
  // An explicit range does not move.
  const fixed = { start: toRfc3339(now - 2_000_000), end: toRfc3339(now) };
  const q = `start=${encodeURIComponent(fixed.start)}&end=${encodeURIComponent(fixed.end)}`;
  const a = (await get(`/api/v2/platform/ad/data-quality-stats?${q}`)).json();
  assert.deepEqual([a.start, a.end, a.count], [fixed.start, fixed.end, 1]);
});

test('write classification: the tables a statement writes, transaction control, unknown scope', () => {
  const cases: Array<[string, unknown]> = [
    ['select * from "nodes" where "id" = ?', { writes: null, tx: null }],
    ['select "id" from "client_jobs" where "status" = $1 for update skip locked', { writes: null, tx: null }],
    ['insert into "sessions" ("id") values ($1)', { writes: ['sessions'], tx: null }],
    ['INSERT OR IGNORE INTO nodes (objectid) VALUES (?)', { writes: ['nodes'], tx: null }],
    ['insert into "nodes" ("a") values (?) on conflict ("objectid") do update set "a" = excluded."a"', { writes: ['nodes'], tx: null }],
    ['update "public"."clients" set "name" = $1', { writes: ['clients'], tx: null }],
    ['delete from "sessions" where "user_id" in ($1)', { writes: ['sessions'], tx: null }],
    ['with moved as (update "client_jobs" set "status" = 1 returning *) select * from moved', { writes: ['client_jobs'], tx: null }],
    ['copy edges (start_id, end_id) from stdin', { writes: ['edges'], tx: null }],
    ['create index foo on nodes (name)', { writes: 'all', tx: null }],
    ['BEGIN IMMEDIATE', { writes: null, tx: 'begin' }],
    ['commit', { writes: null, tx: 'commit' }],
    ['rollback', { writes: null, tx: 'rollback' }],
    ['rollback to savepoint a', { writes: null, tx: null }],
    ['update "clients" set "last_checkin" = $1, "ip_address" = $2 where "id" = $3 and "last_checkin" < $4', { writes: ['clients:presence'], tx: null }],
    ['update "clients" set "name" = $1, "last_checkin" = $2 where "id" = $3', { writes: ['clients'], tx: null }],
  ];
  for (const [text, expected] of cases) assert.deepEqual(classify(text), expected, text);
});

test(`response cache on ${DIALECT}: --response-cache-mb 0 keeps no answer`, async () => {
  const config = testConfig({ databaseUrl: url, jwtSecret: 'test-secret-that-is-long-enough-for-hs256!!', responseCacheMb: 0 });
  const uncached = await buildApp({ config, db: mine });
  try {
    for (const path of ['/api/v2/asset-group-tags', '/api/v2/platform/ad/data-quality-stats?start=2020-01-01T00:00:00Z']) {
      const read = () => uncached.inject({ method: 'GET', url: path, headers: { authorization: `Bearer ${token}` } });
      assert.equal((await read()).statusCode, 200);
      const before = statements;
      assert.equal((await read()).statusCode, 200);
      assert.ok(statements > before, `${path} was read from the database again`);
    }
  } finally {
    await uncached.close();
  }
});

test(`data versions on ${DIALECT}: a check-in is a change of clients:presence only, a rename of clients`, async () => {
  const versions = () => {
    mine.versions.refresh();
    return [mine.versions.snapshot(['clients']), mine.versions.snapshot(['clients:presence'])];
  };
  const beforeInsert = versions()[0];
  const client = await insertClient(other.kysely, { name: 'presence-probe', type: 'sharphound' });
  await eventually(async () => versions()[0] !== beforeInsert); // the insert's own notice has arrived
  let [clients, presence] = versions();
  await other.kysely.updateTable('clients').set({ last_checkin: nowMicros(), ip_address: '10.0.0.1' }).where('id', '=', client.id).execute();
  if (DIALECT === 'postgres') {
    // Another instance's check-in arrives as a notification about clients:presence, not clients.
    await eventually(async () => versions()[1] !== presence);
    assert.equal(versions()[0], clients, 'clients unchanged by a check-in');
  }
  // This process's own check-in (classified by its SQL).
  [clients, presence] = versions();
  await mine.kysely.updateTable('clients').set({ last_checkin: nowMicros() + 1, ip_address: '10.0.0.2' }).where('id', '=', client.id).execute();
  assert.notEqual(versions()[1], presence);
  if (DIALECT === 'postgres') await new Promise((r) => setTimeout(r, 200)); // its own notification too
  assert.equal(versions()[0], clients, 'clients unchanged by a check-in');
  await other.kysely.updateTable('clients').set({ name: 'presence-renamed' }).where('id', '=', client.id).execute();
  await eventually(async () => versions()[0] !== clients);
});

test(`data versions on ${DIALECT}: foreign-key actions count as changes of the referencing tables`, async () => {
  const client = await insertClient(mine.kysely, { name: 'cascade-probe', type: 'sharphound' });
  const before = mine.versions.snapshot(['client_jobs', 'client_events']);
  // Deleting a client deletes its jobs and events (ON DELETE CASCADE): the SQL names only clients.
  await mine.kysely.deleteFrom('clients').where('id', '=', client.id).execute();
  assert.notEqual(mine.versions.snapshot(['client_jobs', 'client_events']), before, 'known at once, not only through a notification');
  // A job's event link is cleared by ON DELETE SET NULL (any delete of client_events counts).
  const beforeDelete = mine.versions.snapshot(['client_jobs']);
  await mine.kysely.deleteFrom('client_events').where('id', '=', -1).execute();
  assert.notEqual(mine.versions.snapshot(['client_jobs']), beforeDelete);
});

test(`data versions on ${DIALECT}: requests probe for other processes' commits at most once per ${FOREIGN_PROBE_MS} ms; refresh() always probes`, { skip: DIALECT !== 'sqlite' && 'SQLite only (PostgreSQL hears notifications)' }, async () => {
  const seen = () => mine.versions.snapshot(['settings']);
  mine.versions.refresh();
  const before = seen();
  mine.versions.refresh(60_000); // probed just now: skipped
  await other.kysely.insertInto('settings').values({ key: 'probe-window', value: '', updated_at: nowMicros() }).execute();
  mine.versions.refresh(60_000);
  assert.equal(seen(), before, 'within the window the other process\'s commit is not probed for');
  mine.versions.refresh(0);
  assert.notEqual(seen(), before, 'a probe sees it');
  // Requests use FOREIGN_PROBE_MS: a request that starts that long after the commit sees it.
  await other.kysely.updateTable('settings').set({ value: 'changed' }).where('key', '=', 'probe-window').execute();
  const afterCommit = seen();
  await outlastProbeWindow();
  assert.equal((await app.inject({ method: 'GET', url: '/health' })).statusCode, 200);
  assert.notEqual(seen(), afterCommit);
});

test(`data versions on ${DIALECT}: the ingest writer's commit, on a connection of its own, is seen at once`, async () => {
  const before = mine.versions.snapshot(['nodes']);
  await withGraphTransaction(mine, (writer) => writer.write([{ objectid: 'S-1-5-21-PROBE', kinds: ['User', 'Base'], name: 'PROBE@CORP.LOCAL', environmentId: 'S-1-5-21' }], []));
  mine.versions.refresh(60_000); // a request now would not probe again
  assert.notEqual(mine.versions.snapshot(['nodes']), before);
});

test('response cache: once full, a new answer is kept at its second time; until then every answer at its first', async () => {
  const { default: Fastify } = await import('fastify');
  const { DataVersions } = await import('../db/data-versions.ts');
  const { registerResponseCache } = await import('./response-cache.ts');
  const small = Fastify();
  registerResponseCache(small, new DataVersions(), 1); // 1 MB, each answer at most an eighth of it
  let made = 0;
  small.get('/big', { config: { cache: { reads: ['settings'] } } }, async (request) => {
    made++;
    return `${String((request.query as { n?: string }).n)}:${'x'.repeat(100_000)}`;
  });
  try {
    const times = async (n: number) => {
      const before = made;
      const res = await small.inject({ method: 'GET', url: `/big?n=${n}` });
      assert.equal(res.body.slice(0, String(n).length + 1), `${n}:`);
      return made - before;
    };
    // Room: kept at once.
    assert.deepEqual([await times(0), await times(0)], [1, 0]);
    for (let n = 1; n < 12; n++) await times(n); // 12 answers of 100 kB: full
    // Full: made twice, then kept.
    assert.deepEqual([await times(100), await times(100), await times(100)], [1, 1, 0]);
  } finally {
    await small.close();
  }
});
