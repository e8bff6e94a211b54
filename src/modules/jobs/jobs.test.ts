import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, errorOf, type TestApp } from '../../test/harness.ts';
import { makeClient, makeJob } from '../../test/collection.fixtures.ts';

let t: TestApp;
let admin: string;
before(async () => {
  t = await createTestApp({ schedulerInterval: 0 });
  admin = (await t.login('Administrator')).token;
});
after(() => t.close());

const JOB_KEYS = [
  'ad_structure_collection', 'all_trusted_domains', 'ca_registry_collection', 'cert_services_collection', 'client_id',
  'client_name', 'dc_registry_collection', 'domain_controller', 'domain_results', 'domains', 'end_time', 'event_id',
  'event_title', 'execution_time', 'id', 'local_group_collection', 'ous', 'session_collection', 'start_time', 'status', 'status_message',
];
const post = (url: string, token: string, body: unknown = {}) => t.request({ method: 'POST', url, token, body });

test('one-off job: shape of spec 2.8, then start → current → end with domain results', async () => {
  const c = await makeClient(t, admin, 'life-cycle');
  const job = await makeJob(t, admin, c.id, { session_collection: true, ous: ['OU-1'], domains: ['S-1-5-21-1'], domain_controller: 'dc1' });
  assert.deepEqual(Object.keys(job).sort(), JOB_KEYS);
  assert.equal(job.status, 0);
  assert.equal(job.client_name, 'life-cycle');
  assert.deepEqual(job.event_id, { int32: 0, valid: false });
  assert.equal(job.start_time, '0001-01-01T00:00:00Z');
  assert.equal(job.session_collection, true);
  assert.equal(job.local_group_collection, false);

  assert.deepEqual(errorOf(await t.request({ method: 'GET', url: '/api/v2/jobs/current', token: c.token })), { status: 404, messages: ['resource not found'] });
  const started = await post('/api/v2/jobs/start', c.token, { id: job.id });
  assert.equal(started.statusCode, 200, started.body);
  assert.equal(started.json().data.status, 1);
  assert.notEqual(started.json().data.start_time, '0001-01-01T00:00:00Z');
  assert.equal((await t.request({ method: 'GET', url: '/api/v2/jobs/current', token: c.token })).json().data.id, job.id);
  assert.equal((await t.request({ method: 'GET', url: `/api/v2/clients/${c.id}`, token: admin })).json().data.current_job_id, job.id);

  const ended = await post('/api/v2/jobs/end', c.token, {
    status: 8, message: 'one domain failed',
    domain_results: [{ domain_name: 'CORP.LOCAL', success: true, user_count: 10, group_count: 3 }, { domain_name: 'LAB.LOCAL', success: false, message: 'unreachable' }],
  });
  assert.equal(ended.statusCode, 200, ended.body);
  const done = ended.json().data;
  assert.equal(done.status, 8);
  assert.equal(done.status_message, 'one domain failed');
  assert.equal(done.domain_results.length, 2);
  const [r1, r2] = done.domain_results;
  assert.equal(r1.job_id, job.id);
  assert.equal(r1.user_count, 10);
  assert.equal(r1.certtemplate_count, 0);
  assert.equal(r2.success, false);
  assert.equal(r2.message, 'unreachable');
  assert.deepEqual(errorOf(await post('/api/v2/jobs/end', c.token, {})), { status: 400, messages: ['client has no running job'] });
  const fetched = await t.request({ method: 'GET', url: `/api/v2/jobs/${job.id}`, token: admin });
  assert.deepEqual(fetched.json().data, done);
});

