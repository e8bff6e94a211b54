import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { sql } from 'kysely';
import { createTestApp, DIALECT, errorOf, type TestApp } from '../../test/harness.ts';
import { ingestFiles } from '../../graph/ingest/ingest.service.ts';
import { upsertNodes } from '../../graph/store.repository.ts';
import { FIXTURES } from '../../graph/ingest/fixture-path.ts';
import { toRfc3339 } from '../../db/time.ts';
import { ACL_KINDS, analyzeGraph } from './analysis.service.ts';

const DOMAIN = 'S-1-5-21-909015691-3030120388-2582151266';
let t: TestApp;
let token: string;
let runId: string;

before(async () => {
  t = await createTestApp();
  token = (await t.login('Read-Only')).token;
  const files = readdirSync(FIXTURES).filter((f) => f.endsWith('.json') && !f.startsWith('expected'));
  await ingestFiles(t.db, files.map((f) => ({ path: FIXTURES + f })));
  runId = (await analyzeGraph(t.db)).runId;
});
after(() => t.close());

const get = (url: string, query?: Record<string, string | string[]>, tok = token) => t.request({ method: 'GET', url, token: tok, query });

test(`data quality on ${DIALECT}: the ad record of the fixture set (FACTS §7)`, async () => {
  const res = await get('/api/v2/platform/ad/data-quality-stats');
  assert.equal(res.statusCode, 200);
  const body = res.json();
  assert.deepEqual(Object.keys(body).sort(), ['count', 'data', 'end', 'limit', 'skip', 'start']);
  assert.equal(body.count, 1);
  assert.equal(body.limit, 1000);
  const r = body.data[0];
  const policies = await sql<{ n: number }>`select count(*) as n from nodes where kind = 'IssuancePolicy' and is_placeholder = 0`.execute(t.db.kysely);
  const ISSUANCE_POLICIES = Number(policies.rows[0].n);
  assert.ok(ISSUANCE_POLICIES > 0, 'the fixture set has issuance policies');
  const acls = await sql<{ n: number }>`select count(*) as n from edges where kind in (${sql.join(ACL_KINDS)})`.execute(t.db.kysely);
  const all = await sql<{ n: number }>`select count(*) as n from edges`.execute(t.db.kysely);
  assert.deepEqual({ ...r, id: 0, created_at: '', updated_at: '' }, {
    id: 0, created_at: '', updated_at: '', deleted_at: { time: '0001-01-01T00:00:00Z', valid: false },
    domains: 1, users: 14, groups: 57, computers: 2, ous: 1, containers: 207, gpos: 2, aiacas: 1, rootcas: 1,
    enterprisecas: 1, ntauthstores: 1, certtemplates: 34, issuancepolicies: ISSUANCE_POLICIES, acls: Number(acls.rows[0].n), sessions: 1,
    relationships: Number(all.rows[0].n), session_completeness: 50, local_group_completeness: 0, run_id: runId,
  });
  assert.ok(r.acls >= 2132, 'every distinct ACE of the Aces arrays (but an object\'s ACEs on itself) is an ACL edge');
  const azure = (await get('/api/v2/platform/azure/data-quality-stats')).json();
  assert.equal(azure.data[0].run_id, runId);
  assert.equal(azure.data[0].tenants, 0);
  assert.equal(azure.data[0].relationships, 0);
});

test(`data quality on ${DIALECT}: Azure records carry BloodHound's newer counters (one node of each kind, per tenant and platform)`, async () => {
  const other = await createTestApp();
  try {
    const kinds = ['AZTenant', 'AZAutomationAccount', 'AZContainerRegistry', 'AZFunctionApp', 'AZLogicApp', 'AZManagedCluster', 'AZVMScaleSet', 'AZWebApp', 'AZVM'];
    await upsertNodes(other.db.kysely, kinds.map((kind, i) => ({
      objectid: kind === 'AZTenant' ? 'TENANT-1' : `AZ-${i}`, kinds: [kind, 'AZBase'], name: `${kind}-${i}`, environmentId: 'TENANT-1', properties: {},
    })));
    await analyzeGraph(other.db);
    const reader = (await other.login('Read-Only')).token;
    const counters = { automation_accounts: 1, container_registries: 1, function_apps: 1, logic_apps: 1, managed_clusters: 1, vm_scale_sets: 1, web_apps: 1, vms: 1 };
    for (const url of ['/api/v2/platform/azure/data-quality-stats', '/api/v2/azure-tenants/TENANT-1/data-quality-stats']) {
      const [r] = (await other.request({ method: 'GET', url, token: reader })).json().data;
      for (const [k, v] of Object.entries(counters)) assert.equal(r[k], v, `${url} ${k}`);
    }
  } finally {
    await other.close();
  }
});

test(`data quality on ${DIALECT}: per domain and per tenant`, async () => {
  const res = await get(`/api/v2/ad-domains/${DOMAIN}/data-quality-stats`);
  assert.equal(res.statusCode, 200);
  const [r] = res.json().data;
  assert.equal(r.domain_sid, DOMAIN);
  assert.equal(r.users, 14);
  assert.equal(r.run_id, runId);
  assert.equal((await get('/api/v2/ad-domains/S-1-5-21-1-2-3/data-quality-stats')).json().count, 0);
  assert.equal((await get('/api/v2/azure-tenants/x/data-quality-stats')).json().count, 0);
});

