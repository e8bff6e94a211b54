import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, errorOf, type TestApp } from '../test/harness.ts';

let t: TestApp;
before(async () => {
  t = await createTestApp();
});
after(() => t.close());

test('405: Allow names each method once, also where a path matches several routes (/jobs/available, /jobs/{job_id})', async () => {
  for (const url of ['/api/v2/jobs/available', '/api/v2/jobs/current', '/api/v2/self']) {
    const res = await t.request({ method: 'PATCH', url });
    assert.deepEqual(errorOf(res), { status: 405, messages: ['method not allowed'] });
    assert.equal(res.headers.allow, 'GET, HEAD', url);
  }
});
