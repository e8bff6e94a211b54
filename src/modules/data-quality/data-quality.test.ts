import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { createTestApp, createTestDb, DIALECT, errorOf, type TestApp } from '../../test/harness.ts';
import { cliDatabase, scentInProcess } from '../../test/cli.ts';
import { createDb } from '../../db/create-db.ts';
import { exportGraph } from '../../graph/parity.test-helpers.ts';
import { upsertEdges, upsertNodes } from '../../graph/store.repository.ts';
import { ingestFiles } from '../../graph/ingest/ingest.service.ts';
import { FIXTURES } from '../../test/fixture-path.ts';
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

test(`data quality on ${DIALECT}: the ad record of the fixture set is its one collected domain's record`, async () => {
  const res = await get('/api/v2/platform/ad/data-quality-stats');
  assert.equal(res.statusCode, 200);
  const body = res.json();
  assert.deepEqual(Object.keys(body).sort(), ['count', 'data', 'end', 'limit', 'skip', 'start']);
  assert.equal(body.count, 1);
  assert.equal(body.limit, 1000);
  const r = body.data[0];
  // The oracle, from the exported graph: nodes by their domainsid, edges by their start node's.
  const graph = await exportGraph(t.db);
  const inDomain = new Map(graph.graph.nodes.map((n) => [n.id, n.properties?.domainsid === DOMAIN ? n.kinds[0] : null]));
  const count = (kind: string) => [...inDomain.values()].filter((k) => k === kind).length;
  const fromDomain = graph.graph.edges.filter((e) => inDomain.get(e.start.value));
  assert.deepEqual({ ...r, id: 0, created_at: '', updated_at: '' }, {
    id: 0, created_at: '', updated_at: '', deleted_at: { time: '0001-01-01T00:00:00Z', valid: false },
    domains: 1, users: 14, groups: count('Group'), computers: 2, ous: 1, containers: count('Container'), gpos: 2, aiacas: 1, rootcas: 1,
    enterprisecas: 1, ntauthstores: 1, certtemplates: 34, issuancepolicies: count('IssuancePolicy'),
    acls: fromDomain.filter((e) => ACL_KINDS.includes(e.kind)).length, sessions: 1, relationships: fromDomain.length,
    session_completeness: r.session_completeness, local_group_completeness: r.local_group_completeness, run_id: runId,
  });
  assert.equal(count('Group'), 57 + 8, 'the 57 collected groups and the 8 well-known groups the analysis adds');
  assert.equal(count('IssuancePolicy'), 0, 'the 3 issuance policies belong to TESTLAB.LOCAL, a domain not collected: counted nowhere');
  assert.ok(fromDomain.length < graph.graph.edges.length, 'edges from objects of no domain count nowhere');
  const azure = (await get('/api/v2/platform/azure/data-quality-stats')).json();
  assert.equal(azure.data[0].run_id, runId);
  assert.equal(azure.data[0].tenants, 0);
  assert.equal(azure.data[0].relationships, 0);
  assert.equal(azure.data[0].web_apps, 0);
});

