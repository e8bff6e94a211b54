/**
 * HTTP compression (src/http/compression.ts): gzip answers for clients that accept it, kept answers
 * compressed once, the data-quality page as a segmented gzip member, decoded request bodies.
 */
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import zlib from 'node:zlib';
import type { LightMyRequestResponse } from 'fastify';
import { signedHeaders } from '../client/signature.ts';
import { upsertEdges, upsertNodes } from '../graph/store.repository.ts';
import { analyzeGraph } from '../modules/data-quality/analysis.service.ts';
import { listFiles, readChunks } from '../modules/file-upload/file-upload.repository.ts';
import { createTestApp, DIALECT, errorOf, type TestApp } from '../test/harness.ts';
import { gzipCalls } from '../test/zlib-spy.ts';
import { route } from './route.ts';

let t: TestApp;
let admin: string;
let tagId: number;
const MEMBERS = 2_050; // more than one stream batch: limit=0 is streamed

before(async () => {
  t = await createTestApp();
  admin = (await t.login('Administrator')).token;
  for (let i = 0; i < 6; i++) await analyzeGraph(t.db); // one data-quality record per run and platform
  const users = Array.from({ length: MEMBERS }, (_, i) => ({ objectid: `Z-${i}`, kinds: ['User', 'Base'], name: `ZIP${i}@CORP.LOCAL`, environmentId: 'S-1-5-21-1' }));
  await upsertNodes(t.db.kysely, [{ objectid: 'Z-GROUP', kinds: ['Group', 'Base'], name: 'ZIP@CORP.LOCAL', environmentId: 'S-1-5-21-1' }, ...users]);
  await upsertEdges(t.db.kysely, users.map((u) => ({ start: { objectid: u.objectid }, end: { objectid: 'Z-GROUP' }, kind: 'MemberOf' })));
  tagId = (await t.request({ method: 'POST', url: '/api/v2/asset-group-tags', token: admin, body: { name: 'Zipped', type: 2 } })).json().data.id;
  const seed = await t.request({ method: 'POST', url: `/api/v2/asset-group-tags/${tagId}/selectors`, token: admin, body: { name: 'zip', seeds: [{ type: 1, value: 'Z-GROUP' }] } });
  assert.equal(seed.statusCode, 201, seed.body);
});
after(() => t.close());

const GZIP = { 'accept-encoding': 'gzip, deflate, br' };
const get = (url: string, headers: Record<string, string> = {}, query?: Record<string, string>) =>
  t.request({ method: 'GET', url, token: admin, headers, query });
const gunzip = (res: LightMyRequestResponse) => zlib.gunzipSync(res.rawPayload);
const varies = (res: LightMyRequestResponse) => /(^|,)\s*accept-encoding\s*(,|$)/i.test(String(res.headers.vary ?? ''));

const DQ = '/api/v2/platform/ad/data-quality-stats';
const RANGE = { start: '2000-01-01T00:00:00Z', end: '2100-01-01T00:00:00Z' };

test(`compression on ${DIALECT}: a large answer is gzipped for a client that accepts it, identity otherwise`, async () => {
  const plain = await get(DQ, {}, RANGE);
  assert.equal(plain.statusCode, 200);
  assert.equal(plain.headers['content-encoding'], undefined);
  assert.ok(varies(plain), 'Vary: Accept-Encoding on an eligible identity answer');
  assert.equal(plain.json().count, 6);
  assert.ok(plain.rawPayload.length >= 1024, `${plain.rawPayload.length} bytes`);
  const zipped = await get(DQ, GZIP, RANGE);
  assert.equal(zipped.statusCode, 200);
  assert.equal(zipped.headers['content-encoding'], 'gzip');
  assert.ok(varies(zipped));
  assert.equal(zipped.headers['content-length'], String(zipped.rawPayload.length));
  assert.ok(zipped.rawPayload.length < plain.rawPayload.length);
  assert.deepEqual(gunzip(zipped), plain.rawPayload);
  // An answer that is not kept (a members page of another size each time would be; this is a list).
  const tags = await get('/api/v2/asset-group-tags/' + tagId + '/members', GZIP, { limit: '40' });
  assert.equal(tags.headers['content-encoding'], 'gzip');
  assert.equal(gunzip(tags).toString(), (await get('/api/v2/asset-group-tags/' + tagId + '/members', {}, { limit: '40' })).body);
});

