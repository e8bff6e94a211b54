import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildApp } from '../app.ts';
import { testConfig } from '../config.ts';
import { createDb } from '../db/create-db.ts';
import { cliDatabase, scent, scentInProcess } from '../test/cli.ts';

/** scent users enable | delete | reset-password, against a database a server then serves. */
test('users disable / enable / reset-password (one-time) / delete, seen by the server', async () => {
  const { url, cleanup } = await cliDatabase();
  const db = ['--database', url];
  try {
    assert.equal((await scentInProcess(['users', 'create', '--name', 'kim', '--email', 'kim@example.test', '--role', 'User', '--password', 'first-pass', ...db])).code, 0);
    const dupEmail = await scentInProcess(['users', 'create', '--name', 'kim2', '--email', 'KIM@example.test', '--role', 'User', ...db]);
    assert.deepEqual([dupEmail.code, dupEmail.stderr], [2, 'scent users create: a user with the e-mail address "KIM@example.test" already exists\n']);
    assert.equal((await scentInProcess(['users', 'disable', 'kim', ...db])).code, 0);
    assert.deepEqual(await scentInProcess(['users', 'enable', 'kim', ...db]), { code: 0, stdout: 'enabled kim\n', stderr: '' });
    const reset = await scentInProcess(['users', 'reset-password', 'kim', ...db]);
    assert.equal(reset.code, 0, reset.stderr);
    const password = reset.stdout.trim();
    assert.match(password, /^[\w-]{24}$/);
    assert.match(reset.stderr, /one-time password for kim: its first login must set a new one/);

    const handle = createDb(url);
    const app = await buildApp({ config: testConfig({ jwtSecret: undefined }), db: handle });
    try {
      const login = (secret: string) => app.inject({ method: 'POST', url: '/api/v2/login', payload: { login_method: 'secret', username: 'kim', secret } });
      assert.equal((await login('first-pass')).statusCode, 401, 'the old password is gone');
      const once = (await login(password)).json().data;
      assert.equal(once.auth_expired, true);
      const bearer = { authorization: `Bearer ${once.session_token}` };
      assert.equal((await app.inject({ method: 'GET', url: '/api/v2/saved-queries', headers: bearer })).statusCode, 403, 'only a new password may be set');
      const put = await app.inject({
        method: 'PUT', url: `/api/v2/bloodhound-users/${once.user_id}/secret`, headers: bearer,
        payload: { current_secret: password, secret: 'Second-Pass-99' },
      });
      assert.equal(put.statusCode, 200, put.body);
      assert.equal((await login(password)).statusCode, 401, 'one-time: the reset password works no more');
      assert.equal((await login('Second-Pass-99')).json().data.auth_expired, false);
    } finally {
      await app.close();
      await handle.close();
    }

    const refused = scent(['users', 'delete', 'kim', ...db]); // stdin closed: no answer = no
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /nothing deleted/);
    assert.deepEqual(await scentInProcess(['users', 'delete', 'kim', '--yes', ...db]), { code: 0, stdout: 'deleted kim\n', stderr: '' });
    const gone = await scentInProcess(['users', 'enable', 'kim', ...db]);
    assert.deepEqual([gone.code, gone.stderr], [2, 'scent users enable: no user named "kim"\n']);
    assert.equal((await scentInProcess(['users', 'reset-password', ...db])).code, 2);
    const help = await scentInProcess(['users', '--help']);
    for (const sub of ['enable', 'delete', 'reset-password']) assert.match(help.stdout, new RegExp(`  users ${sub} `));
    const own = await scentInProcess(['users', 'reset-password', '--help']);
    assert.equal(own.code, 0);
    assert.match(own.stdout, /one-time password/);
  } finally {
    await cleanup();
  }
});
