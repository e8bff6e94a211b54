import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApp } from '../app.ts';
import { signedHeaders } from '../client/signature.ts';
import { testConfig } from '../config.ts';
import { createDb } from '../db/create-db.ts';
import { DIALECT, createEmptyTestDb } from '../test/harness.ts';

const BIN = join(import.meta.dirname, '../../bin/scent.js');
const scent = (args: string[], env: Record<string, string>) => {
  const res = spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', env: { ...process.env, ...env }, timeout: 60_000 });
  return { code: res.status, stdout: res.stdout, stderr: res.stderr };
};

test('scent api-tokens create: a key that signs requests the server accepts', async () => {
  let url: string;
  let cleanup: () => Promise<void>;
  if (DIALECT === 'postgres') {
    const db = await createEmptyTestDb();
    url = db.url;
    cleanup = () => db.close();
  } else {
    const dir = mkdtempSync(join(tmpdir(), 'scent-api-tokens-'));
    url = `sqlite:${join(dir, 'scent.sqlite')}`;
    cleanup = async () => rmSync(dir, { recursive: true, force: true });
  }
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
