/**
 * FROZEN: PostgreSQL's search indexes end with the node id, so a prefix phase's order (lower-cased
 * name or objectid, then id) is the index's own order and its LIMIT stops after the page. 0041's
 * btrees ordered by the text only: the planner sorted the whole prefix range when it misjudged its
 * size (`group1` on the 1M-node bench graph: estimated 1 row, 8,888 read and sorted, 13 ms).
 * SQLite's NOCASE indexes end with the rowid (the id) already: nothing to do there.
 */
import { sql, type Kysely } from 'kysely';
import { isPostgres } from './portable.ts';

export async function up(db: Kysely<any>): Promise<void> {
  if (!isPostgres(db)) return;
  await sql`create index nodes_name_lower_id on nodes ((lower(name) collate "C"), id)`.execute(db);
  await sql`drop index if exists nodes_name_lower`.execute(db);
  await sql`create index nodes_objectid_lower_id on nodes ((lower(objectid) collate "C"), id)`.execute(db);
  await sql`drop index if exists nodes_objectid_lower`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  if (!isPostgres(db)) return;
  await sql`create index nodes_name_lower on nodes ((lower(name) collate "C"))`.execute(db);
  await sql`drop index if exists nodes_name_lower_id`.execute(db);
  await sql`create index nodes_objectid_lower on nodes ((lower(objectid) collate "C"))`.execute(db);
  await sql`drop index if exists nodes_objectid_lower_id`.execute(db);
}
