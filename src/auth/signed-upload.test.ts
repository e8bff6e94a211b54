import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { signedHeaders } from '../client/signature.ts';
import { createTestApp, errorOf, type TestApp } from '../test/harness.ts';

/**
 * A signed upload: the upload route streams the body into the database itself, so the signature is
 * checked when that stream ends. A bad signature must leave nothing stored.
 */
let t: TestApp;
let id: string;
let key: string;
before(async () => {
  t = await createTestApp();
  const admin = await t.login('Administrator');
  ({ id, key } = (await t.request({ method: 'POST', url: '/api/v2/tokens', token: admin.token, body: { token_name: 'sharphound' } })).json().data);
});
after(() => t.close());

const post = (url: string, body: string, signBody = body) =>
  t.app.inject({
    method: 'POST', url, payload: body || undefined,
    headers: { ...signedHeaders(id, { key, method: 'POST', target: url, body: signBody }), ...(body ? { 'content-type': 'application/json' } : {}) },
  });

test('signed upload: accepted with the right signature; a wrong one is 401 and stores nothing', async () => {
  const start = await post('/api/v2/file-upload/start', '');
  assert.equal(start.statusCode, 201, start.body);
  const job = start.json().data.id;
  const file = JSON.stringify({ meta: { type: 'users', version: 6, count: 0 }, data: [] }) + ' '.repeat(3 * 1024 * 1024);
  const files = () => t.db.kysely.selectFrom('file_upload_files').select('id').where('job_id', '=', job).execute();

  const bad = await post(`/api/v2/file-upload/${job}`, file, `${file}x`);
  assert.deepEqual(errorOf(bad), { status: 401, messages: ['authentication is invalid'] });
  assert.equal((await files()).length, 0);

  const good = await post(`/api/v2/file-upload/${job}`, file);
  assert.equal(good.statusCode, 202, good.body);
  assert.equal((await files()).length, 1);
});