test('start: only ready, due jobs of the caller; one running job per client; concurrent claims', async () => {
  const a = await makeClient(t, admin, 'claim-a');
  const b = await makeClient(t, admin, 'claim-b');
  const future = await makeJob(t, admin, a.id, { execution_time: '2999-01-01T00:00:00Z' });
  assert.deepEqual(errorOf(await post('/api/v2/jobs/start', a.token, { id: future.id })), { status: 400, messages: ['job is not ready to start'] });
  const j1 = await makeJob(t, admin, a.id);
  const j2 = await makeJob(t, admin, a.id);
  assert.deepEqual(errorOf(await post('/api/v2/jobs/start', b.token, { id: j1.id })), { status: 404, messages: ['resource not found'] });
  assert.deepEqual(errorOf(await post('/api/v2/jobs/start', a.token, { id: 999999 })), { status: 404, messages: ['resource not found'] });
  assert.deepEqual(errorOf(await post('/api/v2/jobs/start', a.token, { id: 'x' })), { status: 400, messages: ['id must be integer'] });
  const results = await Promise.all([post('/api/v2/jobs/start', a.token, { id: j1.id }), post('/api/v2/jobs/start', a.token, { id: j1.id })]);
  assert.deepEqual(results.map((r) => r.statusCode).sort(), [200, 400]);
  assert.deepEqual(errorOf(await post('/api/v2/jobs/start', a.token, { id: j2.id })), { status: 400, messages: ['client already has a running job'] });
  // A user gets 404 on the client's routes.
  assert.deepEqual(errorOf(await post('/api/v2/jobs/start', admin, { id: j2.id })), { status: 404, messages: ['resource not found'] });
  assert.deepEqual(errorOf(await post('/api/v2/jobs/end', a.token, { status: 0 })), { status: 400, messages: ['status must be 2 (complete), 5 (failed) or 8 (partially complete)'] });
});

test('cancel: ready or running only; collection/ManageJobs', async () => {
  const c = await makeClient(t, admin, 'cancel-me');
  const job = await makeJob(t, admin, c.id);
  const user = (await t.login('User')).token;
  assert.deepEqual(errorOf(await t.request({ method: 'PUT', url: `/api/v2/jobs/${job.id}/cancel`, token: user })), { status: 403, messages: ['not authorized'] });
  await post('/api/v2/jobs/start', c.token, { id: job.id });
  const res = await t.request({ method: 'PUT', url: `/api/v2/jobs/${job.id}/cancel`, token: admin });
  assert.equal(res.json().data.status, 3);
  assert.deepEqual(errorOf(await t.request({ method: 'PUT', url: `/api/v2/jobs/${job.id}/cancel`, token: admin })), { status: 400, messages: ['job must be ready or running to be canceled'] });
  assert.deepEqual(errorOf(await t.request({ method: 'GET', url: '/api/v2/jobs/current', token: c.token })), { status: 404, messages: ['resource not found'] });
  assert.deepEqual(errorOf(await t.request({ method: 'PUT', url: '/api/v2/jobs/77777/cancel', token: admin })), { status: 404, messages: ['resource not found'] });
  assert.deepEqual(errorOf(await t.request({ method: 'GET', url: '/api/v2/jobs/abc', token: admin })), { status: 400, messages: ['id is malformed'] });
  assert.deepEqual(errorOf(await post(`/api/v2/clients/00000000-0000-4000-8000-000000000000/jobs`, admin)), { status: 404, messages: ['resource not found'] });
  assert.deepEqual(errorOf(await post(`/api/v2/clients/${c.id}/jobs`, admin, { execution_time: 'tomorrow' })), { status: 400, messages: ['invalid RFC-3339 datetime format: tomorrow'] });
});

