import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildApp } from '../app.ts';
import { signedHeaders } from '../client/signature.ts';
import { testConfig } from '../config.ts';
import { createDb } from '../db/create-db.ts';
import { cliDatabase, scent } from '../test/cli.ts';


test('scent api-tokens create: a key that signs requests the server accepts', async () => {
  const { url, cleanup } = await cliDatabase();
  const env = { SCENT_DATABASE_URL: url, SCENT_LOG_LEVEL: 'silent' };
  try {
    assert.equal(scent(['users', 'create', '--name', 'robot', '--email', 'robot@example.test', '--role', 'Read-Only'], env).code, 0);
    const created = scent(['api-tokens', 'create', '--user', 'robot', '--name', 'nightly'], env);
    assert.equal(created.code, 0, created.stderr);
    const { id, key } = JSON.parse(created.stdout);
    assert.match(id, /^[0-9a-f-]{36}$/);
    const unknown = scent(['api-tokens', 'create', '--user', 'nobody', '--name', 'x'], env);
    assert.equal(unknown.code, 2);
    assert.equal(unknown.stdout, '');
    assert.match(unknown.stderr, /no user named "nobody"/);

    const db = createDb(url);
    const app = await buildApp({ config: testConfig({ jwtSecret: undefined }), db });
    try {
      const res = await app.inject({ method: 'GET', url: '/api/version', headers: signedHeaders(id, { key, method: 'GET', target: '/api/version' }) });
      assert.equal(res.statusCode, 200, res.body);
    } finally {
      await app.close();
      await db.close();
    }
  } finally {
    await cleanup();
  }
});
