/**
 * FROZEN: PostgreSQL only. The change-notification function takes an optional argument, the name of
 * a narrow column set (NARROW_COLUMNS in src/db/data-versions.ts): a trigger created with it
 * notifies "schema.table:name", so that, for instance, collection clients' check-ins do not count
 * as a change of `clients`. ensureChangeTriggers (src/db/migrate.ts) creates those triggers.
 */
import { sql, type Kysely } from 'kysely';
import { isPostgres } from './portable.ts';
import { up as restoreUnnamedFunction } from './0009-change-notifications.ts';

export async function up(db: Kysely<any>): Promise<void> {
  if (!isPostgres(db)) return;
  await sql`
    create or replace function scent_notify_change() returns trigger language plpgsql as $$
    begin
      perform pg_notify('scent_changes', tg_table_schema || '.' || tg_table_name || coalesce(':' || tg_argv[0], ''));
      return null;
    end $$`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  if (!isPostgres(db)) return;
  await sql`drop trigger if exists scent_notify_change_narrow on clients`.execute(db);
  await restoreUnnamedFunction(db); // 0009's function, without the argument
}