test('GET /jobs: status filter by name (~eq:complete finds complete and partially complete), sort, paging, count', async () => {
  const c = await makeClient(t, admin, 'listing');
  const ids: number[] = [];
  for (const status of [2, 8, 5]) {
    const job = await makeJob(t, admin, c.id, { domain_controller: `dc-${status}` });
    await post('/api/v2/jobs/start', c.token, { id: job.id });
    await post('/api/v2/jobs/end', c.token, { status });
    ids.push(job.id);
  }
  const ready = await makeJob(t, admin, c.id);
  const list = (query: Record<string, string | string[]>) => t.request({ method: 'GET', url: '/api/v2/jobs', token: admin, query: { client_id: c.id, ...query } });
  const statuses = async (query: Record<string, string | string[]>) => (await list(query)).json().data.map((j: { status: number }) => j.status);
  assert.deepEqual((await statuses({ status: '~eq:complete', sort_by: 'status' })), [2, 8]);
  assert.deepEqual((await statuses({ status: 'eq:FAILED' })), [5]);
  assert.deepEqual((await statuses({ status: '5' })), [5]);
  assert.deepEqual((await statuses({ status: 'neq:ready', sort_by: '-status' })), [8, 5, 2]);
  assert.deepEqual((await statuses({ status: ['ready', 'failed'], sort_by: 'status' })), [0, 5]);
  const page = (await list({ sort_by: 'id', skip: '1', limit: '2' })).json();
  assert.equal(page.count, 4);
  assert.deepEqual([page.skip, page.limit], [1, 2]);
  assert.deepEqual(page.data.map((j: { id: number }) => j.id), [ids[1], ids[2]]);
  assert.deepEqual((await list({ end_time: 'eq:null' })).json().data.map((j: { id: number }) => j.id), [ready.id]);
  assert.deepEqual(errorOf(await list({ status: 'gt:1' })), { status: 400, messages: ['there are errors in the query parameter filters specified: status=gt:1 (gt does not apply to a string column)'] });
  assert.deepEqual(errorOf(await list({ status: 'bogus' })), {
    status: 400,
    messages: ['there are errors in the query parameter filters specified: status=bogus (expected one of: invalid (-1), ready (0), running (1), complete (2), canceled (3), ' +
      'timedout (4), failed (5), ingesting (6), analyzing (7), partiallycomplete (8), cancelled (3), timed_out (4), partially_complete (8))'],
  });
  assert.deepEqual(errorOf(await list({ colour: 'red' })), { status: 400, messages: ['the specified column cannot be filtered: colour'] });
  assert.deepEqual(errorOf(await list({ sort_by: 'client_name' })), { status: 400, messages: ['column format does not support sorting: client_name'] });
  const readOnly = (await t.login('Read-Only')).token;
  assert.deepEqual(errorOf(await t.request({ method: 'GET', url: '/api/v2/jobs', token: readOnly })), { status: 403, messages: ['not authorized'] });
});

