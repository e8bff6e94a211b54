/**
 * FROZEN: indexes for GET /api/v2/search and /graph-search (case-insensitive exact, prefix and
 * substring matches on nodes.name and nodes.objectid, never a full scan).
 *
 * PostgreSQL: btree on lower(name) / lower(objectid) in "C" collation (exact, prefix ranges, ordered
 * scans) and GIN trigram indexes on the same expressions (substrings of 3+ characters).
 * SQLite: `name COLLATE NOCASE` / `objectid COLLATE NOCASE` (exact, prefix ranges, ordered scans;
 * ASCII case folding) and `nodes_search`, a contentless FTS5 trigram table over name and objectid
 * (rowid = nodes.id) kept by triggers. No index expression calls lower(): the application's
 * connection redefines it (Unicode-aware) and other connections must see the same index.
 */
import { sql, type Kysely } from 'kysely';
import { isPostgres } from './portable.ts';

export async function up(db: Kysely<any>): Promise<void> {
  if (isPostgres(db)) {
    await sql`create index nodes_name_lower on nodes ((lower(name) collate "C"))`.execute(db);
    await sql`create index nodes_objectid_lower on nodes ((lower(objectid) collate "C"))`.execute(db);
    const found = await sql<{ schema: string }>`
      select n.nspname as schema from pg_extension e join pg_namespace n on n.oid = e.extnamespace where e.extname = 'pg_trgm'`.execute(db);
    const ops = sql`${sql.id(found.rows[0].schema)}.gin_trgm_ops`;
    await sql`create index nodes_name_trgm on nodes using gin (lower(name) ${ops})`.execute(db);
    await sql`create index nodes_objectid_trgm on nodes using gin (lower(objectid) ${ops})`.execute(db);
    return;
  }
  await sql`create index nodes_name_nocase on nodes (name collate nocase)`.execute(db);
  await sql`create index nodes_objectid_nocase on nodes (objectid collate nocase)`.execute(db);
  await sql`create virtual table nodes_search using fts5(name, objectid, content='', contentless_delete=1, tokenize='trigram')`.execute(db);
  await sql`insert into nodes_search (rowid, name, objectid) select id, name, objectid from nodes`.execute(db);
  await sql`create trigger nodes_search_insert after insert on nodes
    begin insert into nodes_search (rowid, name, objectid) values (new.id, new.name, new.objectid); end`.execute(db);
  await sql`create trigger nodes_search_update after update of name, objectid on nodes
    when old.name is not new.name or old.objectid is not new.objectid
    begin
      delete from nodes_search where rowid = old.id;
      insert into nodes_search (rowid, name, objectid) values (new.id, new.name, new.objectid);
    end`.execute(db);
  await sql`create trigger nodes_search_delete after delete on nodes
    begin delete from nodes_search where rowid = old.id; end`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  if (isPostgres(db)) {
    for (const index of ['nodes_name_lower', 'nodes_objectid_lower', 'nodes_name_trgm', 'nodes_objectid_trgm']) {
      await sql`drop index if exists ${sql.id(index)}`.execute(db);
    }
    return;
  }
  for (const trigger of ['nodes_search_insert', 'nodes_search_update', 'nodes_search_delete']) await sql`drop trigger if exists ${sql.id(trigger)}`.execute(db);
  await sql`drop table if exists nodes_search`.execute(db);
  await sql`drop index if exists nodes_name_nocase`.execute(db);
  await sql`drop index if exists nodes_objectid_nocase`.execute(db);
}
