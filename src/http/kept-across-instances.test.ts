/**
 * What the read paths keep in process between requests (the feature flag, tags, certificate templates and their
 * controller lists, resolved OU / domain references, a client's ready jobs, tag members' JSON) is exact across instances: instance A
 * writes, instance B on the same database answers the change within a second (PostgreSQL: NOTIFY; SQLite: the file's
 * data_version), through HTTP, after B has kept the earlier state.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../app.ts';
import { issueSession } from '../auth/sessions.ts';
import { testConfig } from '../config.ts';
import type { Db } from '../db/create-db.ts';
import { upsertEdges, upsertNodes } from '../graph/store.repository.ts';
import { DIALECT, sharedTestDb, type TestApp } from '../test/harness.ts';
import { addNode, makeClient, makeJob } from '../test/collection.fixtures.ts';
import { createUser } from '../modules/users/users.service.ts';
import { buildTagGraph } from '../test/tag-graph.ts';

let shared: Awaited<ReturnType<typeof sharedTestDb>>;
let a: Db;
let b: Db;
let appA: FastifyInstance;
let appB: FastifyInstance;
let admin: string;
/** Instance A as the collection fixtures use a test app. */
let onA: TestApp;

before(async () => {
  shared = await sharedTestDb();
  const url = shared.url;
  ({ a, b } = shared);
  const config = testConfig({ databaseUrl: url, jwtSecret: 'test-secret-that-is-long-enough-for-hs256!!', schedulerInterval: 0 });
  appA = await buildApp({ config, db: a });
  appB = await buildApp({ config, db: b });
  await appA.ready();
  await appB.ready();
  const user = await createUser(a, { principalName: 'admin-kept', email: 'admin-kept@example.test', roleName: 'Administrator' });
  admin = (await issueSession(a, config, { userId: user.id }, 3600, 'test')).token;
  onA = {
    db: a,
    request: ({ method, url: path, token, body }: { method: string; url: string; token?: string; body?: unknown }) => appA.inject({
      method: method as 'GET', url: path,
      headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      payload: body === undefined ? undefined : JSON.stringify(body),
    }),
  } as unknown as TestApp;
});

after(async () => {
  await appB.close();
  await appA.close();
  await shared.close();
});

const getB = (url: string, token = admin, headers: Record<string, string> = {}) =>
  appB.inject({ method: 'GET', url, headers: { authorization: `Bearer ${token}`, ...headers } });

/** B's answer once `ok` holds (within a second), or the last one. */
async function eventually<T>(read: () => Promise<T>, ok: (value: T) => boolean): Promise<T> {
  const until = performance.now() + 1000;
  for (;;) {
    const value = await read();
    if (ok(value) || performance.now() > until) return value;
    await new Promise((r) => setTimeout(r, 20));
  }
}

test(`an event's OU reference: a node renamed on A is seen on B (${DIALECT})`, async () => {
  const client = await makeClient(onA, admin, 'kept-events');
  await addNode(onA, 'OU-KEPT-1', 'OU', 'FIRST@CORP.LOCAL', { distinguishedname: 'OU=FIRST,DC=CORP' });
  const created = await onA.request({ method: 'POST', url: '/api/v2/events', token: admin, body: { client_id: client.id, rrule: 'FREQ=DAILY;INTERVAL=1', ous: ['OU-KEPT-1'] } });
  assert.equal(created.statusCode, 200, created.body);
  const url = `/api/v2/events/${created.json().data.id}`;
  const ouName = async () => (await getB(url)).json().data.ous[0].name as string;
  assert.equal(await ouName(), 'FIRST@CORP.LOCAL');
  await a.kysely.updateTable('nodes').set({ name: 'SECOND@CORP.LOCAL' }).where('objectid', '=', 'OU-KEPT-1').execute();
  assert.equal(await eventually(ouName, (n) => n === 'SECOND@CORP.LOCAL'), 'SECOND@CORP.LOCAL');
  // The event itself (B keeps the events table): retitled on A, deleted on A.
  const titled = async () => (await getB(`${url}?hydrate_ous=false`)).json().data.title as string;
  assert.equal(await titled(), '');
  const put = await onA.request({ method: 'PUT', url, token: admin, body: { client_id: client.id, rrule: 'FREQ=DAILY;INTERVAL=1', title: 'retitled', ous: ['OU-KEPT-1'] } });
  assert.equal(put.statusCode, 200, put.body);
  assert.equal(await eventually(titled, (x) => x === 'retitled'), 'retitled');
  assert.equal((await onA.request({ method: 'DELETE', url, token: admin })).statusCode, 200);
  assert.equal((await eventually(() => getB(`${url}?hydrate_domains=false`), (r) => r.statusCode === 404)).statusCode, 404);
});

test(`jobs/available: a job scheduled on A changes B's ETag and answer (${DIALECT})`, async () => {
  const client = await makeClient(onA, admin, 'kept-jobs');
  const first = await makeJob(onA, admin, client.id, { execution_time: '2020-01-01T00:00:00Z' });
  const poll = async () => {
    const res = await getB('/api/v2/jobs/available?sort_by=id', client.token);
    return { etag: res.headers.etag as string, ids: res.json().data.map((j: { id: number }) => j.id) as number[] };
  };
  const before = await poll();
  assert.deepEqual(before.ids, [first.id]);
  assert.equal((await getB('/api/v2/jobs/available?sort_by=id', client.token, { 'if-none-match': before.etag })).statusCode, 304);
  const second = await makeJob(onA, admin, client.id, { execution_time: '2020-01-02T00:00:00Z' });
  const after = await eventually(poll, (p) => p.ids.length === 2);
  assert.deepEqual(after.ids, [first.id, second.id]);
  assert.notEqual(after.etag, before.etag);
  // Another query string on B (not answered before): its ETag comes from B's kept view of the client's jobs.
  const other = await getB('/api/v2/jobs/available?sort_by=-id', client.token);
  assert.deepEqual(other.json().data.map((j: { id: number }) => j.id), [second.id, first.id]);
});

