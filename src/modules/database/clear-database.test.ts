/**
 * POST /api/v2/clear-database (bhcli `clear-db`, BloodHound's Database Management page) on real data: the
 * SharpHound v6 fixture set (source kind Base; ACEs naming unknown principals leave placeholder nodes of
 * no source kind) plus a small OpenGraph file (source kind HR), ingested and analysed as an import does.
 * The tests run in order on one database, each deleting more.
 */
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { createTestApp, errorOf, type TestApp } from '../../test/harness.ts';
import { FIXTURES } from '../../test/fixture-path.ts';
import { ingestFiles } from '../../graph/ingest/ingest.service.ts';
import { analyzeGraph } from '../data-quality/analysis.service.ts';
import { createJob } from '../file-upload/file-upload.repository.ts';

const SID = 'S-1-5-21-909015691-3030120388-2582151266';
const dir = mkdtempSync(join(tmpdir(), 'scent-clear-'));
const OPENGRAPH = join(dir, 'hr.json');
writeFileSync(OPENGRAPH, JSON.stringify({ metadata: { source_kind: 'HR' }, graph: {
  nodes: [{ id: 'p-1', kinds: ['Person'], properties: { name: 'Ann' } }, { id: 'p-2', kinds: ['Person'], properties: { name: 'Bob' } }],
  edges: [{ kind: 'Manages', start: { value: 'p-1' }, end: { value: 'p-2' } }, { kind: 'Knows', start: { value: 'p-2' }, end: { value: `${SID}-500` } }],
} }));

let t: TestApp;
let admin: string;
// One import for the whole file: the tests run in order, each deleting more (the last ones empty the graph).
before(async () => {
  t = await createTestApp();
  admin = (await t.login('Administrator')).token;
  const files = readdirSync(FIXTURES).filter((f) => f.endsWith('.json') && !f.startsWith('expected')).map((f) => ({ path: FIXTURES + f }));
  const outcomes = await ingestFiles(t.db, [...files, { path: OPENGRAPH }]);
  assert.deepEqual(outcomes.filter((o) => o.error), []);
  await analyzeGraph(t.db);
});
after(() => t.close());

const clearDb = (body: unknown, token = admin) => t.request({ method: 'POST', url: '/api/v2/clear-database', token, body });
const count = async (query: string) => Number((await sql<{ n: number }>`${sql.raw(query)}`.execute(t.db.kysely)).rows[0].n);
const nodesOf = (where: string) => count(`select count(*) as n from nodes where ${where}`);
const edgesOf = (kind: string) => count(`select count(*) as n from edges where kind = '${kind}'`);
const tierZero = async () => {
  const res = await t.request({ method: 'GET', url: '/api/v2/asset-group-tags/1/members', token: admin, query: { limit: '0' } });
  assert.equal(res.statusCode, 200, res.body);
  return res.json().count as number;
};

test('refusals as BloodHound answers them, and nothing deleted', async () => {
  const before = [await nodesOf('1=1'), await count('select count(*) as n from edges')];
  assert.deepEqual(errorOf(await clearDb({})), { status: 400, messages: ['please select something to delete'] });
  assert.deepEqual(errorOf(await clearDb({ deleteCollectedGraphData: false, deleteSourceKinds: [], deleteFileIngestHistory: false })),
    { status: 400, messages: ['please select something to delete'] });
  assert.deepEqual(errorOf(await clearDb({ deleteCollectedGraphData: true, deleteSourceKinds: [1] })),
    { status: 400, messages: ['request may only specify either deleteCollectedGraphData or deleteSourceKinds, not both'] });
  assert.deepEqual(errorOf(await clearDb({ deleteSourceKinds: [1, 9] })),
    { status: 400, messages: ['failure building delete request: requested source kind id 9 not found'] });
  assert.deepEqual(errorOf(await clearDb({ deleteCollectedGraphData: 'yes' })), { status: 400, messages: ['deleteCollectedGraphData must be boolean'] });
  assert.deepEqual(errorOf(await clearDb({ deleteCollectedGraphData: true }, (await t.login('Power User')).token)), { status: 403, messages: ['not authorized'] });
  await t.db.kysely.updateTable('feature_flags').set({ enabled: 0 }).where('key', '=', 'clear_graph_data').execute();
  assert.deepEqual(errorOf(await clearDb({ deleteCollectedGraphData: true })), { status: 400, messages: ['deleting graph data is currently disabled'] });
  assert.deepEqual(errorOf(await clearDb({ deleteSourceKinds: [0] })), { status: 400, messages: ['deleting graph data is currently disabled'] });
  assert.deepEqual([await nodesOf('1=1'), await count('select count(*) as n from edges')], before);
  // Other data may still be cleared while the flag is off.
  assert.equal((await clearDb({ deleteFileIngestHistory: true })).statusCode, 204);
  await t.db.kysely.updateTable('feature_flags').set({ enabled: 1 }).where('key', '=', 'clear_graph_data').execute();
});

