import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, errorOf, type TestApp } from '../../test/harness.ts';
import { makeClient } from '../../test/collection.fixtures.ts';

let t: TestApp;
let admin: string;
before(async () => {
  // The scheduler's periodic pass is off: the job below can only come from the create itself.
  t = await createTestApp({ schedulerInterval: 0 });
  admin = (await t.login('Administrator')).token;
});
after(() => t.close());

test('events: a rule without DTSTART runs now: its first job is available as soon as the event is created', async () => {
  const c = await makeClient(t, admin, 'first-run');
  const created = await t.request({
    method: 'POST', url: '/api/v2/events', token: admin,
    body: { client_id: c.id, rrule: 'RRULE:FREQ=DAILY', title: 'nightly', ad_structure_collection: true },
  });
  assert.equal(created.statusCode, 200, created.body);
  const available = await t.request({ method: 'GET', url: '/api/v2/jobs/available', token: c.token });
  assert.equal(available.statusCode, 200, available.body);
  const jobs = available.json().data;
  assert.equal(jobs.length, 1, available.body);
  assert.deepEqual(jobs[0].event_id, { int32: created.json().data.id, valid: true });
  assert.equal(jobs[0].ad_structure_collection, true);

  // Replacing the rule restarts it: one more job now, none twice for the same instant.
  const replaced = await t.request({
    method: 'PUT', url: `/api/v2/events/${created.json().data.id}`, token: admin,
    body: { client_id: c.id, rrule: 'FREQ=WEEKLY', title: 'weekly' },
  });
  assert.equal(replaced.statusCode, 200, replaced.body);
  const after = (await t.request({ method: 'GET', url: '/api/v2/jobs/available', token: c.token })).json().data;
  assert.ok(after.length >= 1 && after.length <= 2, JSON.stringify(after));
});

test('events: a rule starting in the future makes no job yet', async () => {
  const c = await makeClient(t, admin, 'future-run');
  const created = await t.request({
    method: 'POST', url: '/api/v2/events', token: admin,
    body: { client_id: c.id, rrule: 'DTSTART:20991231T020000Z\nRRULE:FREQ=DAILY' },
  });
  assert.equal(created.statusCode, 200, created.body);
  assert.deepEqual((await t.request({ method: 'GET', url: '/api/v2/jobs/available', token: c.token })).json().data, []);
});

test('events and one-off jobs: a placeholder instead of an object id is refused, not stored', async () => {
  const c = await makeClient(t, admin, 'placeholders');
  const message = 'must be an object id (a SID or GUID such as S-1-5-21-…-512 or 1AEEE963-F4C8-49DA-BBE6-A6107F42CAF0)';
  const event = await t.request({
    method: 'POST', url: '/api/v2/events', token: admin,
    body: { client_id: c.id, rrule: 'RRULE:FREQ=DAILY', ous: ['<OU objectid>'], domains: ['S-1-5-21-909015691-3030120388-2582151266', 'my domain'] },
  });
  assert.deepEqual(errorOf(event), { status: 400, messages: [`ous.0 ${message}`, `domains.1 ${message}`] });
  const job = await t.request({ method: 'POST', url: `/api/v2/clients/${c.id}/jobs`, token: admin, body: { ous: ['<OU objectid>'] } });
  assert.deepEqual(errorOf(job), { status: 400, messages: [`ous.0 ${message}`] });
  const events = await t.request({ method: 'GET', url: `/api/v2/events?client_id=${c.id}`, token: admin });
  assert.deepEqual(events.json().data, []);
});
