import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import zlib from 'node:zlib';
import { createTestApp, errorOf, type TestApp } from '../../test/harness.ts';
import { gzipCalls } from '../../test/zlib-spy.ts';
import { addNode, makeClient, makeJob } from '../../test/collection.fixtures.ts';

let t: TestApp;
let admin: string;
before(async () => {
  t = await createTestApp({ schedulerInterval: 0 });
  admin = (await t.login('Administrator')).token;
});
after(() => t.close());

const poll = (token: string, query: Record<string, string | string[]> = {}, headers: Record<string, string> = {}) =>
  t.request({ method: 'GET', url: '/api/v2/jobs/available', token, query, headers });

test('available: the caller\'s ready and due jobs only, {data} without count/skip/limit', async () => {
  const a = await makeClient(t, admin, 'avail-a');
  const b = await makeClient(t, admin, 'avail-b');
  const due = await makeJob(t, admin, a.id, { execution_time: '2020-01-01T00:00:00Z', ad_structure_collection: true });
  const due2 = await makeJob(t, admin, a.id, { execution_time: '2021-01-01T00:00:00+02:00' });
  await makeJob(t, admin, a.id, { execution_time: '2999-01-01T00:00:00Z' });
  await makeJob(t, admin, b.id);
  const running = await makeJob(t, admin, a.id, { execution_time: '2019-01-01T00:00:00Z' });
  const canceled = await makeJob(t, admin, a.id);
  await t.request({ method: 'PUT', url: `/api/v2/jobs/${canceled.id}/cancel`, token: admin });
  await t.request({ method: 'POST', url: '/api/v2/jobs/start', token: a.token, body: { id: running.id } });

  const res = await poll(a.token);
  assert.equal(res.statusCode, 200);
  const body = res.json();
  assert.deepEqual(Object.keys(body), ['data']);
  assert.deepEqual(body.data.map((j: { id: number }) => j.id), [due.id, due2.id]);
  assert.equal(body.data[0].status, 0);
  assert.equal(body.data[0].execution_time, '2020-01-01T00:00:00.000000Z');
  assert.equal(body.data[1].execution_time, '2020-12-31T22:00:00.000000Z');

  const ids = async (query: Record<string, string | string[]>) => (await poll(a.token, query)).json().data.map((j: { id: number }) => j.id);
  assert.deepEqual(await ids({ sort_by: '-execution_time' }), [due2.id, due.id]);
  assert.deepEqual(await ids({ ad_structure_collection: 'true' }), [due.id]);
  assert.deepEqual(await ids({ ad_structure_collection: 'neq:T' }), [due2.id]);
  assert.deepEqual(await ids({ execution_time: 'gt:2020-06-01T00:00:00Z' }), [due2.id]);
  assert.deepEqual(await ids({ status: '~eq:READ' }), [due.id, due2.id]);
  assert.deepEqual(await ids({ status: 'running' }), []);
  assert.deepEqual(await ids({ client_id: b.id }), []);
  assert.deepEqual(await ids({ event_id: 'eq:null', id: [] }), [due.id, due2.id]);
  assert.deepEqual(await ids({ domain_controller: '~eq:%' }), []);
  assert.deepEqual(errorOf(await poll(a.token, { skip: '1' })), { status: 400, messages: ['the specified column cannot be filtered: skip (this list is not paged: it takes no skip or limit)'] });
  assert.deepEqual(errorOf(await poll(a.token, { limit: '1' })), { status: 400, messages: ['the specified column cannot be filtered: limit (this list is not paged: it takes no skip or limit)'] });
  assert.deepEqual(errorOf(await poll(a.token, { client_id: 'nope' })), { status: 400, messages: ['there are errors in the query parameter filters specified: client_id=nope (expected a UUID such as 0e0d0c0b-0a09-0807-0605-040302010000)'] });
  assert.deepEqual(errorOf(await poll(a.token, { hydrate_ous: 'maybe' })), { status: 400, messages: ['query parameter "hydrate_ous" is malformed'] });
  assert.deepEqual(errorOf(await poll(a.token, { sort_by: '' })), { status: 400, messages: ['empty sort_by parameter supplied'] });
});

test('available: a user gets 404, no token 401', async () => {
  assert.deepEqual(errorOf(await poll(admin)), { status: 404, messages: ['resource not found'] });
  assert.deepEqual(errorOf(await t.request({ method: 'GET', url: '/api/v2/jobs/available' })), { status: 401, messages: ['authentication is invalid'] });
});