test('deleteRelationships: the edges of those kinds; the post-processed edges are derived again from what remains', async () => {
  const adminTo = await edgesOf('AdminTo');
  assert.ok(await edgesOf('HasSession') > 0 && adminTo > 0);
  assert.equal((await clearDb({ deleteRelationships: ['HasSession', 'AdminTo'] })).statusCode, 204);
  assert.equal(await edgesOf('HasSession'), 0);
  assert.equal(await edgesOf('AdminTo'), adminTo, 'AdminTo is derived from the local groups, which stay');
  assert.ok(await edgesOf('MemberOf') > 0);
});

test('deleteAssetGroupSelectors: the custom selectors of those tags; default selectors stay; membership follows', async () => {
  const owned = await t.request({ method: 'POST', url: '/api/v2/asset-group-tags/2/selectors', token: admin,
    body: { name: 'owned user', seeds: [{ type: 1, value: `${SID}-1104` }] } });
  assert.equal(owned.statusCode, 201, owned.body);
  const custom = await t.request({ method: 'POST', url: '/api/v2/asset-group-tags/1/selectors', token: admin,
    body: { name: 'extra tier zero', seeds: [{ type: 1, value: `${SID}-1105` }] } });
  assert.equal(custom.statusCode, 201, custom.body);
  const defaults = await count('select count(*) as n from asset_group_tag_selectors where is_default = 1');
  const ownedMembers = await t.request({ method: 'GET', url: '/api/v2/asset-group-tags/2/members', token: admin });
  assert.equal(ownedMembers.json().count, 1);
  assert.equal((await clearDb({ deleteAssetGroupSelectors: [2] })).statusCode, 204);
  assert.equal((await t.request({ method: 'GET', url: '/api/v2/asset-group-tags/2/members', token: admin })).json().count, 0);
  assert.deepEqual((await t.db.kysely.selectFrom('asset_group_tag_selectors').select('name').where('is_default', '=', 0).execute()).map((s) => s.name), ['extra tier zero']);
  assert.equal((await clearDb({ deleteAssetGroupSelectors: [1, 2] })).statusCode, 204);
  assert.equal(await count('select count(*) as n from asset_group_tag_selectors where is_default = 0'), 0);
  assert.equal(await count('select count(*) as n from asset_group_tag_selectors where is_default = 1'), defaults);
  assert.ok(await tierZero() > 0);
});

test('deleteFileIngestHistory and deleteDataQualityHistory: finished jobs and every record; a job still running stays', async () => {
  const user = { id: (await t.db.kysely.selectFrom('users').select('id').executeTakeFirstOrThrow()).id, email: null };
  const done = await createJob(t.db.kysely, user, 2);
  const failed = await createJob(t.db.kysely, user, 5);
  const running = await createJob(t.db.kysely, user, 1);
  const dq = await t.request({ method: 'GET', url: '/api/v2/platform/ad/data-quality-stats', token: admin });
  assert.ok(dq.json().count > 0, dq.body);
  const res = await clearDb({ deleteFileIngestHistory: true, deleteDataQualityHistory: true });
  assert.equal(res.statusCode, 204, res.body);
  const jobs = (await t.request({ method: 'GET', url: '/api/v2/file-upload', token: admin })).json().data.map((j: { id: number }) => j.id);
  assert.deepEqual(jobs, [running.id]);
  assert.ok(!jobs.includes(done.id) && !jobs.includes(failed.id));
  for (const url of ['/api/v2/platform/ad/data-quality-stats', '/api/v2/platform/azure/data-quality-stats', `/api/v2/ad-domains/${SID}/data-quality-stats`]) {
    const page = await t.request({ method: 'GET', url, token: admin });
    assert.equal(page.json().count, 0, `${url}: ${page.body}`);
  }
  assert.ok(await nodesOf('1=1') > 0, 'the graph stays');
});

