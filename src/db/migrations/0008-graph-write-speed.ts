/**
 * FROZEN: drops edges_kind (kind alone). No query filters edges by kind without an end or start
 * node (those use edges_end_kind_start / the unique start-kind-end index), and keeping it cost
 * about a sixth of the bulk-ingest time per edge.
 */
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('edges_kind').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('edges_kind').on('edges').columns(['kind']).execute();
}
