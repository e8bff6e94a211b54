import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createTestApp, DIALECT, errorOf, type TestApp } from '../../test/harness.ts';
import { FIXTURES } from '../../test/fixture-path.ts';
import { zipFiles } from '../../http/zip.ts';
import { findNodeByObjectId } from '../../graph/store.repository.ts';
import { claimJob, runIngestOnce } from './ingest.worker.ts';

let t: TestApp;
let admin: string;
const upload = (id: number | string, body: Buffer | string, type: string, token = admin) =>
  t.app.inject({ method: 'POST', url: `/api/v2/file-upload/${id}`, payload: body, headers: { authorization: `Bearer ${token}`, 'content-type': type } });
const post = (url: string, token = admin) => t.request({ method: 'POST', url, token });

before(async () => {
  t = await createTestApp({ ingestInterval: 0 });
  admin = (await t.login('Administrator')).token;
});
after(() => t.close());

test(`file upload on ${DIALECT}: start, upload JSON and zip, end, ingest; per-file errors; data quality`, async () => {
  const uploader = (await t.login('Upload-Only')).token;
  const start = await post('/api/v2/file-upload/start', uploader);
  assert.equal(start.statusCode, 201);
  const job = start.json().data;
  assert.equal(job.status, 1);
  assert.equal(job.end_time, '0001-01-01T00:00:00Z');
  assert.equal(job.total_files, 0);

  const named = await t.app.inject({
    method: 'POST', url: `/api/v2/file-upload/${job.id}`, payload: readFileSync(FIXTURES + 'users.json'),
    headers: { authorization: `Bearer ${uploader}`, 'content-type': 'application/json', 'x-file-upload-name': 'corp-users.json' },
  });
  assert.equal(named.statusCode, 202);
  // A running job shows the files it has so far.
  const running = (await t.request({ method: 'GET', url: '/api/v2/file-upload', token: admin, query: { id: String(job.id) } })).json().data[0];
  assert.deepEqual([running.status, running.total_files], [1, 1]);
  assert.notEqual(running.last_ingest, '0001-01-01T00:00:00Z');
  const zip = zipFiles([
    { name: 'groups.json', data: readFileSync(FIXTURES + 'groups.json') },
    { name: 'domains.json', data: readFileSync(FIXTURES + 'domains.json') }, // data quality counts the nodes of collected domains
    { name: 'broken_computers.json', data: '{"meta":{"type":"computers"},"data":[{"ObjectIdentifier":"S-1-5-21-1-1000"' },
  ]);
  assert.equal((await upload(job.id, zip, 'application/zip; charset=binary', uploader)).statusCode, 202);
  // A body that is neither JSON nor a zip is refused at upload time and not counted.
  assert.deepEqual(errorOf(await upload(job.id, 'not json at all', 'application/json', uploader)), { status: 400, messages: ['Error saving ingest file: file is not valid json'] });

  const ended = await post(`/api/v2/file-upload/${job.id}/end`, uploader);
  assert.equal(ended.statusCode, 200);
  assert.deepEqual([ended.json().data.status, ended.json().data.total_files], [6, 2]);
  assert.deepEqual(errorOf(await upload(job.id, '{}', 'application/json')), { status: 400, messages: ['job must be in running status to attach files'] });
  assert.deepEqual(errorOf(await post(`/api/v2/file-upload/${job.id}/end`, uploader)), { status: 400, messages: ['job must be in running status to end'] });

  assert.equal(await runIngestOnce(t.db), job.id);
  assert.equal(await runIngestOnce(t.db), null, 'nothing left to claim');
  const listed = (await t.request({ method: 'GET', url: '/api/v2/file-upload', token: admin, query: { id: String(job.id) } })).json();
  const done = listed.data[0];
  assert.equal(listed.count, 1);
  assert.equal(done.status, 8, 'partially complete');
  assert.equal(done.failed_files, 1);
  assert.match(done.status_message, /broken_computers\.json: (unexpected end of JSON input|invalid JSON)/);
  assert.notEqual(done.end_time, '0001-01-01T00:00:00Z');

  const tasks = (await t.request({ method: 'GET', url: `/api/v2/file-upload/${job.id}/completed-tasks`, token: admin })).json().data;
  assert.equal(tasks.length, 2);
  assert.deepEqual(tasks.map((task: { file_name: string }) => task.file_name), ['corp-users.json', 'UnknownFileName.zip']);
  assert.deepEqual(tasks[0].errors, []);
  assert.equal(tasks[0].nodes, 14);
  assert.equal(tasks[1].errors.length, 1);
  assert.match(tasks[1].errors[0], /^UnknownFileName\.zip\/broken_computers\.json: (unexpected end of JSON input|invalid JSON)/);
  assert.deepEqual([tasks[1].ingest_job_id, tasks[1].parent_file_name], [job.id, 'UnknownFileName.zip']);

  assert.ok(await findNodeByObjectId(t.db.kysely, 'S-1-5-21-909015691-3030120388-2582151266-500'));
  assert.equal(await findNodeByObjectId(t.db.kysely, 'S-1-5-21-1-1000'), undefined);
  const chunks = await t.db.kysely.selectFrom('file_upload_chunks').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  assert.equal(Number(chunks.n), 0, 'stored bytes are removed after ingest');
  const dq = (await t.request({ method: 'GET', url: '/api/v2/platform/ad/data-quality-stats', token: admin })).json();
  assert.equal(dq.data[0].users, 14);
});

