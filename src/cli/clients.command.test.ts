import { test } from 'node:test';
import assert from 'node:assert/strict';
import { testConfig } from '../config.ts';
import { createDb } from '../db/create-db.ts';
import { verifyBearer } from '../auth/sessions.ts';
import { cliDatabase, scent } from '../test/cli.ts';


test('scent clients create, then scent tokens issue --client: a working client credential', async () => {
  const { url, cleanup } = await cliDatabase();
  const env = { SCENT_DATABASE_URL: url, SCENT_LOG_LEVEL: 'silent' };
  try {
    const created = scent(['clients', 'create', '--name', 'cli-collector', '--type', 'azurehound'], env);
    assert.equal(created.code, 0, created.stderr);
    const id = created.stdout.trim();
    assert.match(id, /^[0-9a-f-]{36}$/);
    const dup = scent(['clients', 'create', '--name', 'cli-collector', '--type', 'azurehound'], env);
    assert.equal(dup.code, 2);
    assert.match(dup.stderr, /client name must be unique/);
    assert.equal(scent(['clients', 'create', '--name', 'x', '--type', 'nmap'], env).code, 2);

    const issued = scent(['tokens', 'issue', '--client', id, '--ttl', '1h'], env);
    assert.equal(issued.code, 0, issued.stderr);
    const token = issued.stdout.trim();
    const unknown = scent(['tokens', 'issue', '--client', '00000000-0000-4000-8000-000000000000'], env);
    assert.equal(unknown.code, 2);
    assert.equal(unknown.stdout, '');

    const db = createDb(url);
    try {
      const principal = await verifyBearer(db, testConfig({ jwtSecret: undefined }), token);
      assert.deepEqual({ kind: principal.kind, clientId: principal.kind === 'client' ? principal.clientId : '' }, { kind: 'client', clientId: id });
    } finally {
      await db.close();
    }
  } finally {
    await cleanup();
  }
});
