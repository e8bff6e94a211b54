/**
 * FROZEN: `users.sso_provider_id` stops being `ON DELETE SET NULL`; the database now refuses to delete
 * a provider that users still sign in with. Scent unlinks those users itself (and revokes their
 * sessions) before deleting the provider, so the action never did anything for Scent, but a row-changing
 * foreign-key action means that every provider delete may change `users` (src/db/data-versions.ts),
 * which retired every cached session on each delete. It also could unlink a user silently, without
 * revoking their sessions, had anything else deleted a provider.
 *
 * PostgreSQL swaps the constraint. SQLite cannot alter a constraint: `users` is rebuilt (SQLite's
 * documented procedure: foreign keys off, copy into a new table, drop, rename, indexes back, check).
 */
import { sql, type Kysely } from 'kysely';
import { isPostgres } from './portable.ts';

export async function up(db: Kysely<any>): Promise<void> {
  await providerLink(db, false);
}

export async function down(db: Kysely<any>): Promise<void> {
  await providerLink(db, true);
}

async function providerLink(db: Kysely<any>, setNull: boolean): Promise<void> {
  if (isPostgres(db)) {
    const { rows } = await sql<{ name: string }>`
      select conname as name from pg_constraint
      where conrelid = 'users'::regclass and confrelid = 'sso_providers'::regclass and contype = 'f'`.execute(db);
    for (const { name } of rows) await sql`alter table users drop constraint ${sql.id(name)}`.execute(db);
    await sql`alter table users add constraint users_sso_provider_id_fkey foreign key (sso_provider_id)
      references sso_providers (id) ${setNull ? sql`on delete set null` : sql``}`.execute(db);
    return;
  }
  await rebuildSqliteTable(db, 'users', (create) => {
    const column = /("sso_provider_id" bigint references "sso_providers" \("id"\))( on delete set null)?/i;
    if (!column.test(create)) throw new Error('users.sso_provider_id is not as migration 0001 made it');
    return create.replace(column, setNull ? '$1 on delete set null' : '$1');
  });
}

/** SQLite's 12-step table change, for a change of the CREATE TABLE text that keeps the columns. */
async function rebuildSqliteTable(db: Kysely<any>, table: string, edit: (create: string) => string): Promise<void> {
  await sql`pragma foreign_keys = off`.execute(db); // no-op inside a transaction: run before it
  try {
    await db.transaction().execute(async (trx) => {
      const { rows } = await sql<{ type: string; sql: string }>`
        select type, sql from sqlite_master where tbl_name = ${table} and sql is not null`.execute(trx);
      const create = rows.find((r) => r.type === 'table')?.sql;
      if (!create) throw new Error(`no table ${table}`);
      const next = `${table}_rebuilt`;
      const edited = edit(create).replace(/^CREATE TABLE "?\w+"?/i, `CREATE TABLE "${next}"`);
      await sql.raw(edited).execute(trx);
      await sql`insert into ${sql.id(next)} select * from ${sql.id(table)}`.execute(trx);
      await sql`drop table ${sql.id(table)}`.execute(trx);
      await sql`alter table ${sql.id(next)} rename to ${sql.id(table)}`.execute(trx);
      for (const r of rows) if (r.type !== 'table') await sql.raw(r.sql).execute(trx);
      const broken = await sql`select * from pragma_foreign_key_check()`.execute(trx);
      if (broken.rows.length) throw new Error(`rebuilding ${table} left broken references: ${JSON.stringify(broken.rows)}`);
    });
  } finally {
    await sql`pragma foreign_keys = on`.execute(db);
  }
}