test('available: OUs and domains hydrated from the graph, or objectids', async () => {
  const c = await makeClient(t, admin, 'hydrate');
  await addNode(t, 'AB12CD34-0000-4000-8000-00000000000A', 'OU', 'SERVERS@CORP.LOCAL', { distinguishedname: 'OU=SERVERS,DC=CORP,DC=LOCAL' });
  await addNode(t, 'S-1-5-21-100', 'Domain', 'CORP.LOCAL');
  await makeJob(t, admin, c.id, { ous: ['ab12cd34-0000-4000-8000-00000000000a', 'UNKNOWN-OU'], domains: ['S-1-5-21-100', 'S-1-5-21-999'] });
  const [job] = (await poll(c.token)).json().data;
  assert.deepEqual(job.ous, [
    { objectid: 'ab12cd34-0000-4000-8000-00000000000a', name: 'SERVERS@CORP.LOCAL', exists: true, distinguishedname: 'OU=SERVERS,DC=CORP,DC=LOCAL', type: 'OU' },
    { objectid: 'UNKNOWN-OU', name: '', exists: false, distinguishedname: '', type: 'OU' },
  ]);
  assert.deepEqual(job.domains, [
    { objectid: 'S-1-5-21-100', name: 'CORP.LOCAL', exists: true, type: 'Domain' },
    { objectid: 'S-1-5-21-999', name: '', exists: false, type: 'Domain' },
  ]);
  const [plain] = (await poll(c.token, { hydrate_ous: 'false', hydrate_domains: 'f' })).json().data;
  assert.deepEqual(plain.ous, ['ab12cd34-0000-4000-8000-00000000000a', 'UNKNOWN-OU']);
  assert.deepEqual(plain.domains, ['S-1-5-21-100', 'S-1-5-21-999']);
  const [mixed] = (await poll(c.token, { hydrate_ous: 'false' })).json().data;
  assert.deepEqual(mixed.ous, ['ab12cd34-0000-4000-8000-00000000000a', 'UNKNOWN-OU']);
  assert.equal(mixed.domains[0].exists, true);
});

test('available: ETag and If-None-Match; every relevant write changes the ETag', async () => {
  const c = await makeClient(t, admin, 'etag');
  const first = await poll(c.token);
  const etag = first.headers.etag as string;
  assert.match(etag, /^"[A-Za-z0-9_-]+"$/);
  const again = await poll(c.token, {}, { 'if-none-match': etag });
  assert.equal(again.statusCode, 304);
  assert.equal(again.body, '');
  assert.equal(again.headers.etag, etag);
  assert.equal((await poll(c.token, {}, { 'if-none-match': `"other", W/${etag}` })).statusCode, 304);
  assert.equal((await poll(c.token, {}, { 'if-none-match': '"other"' })).statusCode, 200);
  // Another query string is another representation.
  assert.notEqual((await poll(c.token, { hydrate_ous: 'false' })).headers.etag, etag);

  const seen = new Set([etag]);
  const expectChanged = async (why: string) => {
    const res = await poll(c.token, {}, { 'if-none-match': [...seen].join(', ') });
    assert.equal(res.statusCode, 200, why);
    seen.add(res.headers.etag as string);
    return res.json().data;
  };
  const job = await makeJob(t, admin, c.id, { ous: ['OU-ETAG'] });
  assert.equal((await expectChanged('job created')).length, 1);
  // The first poll after a write and the next (graph stamp computed another way) agree.
  for (let i = 0; i < 2; i++) assert.equal((await poll(c.token, {}, { 'if-none-match': [...seen].join(', ') })).statusCode, 304);
  await t.request({ method: 'PUT', url: `/api/v2/clients/${c.id}`, token: admin, body: { name: 'etag-renamed' } });
  assert.equal((await expectChanged('client renamed'))[0].client_name, 'etag-renamed');
  await addNode(t, 'OU-ETAG', 'OU', 'NOW KNOWN');
  assert.equal((await expectChanged('graph node appeared'))[0].ous[0].name, 'NOW KNOWN');
  await t.db.kysely.updateTable('nodes').set({ name: 'RENAMED', last_seen: Date.now() * 1000 + 1 }).where('objectid', '=', 'OU-ETAG').execute();
  assert.equal((await expectChanged('graph node re-ingested'))[0].ous[0].name, 'RENAMED');
  await t.request({ method: 'PUT', url: `/api/v2/jobs/${job.id}/cancel`, token: admin });
  assert.deepEqual(await expectChanged('job canceled'), []);
  // A job becoming due with the passage of time (no write) changes the ETag too.
  await makeJob(t, admin, c.id, { execution_time: new Date(Date.now() + 300).toISOString() });
  await expectChanged('future job created');
  await new Promise((r) => setTimeout(r, 350));
  assert.equal((await expectChanged('job became due')).length, 1);
});

