/**
 * The README's walkthrough ("The first ten minutes"), run as a newcomer runs it: every ```sh block of that
 * section, verbatim and in order, in one fresh bash (`set -euo pipefail`: an undefined variable or a failing
 * command fails the test), against a fresh `scent serve` on the dialect under test. Each ```text block that
 * follows a block is its expected output (`…` matches anything, within or across lines).
 *
 * Two things are not verbatim, and why:
 * - the first block (`npm install` / `npm start`) is the server: the test starts `bin/scent.js serve` itself
 *   (what `npm start` runs), on a fresh database, and checks its output against the block after it;
 * - tests never use fixed ports, so the server listens on a free port and `127.0.0.1:8080` in the blocks and
 *   outputs is replaced by that address.
 * The database is chosen as the README tells PostgreSQL users to: SCENT_DATABASE_URL in both shells.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createEmptyTestDb, DIALECT, type TestDb } from './test/harness.ts';
import { extractWalkthrough, matchesOutput, runWalkthrough, startServer } from './test/walkthrough.ts';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const cleanups: Array<() => unknown> = [];
after(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

test(`README walkthrough runs verbatim in a fresh shell against a fresh server (${DIALECT})`, { timeout: 240_000 }, async () => {
  const blocks = extractWalkthrough(readFileSync(join(ROOT, 'README.md'), 'utf8'), 'The first ten minutes');
  assert.ok(blocks.length >= 8, `walkthrough blocks found: ${blocks.length}`);
  assert.match(blocks[0].code, /npm start/);

  let databaseUrl: string;
  if (DIALECT === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'scent-readme-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    databaseUrl = `sqlite:${join(dir, 'scent.sqlite')}`;
  } else {
    // An empty schema: the server migrates it, as `npm start` does on a fresh database.
    const db: TestDb = await createEmptyTestDb();
    cleanups.push(() => db.close());
    databaseUrl = db.url;
  }
  const env: NodeJS.ProcessEnv = { ...process.env, SCENT_DATABASE_URL: databaseUrl };
  delete env.SCENT_PORT;
  const server: { child: ChildProcess; port: number; output: () => string } = await startServer(ROOT, env);
  cleanups.push(() => server.child.kill('SIGTERM'));
  const address = (text: string) => text.replaceAll('127.0.0.1:8080', `127.0.0.1:${server.port}`);

  if (blocks[0].expected !== undefined) {
    const banner = server.output();
    assert.ok(matchesOutput(banner, address(blocks[0].expected)), `server output:\n${banner}\n--- expected:\n${blocks[0].expected}`);
  }

  const results = await runWalkthrough(ROOT, blocks.slice(1).map((b) => address(b.code)), env);
  blocks.slice(1).forEach((block, i) => {
    const result = results[i];
    assert.ok(result, `block ${i + 2} did not run:\n${block.code}\n--- shell stderr:\n${results.stderr}`);
    if (block.expected === undefined) return;
    assert.ok(
      matchesOutput(result, address(block.expected)),
      `block ${i + 2}:\n${block.code}\n--- printed:\n${result}\n--- README shows:\n${block.expected}`,
    );
  });
  assert.equal(results.exitCode, 0, `the walkthrough's shell failed:\n${results.stderr}`);
});
