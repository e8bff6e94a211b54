import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import Ajv from 'ajv';
import { Messages } from '../../http/errors.ts';
import { EXAMPLES } from './examples.ts';
import { finishOpenApi } from './openapi.ts';
import { createTestApp, type TestApp } from '../../test/harness.ts';

let t: TestApp;
before(async () => {
  t = await createTestApp();
});
after(() => t.close());

test('/favicon.ico: a 32×32 icon, public, cacheable (it was a 404 in every browser tab)', async () => {
  const res = await t.app.inject({ method: 'GET', url: '/favicon.ico' });
  assert.equal(res.statusCode, 200);
  assert.equal(res.headers['content-type'], 'image/x-icon');
  assert.equal(res.headers['cache-control'], 'public, max-age=86400');
  const ico = res.rawPayload;
  // ICONDIR: reserved 0, type 1 (icon), one image; its entry: 32×32, 32 bits, data right after the directory
  assert.deepEqual([ico.readUInt16LE(0), ico.readUInt16LE(2), ico.readUInt16LE(4)], [0, 1, 1]);
  assert.deepEqual([ico[6], ico[7], ico.readUInt16LE(12)], [32, 32, 32]);
  const size = ico.readUInt32LE(14);
  const offset = ico.readUInt32LE(18);
  assert.equal(offset + size, ico.length);
  // the bitmap: 40-byte header, then BGRA rows bottom-up; the centre is the red disc, a corner transparent
  assert.equal(ico.readUInt32LE(offset), 40);
  const pixel = (x: number, y: number) => [...ico.subarray(offset + 40 + ((31 - y) * 32 + x) * 4, offset + 40 + ((31 - y) * 32 + x) * 4 + 4)];
  assert.deepEqual(pixel(16, 16), [46, 45, 179, 255]);
  assert.equal(pixel(0, 0)[3], 0);
  const head = await t.app.inject({ method: 'HEAD', url: '/favicon.ico' });
  assert.equal(head.statusCode, 200);
});

test('the API docs page links the icon', async () => {
  const res = await t.app.inject({ method: 'GET', url: '/api/v2/docs' });
  assert.match(res.body, /<link rel="icon" href="\/favicon.ico">/);
});

/* ---- The OpenAPI document ---- */

type Doc = {
  paths: Record<string, Record<string, { parameters?: Array<Record<string, unknown>>; responses: Record<string, Record<string, unknown>>; requestBody?: Record<string, unknown>; security?: unknown[] }>>;
  components: { responses: Record<string, { description: string; content: { 'application/json': { example: { http_status: number; errors: unknown[] } } } }> };
};
const spec = async (): Promise<Doc> => (await t.app.inject({ method: 'GET', url: '/api/v2/spec' })).json();
const operations = (doc: Doc) =>
  Object.entries(doc.paths).flatMap(([path, item]) => Object.entries(item).map(([method, op]) => ({ name: `${method.toUpperCase()} ${path}`, op })));

test('the OpenAPI document is valid OpenAPI 3.0, checked by an independent validator (@apidevtools/swagger-parser)', async () => {
  const doc = await spec();
  // Imported by a computed name: a worktree whose node_modules predates this dev dependency still type-checks.
  const validator = '@apidevtools/swagger-parser';
  const { default: SwaggerParser } = (await import(validator)) as { default: { validate(doc: unknown): Promise<unknown> } };
  const api = await SwaggerParser.validate(structuredClone(doc));
  assert.equal((api as { openapi: string }).openapi, '3.0.3');
  assert.ok(operations(doc).length >= 150, `${operations(doc).length} operations`);
});

