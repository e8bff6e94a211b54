/**
 * FROZEN: what BloodHound's client and job objects carry beyond migration 0004.
 *
 * clients.version   the collector's version, as its User-Agent reports it at each check-in ('' until then)
 * client_jobs.log   the log text the client sent with POST /api/v2/jobs/end (null: none sent);
 *                   GET /api/v2/jobs/{id}/log answers it
 */
import { sql, type Kysely } from 'kysely';
import { isPostgres } from './portable.ts';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('clients').addColumn('version', 'text', (c) => c.notNull().defaultTo('')).execute();
  await db.schema.alterTable('client_jobs').addColumn('log', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('client_jobs').dropColumn('log').execute();
  // PostgreSQL: the change trigger of `clients` names its columns (made again after every migration run).
  if (isPostgres(db)) await sql`drop trigger if exists scent_notify_change on clients`.execute(db);
  await db.schema.alterTable('clients').dropColumn('version').execute();
}
