import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { BIN, cliDatabase, scentInProcess } from '../test/cli.ts';

const run = (args: string[], env: Record<string, string>, input: string) =>
  spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', env: { ...process.env, ...env }, input, timeout: 120_000 });

test('scent migrate --down asks before dropping; "no" (or no answer) keeps everything; --yes is for scripts', { timeout: 180_000 }, async () => {
  const { url, cleanup } = await cliDatabase();
  const env = { SCENT_DATABASE_URL: url };
  try {
    const db = ['--database', url];
    assert.equal((await scentInProcess(['migrate', ...db])).code, 0);
    assert.equal((await scentInProcess(['users', 'create', '--name', 'kept', '--email', 'kept@example.test', '--role', 'User', ...db])).code, 0);
    for (const answer of ['no\n', '']) {
      const refused = run(['migrate', '--down'], env, answer);
      assert.equal(refused.status, 1, refused.stderr);
      assert.match(refused.stderr, /This removes every Scent table in .*, and everything stored in them\.\nType "yes" to go on: /);
      assert.match(refused.stderr, /scent migrate: nothing removed \(answer "yes", or pass --yes in scripts\)\n$/);
      assert.match((await scentInProcess(['users', 'list', ...db])).stdout, /\tkept\t/, 'nothing was dropped');
    }
    const yes = run(['migrate', '--down', '--yes'], env, '');
    assert.equal(yes.status, 0, yes.stderr);
    assert.doesNotMatch(yes.stderr, /Type "yes"/);
    assert.match(yes.stdout, /Down .*: Success|down .*: Success/i);
    assert.doesNotMatch((await scentInProcess(['users', 'list', ...db])).stdout, /\tkept\t/, 'the tables and their rows are gone');
  } finally {
    await cleanup();
  }
});
