import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { createEmptyTestDb, DIALECT } from '../test/harness.ts';
import { migrateDownAll, migrateToLatest } from './migrate.ts';
import { ROLE_NAMES, ROLE_PERMISSIONS, PERMISSIONS } from '../auth/permissions.ts';
import { migrations } from './migrations/index.ts';
import { nowMicros, parseRfc3339, toRfc3339 } from './time.ts';

test(`migrations run up, down and up again on ${DIALECT}`, async () => {
  const db = await createEmptyTestDb();
  try {
    const up = await migrateToLatest(db);
    assert.equal(up.length, Object.keys(migrations).length);
    assert.ok(up.every((line) => line.endsWith('Success')));
    const down = await migrateDownAll(db);
    assert.equal(down.length, Object.keys(migrations).length);
    const schema = DIALECT === 'postgres'
      ? (await sql<{ s: string }>`select current_schema() as s`.execute(db.kysely)).rows[0].s
      : undefined;
    const tables = (await db.kysely.introspection.getTables()).filter((t) => t.schema === schema);
    assert.deepEqual(tables.map((t) => t.name).filter((n) => !n.startsWith('scent_migrations')), []);
    assert.equal((await migrateToLatest(db)).length, Object.keys(migrations).length);
    assert.deepEqual(await migrateToLatest(db), [], 'a second run has nothing to do');
  } finally {
    await db.close();
  }
});

test(`0012 swaps the users → sso_providers action and keeps every row that references users on ${DIALECT}`, async () => {
  const db = await createEmptyTestDb();
  try {
    await migrateToLatest(db);
    const k = db.kysely;
    const stamp = { created_at: 1, updated_at: 1, deleted_at: null };
    const { id: provider } = await k.insertInto('sso_providers').values({ name: 'p', slug: 'p', type: 2, config: '{}', ...stamp })
      .returning('id').executeTakeFirstOrThrow();
    await k.insertInto('users').values({ id: 'u1', principal_name: 'linked', sso_provider_id: provider, ...stamp } as never).execute();
    const role = await k.selectFrom('roles').select('id').where('name', '=', 'User').executeTakeFirstOrThrow();
    await k.insertInto('users_roles').values({ user_id: 'u1', role_id: role.id }).execute();
    await k.insertInto('sessions').values({ id: 's1', user_id: 'u1', client_id: null, auth_method: 'secret', expires_at: 9, created_at: 1 }).execute();
    const rows = async () => ({
      users: await k.selectFrom('users').select(['id', 'sso_provider_id']).execute(),
      roles: (await k.selectFrom('users_roles').selectAll().execute()).length,
      sessions: (await k.selectFrom('sessions').selectAll().execute()).length,
    });
    const expected = { users: [{ id: 'u1', sso_provider_id: provider }], roles: 1, sessions: 1 };
    const refused = (err: { code?: string }) => err.code === '23503' || err.code === 'SQLITE_CONSTRAINT_FOREIGNKEY';
    await assert.rejects(k.deleteFrom('sso_providers').execute(), refused);
    assert.deepEqual(await rows(), expected);

    await migrations['0012-users-provider-no-action'].down!(k);
    assert.deepEqual(await rows(), expected, 'rebuilding users (SQLite) deletes nothing that references it');
    await assert.rejects(k.insertInto('users').values({ id: 'u2', principal_name: 'linked', ...stamp } as never).execute(), 'still unique');

    await migrations['0012-users-provider-no-action'].up(k);
    assert.deepEqual(await rows(), expected);
    await assert.rejects(k.deleteFrom('sso_providers').execute(), refused);
    if (DIALECT === 'sqlite') {
      const plan = await sql<{ detail: string }>`explain query plan select id from users where sso_provider_id = 1`.execute(k);
      assert.match(plan.rows.map((r) => r.detail).join(' '), /users_sso_provider_id/, 'its index is back');
    }
  } finally {
    await db.close();
  }
});

test('the database holds exactly the role → permission map of the code', async () => {
  const db = await createEmptyTestDb();
  try {
    await migrateToLatest(db);
    const perms = await db.kysely.selectFrom('permissions').select(['authority', 'name']).execute();
    assert.deepEqual(perms.map((p) => `${p.authority}/${p.name}`).sort(), [...PERMISSIONS].sort());
    const rows = await db.kysely
      .selectFrom('roles')
      .leftJoin('roles_permissions', 'roles_permissions.role_id', 'roles.id')
      .leftJoin('permissions', 'permissions.id', 'roles_permissions.permission_id')
      .select(['roles.name as role', 'permissions.authority', 'permissions.name'])
      .execute();
    const fromDb: Record<string, string[]> = {};
    for (const r of rows) (fromDb[r.role] ??= []).push(`${r.authority}/${r.name}`);
    assert.deepEqual(Object.keys(fromDb).sort(), [...ROLE_NAMES].sort());
    for (const role of ROLE_NAMES) assert.deepEqual(fromDb[role].sort(), [...ROLE_PERMISSIONS[role]].sort(), role);
  } finally {
    await db.close();
  }
});

test('timestamps keep microseconds and come back identical', async () => {
  const db = await createEmptyTestDb();
  try {
    await migrateToLatest(db);
    const stamp = parseRfc3339('2026-11-21T05:03:07.123456Z')!.micros;
    await db.kysely.insertInto('settings').values({ key: 'k', value: 'v', updated_at: stamp }).execute();
    const row = await db.kysely.selectFrom('settings').selectAll().where('key', '=', 'k').executeTakeFirstOrThrow();
    assert.equal(row.updated_at, stamp);
    assert.equal(toRfc3339(row.updated_at), '2026-11-21T05:03:07.123456Z');
    const a = nowMicros();
    const b = nowMicros();
    assert.ok(b > a, 'strictly increasing');
  } finally {
    await db.close();
  }
});

test('RFC-3339 parsing: offsets, fractions and rejects', () => {
  assert.equal(parseRfc3339('2026-01-01T01:00:00+01:00')!.micros, parseRfc3339('2026-01-01T00:00:00Z')!.micros);
  assert.equal(parseRfc3339('2026-01-01T00:00:00.5Z')!.micros % 1_000_000, 500_000);
  assert.deepEqual(parseRfc3339('2026-01-01T00:00:00.000000001Z'), { micros: parseRfc3339('2026-01-01T00:00:00Z')!.micros, fractional: true });
  for (const bad of ['2026-01-01 00:00:00Z', '2026-02-30T00:00:00Z', '2026-01-01T00:00:00', '2026-01-01T00:00:00.1234567890Z', 'x']) {
    assert.equal(parseRfc3339(bad), null, bad);
  }
  assert.equal(toRfc3339(null), '0001-01-01T00:00:00Z');
});
