import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { errorOf } from '../../test/harness.ts';
import { createClientApp, type ClientApp } from '../../test/http-client.ts';
import { assertShape } from '../../test/shape.ts';
import { nowMicros } from '../../db/time.ts';

/** GET /api/v2/datapipe/status (bhcli `status datapipe`). */
let c: ClientApp;
before(async () => {
  c = await createClientApp({ ingestInterval: 0 });
});
after(() => c.close());

const job = (status: number, updatedAt: number) => ({
  user_id: null, user_email_address: null, status, status_message: '', start_time: updatedAt, end_time: updatedAt, last_ingest: null,
  total_files: 0, failed_files: 0, claimed_by: null, claimed_at: null, created_at: updatedAt, updated_at: updatedAt, deleted_at: null,
});

test('idle with no analysis yet; ingesting / analyzing while a job is; the last finished job\'s time', async () => {
  const { token } = await c.login('Upload-Only');
  const get = async () => (await c.http(token).get('/api/v2/datapipe/status')).data;
  const first = await get();
  assertShape(first, { data: { status: 'string', updated_at: 'datetime', last_complete_analysis_at: 'datetime', last_analysis_run_at: 'datetime' } });
  assert.deepEqual([first.data.status, first.data.last_complete_analysis_at], ['idle', '0001-01-01T00:00:00Z']);
  const done = nowMicros() - 5_000_000;
  await c.db.kysely.insertInto('file_upload_jobs').values(job(2, done)).execute();
  const analyzing = await c.db.kysely.insertInto('file_upload_jobs').values(job(7, nowMicros())).returning('id').executeTakeFirstOrThrow();
  assert.equal((await get()).data.status, 'analyzing');
  await c.db.kysely.insertInto('file_upload_jobs').values(job(6, nowMicros())).execute();
  const busy = await get();
  assert.equal(busy.data.status, 'ingesting');
  assert.equal(Date.parse(busy.data.last_complete_analysis_at), Math.floor(done / 1000));
  await c.db.kysely.updateTable('file_upload_jobs').set({ status: 5 }).where('status', 'in', [6, 7]).execute();
  assert.equal((await get()).data.status, 'idle');
  assert.ok(analyzing.id);
  assert.deepEqual(errorOf(await c.request({ method: 'GET', url: '/api/v2/datapipe/status' })), { status: 401, messages: ['authentication is invalid'] });
});
