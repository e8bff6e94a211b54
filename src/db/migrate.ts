import { Migrator, sql, type MigrationResultSet } from 'kysely';
import type { Db } from './create-db.ts';
import { migrations } from './migrations/index.ts';

async function migrator(db: Db) {
  // On PostgreSQL the bookkeeping tables live in the connection's current schema (search_path), so
  // several Scent databases can share one PostgreSQL database in separate schemas.
  const schema = db.dialect === 'postgres'
    ? (await sql<{ s: string }>`select current_schema() as s`.execute(db.kysely)).rows[0].s
    : undefined;
  return new Migrator({
    db: db.kysely,
    provider: { getMigrations: async () => migrations },
    migrationTableName: 'scent_migrations',
    migrationLockTableName: 'scent_migrations_lock',
    migrationTableSchema: schema,
    // Areas add migrations independently; a database that already ran a later-numbered one must
    // still accept an earlier-numbered newcomer.
    allowUnorderedMigrations: true,
  });
}

function check(result: MigrationResultSet): string[] {
  if (result.error) throw result.error;
  return (result.results ?? []).map((r) => `${r.direction} ${r.migrationName}: ${r.status}`);
}

export async function migrateToLatest(db: Db): Promise<string[]> {
  return check(await (await migrator(db)).migrateToLatest());
}

/** Undo every migration (tests and `scent migrate --down`). */
export async function migrateDownAll(db: Db): Promise<string[]> {
  const lines: string[] = [];
  for (;;) {
    const result = await (await migrator(db)).migrateDown();
    lines.push(...check(result));
    if (!result.results?.length) return lines;
  }
}
