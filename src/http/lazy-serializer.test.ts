import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, type TestApp } from '../test/harness.ts';

let t: TestApp;
before(async () => {
  t = await createTestApp();
});
after(() => t.close());

test('response serializers are built on first use, and every one of them builds (a bad schema fails here, not a request)', async () => {
  const { token } = await t.login('Administrator');
  // Before anything is built, an answer still goes through its route's schema (unknown properties dropped).
  const self = await t.request({ method: 'GET', url: '/api/v2/self', token });
  assert.equal(self.statusCode, 200);
  const built = await t.app.compileSerializers();
  // ~200 routes, each with several statuses, most GETs with their HEAD twin: all were still pending.
  assert.ok(built > t.app.routeTable.length, `built ${built} serializers for ${t.app.routeTable.length} routes`);
  assert.equal(await t.app.compileSerializers(), 0, 'nothing is built twice');
  const again = await t.request({ method: 'GET', url: '/api/v2/self', token });
  assert.deepEqual(again.json(), self.json());
});