test(`file upload on ${DIALECT}: listing filters, sort and paging; accepted types`, async () => {
  for (let i = 0; i < 3; i++) await post('/api/v2/file-upload/start');
  const res = await t.request({ method: 'GET', url: '/api/v2/file-upload', token: admin, query: { status: 'running', sort_by: '-id', limit: '2' } });
  const body = res.json();
  assert.equal(res.statusCode, 200);
  assert.ok(body.count >= 3);
  assert.equal(body.data.length, 2);
  assert.ok(body.data[0].id > body.data[1].id);
  assert.ok(body.data.every((j: { status: number }) => j.status === 1));
  assert.deepEqual(errorOf(await t.request({ method: 'GET', url: '/api/v2/file-upload', token: admin, query: { nope: '1' } })),
    { status: 400, messages: ['the specified column cannot be filtered: nope'] });
  const reader = (await t.login('Read-Only')).token;
  const types = await t.request({ method: 'GET', url: '/api/v2/file-upload/accepted-types', token: reader });
  assert.deepEqual(types.json(), { data: ['application/json', 'application/zip', 'application/x-zip-compressed', 'application/zip-compressed'] });
  assert.equal((await t.request({ method: 'GET', url: '/api/v2/file-upload', token: reader })).statusCode, 200);
});

