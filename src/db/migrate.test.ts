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