test('deleteSourceKinds: by the ids of /graphs/source-kinds; 0 = the nodes of no source kind; edges touching them go too', async () => {
  const kinds = (await t.request({ method: 'GET', url: '/api/v2/graphs/source-kinds', token: admin })).json().data.kinds;
  assert.deepEqual(kinds, [{ id: 1, name: 'Base' }, { id: 2, name: 'AZBase' }, { id: 3, name: 'HR' }, { id: 0, name: 'Sourceless' }]);
  const ad = await nodesOf(`source_kind = 'Base'`);
  const placeholders = await nodesOf('source_kind is null');
  assert.ok(placeholders > 0, 'the fixture\'s ACEs name principals no file describes');
  assert.equal(await edgesOf('Knows'), 1);
  assert.equal((await clearDb({ deleteSourceKinds: [3] })).statusCode, 204);
  assert.deepEqual([await nodesOf(`source_kind = 'HR'`), await edgesOf('Manages'), await edgesOf('Knows')], [0, 0, 0]);
  assert.equal(await nodesOf(`source_kind = 'Base'`), ad, 'Active Directory data stays');
  assert.equal(await nodesOf('source_kind is null'), placeholders);
  assert.ok(await tierZero() > 0);
  assert.equal((await clearDb({ deleteSourceKinds: [0] })).statusCode, 204);
  assert.equal(await nodesOf('source_kind is null'), 0);
  assert.equal(await nodesOf(`source_kind = 'Base'`), ad);
  assert.equal(await count('select count(*) as n from edges e where not exists (select 1 from nodes n where n.id = e.start_id) or not exists (select 1 from nodes n where n.id = e.end_id)'), 0,
    'no edge is left without one of its ends');
  assert.equal((await clearDb({ deleteSourceKinds: [1] })).statusCode, 204);
  assert.deepEqual([await nodesOf('1=1'), await tierZero()], [0, 0]);
});

test('deleteCollectedGraphData: every node and edge; the explore routes and Cypher see an empty graph; the audit log has the options', async () => {
  const outcomes = await ingestFiles(t.db, [{ path: OPENGRAPH }]);
  assert.deepEqual(outcomes.filter((o) => o.error), []);
  assert.equal(await nodesOf('1=1'), 3, 'the OpenGraph file again (two people and the user it names)');
  const res = await clearDb({ deleteCollectedGraphData: true });
  assert.equal(res.statusCode, 204, res.body);
  assert.equal(res.body, '');
  assert.deepEqual([await nodesOf('1=1'), await count('select count(*) as n from edges')], [0, 0]);
  assert.equal(await tierZero(), 0);
  const user = await t.request({ method: 'GET', url: `/api/v2/users/${SID}-500`, token: admin });
  assert.equal(user.statusCode, 404, user.body);
  const cypher = await t.request({ method: 'POST', url: '/api/v2/graphs/cypher', token: admin, body: { query: 'MATCH (n) RETURN n LIMIT 5' } });
  assert.equal(cypher.statusCode, 404, cypher.body);
  const audit = await t.db.kysely.selectFrom('audit_logs').selectAll().where('action', '=', 'DeleteBloodhoundData').orderBy('id', 'desc').executeTakeFirstOrThrow();
  assert.deepEqual([audit.status, JSON.parse(audit.fields).options], ['success', { deleteCollectedGraphData: true }]);
});
