import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { createDb } from '../db/create-db.ts';
import { SHARED_FIXTURES } from '../test/fixture-path.ts';
import { createUser } from '../modules/users/users.service.ts';
import { cliDatabase, scent } from '../test/cli.ts';

const LIBRARY = join(SHARED_FIXTURES, 'bloodhound-query-library', 'Queries.json');

test('scent queries import loads the whole Query Library in one command; again, it changes nothing', async () => {
  const { url, cleanup } = await cliDatabase();
  const env = { SCENT_DATABASE_URL: url, SCENT_LOG_LEVEL: 'silent' };
  try {
    assert.equal(scent(['migrate'], env).code, 0);
    const db = createDb(url);
    try {
      await createUser(db, { principalName: 'analyst', email: 'analyst@example.test', roleName: 'User' });
    } finally {
      await db.close();
    }
    const first = scent(['queries', 'import', LIBRARY, '--user', 'analyst', '--public'], env);
    assert.equal(first.code, 0, first.stderr);
    assert.equal(first.stdout, 'imported 172 queries for analyst (172 new, 0 updated), public\n');
    const again = scent(['queries', 'import', LIBRARY, '--user', 'analyst'], env);
    assert.equal(again.stdout, 'imported 172 queries for analyst (0 new, 172 updated)\n');
    const check = createDb(url);
    try {
      const names = (await check.kysely.selectFrom('saved_queries').select('name').execute()).map((r) => r.name);
      assert.equal(names.length, 172);
      assert.ok(names.includes('Disabled Tier Zero / High Value principals'));
      assert.ok(names.includes('Disabled Tier Zero / High Value principals (Azure)'));
      const pub = await check.kysely.selectFrom('saved_queries_permissions').select('id').where('public', '=', 1).execute();
      assert.equal(pub.length, 172);
    } finally {
      await check.close();
    }
    const missing = scent(['queries', 'import', LIBRARY, '--user', 'nobody'], env);
    assert.deepEqual([missing.code, missing.stderr], [2, 'scent queries import: no user named nobody\n']);
    assert.equal(scent(['queries', 'import', LIBRARY], env).code, 2);
  } finally {
    await cleanup();
  }
});
