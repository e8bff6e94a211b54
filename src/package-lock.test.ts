/**
 * `npm install` on a fresh clone must not rewrite package-lock.json (a newcomer's first `git status`
 * would show a change they did not make). npm rewrites the lock when it disagrees with package.json;
 * the check asks npm itself, on a copy of the two files, offline and with an empty cache, so it needs no
 * network and no installed modules: `npm install --package-lock-only` must leave the lock byte for byte.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DIALECT } from './test/harness.ts';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const skip = DIALECT !== 'sqlite' && 'no database involved: runs once, with the SQLite pass';

/** The lock npm writes for these two files (offline, empty cache, no scripts, nothing installed). */
function lockAfterInstall(packageJson: string, lock: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'scent-lock-'));
  try {
    writeFileSync(join(dir, 'package.json'), packageJson);
    writeFileSync(join(dir, 'package-lock.json'), lock);
    execFileSync('npm', ['install', '--package-lock-only', '--ignore-scripts', '--offline', '--no-audit', '--no-fund'], {
      cwd: dir,
      stdio: 'ignore',
      env: { ...process.env, npm_config_cache: join(dir, '.npm-cache'), npm_config_update_notifier: 'false' },
    });
    return readFileSync(join(dir, 'package-lock.json'), 'utf8');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const packageJson = readFileSync(join(ROOT, 'package.json'), 'utf8');
const lock = readFileSync(join(ROOT, 'package-lock.json'), 'utf8');

test('npm install leaves package-lock.json unchanged (it agrees with package.json)', { skip, timeout: 120_000 }, () => {
  assert.ok(lockAfterInstall(packageJson, lock) === lock, 'npm rewrites package-lock.json: run `npm install` and commit the lock');
});

test('the check sees drift: a package.json range the lock does not record makes npm rewrite the lock', { skip, timeout: 120_000 }, () => {
  const drifted = JSON.parse(packageJson) as { devDependencies: Record<string, string> };
  drifted.devDependencies.typescript = '>=5';
  assert.notEqual(lockAfterInstall(`${JSON.stringify(drifted, null, 2)}\n`, lock), lock);
});
