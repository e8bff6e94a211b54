/**
 * FROZEN: the nodes each asset group tag selector's Cypher seeds (seed type 2) returned at the last
 * membership refresh; the membership statement expands them like object-id seeds.
 */
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createTable('asset_group_tag_selector_cypher_nodes')
    .addColumn('selector_id', 'bigint', (c) => c.notNull().references('asset_group_tag_selectors.id').onDelete('cascade'))
    .addColumn('node_id', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('asset_group_tag_selector_cypher_nodes_pk', ['selector_id', 'node_id'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('asset_group_tag_selector_cypher_nodes').execute();
}