test(`data quality on ${DIALECT}: per domain by start node, the platform record is their sum, BloodHound's completeness`, async () => {
  const db = await createTestDb();
  try {
    const day = 24 * 3600;
    const last = 1_800_000_000;
    const node = (objectid: string, kind: string, env: string | null, properties: Record<string, unknown> = {}) => ({
      objectid, kinds: [kind, 'Base'], name: objectid, environmentId: env, properties: { name: objectid, ...(env ? { domainsid: env } : {}), ...properties }, sourceKind: 'Base',
    });
    const active = (extra: Record<string, unknown> = {}) => ({ enabled: true, lastlogontimestamp: last, ...extra });
    await upsertNodes(db.kysely, [
      node('S-1-5-21-1', 'Domain', 'S-1-5-21-1', { collected: true }), node('S-1-5-21-2', 'Domain', 'S-1-5-21-2', { collected: true }),
      node('S-1-5-21-3', 'Domain', 'S-1-5-21-3'), // a trusted domain, not collected: no record
      node('S-1-5-21-1-1', 'User', 'S-1-5-21-1', active()), node('S-1-5-21-1-2', 'User', 'S-1-5-21-1', active({ lastlogontimestamp: last - 13 * day })),
      node('S-1-5-21-1-3', 'User', 'S-1-5-21-1', active({ lastlogontimestamp: last - 15 * day })), // inactive: not counted for completeness
      node('S-1-5-21-1-4', 'User', 'S-1-5-21-1', { enabled: false, lastlogontimestamp: last }), // disabled: likewise
      node('S-1-5-21-1-10', 'Computer', 'S-1-5-21-1', active({ operatingsystem: 'WINDOWS 10 ENTERPRISE' })),
      node('S-1-5-21-1-11', 'Computer', 'S-1-5-21-1', active({ operatingsystem: 'WINDOWS SERVER 2022' })),
      node('S-1-5-21-1-12', 'Computer', 'S-1-5-21-1', active({ operatingsystem: 'LINUX' })), // not Windows: not counted
      node('S-1-5-21-2-1', 'User', 'S-1-5-21-2', active()), node('S-1-5-21-2-50', 'IssuancePolicy', 'S-1-5-21-2'),
      node('LOOSE', 'User', null, active()), // no domain: counts nowhere
    ]);
    const edge = (start: string, kind: string, end: string) => ({ start: { objectid: start }, end: { objectid: end }, kind });
    await upsertEdges(db.kysely, [
      edge('S-1-5-21-1-10', 'HasSession', 'S-1-5-21-1-1'), // start in domain 1
      edge('S-1-5-21-1-1', 'GenericAll', 'S-1-5-21-2-1'), // start in domain 1, end in domain 2: domain 1's
      edge('S-1-5-21-2-1', 'MemberOf', 'S-1-5-21-1-1'), // domain 2's
      edge('LOOSE', 'GenericAll', 'S-1-5-21-1-1'), // no domain: nowhere
    ]);
    const { runId: run } = await analyzeGraph(db);
    const stats = await db.kysely.selectFrom('ad_data_quality_stats').selectAll().where('run_id', '=', run).orderBy('domain_sid').execute();
    const pick = (r: Record<string, unknown>) => ({ users: Number(r.users), computers: Number(r.computers), issuancepolicies: Number(r.issuancepolicies),
      relationships: Number(r.relationships), acls: Number(r.acls), sessions: Number(r.sessions),
      session_completeness: Number(r.session_completeness), local_group_completeness: Number(r.local_group_completeness) });
    const derived = await db.kysely.selectFrom('edges as e').innerJoin('nodes as s', 's.id', 'e.start_id').select((eb) => eb.fn.countAll<number>().as('n'))
      .where('s.environment_id', '=', 'S-1-5-21-1').where('e.kind', 'in', ['MemberOf', 'ClaimSpecialIdentity']).executeTakeFirstOrThrow();
    const wellKnown = Number(derived.n); // the analysis' well-known links, from domain 1's well-known groups
    assert.deepEqual(stats.map((r) => [r.domain_sid, pick(r)]), [
      // users 1 and 2 are active (within 14 days of the latest logon), user 1 has a session: 50 %; no local-group edge: 0 %
      ['S-1-5-21-1', { users: 4, computers: 3, issuancepolicies: 0, relationships: 2 + wellKnown, acls: 1, sessions: 1, session_completeness: 50, local_group_completeness: 0 }],
      ['S-1-5-21-2', { users: 1, computers: 0, issuancepolicies: 1, relationships: 1 + wellKnown, acls: 0, sessions: 0, session_completeness: 0, local_group_completeness: 0 }],
    ]);
    const [platform] = await db.kysely.selectFrom('ad_data_quality_aggregations').selectAll().where('run_id', '=', run).execute();
    assert.deepEqual(pick(platform), { users: 5, computers: 3, issuancepolicies: 1, relationships: 3 + 2 * wellKnown, acls: 1, sessions: 1,
      // over every active user (LOOSE and S-1-5-21-2-1 too: 1 of 4) and every active Windows computer
      session_completeness: 25, local_group_completeness: 0 });
    assert.equal(Number(platform.domains), 2);
  } finally {
    await db.close();
  }
});

test(`data quality on ${DIALECT}: scent import shows the analysis time by phase (post-processing, data quality, tag membership)`, async () => {
  const cli = await cliDatabase();
  try {
    const run = await scentInProcess(['import', join(FIXTURES, 'users.json'), '--database', cli.url]);
    assert.equal(run.code, 0, run.stdout);
    assert.match(run.stdout, /\d+ elements\/s\); analysis \d+\.\d s \(post-processing \d+\.\d s: \d+ derived edges; data quality \d+\.\d s; tag membership \d+\.\d s\), data-quality run [0-9a-f-]{36}\n$/);
  } finally {
    await cli.cleanup();
  }
});

test(`data quality on ${DIALECT}: a run that ingested nothing writes no record`, async () => {
  const cli = await cliDatabase();
  const dir = mkdtempSync(join(tmpdir(), 'scent-dq-empty-'));
  try {
    writeFileSync(join(dir, 'broken.json'), '{"meta": {"type": "users"');
    const run = await scentInProcess(['import', join(dir, 'broken.json'), '--database', cli.url]);
    assert.equal(run.code, 1);
    assert.match(run.stdout, /0\/1 files ingested in .*; nothing ingested: no analysis, no data-quality record\n$/);
    const db = createDb(cli.url);
    try {
      assert.deepEqual(await db.kysely.selectFrom('ad_data_quality_aggregations').select('id').execute(), []);
    } finally {
      await db.close();
    }
  } finally {
    await cli.cleanup();
    rmSync(dir, { recursive: true, force: true });
  }
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
