import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { createClientApp, axiosErrorOf, type ClientApp } from '../../test/http-client.ts';
import { assertShape } from '../../test/shape.ts';
import { toRfc3339 } from '../../db/time.ts';

let c: ClientApp;
let admin: { token: string; userId: string };
before(async () => {
  c = await createClientApp();
  admin = await c.login('Administrator');
  // Some history: two successes, a failure, a refusal.
  const http = c.http(admin.token);
  await http.post('/api/v2/tokens', { token_name: 'one' });
  await http.post('/api/v2/tokens', { token_name: 'two' });
  await http.post('/api/v2/tokens', { token_name: '' });
  await c.http().post('/api/v2/tokens', { token_name: 'anonymous' });
});
after(() => c.close());

/** BloodHound's AuditLog as its code writes it (cmd/api/src/model/audit.go). */
const AUDIT_LOG = {
  id: 'integer', created_at: 'datetime', actor_id: 'string', actor_name: 'string', actor_email: 'string', action: 'string',
  fields: 'object', request_id: 'uuid', source_ip_address: 'string', status: 'string', commit_id: 'uuid',
};

const get = (query: Record<string, string | string[]> = {}, token = admin.token) =>
  c.http(token).get('/api/v2/audit', { params: query, paramsSerializer: { indexes: null } });

test('GET /api/v2/audit as the JS client calls it (getAuditLogs): paged {logs}, BloodHound\'s entry shape, newest first', async () => {
  const res = await get();
  assert.equal(res.status, 200);
  assertShape(res.data, { count: 'integer', skip: 'integer', limit: 'integer', data: { logs: [AUDIT_LOG] } });
  const { logs } = res.data.data;
  assert.equal(res.data.count, 4);
  assert.equal(res.data.limit, 1000);
  assert.deepEqual(logs.map((l: { action: string; status: string }) => `${l.action}/${l.status}`), [
    'UnauthorizedAccessAttempt/failure', 'CreateAuthToken/failure', 'CreateAuthToken/success', 'CreateAuthToken/success',
  ]);
  assert.equal(logs[1].fields.error, 'token_name must not be empty');
  assert.equal(logs[3].fields.token_name, 'one');
  assert.equal(logs[3].actor_id, admin.userId);
});

test('filters (actor, action, status, id), time window, paging with skip or offset, sort', async () => {
  const status = await get({ status: 'success' });
  assert.equal(status.data.count, 2);
  const failures = await get({ action: 'CreateAuthToken', status: 'neq:success' });
  assert.equal(failures.data.count, 1);
  assert.equal((await get({ actor_id: admin.userId })).data.count, 3);
  assert.equal((await get({ actor_id: '' })).data.count, 1, 'the anonymous refusal has no actor');
  assert.equal((await get({ status: 'intent' })).data.count, 0, 'Scent writes no intent rows');
  const all = (await get({ sort_by: 'id' })).data.data.logs.map((l: { id: number }) => l.id);
  assert.deepEqual(all, [...all].sort((a, b) => a - b));
  assert.equal((await get({ id: `gt:${all[1]}` })).data.count, 2);
  const page = await get({ sort_by: 'id', skip: '1', limit: '2' });
  assert.deepEqual(page.data.data.logs.map((l: { id: number }) => l.id), all.slice(1, 3));
  assert.equal(page.data.count, 4);
  const legacy = await get({ sort_by: 'id', offset: '3' });
  assert.deepEqual(legacy.data.data.logs.map((l: { id: number }) => l.id), all.slice(3));
  assert.equal(legacy.data.skip, 3);
  const first = await c.db.kysely.selectFrom('audit_logs').select('created_at').orderBy('id').executeTakeFirstOrThrow();
  assert.equal((await get({ before: toRfc3339(first.created_at - 1) })).data.count, 0, 'count follows the window');
  assert.equal((await get({ after: toRfc3339(first.created_at) })).data.count, 4);
  assert.equal((await get({ created_at: `gte:${toRfc3339(first.created_at)}` })).data.count, 4);
});

test('bad parameters: the contract\'s 400s', async () => {
  const cases: Array<[Record<string, string>, string]> = [
    [{ nope: '1' }, 'the specified column cannot be filtered: nope'],
    [{ action: '~eq:Create' }, 'the specified filter predicate is not supported for this column: action ~eq'],
    [{ sort_by: 'fields' }, 'column format does not support sorting: fields'],
    [{ before: 'yesterday' }, 'query parameter "before" is malformed'],
    [{ after: '2030-01-01T00:00:00Z', before: '2020-01-01T00:00:00Z' }, 'query parameter "after" is malformed'],
    [{ offset: '-1' }, 'query parameter "offset" is malformed'],
    [{ limit: 'x' }, 'query parameter "limit" is malformed'],
  ];
  for (const [query, message] of cases) {
    assert.deepEqual(axiosErrorOf(await get(query)), { status: 400, messages: [message] }, JSON.stringify(query));
  }
});

test('audit_log/Read only; entries are never editable through the API', async () => {
  for (const role of ['Power User', 'User', 'Read-Only', 'Upload-Only'] as const) {
    assert.deepEqual(axiosErrorOf(await get({}, (await c.login(role)).token)), { status: 403, messages: ['not authorized'] }, role);
  }
  assert.deepEqual(axiosErrorOf(await c.http().get('/api/v2/audit')), { status: 401, messages: ['authentication is invalid'] });
  const http = c.http(admin.token);
  for (const method of ['put', 'patch', 'delete', 'post'] as const) {
    assert.deepEqual(axiosErrorOf(await http.request({ method, url: '/api/v2/audit', data: {} })), { status: 405, messages: ['method not allowed'] });
    assert.deepEqual(axiosErrorOf(await http.request({ method, url: '/api/v2/audit/1', data: {} })), { status: 404, messages: ['resource not found'] });
  }
});