test(`data quality on ${DIALECT}: start inclusive, end exclusive, sort, paging`, async () => {
  const base = Date.parse('2026-01-01T00:00:00Z') * 1000;
  const row = (i: number) => ({ created_at: base + i * 1_000_000, updated_at: base + (10 - i) * 1_000_000, deleted_at: null, run_id: `00000000-0000-4000-8000-00000000000${i}`, domains: i });
  await t.db.kysely.insertInto('ad_data_quality_aggregations').values([0, 1, 2, 3].map(row) as never).execute(); // other counts: column defaults (0)
  const q = { start: toRfc3339(base + 1_000_000), end: toRfc3339(base + 3_000_000) };
  const res = (await get('/api/v2/platform/ad/data-quality-stats', q)).json();
  assert.deepEqual(res.data.map((r: { domains: number }) => r.domains), [2, 1], 'created_at descending; start in, end out');
  assert.equal(res.start, '2026-01-01T00:00:01.000000Z');
  const sorted = (await get('/api/v2/platform/ad/data-quality-stats', { ...q, sort_by: 'updated_at' })).json();
  assert.deepEqual(sorted.data.map((r: { domains: number }) => r.domains), [2, 1]);
  const paged = (await get('/api/v2/platform/ad/data-quality-stats', { start: '2026-01-01T00:00:00+00:00', end: '2026-01-02T00:00:00Z', skip: '1', limit: '2' })).json();
  assert.deepEqual([paged.count, paged.skip, paged.limit, paged.data.map((r: { domains: number }) => r.domains)], [4, 1, 2, [2, 1]]);
});

test(`data quality on ${DIALECT}: errors`, async () => {
  const err = async (url: string, query?: Record<string, string>, tok?: string) => errorOf(await get(url, query, tok));
  assert.deepEqual(await err('/api/v2/platform/gcp/data-quality-stats'), { status: 400, messages: ['invalid platform id specified in url: gcp'] });
  assert.deepEqual(await err('/api/v2/platform/AD/data-quality-stats'), { status: 400, messages: ['invalid platform id specified in url: AD'] });
  assert.deepEqual(await err('/api/v2/platform/ad/data-quality-stats', { start: '2026-01-01' }), { status: 400, messages: ['invalid RFC-3339 datetime format: 2026-01-01'] });
  // an unencoded "+" in the offset (as typed into a shell) arrives as a space: the message says to encode it
  assert.deepEqual(await err('/api/v2/platform/ad/data-quality-stats?start=2026-01-01T00:00:00+02:00'), {
    status: 400,
    messages: ['invalid RFC-3339 datetime format: 2026-01-01T00:00:00 02:00 (a "+" in a query string is read as a space: send the offset encoded, 2026-01-01T00:00:00%2B02:00)'],
  });
  assert.equal((await get('/api/v2/platform/ad/data-quality-stats?start=2026-01-01T00:00:00%2B02:00')).statusCode, 200);
  assert.deepEqual(await err('/api/v2/platform/ad/data-quality-stats', { start: '2026-01-02T00:00:00Z', end: '2026-01-01T00:00:00Z' }), { status: 400, messages: ['start must be before end'] });
  assert.deepEqual(await err('/api/v2/platform/ad/data-quality-stats', { sort_by: 'domains' }), { status: 400, messages: ['column format does not support sorting: domains'] });
  assert.deepEqual(await err('/api/v2/platform/ad/data-quality-stats', { limit: '-1' }), { status: 400, messages: ['query parameter "limit" is malformed'] });
  assert.deepEqual(await err('/api/v2/platform/ad/data-quality-stats', { users: '1' }), { status: 400, messages: ['the specified column cannot be filtered: users'] });
  assert.deepEqual(errorOf(await t.request({ method: 'GET', url: '/api/v2/platform/ad/data-quality-stats' })), { status: 401, messages: ['authentication is invalid'] });
  const upload = (await t.login('Upload-Only')).token;
  assert.deepEqual(await err('/api/v2/platform/ad/data-quality-stats', {}, upload), { status: 403, messages: ['not authorized'] });
});

test(`data quality on ${DIALECT}: a SQLite file database aggregates on its own connection, same counts`, { skip: DIALECT !== 'sqlite' }, async () => {
  const { mkdtempSync, rmSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { createDb } = await import('../../db/create-db.ts');
  const { migrateToLatest } = await import('../../db/migrate.ts');
  const dir = mkdtempSync(`${tmpdir()}/scent-dq-`);
  const db = createDb(`sqlite:${dir}/graph.sqlite`);
  try {
    await migrateToLatest(db);
    const files = readdirSync(FIXTURES).filter((f) => f.endsWith('.json') && !f.startsWith('expected'));
    await ingestFiles(db, files.map((f) => ({ path: FIXTURES + f })));
    const { runId: fileRun } = await analyzeGraph(db);
    const strip = (r: Record<string, unknown>) => ({ ...r, id: 0, created_at: 0, updated_at: 0, run_id: '' });
    const fromFile = await db.kysely.selectFrom('ad_data_quality_aggregations').selectAll().where('run_id', '=', fileRun).executeTakeFirstOrThrow();
    const fromMemory = await t.db.kysely.selectFrom('ad_data_quality_aggregations').selectAll().where('run_id', '=', runId).executeTakeFirstOrThrow();
    assert.deepEqual(strip(fromFile), strip(fromMemory));
  } finally {
    await db.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
