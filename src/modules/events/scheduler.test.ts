import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { createDb } from '../../db/create-db.ts';
import { parseRfc3339 } from '../../db/time.ts';
import { DIALECT, createTestApp, type TestApp } from '../../test/harness.ts';
import { makeClient } from '../../test/collection.fixtures.ts';
import { runSchedulerOnce } from './scheduler.ts';

let t: TestApp;
let admin: string;
before(async () => {
  t = await createTestApp({ schedulerInterval: 0 });
  admin = (await t.login('Administrator')).token;
});
after(() => t.close());

const at = (iso: string) => parseRfc3339(iso)!.micros;
async function makeEvent(clientId: string, rrule: string, extra: Record<string, unknown> = {}) {
  const res = await t.request({ method: 'POST', url: '/api/v2/events', token: admin, body: { client_id: clientId, rrule, ...extra } });
  assert.equal(res.statusCode, 200, res.body);
  return res.json().data as { id: number };
}
const jobsOf = (eventId: number) =>
  t.db.kysely.selectFrom('client_jobs').selectAll().where('event_id', '=', eventId).orderBy('execution_time').execute();

test('scheduler: each due occurrence becomes one ready job, once', async () => {
  const c = await makeClient(t, admin, 'sched-daily');
  const ev = await makeEvent(c.id, 'DTSTART:20300101T020000Z\nRRULE:FREQ=DAILY', { title: 'nightly', local_group_collection: true, ous: ['OU-1'] });
  assert.equal(await runSchedulerOnce(t.db, at('2030-01-01T01:59:59Z')), 0);
  assert.equal(await runSchedulerOnce(t.db, at('2030-01-03T02:00:00Z')), 3);
  assert.equal(await runSchedulerOnce(t.db, at('2030-01-03T02:00:00Z')), 0);
  assert.equal(await runSchedulerOnce(t.db, at('2030-01-03T23:00:00Z')), 0);
  const jobs = await jobsOf(ev.id);
  assert.deepEqual(jobs.map((j) => j.execution_time), [at('2030-01-01T02:00:00Z'), at('2030-01-02T02:00:00Z'), at('2030-01-03T02:00:00Z')]);
  for (const j of jobs) {
    assert.equal(j.status, 0);
    assert.equal(j.event_title, 'nightly');
    assert.equal(j.local_group_collection, 1);
    assert.equal(j.session_collection, 0);
    assert.equal(j.ous, '["OU-1"]');
  }
  const listed = await t.request({ method: 'GET', url: `/api/v2/jobs?event_id=${ev.id}&event_title=nightly&sort_by=execution_time`, token: admin });
  assert.equal(listed.json().count, 3);
  assert.deepEqual(listed.json().data[0].event_id, { int32: ev.id, valid: true });

  // Deleting the event keeps its jobs.
  await t.request({ method: 'DELETE', url: `/api/v2/events/${ev.id}`, token: admin });
  const kept = await t.db.kysely.selectFrom('client_jobs').select('event_id').where('client_id', '=', c.id).execute();
  assert.deepEqual(kept.map((k) => k.event_id), [null, null, null]);
});

test('scheduler: exactly once with several instances racing, and after a restart; missed occurrences are all created', async () => {
  const c = await makeClient(t, admin, 'sched-race');
  const ev = await makeEvent(c.id, 'DTSTART:20310101T000000Z\nRRULE:FREQ=HOURLY');
  // Other "instances": separate connections to the same database (PostgreSQL); on in-memory SQLite the same one.
  const others = DIALECT === 'postgres' ? [createDb(t.db.url, { poolSize: 3 }), createDb(t.db.url, { poolSize: 3 })] : [];
  try {
    const instances = [t.db, ...others];
    const now = at('2031-01-01T09:30:00Z');
    const created = await Promise.all([0, 1, 2, 3, 4, 5].map((i) => runSchedulerOnce(instances[i % instances.length], now)));
    assert.equal(created.reduce((a, b) => a + b, 0), 10);
    assert.equal((await jobsOf(ev.id)).length, 10);
    // A restart: a fresh connection picks up where the last pass stopped, with 250 missed occurrences.
    const restarted = others[0] ?? t.db;
    assert.equal(await runSchedulerOnce(restarted, at('2031-01-12T03:00:00Z')), 258);
    const all = await jobsOf(ev.id);
    assert.equal(all.length, 268);
    assert.equal(new Set(all.map((j) => j.execution_time)).size, 268);
    assert.equal(all[all.length - 1].execution_time, at('2031-01-12T03:00:00Z'));
  } finally {
    for (const o of others) await o.close();
  }
});

test('scheduler: a new event starts at its next occurrence; the app runs passes on its own', async () => {
  const c = await makeClient(t, admin, 'sched-app');
  const ev = await makeEvent(c.id, 'DTSTART:20200101T000000Z\nRRULE:FREQ=HOURLY');
  const row = await t.db.kysely.selectFrom('client_events').select('next_run_at').where('id', '=', ev.id).executeTakeFirstOrThrow();
  const hour = Math.ceil(Date.now() / 3600e3) * 3600e3 * 1000;
  assert.ok(row.next_run_at === hour || row.next_run_at === hour + 3600e6, `next run ${row.next_run_at} vs ${hour}`);
  // An app with the scheduler on runs a pass when ready: occurrences of the last two hours are due.
  await t.db.kysely.updateTable('client_events').set({ next_run_at: hour - 3 * 3600e6 }).where('id', '=', ev.id).execute();
  const { buildApp } = await import('../../app.ts');
  const app = await buildApp({ config: { ...t.config, schedulerInterval: 3600 }, db: t.db });
  await app.ready();
  for (let i = 0; i < 50 && (await jobsOf(ev.id)).length === 0; i++) await new Promise((r) => setTimeout(r, 20));
  await app.close();
  assert.equal((await jobsOf(ev.id)).length, 3);
  const after = await t.db.kysely.selectFrom('client_events').select('next_run_at').where('id', '=', ev.id).executeTakeFirstOrThrow();
  assert.equal(after.next_run_at, hour);
});
