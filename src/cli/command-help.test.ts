import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { scentInProcess } from '../test/cli.ts';

const VERSION = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')).version;

test('scent --version (and -v, version) prints the package version', async () => {
  for (const flag of ['--version', '-v', 'version']) {
    assert.deepEqual(await scentInProcess([flag]), { code: 0, stdout: `scent ${VERSION}\n`, stderr: '' });
  }
  assert.match((await scentInProcess(['--help'])).stdout, /scent --version/);
});

test('--help on a command group lists its commands (exit 0); the bare group or an unknown member is exit 2', async () => {
  for (const group of ['users', 'tokens', 'api-tokens', 'clients']) {
    for (const flag of ['--help', '-h', 'help']) {
      const res = await scentInProcess([group, flag]);
      assert.equal(res.code, 0, `${group} ${flag}: ${res.stderr}`);
      assert.match(res.stdout, new RegExp(`^Usage: scent ${group} <command> \\[options\\]\\n`));
      assert.match(res.stdout, new RegExp(`\\n  ${group} \\w+ `));
      assert.equal(res.stderr, '');
    }
  }
  const users = await scentInProcess(['users', '--help']);
  for (const sub of ['create', 'disable', 'list']) assert.match(users.stdout, new RegExp(`  users ${sub} `));
  const bare = await scentInProcess(['users']);
  assert.equal(bare.code, 2);
  assert.match(bare.stderr, /^Usage: scent users <command>/);
  const unknown = await scentInProcess(['users', 'frobnicate']);
  assert.equal(unknown.code, 2);
  assert.match(unknown.stderr, /unknown command: scent users frobnicate\n$/);
});