test('finished jobs: /jobs/finished and a client\'s completed-jobs list the ended jobs, paged and filtered as the JS client asks', async () => {
  const a = await makeClient(t, admin, 'finished-a');
  const b = await makeClient(t, admin, 'finished-b');
  const run = async (c: { id: string; token: string }, end: Record<string, unknown>) => {
    const job = await makeJob(t, admin, c.id, { session_collection: true });
    assert.equal((await post('/api/v2/jobs/start', c.token, { id: job.id })).statusCode, 200);
    const ended = await post('/api/v2/jobs/end', c.token, end);
    assert.equal(ended.statusCode, 200, ended.body);
    return ended.json().data as { id: number; end_time: string };
  };
  const a1 = await run(a, { status: 2, log: 'collected 10 users\n' });
  const a2 = await run(a, { status: 5, message: 'failed' });
  const b1 = await run(b, { status: 8 });
  const canceled = await makeJob(t, admin, b.id);
  assert.equal((await t.request({ method: 'PUT', url: `/api/v2/jobs/${canceled.id}/cancel`, token: admin })).statusCode, 200);
  await makeJob(t, admin, a.id); // ready: not finished

  const both = `client_id=eq:${a.id}&client_id=eq:${b.id}`;
  const finished = await t.request({ method: 'GET', url: `/api/v2/jobs/finished?skip=0&limit=10&hydrate_domains=false&hydrate_ous=false&${both}`, token: admin });
  assert.equal(finished.statusCode, 200, finished.body);
  const body = finished.json();
  assert.equal(body.count, 4);
  assert.deepEqual([body.skip, body.limit], [0, 10]);
  // Newest end first.
  assert.deepEqual(body.data.map((j: { id: number }) => j.id), [canceled.id, b1.id, a2.id, a1.id]);
  assert.deepEqual(body.data.map((j: { status: number }) => j.status), [3, 8, 5, 2]);
  // The filters BHEAPIClient.getFinishedJobs sends (prefixed values).
  const q = (query: string) => t.request({ method: 'GET', url: `/api/v2/jobs/finished?${query}&${both}`, token: admin });
  assert.deepEqual((await q('status=eq:2')).json().data.map((j: { id: number }) => j.id), [a1.id]);
  const onlyB = await t.request({ method: 'GET', url: `/api/v2/jobs/finished?client_id=eq:${b.id}`, token: admin });
  assert.deepEqual(onlyB.json().data.map((j: { id: number }) => j.id), [canceled.id, b1.id]);
  assert.equal((await q(`start_time=gte:2000-01-01T00:00:00.000Z&end_time=lte:${new Date(Date.now() + 60_000).toISOString()}`)).json().count, 3);
  assert.equal((await q('session_collection=eq:true')).json().count, 3);
  assert.equal((await q('skip=1&limit=2')).json().data.length, 2);
  const bad = errorOf(await q('status=eq:nonsense'));
  assert.equal(bad.status, 400);
  assert.match(bad.messages[0], /^there are errors in the query parameter filters specified: status=eq:nonsense \(expected one of: invalid \(-1\), ready \(0\)/);
  assert.deepEqual(errorOf(await q('nope=1')), { status: 400, messages: ['the specified column cannot be filtered: nope'] });

  const completed = await t.request({ method: 'GET', url: `/api/v2/clients/${a.id}/completed-jobs?skip=0&limit=1`, token: admin });
  assert.equal(completed.statusCode, 200, completed.body);
  const page = completed.json() as { data: Array<{ id: number }> };
  assert.deepEqual({ ...page, data: page.data.map((j) => j.id) }, { count: 2, skip: 0, limit: 1, data: [a2.id] });
  assert.deepEqual(errorOf(await t.request({ method: 'GET', url: '/api/v2/clients/00000000-0000-4000-8000-000000000000/completed-jobs', token: admin })), { status: 404, messages: ['resource not found'] });
  assert.deepEqual(errorOf(await t.request({ method: 'GET', url: '/api/v2/clients/nope/completed-jobs', token: admin })), { status: 404, messages: ['resource not found'] });
  const readOnly = (await t.login('Read-Only')).token;
  assert.deepEqual(errorOf(await t.request({ method: 'GET', url: '/api/v2/jobs/finished', token: readOnly })), { status: 403, messages: ['not authorized'] });
  assert.deepEqual(errorOf(await t.request({ method: 'GET', url: `/api/v2/clients/${a.id}/completed-jobs`, token: readOnly })), { status: 403, messages: ['not authorized'] });

  // The log the client sent with its end.
  const log = await t.request({ method: 'GET', url: `/api/v2/jobs/${a1.id}/log`, token: admin });
  assert.deepEqual(log.json(), { data: { log: 'collected 10 users\n' } });
  assert.deepEqual((await t.request({ method: 'GET', url: `/api/v2/jobs/${a2.id}/log`, token: admin })).json(), { data: { log: '' } });
  assert.deepEqual(errorOf(await t.request({ method: 'GET', url: '/api/v2/jobs/999999/log', token: admin })), { status: 404, messages: ['resource not found'] });
  assert.deepEqual(errorOf(await t.request({ method: 'GET', url: '/api/v2/jobs/x/log', token: admin })), { status: 400, messages: ['id is malformed'] });
  assert.deepEqual(errorOf(await t.request({ method: 'GET', url: `/api/v2/jobs/${a1.id}/log`, token: readOnly })), { status: 403, messages: ['not authorized'] });
  // event_title is shown (and filters: a one-off job has none).
  assert.equal(body.data[0].event_title, '');
  assert.equal((await q('event_title=eq:nightly')).json().count, 0);
});
