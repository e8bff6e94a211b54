import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { testConfig } from '../config.ts';
import { createDb } from '../db/create-db.ts';
import { verifyBearer } from '../auth/sessions.ts';
import { DIALECT, createEmptyTestDb } from '../test/harness.ts';

const BIN = join(import.meta.dirname, '../../bin/scent.js');
const scent = (args: string[], env: Record<string, string>) => {
  const res = spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', env: { ...process.env, ...env }, timeout: 60_000 });
  return { code: res.status, stdout: res.stdout, stderr: res.stderr };
};

test('scent clients create, then scent tokens issue --client: a working client credential', async () => {
  let url: string;
  let cleanup: () => Promise<void>;
  if (DIALECT === 'postgres') {
    const db = await createEmptyTestDb();
    url = db.url;
    cleanup = () => db.close();
  } else {
    const dir = mkdtempSync(join(tmpdir(), 'scent-clients-'));
    url = `sqlite:${join(dir, 'scent.sqlite')}`;
    cleanup = async () => rmSync(dir, { recursive: true, force: true });
  }
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
