/**
 * FROZEN: the graph store (nodes and edges). See src/graph/README.md.
 *
 * nodes  one row per objectid (unique): primary kind, all kinds (JSON array text, primary first),
 *        name, environment id (domain SID / tenant id), properties (JSON object text), source kind,
 *        placeholder flag (0/1) and last seen (BIGINT microseconds).
 * edges  one row per (start_id, kind, end_id): properties (JSON object text) and last seen.
 *        No foreign keys (bulk ingest speed): the writer guarantees both ends exist.
 */
import type { Kysely } from 'kysely';
import { bool, withId } from './portable.ts';

export async function up(db: Kysely<any>): Promise<void> {
  await withId(db, db.schema.createTable('nodes'))
    .addColumn('objectid', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('kinds', 'text', (c) => c.notNull())
    .addColumn('name', 'text')
    .addColumn('environment_id', 'text')
    .addColumn('properties', 'text', (c) => c.notNull().defaultTo('{}'))
    .addColumn('source_kind', 'text')
    .addColumn('is_placeholder', 'integer', bool)
    .addColumn('last_seen', 'bigint', (c) => c.notNull())
    .addUniqueConstraint('nodes_objectid', ['objectid'])
    .execute();
  await db.schema.createIndex('nodes_kind').on('nodes').columns(['kind']).execute();
  await db.schema.createIndex('nodes_environment_kind').on('nodes').columns(['environment_id', 'kind']).execute();

  await withId(db, db.schema.createTable('edges'))
    .addColumn('start_id', 'bigint', (c) => c.notNull())
    .addColumn('end_id', 'bigint', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('properties', 'text', (c) => c.notNull().defaultTo('{}'))
    .addColumn('last_seen', 'bigint', (c) => c.notNull())
    .addUniqueConstraint('edges_start_kind_end', ['start_id', 'kind', 'end_id'])
    .execute();
  await db.schema.createIndex('edges_end_kind_start').on('edges').columns(['end_id', 'kind', 'start_id']).execute();
  await db.schema.createIndex('edges_kind').on('edges').columns(['kind']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('edges').execute();
  await db.schema.dropTable('nodes').execute();
}
