/** Helpers for tests that drive the `scent` command as a child process. */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DIALECT, createEmptyTestDb } from './harness.ts';

export const BIN = join(import.meta.dirname, '../../bin/scent.js');

export function scent(args: string[], env: Record<string, string> = {}) {
  const res = spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', env: { ...process.env, ...env }, timeout: 120_000 });
  return { code: res.status, stdout: res.stdout, stderr: res.stderr };
}

/** A database URL of the dialect under test that a child process can open, and its cleanup. */
export async function cliDatabase(): Promise<{ url: string; cleanup: () => Promise<void> }> {
  if (DIALECT === 'postgres') {
    const db = await createEmptyTestDb();
    return { url: db.url, cleanup: () => db.close() };
  }
  const dir = mkdtempSync(join(tmpdir(), 'scent-cli-'));
  return { url: `sqlite:${join(dir, 'scent.sqlite')}`, cleanup: async () => rmSync(dir, { recursive: true, force: true }) };
}
