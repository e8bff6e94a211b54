import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildApp } from '../app.ts';
import { testConfig } from '../config.ts';
import { createTestDb } from '../test/harness.ts';
import { route } from './route.ts';

let arrived = 0;

/** Graceful shutdown under load: in-flight requests complete, no new ones are accepted, quick exit. */
const work = route({
  method: 'GET',
  url: '/test/work',
  config: { access: { public: true } },
  handler: async (request) => {
    arrived++;
    await new Promise((r) => setTimeout(r, 400));
    const ok = await request.server.db.ping();
    return { ok };
  },
});

test('close() lets in-flight requests finish and refuses new ones', async () => {
  const db = await createTestDb();
  const app = await buildApp({ config: testConfig(), db, extraRoutes: [work] });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const base = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
  try {
    const inflight = Array.from({ length: 20 }, () => fetch(`${base}/test/work`).then(async (r) => [r.status, await r.json()] as const));
    while (arrived < 20) await new Promise((r) => setTimeout(r, 10));
    const started = Date.now();
    const closing = app.close();
    const results = await Promise.all(inflight);
    for (const [status, body] of results) {
      assert.equal(status, 200);
      assert.deepEqual(body, { ok: true });
    }
    await closing;
    assert.ok(Date.now() - started < 10_000, 'closed within 10 s');
    await assert.rejects(fetch(`${base}/health`), 'no new connections after close');
  } finally {
    await db.close();
  }
});