test('OpenAPI responses: none is "Default Response"; every error status is a named response; every route lists 400, 500, 503, 504 (and 401 when it needs credentials)', async () => {
  const doc = await spec();
  for (const { name, op } of operations(doc)) {
    for (const [status, response] of Object.entries(op.responses)) {
      assert.notEqual(response.description, 'Default Response', `${name} ${status}`);
      if (Number(status) >= 400 && !(name === 'GET /health' && status === '503')) {
        assert.match(String(response.$ref), /^#\/components\/responses\/[A-Za-z]+$/, `${name} ${status}`);
      }
    }
    const needed = ['400', '500', '503', '504', ...(Array.isArray(op.security) && op.security.length === 0 ? [] : ['401'])];
    for (const status of needed) assert.ok(status in op.responses, `${name} lacks ${status}`);
  }
  const members = doc.paths['/api/v2/asset-group-tags/{asset_group_tag_id}/members'].get.responses;
  assert.deepEqual(members['200'].description, 'OK');
  assert.deepEqual(members['404'], { $ref: '#/components/responses/NotFound' });
});

test('OpenAPI named error responses: each example is the answer the server really gives', async () => {
  const doc = await spec();
  const admin = (await t.login('Administrator')).token;
  const uploader = (await t.login('Upload-Only')).token;
  const provider = { name: 'docs-dup', issuer: 'https://idp.example.com', client_id: 'scent', config: { auto_provision: { enabled: false } } };
  const created = await t.request({ method: 'POST', url: '/api/v2/sso-providers/oidc', token: admin, body: provider });
  assert.equal(created.statusCode, 200, created.body);
  const real: Record<string, () => Promise<{ statusCode: number; json(): { errors: unknown[] } }>> = {
    BadRequest: () => t.request({ method: 'GET', url: '/api/v2/asset-group-tags/1/members?nmae=admin', token: admin }),
    Unauthorized: () => t.request({ method: 'GET', url: '/api/v2/self' }),
    Forbidden: () => t.request({ method: 'GET', url: '/api/v2/platform/ad/data-quality-stats', token: uploader }),
    NotFound: () => t.request({ method: 'GET', url: '/api/v2/asset-group-tags/999', token: admin }),
    Conflict: () => t.request({ method: 'POST', url: '/api/v2/sso-providers/oidc', token: admin, body: provider }),
    UnsupportedMediaType: () => t.request({ method: 'POST', url: '/api/v2/saved-queries/import', token: admin, body: 'x', headers: { 'content-type': 'text/plain' } }),
  };
  for (const [name, ask] of Object.entries(real)) {
    const example = doc.components.responses[name].content['application/json'].example;
    const res = await ask();
    assert.equal(res.statusCode, example.http_status, name);
    assert.deepEqual(res.json().errors, example.errors, name);
  }
  // the others cannot be provoked cheaply here; their texts are the error handler's own (http.test.ts answers each)
  const messages = (name: string) => doc.components.responses[name].content['application/json'].example.errors;
  assert.deepEqual(messages('PayloadTooLarge'), [{ context: '', message: Messages.tooLarge }]);
  assert.deepEqual(messages('InternalError'), [{ context: '', message: Messages.internal }]);
  assert.deepEqual(messages('Unavailable'), [{ context: '', message: Messages.dbUnavailable }]);
  assert.deepEqual(messages('TimedOut'), [{ context: '', message: Messages.timedOut }]);
});

test('OpenAPI parameters: Prefer on every operation, If-None-Match where a 304 is possible, sort_by a repeatable enum', async () => {
  const doc = await spec();
  for (const { name, op } of operations(doc)) {
    assert.ok(op.parameters?.some((p) => p.$ref === '#/components/parameters/Prefer'), `${name} lacks Prefer`);
    const conditional = op.parameters?.some((p) => p.$ref === '#/components/parameters/IfNoneMatch') ?? false;
    assert.equal(conditional, '304' in op.responses, name);
  }
  assert.ok(doc.paths['/api/v2/jobs/available'].get.parameters!.some((p) => p.$ref === '#/components/parameters/IfNoneMatch'));
  const sortBy = doc.paths['/api/v2/asset-group-tags/{asset_group_tag_id}/members'].get.parameters!.find((p) => p.name === 'sort_by')!;
  assert.deepEqual((sortBy.schema as { type: string }).type, 'array');
  assert.deepEqual(((sortBy.schema as { items: { enum: string[] } }).items.enum).slice(0, 2), ['id', '-id']);
  for (const { name, op } of operations(doc)) {
    for (const p of op.parameters ?? []) assert.equal(JSON.stringify(p).includes('anyOf'), false, `${name} ${String(p.name)}: ${JSON.stringify(p)}`);
  }
});

test('OpenAPI upload body: the docs page can send a file (JSON, or a zip as binary); a request built from it is accepted', async () => {
  const doc = await spec();
  const body = doc.paths['/api/v2/file-upload/{file_upload_job_id}'].post.requestBody as { content: Record<string, { schema: { type: string; format?: string } }> };
  assert.deepEqual(Object.keys(body.content), ['application/json', 'application/zip', 'application/x-zip-compressed', 'application/zip-compressed']);
  assert.deepEqual(body.content['application/zip'].schema.type, 'string');
  assert.deepEqual(body.content['application/zip'].schema.format, 'binary');
  const parameters = doc.paths['/api/v2/file-upload/{file_upload_job_id}'].post.parameters!;
  const named = parameters.find((p) => p.name === 'X-File-Upload-Name');
  assert.deepEqual([named?.in, named?.required], ['header', false]);
  const admin = (await t.login('Administrator')).token;
  const job = (await t.request({ method: 'POST', url: '/api/v2/file-upload/start', token: admin })).json().data.id;
  const res = await t.request({
    method: 'POST', url: `/api/v2/file-upload/${job}`, token: admin,
    headers: { 'content-type': Object.keys(body.content)[0], 'x-file-upload-name': 'esc1-domains.json' },
    body: readFileSync(new URL('../../../samples/esc1/domains.json', import.meta.url), 'utf8'),
  });
  assert.equal(res.statusCode, 202, res.body);
});

test('OpenAPI success examples: real answers on the sample data (scripts/openapi-examples.ts), each one shown valid against its route\'s response schema', async () => {
  const doc = (await spec()) as unknown as { paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, { schema: unknown; example?: unknown }> }> }>>; components: Record<string, unknown> };
  const ajv = new Ajv.default({ strict: false, validateFormats: false, allErrors: true });
  ajv.addSchema({ $id: 'scent-openapi', components: doc.components });
  const keys = Object.keys(EXAMPLES);
  const shown: string[] = [];
  for (const key of keys) {
    const [method, path, status] = key.split(' ');
    const json = doc.paths[path]?.[method]?.responses[status]?.content?.['application/json'];
    if (json?.example === undefined) continue; // an answer that changed shape drops its stale example
    assert.deepEqual(json.example, EXAMPLES[key], key);
    const validate = ajv.compile(rebase(json.schema));
    assert.ok(validate(json.example), `${key}: ${JSON.stringify(validate.errors?.slice(0, 3))}`);
    shown.push(key);
  }
  // Most examples are shown; when answers change shape, rerun: node --import tsx scripts/openapi-examples.ts
  assert.ok(shown.length >= 20, `only ${shown.length} of ${keys.length} examples still match their schemas: rerun node --import tsx scripts/openapi-examples.ts`);
  // an example that does not match its schema is not shown
  const members = doc.paths['/api/v2/asset-group-tags/{asset_group_tag_id}/members'].get.responses['200'].content!['application/json'];
  assert.notEqual(members.example, undefined);
  const broken = finishOpenApi({
    openapi: '3.0.3', info: { title: 't', version: '1' }, components: {},
    paths: { '/api/version': { get: { responses: { 200: { description: 'OK', content: { 'application/json': { schema: { type: 'object', required: ['nope'] } } } } } } } },
  }) as { paths: Record<string, Record<string, { responses: Record<string, { content: Record<string, { example?: unknown }> }> }>> };
  assert.equal(broken.paths['/api/version'].get.responses['200'].content['application/json'].example, undefined);
});

/** A response schema whose `#/components/...` references point into the document registered above. */
function rebase(schema: unknown): Record<string, unknown> {
  return JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"scent-openapi#/components/')) as Record<string, unknown>;
}
