/**
 * FROZEN: substring search over names only (0041 indexed objectids too). A trigram entry per
 * objectid (SIDs, GUIDs: ~40 characters that share most of their trigrams) cost about a third of
 * the FTS work on every node write — 30 µs per node on SQLite — for matches nobody asks for;
 * objectids keep their exact and prefix indexes.
 * SQLite: nodes_search is rebuilt with the name column only (same triggers, name only).
 * PostgreSQL: the trigram index on lower(objectid) is dropped.
 */
import { sql, type Kysely } from 'kysely';
import { isPostgres } from './portable.ts';

export async function up(db: Kysely<any>): Promise<void> {
  if (isPostgres(db)) {
    await sql`drop index if exists nodes_objectid_trgm`.execute(db);
    return;
  }
  for (const trigger of ['nodes_search_insert', 'nodes_search_update', 'nodes_search_delete']) await sql`drop trigger if exists ${sql.id(trigger)}`.execute(db);
  await sql`drop table if exists nodes_search`.execute(db);
  await sql`create virtual table nodes_search using fts5(name, content='', contentless_delete=1, tokenize='trigram')`.execute(db);
  await sql`insert into nodes_search (rowid, name) select id, name from nodes where name is not null`.execute(db);
  await sql`create trigger nodes_search_insert after insert on nodes when new.name is not null
    begin insert into nodes_search (rowid, name) values (new.id, new.name); end`.execute(db);
  await sql`create trigger nodes_search_update after update of name on nodes when old.name is not new.name
    begin
      delete from nodes_search where rowid = old.id;
      insert into nodes_search (rowid, name) select new.id, new.name where new.name is not null;
    end`.execute(db);
  await sql`create trigger nodes_search_delete after delete on nodes
    begin delete from nodes_search where rowid = old.id; end`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  if (isPostgres(db)) {
    const found = await sql<{ schema: string }>`
      select n.nspname as schema from pg_extension e join pg_namespace n on n.oid = e.extnamespace where e.extname = 'pg_trgm'`.execute(db);
    await sql`create index nodes_objectid_trgm on nodes using gin (lower(objectid) ${sql`${sql.id(found.rows[0].schema)}.gin_trgm_ops`})`.execute(db);
    return;
  }
  for (const trigger of ['nodes_search_insert', 'nodes_search_update', 'nodes_search_delete']) await sql`drop trigger if exists ${sql.id(trigger)}`.execute(db);
  await sql`drop table if exists nodes_search`.execute(db);
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