test(`a tag deleted on A answers 404 on B (${DIALECT})`, async () => {
  const created = await onA.request({ method: 'POST', url: '/api/v2/asset-group-tags', token: admin, body: { name: 'Kept Label', type: 2 } });
  assert.equal(created.statusCode, 201, created.body);
  const url = `/api/v2/asset-group-tags/${created.json().data.id}/members?sort_by=name`;
  assert.equal((await getB(url)).statusCode, 200);
  const deleted = await onA.request({ method: 'DELETE', url: `/api/v2/asset-group-tags/${created.json().data.id}`, token: admin });
  assert.ok(deleted.statusCode < 300, deleted.body);
  assert.equal((await eventually(() => getB(url), (r) => r.statusCode === 404)).statusCode, 404);
});

test(`a template's controllers and properties: edges and names written on A are seen on B (${DIALECT})`, async () => {
  const u = (objectid: string, name: string, kind = 'User') => ({ objectid, kinds: [kind, 'Base'], name, properties: { name, objectid } });
  await upsertNodes(a.kysely, [u('TPL-KEPT', 'KEPT@CORP.LOCAL', 'CertTemplate'), u('U-KEPT-1', 'ALICE@CORP.LOCAL'), u('U-KEPT-2', 'BOB@CORP.LOCAL')]);
  await upsertEdges(a.kysely, [{ start: { objectid: 'U-KEPT-1' }, end: { objectid: 'TPL-KEPT' }, kind: 'Enroll' }]);
  const listed = async () => (await getB('/api/v2/certtemplates/TPL-KEPT/controllers?sort_by=name')).json().data.map((c: { name: string }) => c.name) as string[];
  assert.deepEqual(await listed(), ['ALICE@CORP.LOCAL']);
  await upsertEdges(a.kysely, [{ start: { objectid: 'U-KEPT-2' }, end: { objectid: 'TPL-KEPT' }, kind: 'GenericAll' }]);
  assert.deepEqual(await eventually(listed, (n) => n.length === 2), ['ALICE@CORP.LOCAL', 'BOB@CORP.LOCAL']);
  const named = async () => (await getB('/api/v2/certtemplates/TPL-KEPT')).json().data.props.name as string;
  assert.equal(await named(), 'KEPT@CORP.LOCAL');
  await a.kysely.updateTable('nodes').set({ name: 'RENAMED@CORP.LOCAL' }).where('objectid', '=', 'TPL-KEPT').execute();
  assert.equal(await eventually(named, (n) => n === 'RENAMED@CORP.LOCAL'), 'RENAMED@CORP.LOCAL');
});

test(`the tier_management_engine flag toggled on A gates B's tag routes (${DIALECT})`, async () => {
  const url = '/api/v2/asset-group-tags/1/members';
  assert.equal((await getB(url)).statusCode, 200);
  const flags = (await onA.request({ method: 'GET', url: '/api/v2/features', token: admin })).json().data as Array<{ id: number; key: string }>;
  const flag = flags.find((f) => f.key === 'tier_management_engine')!;
  const toggle = () => onA.request({ method: 'PUT', url: `/api/v2/features/${flag.id}/toggle`, token: admin });
  assert.equal((await toggle()).statusCode, 200);
  assert.equal((await eventually(() => getB(url), (r) => r.statusCode === 404)).statusCode, 404);
  assert.equal((await toggle()).statusCode, 200);
  assert.equal((await eventually(() => getB(url), (r) => r.statusCode === 200)).statusCode, 200);
});

test(`a sorted members page: a member's properties changed on A are seen on B (${DIALECT})`, async () => {
  await buildTagGraph(a);
  const seeded = await onA.request({ method: 'POST', url: '/api/v2/asset-group-tags/1/selectors', token: admin, body: { name: 'kept admins', seeds: [{ type: 1, value: 'G1' }] } });
  assert.equal(seeded.statusCode, 201, seeded.body);
  // Twice: the second answer's member JSON comes from what B kept (the response cache is keyed by the URL).
  const enabledOf = async (url: string) => {
    const res = await getB(url);
    assert.equal(res.statusCode, 200, res.body);
    return res.json().data.members.find((m: { object_id: string }) => m.object_id === 'U1')?.properties.enabled as unknown;
  };
  assert.equal(await enabledOf('/api/v2/asset-group-tags/1/members?sort_by=name'), true);
  assert.equal(await enabledOf('/api/v2/asset-group-tags/1/members?sort_by=name&limit=20'), true);
  await a.kysely.updateTable('nodes').set({ properties: JSON.stringify({ name: 'ALICE@CORP.LOCAL', enabled: false }) }).where('objectid', '=', 'U1').execute();
  assert.equal(await eventually(() => enabledOf('/api/v2/asset-group-tags/1/members?sort_by=name&limit=30'), (e) => e === false), false);
});
