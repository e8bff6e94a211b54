/**
 * GET /jobs/available answered from the client's kept ready jobs (src/http/query/evaluate.ts) is the answer of the
 * database's own statement: random filters and sorts of the query grammar (numbers, booleans, timestamps with every
 * predicate, enum names, nulls, text equality, text order by the ranks the database gave; and the shape the database
 * must answer: `~eq` on text),
 * each compared with jobsSelect + applyFilters + applySort run on the database.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, type TestApp } from '../../test/harness.ts';
import { makeClient, makeJob } from '../../test/collection.fixtures.ts';
import { applyFilters, applySort, parseQuery } from '../../http/query/index.ts';
import { nowMicros } from '../../db/time.ts';
import { JobStatus } from './job-status.ts';
import { availableQuery } from './jobs.query.ts';
import { jobsSelect } from './jobs.repository.ts';

let t: TestApp;
let client: { id: string; token: string };
before(async () => {
  t = await createTestApp({ schedulerInterval: 0 });
  const admin = (await t.login('Administrator')).token;
  client = await makeClient(t, admin, 'kept-available');
  const flags = ['session_collection', 'local_group_collection', 'ad_structure_collection', 'cert_services_collection', 'ca_registry_collection', 'dc_registry_collection'];
  for (let i = 0; i < 24; i++) {
    const body: Record<string, unknown> = {
      // Some share an execution time (ties: id), one is in the future (not due).
      execution_time: new Date(Date.UTC(2020, 0, 1 + (i % 7), i % 3, 0, 0, i % 2 ? 500 : 0)).toISOString(),
      domain_controller: ['dc1', 'DC1', 'dc2', 'b', 'é', ''][i % 6],
    };
    for (const [k, f] of flags.entries()) if ((i >> k) % 2 === 1) body[f] = true;
    await makeJob(t, admin, client.id, body);
  }
  await makeJob(t, admin, client.id, { execution_time: '2999-01-01T00:00:00Z' });
});
after(() => t.close());

function rng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let x = Math.imul(a ^ (a >>> 15), a | 1);
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61);
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

test('available from the kept ready jobs = the database statement, over random filters and sorts', async () => {
  const r = rng(5);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(r() * xs.length)];
  const times = ['2020-01-01T01:00:00.5Z', '2020-01-01T02:00:00Z', '2020-01-03T00:00:00Z', '2020-01-03T01:00:00.0005Z', '2020-01-05T02:00:00Z', '2019-12-31T23:59:59.999999Z', '2020-01-02T01:00:00.000500Z'];
  const clauses = [
    () => `execution_time=${pick(['eq', 'neq', 'gt', 'gte', 'lt', 'lte'])}:${pick(times)}`,
    () => `${pick(['session_collection', 'local_group_collection', 'ad_structure_collection', 'dc_registry_collection'])}=${pick(['eq', 'neq'])}:${pick(['true', 'false'])}`,
    () => `status=${pick(['eq:ready', 'eq:0', '~eq:rea', '~eq:RUN', 'neq:ready', 'eq:1'])}`,
    () => `event_id=${pick(['eq:null', 'neq:null', 'eq:1', 'neq:2'])}`,
    () => `domain_controller=${pick(['eq:dc1', 'neq:DC1', 'eq:', 'eq:%C3%A9', '~eq:dc', 'neq:b'])}`,
    () => `created_at=${pick(['gt', 'lte', 'neq'])}:${pick(['2020-01-01T00:00:00Z', '2999-01-01T00:00:00Z'])}`,
    () => `client_id=${pick(['eq', 'neq'])}:${pick([client.id, '0e0d0c0b-0a09-0807-0605-040302010000'])}`,
    () => `start_time=${pick(['eq:null', 'neq:null'])}`,
  ];
  const sorts = ['execution_time', '-execution_time', 'id', '-id', 'created_at', '-start_time', 'start_time', 'domain_controller', '-domain_controller', 'execution_time,-id', 'log_path', '-log_path', 'event_title', '-event_title,-id', 'domain_controller,-execution_time'];
  let compared = 0;
  for (let i = 0; i < 400; i++) {
    const parts = Array.from({ length: Math.floor(r() * 3) }, () => pick(clauses)());
    if (r() < 0.8) for (const term of pick(sorts).split(',')) parts.push(`sort_by=${term}`);
    const qs = parts.join('&');
    const res = await t.request({ method: 'GET', url: `/api/v2/jobs/available${qs ? `?${qs}` : ''}`, token: client.token });
    assert.equal(res.statusCode, 200, `${qs}: ${res.body}`);
    const got = res.json().data.map((j: { id: number }) => j.id);
    const raw: Record<string, string | string[]> = {};
    for (const [k, v] of new URLSearchParams(qs)) raw[k] = k in raw ? [...[raw[k]].flat(), v] : v;
    const parsed = parseQuery(availableQuery, raw);
    const qb = jobsSelect(t.db.kysely).where('client_jobs.client_id', '=', client.id)
      .where('client_jobs.status', '=', JobStatus.ready).where('client_jobs.execution_time', '<=', nowMicros());
    const want = (await applySort(applyFilters(qb, availableQuery, parsed), availableQuery, parsed).execute()).map((j) => j.id);
    assert.deepEqual(got, want, qs);
    compared++;
  }
  assert.equal(compared, 400);
});