test('available: a kept answer is gzipped once for every poll that accepts gzip; its ETag turns weak and still revalidates', async () => {
  const c = await makeClient(t, admin, 'gzip-poller');
  for (let i = 0; i < 4; i++) await makeJob(t, admin, c.id, { execution_time: '2020-01-01T00:00:00Z', ad_structure_collection: true });
  const identity = await poll(c.token);
  assert.ok(identity.rawPayload.length >= 1024, `${identity.rawPayload.length} bytes: big enough to be compressed`);
  const GZIP = { 'accept-encoding': 'gzip' };
  const { result: first, calls: firstCalls } = await gzipCalls(() => poll(c.token, {}, GZIP));
  const { result: second, calls: secondCalls } = await gzipCalls(() => poll(c.token, {}, GZIP));
  const calls = firstCalls + secondCalls;
  assert.equal(calls, 1, 'compressed once, then served from the kept answer');
  for (const res of [first, second]) {
    assert.equal(res.headers['content-encoding'], 'gzip');
    assert.deepEqual(zlib.gunzipSync(res.rawPayload), identity.rawPayload);
    assert.equal(res.headers.etag, `W/${identity.headers.etag}`);
  }
  assert.deepEqual(second.rawPayload, first.rawPayload);
  const revalidated = await poll(c.token, {}, { ...GZIP, 'if-none-match': String(first.headers.etag) });
  assert.equal(revalidated.statusCode, 304);
});

test('available: once the kept answers fill their memory, an answer is kept from its second time on, and every answer is the same', async () => {
  // 1 MB of response cache: a quarter (256 kB) for kept jobs/available answers, each at most an eighth of that.
  const small = await createTestApp({ schedulerInterval: 0, responseCacheMb: 1 });
  try {
    const smallAdmin = (await small.login('Administrator')).token;
    const c = await makeClient(small, smallAdmin, 'full-cache-poller');
    for (let i = 0; i < 8; i++) await makeJob(small, smallAdmin, c.id, { execution_time: `2020-01-0${i + 1}T00:00:00Z`, ad_structure_collection: true });
    const get = (query: Record<string, string>, headers: Record<string, string> = {}) =>
      small.request({ method: 'GET', url: '/api/v2/jobs/available', token: c.token, query, headers });
    const identity = await get({});
    assert.ok(identity.rawPayload.length > 4096, `${identity.rawPayload.length} bytes`);
    // Distinct queries (each answer the same jobs) until the kept answers are full (256 kB), and more.
    const fill = Math.ceil((256 * 1024) / identity.rawPayload.length) + 10;
    for (let s = 0; s < fill; s++) {
      const res = await get({ execution_time: `lt:2030-01-01T00:${String(Math.floor(s / 60)).padStart(2, '0')}:${String(s % 60).padStart(2, '0')}Z` });
      assert.deepEqual(res.rawPayload, identity.rawPayload);
    }
    const GZIP = { 'accept-encoding': 'gzip' };
    const query = { execution_time: 'lt:2031-01-01T00:00:00Z' };
    const calls: number[] = [];
    const etags = new Set<string>();
    for (let i = 0; i < 3; i++) {
      const { result, calls: n } = await gzipCalls(() => get(query, GZIP));
      calls.push(n);
      etags.add(String(result.headers.etag).replace(/^W\//, ''));
      assert.equal(result.statusCode, 200);
      assert.deepEqual(zlib.gunzipSync(result.rawPayload), identity.rawPayload);
    }
    // Made and compressed for itself the first time; kept (compressed once more, to be reused) the second; then reused.
    assert.deepEqual(calls, [1, 1, 0]);
    assert.equal(etags.size, 1);
    const revalidated = await get(query, { 'if-none-match': [...etags][0] });
    assert.equal(revalidated.statusCode, 304);
  } finally {
    await small.close();
  }
});
