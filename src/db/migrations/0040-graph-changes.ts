/**
 * FROZEN: the graph change log the graph engine (src/graph/engine/) reads to keep its in-memory
 * copy current without reloading it: inserts are found by id (ids only grow), but a deleted edge,
 * a deleted node, or a node whose kinds or environment changed leaves no such trace, so triggers
 * write one row per such change here.
 *
 * graph_changes         seq (ascending), node_id or edge_id (both null: everything changed, e.g.
 *                       TRUNCATE), at (µs since the epoch; old rows are pruned by the engine)
 * graph_changes_pruned  one row: the highest seq pruned (an engine that has not read that far reloads)
 *
 * SQLite: row triggers (an UPDATE that leaves kinds and environment_id as they were writes nothing).
 * PostgreSQL: statement triggers over transition tables (one INSERT … SELECT per statement).
 */
import { sql, type Kysely } from 'kysely';
import { isPostgres, withId } from './portable.ts';

const NOW_SQLITE = sql`(cast(unixepoch('subsec') * 1000000 as integer))`;
const NOW_PG = sql`((extract(epoch from clock_timestamp()) * 1000000)::bigint)`;

export async function up(db: Kysely<any>): Promise<void> {
  const pg = isPostgres(db);
  await withId(db, db.schema.createTable('graph_changes'))
    .addColumn('node_id', 'bigint')
    .addColumn('edge_id', 'bigint')
    .addColumn('at', 'bigint', (c) => c.notNull().defaultTo(pg ? NOW_PG : NOW_SQLITE))
    .execute();
  await db.schema.createIndex('graph_changes_at').on('graph_changes').column('at').execute();
  await db.schema.createTable('graph_changes_pruned')
    .addColumn('id', 'integer', (c) => c.primaryKey())
    .addColumn('upto', 'bigint', (c) => c.notNull())
    .execute();
  await db.insertInto('graph_changes_pruned').values({ id: 1, upto: 0 }).execute();

  if (!pg) {
    await sql`create trigger graph_changes_edge_delete after delete on edges
      begin insert into graph_changes (edge_id) values (old.id); end`.execute(db);
    await sql`create trigger graph_changes_edge_update after update of start_id, end_id, kind on edges
      when old.start_id is not new.start_id or old.end_id is not new.end_id or old.kind is not new.kind
      begin insert into graph_changes (edge_id) values (old.id); end`.execute(db);
    await sql`create trigger graph_changes_node_update after update of kinds, environment_id on nodes
      when old.kinds is not new.kinds or old.environment_id is not new.environment_id
      begin insert into graph_changes (node_id) values (new.id); end`.execute(db);
    await sql`create trigger graph_changes_node_delete after delete on nodes
      begin insert into graph_changes (node_id) values (old.id); end`.execute(db);
    return;
  }
  await sql`create function scent_graph_edges_deleted() returns trigger language plpgsql as $$
    begin insert into graph_changes (edge_id) select id from old_rows; return null; end $$`.execute(db);
  await sql`create function scent_graph_edges_updated() returns trigger language plpgsql as $$
    begin
      insert into graph_changes (edge_id) select o.id from old_rows o join new_rows n on n.id = o.id
      where o.start_id <> n.start_id or o.end_id <> n.end_id or o.kind <> n.kind;
      return null;
    end $$`.execute(db);
  await sql`create function scent_graph_nodes_updated() returns trigger language plpgsql as $$
    begin
      insert into graph_changes (node_id) select n.id from old_rows o join new_rows n on n.id = o.id
      where o.kinds is distinct from n.kinds or o.environment_id is distinct from n.environment_id;
      return null;
    end $$`.execute(db);
  await sql`create function scent_graph_nodes_deleted() returns trigger language plpgsql as $$
    begin insert into graph_changes (node_id) select id from old_rows; return null; end $$`.execute(db);
  await sql`create function scent_graph_truncated() returns trigger language plpgsql as $$
    begin insert into graph_changes (node_id, edge_id) values (null, null); return null; end $$`.execute(db);
  await sql`create trigger graph_changes_edge_delete after delete on edges referencing old table as old_rows
    for each statement execute function scent_graph_edges_deleted()`.execute(db);
  await sql`create trigger graph_changes_edge_update after update on edges referencing old table as old_rows new table as new_rows
    for each statement execute function scent_graph_edges_updated()`.execute(db);
  await sql`create trigger graph_changes_node_update after update on nodes referencing old table as old_rows new table as new_rows
    for each statement execute function scent_graph_nodes_updated()`.execute(db);
  await sql`create trigger graph_changes_node_delete after delete on nodes referencing old table as old_rows
    for each statement execute function scent_graph_nodes_deleted()`.execute(db);
  for (const table of ['nodes', 'edges']) {
    await sql`create trigger ${sql.id(`graph_changes_${table}_truncate`)} after truncate on ${sql.id(table)}
      for each statement execute function scent_graph_truncated()`.execute(db);
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  if (isPostgres(db)) {
    for (const [trigger, table] of [['graph_changes_edge_delete', 'edges'], ['graph_changes_edge_update', 'edges'], ['graph_changes_node_update', 'nodes'],
      ['graph_changes_node_delete', 'nodes'], ['graph_changes_nodes_truncate', 'nodes'], ['graph_changes_edges_truncate', 'edges']]) {
      await sql`drop trigger if exists ${sql.id(trigger)} on ${sql.id(table)}`.execute(db);
    }
    for (const fn of ['scent_graph_edges_deleted', 'scent_graph_edges_updated', 'scent_graph_nodes_updated', 'scent_graph_nodes_deleted', 'scent_graph_truncated']) {
      await sql`drop function if exists ${sql.id(fn)}()`.execute(db);
    }
  } else {
    for (const trigger of ['graph_changes_edge_delete', 'graph_changes_edge_update', 'graph_changes_node_update', 'graph_changes_node_delete']) {
      await sql`drop trigger if exists ${sql.id(trigger)}`.execute(db);
    }
  }
  await db.schema.dropTable('graph_changes_pruned').execute();
  await db.schema.dropTable('graph_changes').execute();
}
