import { Migrator, sql, type MigrationResultSet, type RawBuilder } from 'kysely';
import { NARROW_COLUMNS } from './data-versions.ts';
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
  const lines = check(await (await migrator(db)).migrateToLatest());
  await ensureChangeTriggers(db);
  return lines;
}

/**
 * PostgreSQL: every table of the current schema notifies its writes (see src/db/data-versions.ts).
 * Creates only the missing triggers, so a start-up on a migrated database costs one catalogue read;
 * tables with narrow columns (NARROW_COLUMNS) get their two column-specific triggers (re)made each time.
 */
async function ensureChangeTriggers(db: Db): Promise<void> {
  if (db.dialect !== 'postgres') return;
  const { rows } = await sql<{ name: string }>`
    select c.relname as name from pg_class c
    where c.relnamespace = current_schema()::regnamespace and c.relkind in ('r', 'p')
      and not exists (select 1 from pg_trigger t where t.tgrelid = c.oid and t.tgname = 'scent_notify_change')`.execute(db.kysely);
  const missing = new Set(rows.map((r) => r.name));
  for (const name of missing) {
    if (Object.hasOwn(NARROW_COLUMNS, name)) continue;
    await createTrigger(db, 'scent_notify_change', name, sql`insert or update or delete or truncate`, sql``);
  }
  for (const [table, narrow] of Object.entries(NARROW_COLUMNS)) {
    const { rows: columns } = await sql<{ c: string }>`select column_name as c from information_schema.columns
      where table_schema = current_schema() and table_name = ${table}`.execute(db.kysely);
    if (columns.length === 0) continue;
    const broad = columns.map((r) => r.c).filter((c) => !narrow.columns.includes(c));
    const list = (cols: readonly string[]) => sql.join(cols.map((c) => sql.id(c)));
    await createTrigger(db, 'scent_notify_change', table, sql`insert or delete or truncate or update of ${list(broad)}`, sql``);
    await createTrigger(db, 'scent_notify_change_narrow', table, sql`update of ${list(narrow.columns)}`, sql.lit(narrow.name));
  }
}

async function createTrigger(db: Db, trigger: string, table: string, events: RawBuilder<unknown>, argument: RawBuilder<unknown>) {
  // `or replace`: two instances starting together may both see it missing.
  await sql`create or replace trigger ${sql.id(trigger)} after ${events} on ${sql.id(table)}
    for each statement execute function scent_notify_change(${argument})`.execute(db.kysely)
    .catch((err: { code?: string }) => {
      if (err.code !== '23505' && err.code !== '42710') throw err;
    });
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
