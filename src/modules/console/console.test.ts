import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createTestApp, errorOf, type TestApp } from '../../test/harness.ts';
import { CONSOLE_DIR, CONTENT_SECURITY_POLICY } from './console.routes.ts';

// ui/dist is built by `npm install` (prepare) and `npm run build:ui`; these tests serve that build.
const build = JSON.parse(readFileSync(`${CONSOLE_DIR}build.json`, 'utf8')) as { entry: { js: string; css: string }; assets: string[]; gzipped_bytes: number; budget_kb: number };

let t: TestApp;
before(async () => {
  t = await createTestApp();
});
after(() => t.close());

test('/ redirects to the console; /ui and any /ui/ path are the page, with a CSP that allows no inline script', async () => {
  const root = await t.request({ method: 'GET', url: '/' });
  assert.equal(root.statusCode, 302);
  assert.equal(root.headers.location, '/ui/');
  for (const url of ['/ui', '/ui/', '/ui/home', '/ui/zones?tag=1', '/ui/login?error=invalid_state']) {
    const res = await t.request({ method: 'GET', url });
    assert.equal(res.statusCode, 200, url);
    assert.equal(res.headers['content-type'], 'text/html; charset=utf-8');
    assert.equal(res.headers['content-security-policy'], CONTENT_SECURITY_POLICY);
    assert.equal(res.headers['x-frame-options'], 'DENY');
    assert.equal(res.headers['cache-control'], 'no-cache');
    assert.ok(res.body.includes(`<script type="module" src="/ui/assets/${build.entry.js}"></script>`), url);
    assert.ok(!/<script(?![^>]*\ssrc=)[^>]*>/.test(res.body), 'no inline script element');
  }
  const csp = CONTENT_SECURITY_POLICY.split('; ');
  assert.ok(csp.includes("script-src 'self'") && !CONTENT_SECURITY_POLICY.includes('unsafe-inline'));
});

test('hashed assets are served for a year; an unknown asset is the JSON 404; no credentials needed', async () => {
  const js = await t.request({ method: 'GET', url: `/ui/assets/${build.entry.js}` });
  assert.equal(js.statusCode, 200);
  assert.equal(js.headers['content-type'], 'text/javascript; charset=utf-8');
  assert.equal(js.headers['cache-control'], 'public, max-age=31536000, immutable');
  assert.equal(js.body, readFileSync(`${CONSOLE_DIR}assets/${build.entry.js}`, 'utf8'));
  const css = await t.request({ method: 'GET', url: `/ui/assets/${build.entry.css}`, headers: { 'accept-encoding': 'gzip' } });
  assert.equal(css.headers['content-type'], 'text/css; charset=utf-8');
  assert.equal(css.headers['content-encoding'], 'gzip');
  for (const chunk of build.assets) {
    const res = await t.request({ method: 'GET', url: `/ui/assets/${chunk}` });
    assert.equal(res.statusCode, 200, chunk);
  }
  const missing = await t.request({ method: 'GET', url: '/ui/assets/app-0000000000.js' });
  assert.deepEqual(errorOf(missing), { status: 404, messages: ['resource not found'] });
  const traversal = await t.request({ method: 'GET', url: '/ui/assets/..%2F..%2Fpackage.json' });
  assert.deepEqual(errorOf(traversal), { status: 404, messages: ['resource not found'] });
});

test('the build stays within its stated budget', () => {
  assert.ok(build.gzipped_bytes <= build.budget_kb * 1024, `${build.gzipped_bytes} bytes gzipped > ${build.budget_kb} kB`);
});
