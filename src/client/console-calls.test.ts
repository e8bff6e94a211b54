import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { ScentClient, type FlatGraph, type UnifiedGraph } from 'scent/client';
import { createTestApp, type TestApp } from '../test/harness.ts';
import { FIXTURES } from '../test/fixture-path.ts';
import { ingestFiles } from '../graph/ingest/ingest.service.ts';

/** The calls the console makes, against a live server (uploads as bytes; the browser adds progress). */
let t: TestApp;
let base: string;
let admin: { token: string; userId: string };
before(async () => {
  t = await createTestApp({ ingestInterval: 0 });
  admin = await t.login('Administrator');
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
});
after(() => t.close());

test('upload flow: start, one file as bytes (signed with an API token, a Blob), end, the job and its files', async () => {
  const bearer = new ScentClient({ baseUrl: base, credentials: { bearer: admin.token } });
  const token = await bearer.createToken({ token_name: 'uploader' });
  const signed = new ScentClient({ baseUrl: base, credentials: { tokenId: token.id, tokenKey: token.key } });
  const job = await signed.startFileUpload();
  const bytes = readFileSync(`${FIXTURES}domains.json`);
  await signed.uploadFile(job.id, new Blob([bytes]), { fileName: 'domains.json', contentType: 'application/json' });
  await bearer.uploadFile(job.id, new Uint8Array(bytes), { fileName: 'again.json', contentType: 'application/json', onProgress: () => assert.fail('no progress outside a browser') });
  const ended = await bearer.endFileUpload(job.id);
  assert.equal(ended.total_files, 2);
  const page = await bearer.listFileUploads({ id: job.id });
  assert.deepEqual(page.data.map((j) => [j.id, j.total_files]), [[job.id, 2]]);
  assert.deepEqual(await bearer.listFileUploadTasks(job.id), []); // nothing ingested yet (worker off)
  await assert.rejects(bearer.uploadFile(job.id, 'x', { fileName: 'late.json', contentType: 'application/json' }),
    (err: { status: number; messages: string[] }) => err.status === 400 && err.messages[0] === 'job must be in running status to attach files');
});

test('entity graphs: a flat map is returned as is, a map wrapped in data is unwrapped', async () => {
  const answers: unknown[] = [{ '1': { label: { text: 'a' }, data: {} } }, { data: { nodes: {}, edges: [] } }];
  const client = new ScentClient({
    baseUrl: 'http://scent.test', credentials: { bearer: 'x' },
    fetch: async () => new Response(JSON.stringify(answers.shift()), { status: 200, headers: { 'content-type': 'application/json' } }),
  });
  assert.deepEqual(await client.getEntityRelatedGraph('certtemplates', 'T', 'controllers'), { '1': { label: { text: 'a' }, data: {} } } as FlatGraph);
  assert.deepEqual(await client.getEntityRelatedGraph('certtemplates', 'T', 'controllers'), { nodes: {}, edges: [] } as UnifiedGraph);
});

test('Azure entities: a node with its counts, a related list paged and as a flat graph map', async () => {
  const tenant = '6C12B0B0-B2CC-4A73-8252-0B94BFCA2145';
  const [ann, admins] = ['AAAAAAAA-0000-4000-8000-00000000000A', 'BBBBBBBB-0000-4000-8000-00000000000B'];
  const path = join(mkdtempSync(join(tmpdir(), 'scent-azure-')), 'azurehound.json');
  writeFileSync(path, JSON.stringify({ meta: { type: 'azure', version: 5, count: 4 }, data: [
    { kind: 'AZTenant', data: { tenantId: tenant, displayName: 'Contoso' } },
    { kind: 'AZUser', data: { id: ann, displayName: 'Ann', userPrincipalName: 'ann@contoso.example', tenantId: tenant } },
    { kind: 'AZGroup', data: { id: admins, displayName: 'Admins', tenantId: tenant, securityEnabled: true } },
    { kind: 'AZGroupMember', data: { groupId: admins, members: [{ groupId: admins, member: { '@odata.type': '#microsoft.graph.user', id: ann } }] } },
  ] }));
  const [outcome] = await ingestFiles(t.db, [{ path }]);
  assert.equal(outcome.error, undefined);
  const client = new ScentClient({ baseUrl: base, credentials: { bearer: admin.token } });
  const user = await client.getAzureEntity('users', ann);
  assert.equal(user.kind, 'AZUser');
  assert.deepEqual(user.kinds, ['AZUser', 'AZBase']);
  assert.equal(user.props.objectid, ann);
  assert.equal(user.group_membership, 1);
  const t1 = await client.getAzureEntity('tenants', tenant);
  assert.deepEqual(t1.descendents, { descendent_counts: { AZUser: 1, AZGroup: 1 } });
  const page = await client.listAzureRelated('users', ann, 'group-membership', { skip: 0, limit: 10 });
  assert.deepEqual([page.count, page.skip, page.limit], [1, 0, 10]);
  assert.deepEqual(page.data.map((n) => [n.kind, n.props.objectid, n.props.displayname]), [['AZGroup', admins, 'Admins']]);
  const graph = await client.getAzureRelatedGraph('users', ann, 'group-membership');
  const entries = Object.entries(graph);
  assert.deepEqual(entries.filter(([k]) => k.startsWith('rel_')).map(([, e]) => (e as { label: { text: string } }).label.text), ['AZMemberOf']);
  assert.deepEqual(entries.filter(([k]) => !k.startsWith('rel_')).map(([, n]) => (n as { data: { objectid: string } }).data.objectid).sort(), [ann, admins].sort());
  await assert.rejects(client.getAzureEntity('users', 'NO-SUCH-NODE'), (err: { status: number }) => err.status === 404);
});

test('collection: finished jobs, a client\'s completed jobs and a job\'s log through the package', async () => {
  const bearer = new ScentClient({ baseUrl: base, credentials: { bearer: admin.token } });
  const client = await bearer.createClient({ name: 'package-collector', type: 'sharphound' });
  const job = (await t.request({ method: 'POST', url: `/api/v2/clients/${client.id}/jobs`, token: admin.token, body: {} })).json().data;
  await bearer.cancelJob(job.id);
  assert.deepEqual((await bearer.listFinishedJobs({ client_id: client.id })).data.map((j) => [j.id, j.status]), [[job.id, 3]]);
  const completed = await bearer.listClientCompletedJobs(client.id, { limit: 1 });
  assert.deepEqual([completed.count, completed.limit, completed.data[0].event_title], [1, 1, '']);
  assert.equal(await bearer.getJobLog(job.id), '');
  await assert.rejects(bearer.getJobLog(999999), (err: { status: number }) => err.status === 404);
});