test(`compression on ${DIALECT}: the data-quality page is one segmented gzip member, valid for other decoders`, async () => {
  const plain = (await get(DQ, {}, RANGE)).rawPayload;
  for (let i = 0; i < 2; i++) { // the first builds the kept part, the second reuses it
    const zipped = (await get(DQ, GZIP, RANGE)).rawPayload;
    assert.deepEqual(zlib.gunzipSync(zipped), plain);
    const python = spawnSync('python3', ['-c', 'import gzip,sys; sys.stdout.buffer.write(gzip.decompress(sys.stdin.buffer.read()))'], { input: zipped });
    assert.equal(python.status, 0, String(python.stderr));
    assert.deepEqual(python.stdout, plain);
    const gz = spawnSync('gzip', ['-dc'], { input: zipped });
    assert.equal(gz.status, 0, String(gz.stderr));
    assert.deepEqual(gz.stdout, plain);
  }
  // The kept part is deflated and checksummed once: a request compresses nothing and checksums only the head.
  const { deflateRawSync, gzipSync, crc32 } = zlib;
  const deflated: number[] = [];
  const summed: number[] = [];
  zlib.deflateRawSync = ((buf: Buffer, options?: zlib.ZlibOptions) => (deflated.push(buf.length), deflateRawSync(buf, options))) as typeof deflateRawSync;
  zlib.gzipSync = ((buf: Buffer, options?: zlib.ZlibOptions) => (deflated.push(buf.length), gzipSync(buf, options))) as typeof gzipSync;
  zlib.crc32 = ((data: Buffer, value?: number) => (summed.push(data.length), crc32(data, value))) as typeof crc32;
  let again: Buffer;
  try {
    again = (await get(DQ, GZIP, RANGE)).rawPayload;
  } finally {
    Object.assign(zlib, { deflateRawSync, gzipSync, crc32 });
  }
  assert.deepEqual(zlib.gunzipSync(again), plain);
  assert.deepEqual(deflated, []);
  assert.equal(summed.length, 1);
  assert.ok(summed[0] < 100, `only the head (${summed[0]} bytes)`);
});

test(`compression on ${DIALECT}: a cached answer is compressed once, at level 6, and served compressed again`, async () => {
  const url = `/api/v2/asset-group-tags/${tagId}/members`;
  const query = { limit: '30', sort_by: 'name' };
  const first = await gzipCalls(() => get(url, GZIP, query));
  const second = await gzipCalls(() => get(url, GZIP, query));
  const plain = await get(url, {}, query);
  assert.equal(first.result.headers['content-encoding'], 'gzip');
  assert.equal(second.result.headers['content-encoding'], 'gzip');
  assert.equal(first.calls, 1);
  assert.equal(second.calls, 0, 'the cached answer was not compressed again');
  assert.deepEqual(second.result.rawPayload, first.result.rawPayload);
  assert.deepEqual(gunzip(second.result), plain.rawPayload);
  assert.deepEqual(first.result.rawPayload, zlib.gzipSync(plain.rawPayload, { level: 6 }), 'kept answers use the default level');
});

test(`compression on ${DIALECT}: a gzipped answer's strong ETag turns weak, and still revalidates`, async () => {
  const body = JSON.stringify({ data: 'e'.repeat(2000) });
  const tagged = route({
    method: 'GET', url: '/test/tagged', config: { access: { public: true } },
    handler: (request, reply) => {
      reply.header('etag', '"v1"');
      if (request.headers['if-none-match']?.includes('"v1"')) return reply.code(304).send();
      return reply.type('application/json').send(body);
    },
  });
  const own = await createTestApp({}, [tagged]);
  try {
    const plain = await own.app.inject({ method: 'GET', url: '/test/tagged' });
    assert.equal(plain.headers.etag, '"v1"');
    const zipped = await own.app.inject({ method: 'GET', url: '/test/tagged', headers: GZIP });
    assert.equal(zipped.headers['content-encoding'], 'gzip');
    assert.equal(zipped.headers.etag, 'W/"v1"');
    assert.equal(gunzip(zipped).toString(), body);
    const again = await own.app.inject({ method: 'GET', url: '/test/tagged', headers: { ...GZIP, 'if-none-match': 'W/"v1"' } });
    assert.equal(again.statusCode, 304);
    assert.equal(again.rawPayload.length, 0);
  } finally {
    await own.close();
  }
});