test(`file upload on ${DIALECT}: errors`, async () => {
  const reader = (await t.login('Read-Only')).token;
  assert.deepEqual(errorOf(await post('/api/v2/file-upload/start', reader)), { status: 403, messages: ['not authorized'] });
  assert.deepEqual(errorOf(await t.request({ method: 'POST', url: '/api/v2/file-upload/start' })), { status: 401, messages: ['authentication is invalid'] });
  assert.deepEqual(errorOf(await upload(1, '{}', 'application/json', reader)), { status: 403, messages: ['not authorized'] });
  assert.deepEqual(errorOf(await upload(999999, '{}', 'application/json')), { status: 404, messages: ['resource not found'] });
  assert.deepEqual(errorOf(await upload('abc', '{}', 'application/json')), { status: 400, messages: ['id is malformed'] });
  const job = (await post('/api/v2/file-upload/start')).json().data;
  assert.deepEqual(errorOf(await upload(job.id, 'x', 'text/plain')), { status: 400, messages: ['Content type must be application/json or application/zip'] });
  // Checked at upload time, as BloodHound: JSON syntax and its top-level format; a zip's header.
  const refused = async (body: string | Buffer, type: string, message: string) =>
    assert.deepEqual(errorOf(await upload(job.id, body, type)), { status: 400, messages: [message] }, `${type} ${String(body).slice(0, 40)}`);
  await refused('{"meta": {"type": "users"}, "data": [{"a": 1},', 'application/json', 'Error saving ingest file: file is not valid json');
  // An empty body is no body, whatever its label (CONTRACT §1): so it has no content type either.
  await refused('', 'application/json', 'Content type must be application/json or application/zip');
  await refused('  ', 'application/json', 'Error saving ingest file: file is not valid json');
  await refused('[1, 2]', 'application/json', 'Error saving ingest file: file is not valid json');
  await refused('{"something": "else"}', 'application/json', 'Error saving ingest file: no valid meta tag or data tag found');
  await refused('{"meta": {"type": "users"}, "data": [], "graph": {"nodes": []}}', 'application/json',
    'Error saving ingest file: request must use either the classic format (meta/data) or the generic format (graph), not both');
  await refused('{"meta": {}, "data": []}', 'application/zip', 'Error saving ingest file: failed to find zip file header');
  await refused('PK', 'application/x-zip-compressed', 'Error saving ingest file: failed to find zip file header');
  assert.equal((await upload(job.id, '{"graph": {"nodes": [], "edges": []}}', 'application/json')).statusCode, 202);
  assert.equal((await upload(job.id, '\ufeff{"meta": {"type": "users", "version": 6, "count": 0}, "data": []}', 'application/json')).statusCode, 202);
  const files = await t.db.kysely.selectFrom('file_upload_files').select('file_name').where('job_id', '=', job.id).execute();
  assert.deepEqual(files.map((f) => f.file_name), ['UnknownFileName.json', 'UnknownFileName.json'], 'refused bodies leave nothing behind');
  const counted = (await t.request({ method: 'GET', url: '/api/v2/file-upload', token: admin, query: { id: String(job.id) } })).json().data[0];
  assert.equal(counted.total_files, 2);
  assert.deepEqual(errorOf(await post('/api/v2/file-upload/999999/end')), { status: 404, messages: ['resource not found'] });
  assert.deepEqual(errorOf(await t.request({ method: 'GET', url: '/api/v2/file-upload/999999/completed-tasks', token: admin })), { status: 404, messages: ['resource not found'] });
  const small = await createTestApp({ ingestInterval: 0, uploadLimit: 1024 });
  try {
    const token = (await small.login('Administrator')).token;
    const j = (await small.request({ method: 'POST', url: '/api/v2/file-upload/start', token })).json().data;
    const res = await small.app.inject({ method: 'POST', url: `/api/v2/file-upload/${j.id}`, payload: 'x'.repeat(5000), headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' } });
    assert.deepEqual(errorOf(res), { status: 413, messages: ['request body is too large'] });
  } finally {
    await small.close();
  }
});

test(`file upload on ${DIALECT}: a job is claimed once; the server's worker ingests ended jobs by itself`, async () => {
  const job = (await post('/api/v2/file-upload/start')).json().data;
  await post(`/api/v2/file-upload/${job.id}/end`);
  const [a, b] = await Promise.all([claimJob(t.db, 'worker-a'), claimJob(t.db, 'worker-b')]);
  assert.deepEqual([a, b].filter(Boolean).map((j) => j!.id), [job.id], 'exactly one worker gets the job');

  const live = await createTestApp({ ingestInterval: 1 });
  try {
    const token = (await live.login('Administrator')).token;
    const j = (await live.request({ method: 'POST', url: '/api/v2/file-upload/start', token })).json().data;
    await live.app.inject({ method: 'POST', url: `/api/v2/file-upload/${j.id}`, payload: readFileSync(FIXTURES + 'domains.json'), headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' } });
    await live.request({ method: 'POST', url: `/api/v2/file-upload/${j.id}/end`, token });
    let status = 0;
    for (let i = 0; i < 100 && status !== 2; i++) {
      await new Promise((r) => setTimeout(r, 100));
      status = (await live.request({ method: 'GET', url: '/api/v2/file-upload', token, query: { id: String(j.id) } })).json().data[0].status;
    }
    assert.equal(status, 2, 'complete');
  } finally {
    await live.close();
  }
});
