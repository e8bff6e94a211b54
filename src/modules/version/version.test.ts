import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, errorOf } from '../../test/harness.ts';

test('GET /api/version: BloodHound\'s shape, the configured edition; authentication required', async () => {
  const t = await createTestApp({ edition: 'community' });
  try {
    const { token } = await t.login('Read-Only');
    const res = await t.request({ method: 'GET', url: '/api/version', token });
    assert.equal(res.statusCode, 200);
    const { data } = res.json();
    assert.deepEqual(Object.keys(data).sort(), ['API', 'product_edition', 'server_version']);
    assert.deepEqual(data.API, { current_version: 'v2', deprecated_version: 'none' });
    assert.equal(data.product_edition, 'community');
    assert.match(data.server_version, /^v\d+\.\d+\.\d+/);
    assert.deepEqual(errorOf(await t.request({ method: 'GET', url: '/api/version' })), { status: 401, messages: ['authentication is invalid'] });
  } finally {
    await t.close();
  }
});