test(`compression on ${DIALECT}: small answers stay identity; a large error envelope is gzipped like anything else`, async () => {
  const reader = (await t.login('Read-Only')).token;
  for (const url of ['/api/version', '/health', '/api/v2/file-upload/accepted-types', '/api/v2/nope']) {
    const res = await t.request({ method: 'GET', url, token: reader, headers: GZIP });
    assert.equal(res.statusCode, url === '/api/v2/nope' ? 404 : 200, url);
    assert.equal(res.headers['content-encoding'], undefined, url);
    assert.ok(res.rawPayload.length < 1024);
    assert.ok(!varies(res), url);
  }
  const platform = 'p'.repeat(1000);
  const res = await get(`/api/v2/platform/${platform}/data-quality-stats`, GZIP);
  assert.equal(res.headers['content-encoding'], 'gzip');
  const body = JSON.parse(gunzip(res).toString());
  assert.equal(body.http_status, 400);
  assert.deepEqual(body.errors, [{ context: '', message: `invalid platform id specified in url: ${platform}` }]);
});

test(`compression on ${DIALECT}: a streamed limit=0 answer is gzipped as it streams`, async () => {
  const url = `/api/v2/asset-group-tags/${tagId}/members`;
  const plain = await get(url, {}, { limit: '0' });
  assert.equal(plain.statusCode, 200);
  assert.equal(plain.headers['content-length'], undefined, 'streamed');
  assert.equal(plain.json().data.members.length, MEMBERS + 1);
  const zipped = await get(url, GZIP, { limit: '0' });
  assert.equal(zipped.statusCode, 200);
  assert.equal(zipped.headers['content-encoding'], 'gzip');
  assert.ok(varies(zipped));
  assert.deepEqual(gunzip(zipped), plain.rawPayload);
});

/* ---- request bodies ---- */

const OIDC = (name: string) => JSON.stringify({ name, issuer: 'https://idp.example.test/realms/z', client_id: 'scent', config: { auto_provision: { enabled: false } } });
const post = (body: Buffer | string, encoding?: string, url = '/api/v2/sso-providers/oidc') =>
  t.app.inject({
    method: 'POST', url, payload: body,
    headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json', ...(encoding ? { 'content-encoding': encoding } : {}) },
  });
const shape = (res: LightMyRequestResponse) => {
  const { data } = res.json();
  return { ...data, id: 0, sso_provider_id: 0, created_at: '', updated_at: '' };
};

test(`compression on ${DIALECT}: gzip and deflate request bodies are decoded`, async () => {
  const identity = await post(OIDC('zip-identity'));
  assert.equal(identity.statusCode, 200, identity.body);
  const gzipped = await post(zlib.gzipSync(OIDC('zip-gzip')), 'gzip');
  assert.equal(gzipped.statusCode, 200, gzipped.body);
  const xgzip = await post(zlib.gzipSync(OIDC('zip-x-gzip')), 'x-gzip');
  assert.equal(xgzip.statusCode, 200, xgzip.body);
  const deflated = await post(zlib.deflateSync(OIDC('zip-deflate')), 'deflate');
  assert.equal(deflated.statusCode, 200, deflated.body);
  for (const res of [gzipped, xgzip, deflated]) assert.deepEqual(shape(res), shape(identity));
  const names = (await get('/api/v2/sso-providers')).json().data.map((p: { name: string }) => p.name);
  for (const name of ['zip-gzip', 'zip-x-gzip', 'zip-deflate']) assert.ok(names.includes(name), name);
  // Codings are undone last-applied first: "deflate, gzip" = deflated, then gzipped.
  const twice = await post(zlib.gzipSync(zlib.deflateSync(OIDC('zip-twice'))), 'deflate, gzip');
  assert.equal(twice.statusCode, 200, twice.body);
  // A body-less request labelled gzip is still body-less.
  assert.equal((await t.app.inject({ method: 'GET', url: '/api/v2/self', headers: { authorization: `Bearer ${admin}`, 'content-encoding': 'gzip' } })).statusCode, 200);
});

