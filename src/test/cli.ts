/** Helpers for tests that drive the `scent` command as a child process. */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DIALECT, createEmptyTestDb } from './harness.ts';
import { createDb } from '../db/create-db.ts';
import { migrateToLatest } from '../db/migrate.ts';

export const BIN = join(import.meta.dirname, '../../bin/scent.js');

export function scent(args: string[], env: Record<string, string> = {}) {
  const res = spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', env: { ...process.env, ...env }, timeout: 120_000 });
  return { code: res.status, stdout: res.stdout, stderr: res.stderr };
}

/**
 * A migrated database of the dialect under test that a child process can open (commands other than
 * serve / migrate / import refuse to create one), its URL and its cleanup.
 */
export async function cliDatabase(): Promise<{ url: string; cleanup: () => Promise<void> }> {
  if (DIALECT === 'postgres') {
    const db = await createEmptyTestDb();
    await migrateToLatest(db);
    return { url: db.url, cleanup: () => db.close() };
  }
  const dir = mkdtempSync(join(tmpdir(), 'scent-cli-'));
  const url = `sqlite:${join(dir, 'scent.sqlite')}`;
  const db = createDb(url);
  await migrateToLatest(db);
  await db.close();
  return { url, cleanup: async () => rmSync(dir, { recursive: true, force: true }) };
}

/** Runs `scent` in this process (no child start-up cost), capturing what it writes. */
export async function scentInProcess(args: string[]) {
  const { main } = await import('../cli.ts');
  let stdout = '';
  let stderr = '';
  const out = process.stdout.write;
  const err = process.stderr.write;
  // Only the command's text is captured: the test runner reports each test to its parent as binary chunks on
  // this same stdout (sometimes while the next test runs); swallowing one would hide that test's result.
  process.stdout.write = ((chunk: unknown, ...rest: unknown[]) =>
    typeof chunk === 'string' ? ((stdout += chunk), true) : (out as (...a: unknown[]) => boolean).call(process.stdout, chunk, ...rest)) as typeof process.stdout.write;
  process.stderr.write = ((chunk: unknown, ...rest: unknown[]) =>
    typeof chunk === 'string' ? ((stderr += chunk), true) : (err as (...a: unknown[]) => boolean).call(process.stderr, chunk, ...rest)) as typeof process.stderr.write;
  try {
    const code = await main(args);
    return { code, stdout, stderr };
  } finally {
    process.stdout.write = out;
    process.stderr.write = err;
  }
}
