import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { createEmptyTestDb, DIALECT } from '../test/harness.ts';
import { scentInProcess } from '../test/cli.ts';

test('commands that read (tokens issue, users list, ...) never create a database: a wrong --database is an error', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'scent-nodb-'));
  try {
    const path = join(dir, 'nope.sqlite');
    const res = await scentInProcess(['tokens', 'issue', '--user', 'admin', '--database', `sqlite:${path}`]);
    assert.equal(res.code, 2);
    assert.equal(res.stderr, `scent tokens issue: no database at ${path}: start \`scent serve\` (or run \`scent migrate\`) on it first, or point --database / SCENT_DATABASE_URL at the server's database\n`);
    assert.equal(existsSync(path), false, 'no file was created');
    const memory = await scentInProcess(['users', 'list', '--database', 'sqlite::memory:']);
    assert.equal(memory.code, 2);
    assert.match(memory.stderr, /^scent users list: sqlite::memory: lives inside the process that opened it: .*POST \/api\/v2\/login\)\n$/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a PostgreSQL database Scent never migrated is refused, not migrated behind the user\'s back', { skip: DIALECT !== 'postgres' }, async () => {
  const db = await createEmptyTestDb();
  try {
    const res = await scentInProcess(['tokens', 'issue', '--user', 'admin', '--database', db.url]);
    assert.equal(res.code, 2);
    assert.match(res.stderr, /^scent tokens issue: no Scent database at postgres:\/\/.*: start `scent serve`/);
    const { rows } = await sql`select table_name from information_schema.tables where table_schema = current_schema()`.execute(db.kysely);
    assert.deepEqual(rows, [], 'nothing was created');
  } finally {
    await db.close();
  }
});
