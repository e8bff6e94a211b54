import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { BIN, cliDatabase, scent } from '../test/cli.ts';

test('--help on every command, and an unknown command is an error', () => {
  const top = scent(['--help']);
  assert.equal(top.code, 0);
  for (const words of [['serve'], ['migrate'], ['users', 'create'], ['users', 'disable'], ['users', 'list'], ['tokens', 'issue']]) {
    assert.match(top.stdout, new RegExp(words.join(' ')));
    const help = scent([...words, '--help']);
    assert.equal(help.code, 0, words.join(' '));
    assert.match(help.stdout, new RegExp(`Usage: scent ${words.join(' ')}`));
  }
  const bad = scent(['frobnicate']);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /unknown command: frobnicate/);
});

test('users create / list / disable and tokens issue, then serve with that token', async () => {
  const { url, cleanup } = await cliDatabase();
  const env = { SCENT_DATABASE_URL: url };
  try {
    assert.equal(scent(['migrate'], env).code, 0);
    const created = scent(['users', 'create', '--name', 'ana', '--email', 'ana@example.test', '--role', 'Read-Only', '--password', 'pw'], env);
    assert.equal(created.code, 0, created.stderr);
    assert.match(created.stdout.trim(), /^[0-9a-f-]{36}$/);
    const dup = scent(['users', 'create', '--name', 'ana', '--email', 'x@example.test', '--role', 'User'], env);
    assert.equal(dup.code, 2);
    assert.match(dup.stderr, /already exists/);
    const badRole = scent(['users', 'create', '--name', 'bo', '--email', 'bo@example.test', '--role', 'Wizard'], env);
    assert.equal(badRole.code, 2);
    assert.match(badRole.stderr, /unknown role "Wizard"/);
    const noProvider = scent(['users', 'create', '--name', 'cy', '--email', 'cy@example.test', '--role', 'User', '--sso-provider', 'Nope'], env);
    assert.match(noProvider.stderr, /no SSO provider named "Nope"/);
    const list = scent(['users', 'list'], env);
    assert.match(list.stdout, /\tana\tana@example\.test\tRead-Only\tno\t/);
    const token = scent(['tokens', 'issue', '--user', 'ana', '--ttl', '1h'], env);
    assert.equal(token.code, 0, token.stderr);
    assert.match(token.stdout, /^[\w-]+\.[\w-]+\.[\w-]+\n$/);

    const server = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--log-level', 'silent'], { env: { ...process.env, ...env } });
    let out = '';
    server.stdout.on('data', (chunk) => (out += chunk));
    const address = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no address in: ${out}`)), 90_000);
      server.stdout.on('data', () => {
        const m = /serving the BloodHound v2 API at (http:\/\/\S+)/.exec(out);
        if (m) {
          clearTimeout(timer);
          resolve(m[1]);
        }
      });
    });
    assert.doesNotMatch(out, /First start/, 'users exist, so no admin is bootstrapped');
    const me = await fetch(`${address}/api/v2/self`, { headers: { authorization: `Bearer ${token.stdout.trim()}` } });
    assert.equal(me.status, 200);
    assert.equal((await me.json()).data.principal_name, 'ana');

    assert.equal(scent(['users', 'disable', 'ana'], env).code, 0);
    const after = await fetch(`${address}/api/v2/self`, { headers: { authorization: `Bearer ${token.stdout.trim()}` } });
    assert.equal(after.status, 401, 'disabling ends sessions at once, also in a running server');
    const exited = new Promise<number | null>((resolve) => server.once('exit', (code) => resolve(code)));
    server.kill('SIGTERM');
    assert.equal(await exited, 0, 'graceful stop');
  } finally {
    await cleanup();
  }
});

test('first start on an empty database bootstraps admin with a password and a token', async () => {
  const { url, cleanup } = await cliDatabase();
  try {
    const server = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--database', url, '--log-level', 'silent']);
    let out = '';
    server.stdout.on('data', (chunk) => (out += chunk));
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no bootstrap in: ${out}`)), 90_000);
      server.stdout.on('data', () => {
        if (/This password is shown only once/.test(out)) {
          clearTimeout(timer);
          resolve();
        }
      });
    });
    const address = /at (http:\/\/\S+)/.exec(out)![1];
    const password = /one-time password: (\S+)/.exec(out)![1];
    const token = /bearer token \([^)]*\): (\S+)/.exec(out)![1];
    const me = await fetch(`${address}/api/v2/self`, { headers: { authorization: `Bearer ${token}` } });
    assert.equal((await me.json()).data.roles[0].name, 'Administrator');
    const login = await fetch(`${address}/api/v2/login`, {
      method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ login_method: 'secret', username: 'admin', secret: password }),
    });
    assert.equal(login.status, 200);
    const exited = new Promise((resolve) => server.once('exit', resolve));
    server.kill('SIGINT');
    await exited;
  } finally {
    await cleanup();
  }
});