test(`compression on ${DIALECT}: unsupported codings, bad headers, corrupt bodies and bombs`, async () => {
  const read = 'Error trying to read request: failed to create reader for';
  assert.deepEqual(errorOf(await post(OIDC('x'), 'br')), { status: 415, messages: [`${read} br encoding: content encoding is not supported`] });
  assert.deepEqual(errorOf(await post(zlib.gzipSync(OIDC('x')), 'gzip, compress')), { status: 415, messages: [`${read} compress encoding: content encoding is not supported`] });
  assert.deepEqual(errorOf(await post(OIDC('not gzip at all'), 'gzip')), { status: 400, messages: [`${read} gzip encoding: gzip: invalid header`] });
  assert.deepEqual(errorOf(await post(OIDC('not zlib at all'), 'deflate')), { status: 400, messages: [`${read} deflate encoding: zlib: invalid header`] });
  const corrupt = zlib.gzipSync(OIDC('corrupt after the header'));
  corrupt.fill(0xff, 12, 30);
  assert.deepEqual(errorOf(await post(corrupt, 'gzip')), { status: 400, messages: ['could not decode payload'] });
  const truncated = zlib.gzipSync(OIDC('truncated'));
  assert.deepEqual(errorOf(await post(truncated.subarray(0, truncated.length - 9), 'gzip')), { status: 400, messages: ['could not decode payload'] });
  // 50 MB of zeros in ~50 kB: the decoded size is what the body limit counts.
  const bomb = zlib.gzipSync(Buffer.alloc(50 * 1024 * 1024));
  assert.ok(bomb.length < t.config.bodyLimit);
  assert.deepEqual(errorOf(await post(bomb, 'gzip')), { status: 413, messages: ['request body is too large'] });
});

test(`compression on ${DIALECT}: a signed request with a gzip body is signed over the bytes as sent`, async () => {
  const { id, key } = (await t.request({ method: 'POST', url: '/api/v2/tokens', token: admin, body: { token_name: 'zipper' } })).json().data;
  const url = '/api/v2/sso-providers/oidc';
  const send = (body: Buffer, signBody: Buffer | string) =>
    t.app.inject({
      method: 'POST', url, payload: body,
      headers: { ...signedHeaders(id, { key, method: 'POST', target: url, body: signBody }), 'content-type': 'application/json', 'content-encoding': 'gzip' },
    });
  const body = zlib.gzipSync(OIDC('zip-signed'));
  const good = await send(body, body);
  assert.equal(good.statusCode, 200, good.body);
  assert.equal(good.json().data.client_id, 'scent');
  assert.deepEqual(errorOf(await send(zlib.gzipSync(OIDC('zip-signed-2')), OIDC('zip-signed-2'))), { status: 401, messages: ['authentication is invalid'] });
});

test(`compression on ${DIALECT}: a gzip upload is stored decoded`, async () => {
  const job = (await t.request({ method: 'POST', url: '/api/v2/file-upload/start', token: admin })).json().data.id;
  const file = JSON.stringify({ meta: { type: 'users', version: 6, count: 0 }, data: [] }) + ' '.repeat(2 * 1024 * 1024);
  const res = await post(zlib.gzipSync(file), 'gzip', `/api/v2/file-upload/${job}`);
  assert.equal(res.statusCode, 202, res.body);
  const [stored] = await listFiles(t.db.kysely, job);
  const chunks: Buffer[] = [];
  for await (const chunk of readChunks(t.db, stored.id)) chunks.push(chunk);
  assert.equal(Buffer.concat(chunks).toString(), file);
  const bad = await post(Buffer.from(file), 'gzip', `/api/v2/file-upload/${job}`);
  assert.deepEqual(errorOf(bad), { status: 400, messages: ['Error trying to read request: failed to create reader for gzip encoding: gzip: invalid header'] });
});
