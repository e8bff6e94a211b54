/**
 * The platform data-quality pages served from the in-memory records (records.index.ts) equal the database's
 * statement (data-quality.repository.ts listRecords): ranges, ties on created_at, both directions, paging, and a
 * record written between two requests.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { gunzipSync } from 'node:zlib';
import { createTestApp, type TestApp } from '../../test/harness.ts';
import { parseQuery } from '../../http/query/index.ts';
import { toRfc3339 } from '../../db/time.ts';
import { listRecords } from './data-quality.repository.ts';
import { statsQuery, timeRange } from './data-quality.routes.ts';
import { toWireRecord } from './data-quality.schema.ts';
import { recordsPage } from './records.index.ts';

let t: TestApp;
let token: string;
const HOUR = 3_600_000_000;
const base = Date.now() * 1000 - 48 * HOUR;

const record = (i: number, at: number) => ({
  run_id: randomUUID(), users: i, groups: 2 * i, computers: 3, ous: 4, containers: 5, gpos: 6, aiacas: 0, rootcas: 0, enterprisecas: 0,
  ntauthstores: 0, certtemplates: 0, acls: i % 7, sessions: 1, relationships: 10 * i, domains: 1, session_completeness: i % 101,
  local_group_completeness: 50, created_at: at, updated_at: at + (i % 3) * 1000, deleted_at: null,
});

before(async () => {
  t = await createTestApp();
  token = (await t.login('Read-Only')).token;
  // 240 records 12 minutes apart (a full page is over 64 kB: sent as parts), every third one sharing its created_at
  // with the one before (ties).
  const rows = Array.from({ length: 240 }, (_, i) => record(i, base + (i - (i % 3 === 2 ? 1 : 0)) * HOUR / 5));
  await t.db.kysely.insertInto('ad_data_quality_aggregations').values(rows as never).execute();
});
after(() => t.close());

async function expected(query: Record<string, string>): Promise<Record<string, unknown>> {
  const parsed = parseQuery(statsQuery, query);
  const range = timeRange(parsed);
  const { rows, count } = await listRecords(t.db.kysely, 'ad_data_quality_aggregations', statsQuery, parsed, range);
  return { count, skip: parsed.skip, limit: parsed.limit, data: rows.map(toWireRecord) };
}

async function answer(query: Record<string, string>): Promise<Record<string, unknown>> {
  const res = await t.request({ method: 'GET', url: '/api/v2/platform/ad/data-quality-stats', token, query });
  assert.equal(res.statusCode, 200, res.body);
  const { start: _s, end: _e, ...rest } = res.json() as Record<string, unknown>;
  return rest;
}

const at = (hours: number) => toRfc3339(base + hours * HOUR);
const RANGES: Array<Record<string, string>> = [
  {}, { start: at(10), end: at(20) }, { start: at(10.5), end: at(11) }, { start: at(-5), end: at(100) }, { start: at(200), end: at(300) },
  { start: at(2) }, { end: at(30) }, { start: at(8), end: at(8) },
];
const SHAPES: Array<Record<string, string>> = [
  {}, { limit: '1' }, { limit: '5', skip: '3' }, { limit: '0', skip: '2' }, { skip: '100' }, { sort_by: 'created_at' }, { sort_by: 'created_at', limit: '4', skip: '1' },
  { sort_by: '-created_at', limit: '7' }, { sort_by: 'updated_at' }, { sort_by: '-updated_at', limit: '3' }, { sort_by: ['-created_at', 'updated_at'] as unknown as string },
];

test('platform pages from memory equal the database statement (ranges, ties, both directions, paging)', async () => {
  for (const range of RANGES) {
    for (const shape of SHAPES) {
      const query = { ...range, ...shape };
      assert.deepEqual(await answer(query), await expected(query), JSON.stringify(query));
    }
  }
});

test('a large page sent as parts: the same bytes, content-length, no chunking, gzip for clients that take it, HEAD', async () => {
  const url = '/api/v2/platform/ad/data-quality-stats';
  const res = await t.request({ method: 'GET', url, token, query: { start: at(-1), end: at(100) } });
  assert.equal(res.statusCode, 200);
  assert.ok(res.rawPayload.length > 64 * 1024, `${res.rawPayload.length} bytes`);
  assert.equal(res.headers['content-length'], String(res.rawPayload.length));
  assert.equal(res.headers['transfer-encoding'], undefined);
  const small = await t.request({ method: 'GET', url, token, query: { start: at(-1), end: at(100), limit: '1' } });
  assert.equal(res.headers['content-type'], small.headers['content-type'], 'as a page sent in one buffer');
  assert.equal(res.headers.vary, 'Accept-Encoding');
  assert.equal((res.json() as { count: number }).count, 240);
  const gz = await t.request({ method: 'GET', url, token, query: { start: at(-1), end: at(100) }, headers: { 'accept-encoding': 'gzip' } });
  assert.equal(gz.headers['content-encoding'], 'gzip');
  assert.deepEqual(JSON.parse(gunzipSync(gz.rawPayload).toString()), res.json());
  const head = await t.request({ method: 'HEAD', url, token, query: { start: at(-1), end: at(100) } });
  assert.equal(head.statusCode, 200);
  assert.equal(head.headers['content-length'], String(res.rawPayload.length));
});

test('a record written between two requests is in the next page', async () => {
  const query = { start: at(-1), end: at(500), limit: '2' };
  assert.deepEqual(await answer(query), await expected(query));
  await t.db.kysely.insertInto('ad_data_quality_aggregations').values(record(99, base + 400 * HOUR) as never).execute();
  const now = await answer(query);
  assert.deepEqual(now, await expected(query));
  assert.equal((now.data as Array<{ users: number }>)[0].users, 99);
});

test('the records are kept only within the memory share of kept answers (--response-cache-mb): else the database answers', async () => {
  const parsed = parseQuery(statsQuery, { start: at(-5), end: at(100) });
  const range = timeRange(parsed);
  // 60 rendered records are several kilobytes: over a 1 kB share they are not kept; 0 keeps nothing.
  assert.equal(await recordsPage(t.db, 'ad_data_quality_aggregations', parsed, range, null, false, 1024), null);
  assert.equal(await recordsPage(t.db, 'ad_data_quality_aggregations', parsed, range, null, false, 0), null);
  const kept = await recordsPage(t.db, 'ad_data_quality_aggregations', parsed, range, null, false, 16 * 1024 * 1024);
  assert.ok(kept);
  const { data } = await expected({ start: at(-5), end: at(100) }) as { data: unknown[] };
  assert.equal(JSON.parse(`{${Buffer.concat(kept.parts).toString()}`).data.length, data.length);
});
