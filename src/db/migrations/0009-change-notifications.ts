/**
 * FROZEN: PostgreSQL only. The function behind the statement-level triggers that tell every
 * instance which table a committed statement wrote (NOTIFY scent_changes, payload "schema.table";
 * see src/db/data-versions.ts). The triggers themselves are (re)created for every table of the
 * schema after each migration run by ensureChangeTriggers (src/db/migrate.ts), so tables added by
 * later migrations are covered without repeating them here.
 */
import { sql, type Kysely } from 'kysely';
import { isPostgres } from './portable.ts';

export async function up(db: Kysely<any>): Promise<void> {
  if (!isPostgres(db)) return;
  await sql`
    create or replace function scent_notify_change() returns trigger language plpgsql as $$
    begin
      perform pg_notify('scent_changes', tg_table_schema || '.' || tg_table_name);
      return null;
    end $$`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  if (!isPostgres(db)) return;
  await sql`drop function if exists scent_notify_change() cascade`.execute(db);
}
