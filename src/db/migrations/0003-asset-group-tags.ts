/**
 * FROZEN: asset group tags, their selectors, and the materialised membership.
 *
 * asset_group_tags               tags (type 1 tier, 2 label, 3 owned); "Tier Zero" and "Owned" seeded
 * asset_group_tag_selectors      a tag's selectors: name, expansion (0 none, 1 all, 2 child, 3 parent)
 * asset_group_tag_selector_seeds a selector's seeds (type 1 = object id, value = objectid)
 * asset_group_tag_members        one row per (tag, node): source (1 seed, 2 child, 3 parent), the node's
 *                                objectid / display name / primary kind / environment copied at refresh,
 *                                and `ord` = 0-based position in node-id order (O(log n) deep pages)
 * asset_group_tag_member_counts  members per (tag, primary kind), written with the membership
 * graph_generation               one row; bumped whenever the graph or the membership is re-derived
 *
 * `~eq` on name / objectid: PostgreSQL GIN trigram indexes (pg_trgm) on lower(name), lower(objectid);
 * SQLite a contentless FTS5 trigram table over the lower-cased values, rowid = members.id.
 */
import { sql, type Kysely } from 'kysely';
import { isPostgres, withId } from './portable.ts';

const MEMBERS = 'asset_group_tag_members';

export async function up(db: Kysely<any>): Promise<void> {
  await withId(db, db.schema.createTable('asset_group_tags'))
    .addColumn('type', 'integer', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('position', 'integer')
    .addColumn('require_certify', 'integer')
    .addColumn('glyph', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('created_by', 'text', (c) => c.notNull().defaultTo('SYSTEM'))
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_by', 'text', (c) => c.notNull().defaultTo('SYSTEM'))
    .addUniqueConstraint('asset_group_tags_name', ['name'])
    .execute();

  await withId(db, db.schema.createTable('asset_group_tag_selectors'))
    .addColumn('asset_group_tag_id', 'bigint', (c) => c.notNull().references('asset_group_tags.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('expansion', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('created_by', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_by', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('asset_group_tag_selectors_tag').on('asset_group_tag_selectors')
    .columns(['asset_group_tag_id']).execute();

  await db.schema.createTable('asset_group_tag_selector_seeds')
    .addColumn('selector_id', 'bigint', (c) => c.notNull().references('asset_group_tag_selectors.id').onDelete('cascade'))
    .addColumn('type', 'integer', (c) => c.notNull())
    .addColumn('value', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('asset_group_tag_selector_seeds_pk', ['selector_id', 'type', 'value'])
    .execute();

  await withId(db, db.schema.createTable(MEMBERS))
    .addColumn('tag_id', 'bigint', (c) => c.notNull())
    .addColumn('node_id', 'bigint', (c) => c.notNull())
    .addColumn('source', 'integer', (c) => c.notNull())
    .addColumn('objectid', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('primary_kind', 'text', (c) => c.notNull())
    .addColumn('environment_id', 'text')
    .addColumn('ord', 'bigint', (c) => c.notNull())
    .addUniqueConstraint('asset_group_tag_members_tag_node', ['tag_id', 'node_id'])
    .execute();
  const index = (name: string, columns: string[]) =>
    db.schema.createIndex(`${MEMBERS}_${name}`).on(MEMBERS).columns(columns).execute();
  await index('tag_ord', ['tag_id', 'ord']);
  await index('tag_name', ['tag_id', 'name', 'node_id']);
  await index('tag_objectid', ['tag_id', 'objectid']);
  await index('tag_kind', ['tag_id', 'primary_kind']);
  await index('tag_environment', ['tag_id', 'environment_id']);

  await db.schema.createTable('asset_group_tag_member_counts')
    .addColumn('tag_id', 'bigint', (c) => c.notNull())
    .addColumn('primary_kind', 'text', (c) => c.notNull())
    .addColumn('member_count', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('asset_group_tag_member_counts_pk', ['tag_id', 'primary_kind'])
    .execute();

  await db.schema.createTable('graph_generation')
    .addColumn('id', 'integer', (c) => c.primaryKey())
    .addColumn('generation', 'bigint', (c) => c.notNull())
    .execute();
  await db.insertInto('graph_generation').values({ id: 1, generation: 0 }).execute();

  if (isPostgres(db)) {
    // Trusted extension (PostgreSQL 13+): any user with CREATE on the database may install it. The
    // advisory lock serialises concurrent migrations of several schemas of one database.
    await sql`select pg_advisory_xact_lock(720339101)`.execute(db);
    await sql`create extension if not exists pg_trgm with schema public`.execute(db);
    const found = await sql<{ schema: string }>`
      select n.nspname as schema from pg_extension e join pg_namespace n on n.oid = e.extnamespace
      where e.extname = 'pg_trgm'`.execute(db);
    const ops = sql`${sql.id(found.rows[0].schema)}.gin_trgm_ops`;
    await sql`create index asset_group_tag_members_name_trgm on ${sql.table(MEMBERS)} using gin (lower(name) ${ops})`.execute(db);
    await sql`create index asset_group_tag_members_objectid_trgm on ${sql.table(MEMBERS)} using gin (lower(objectid) ${ops})`.execute(db);
  } else {
    await sql`create virtual table asset_group_tag_members_fts using fts5(
      name, objectid, content='', contentless_delete=1, tokenize='trigram')`.execute(db);
  }

  const now = Date.now() * 1000;
  await db.insertInto('asset_group_tags').values([
    { type: 1, name: 'Tier Zero', description: 'Tier Zero', position: 1, require_certify: 0, created_at: now, updated_at: now },
    { type: 3, name: 'Owned', description: 'Owned', position: null, require_certify: null, created_at: now, updated_at: now },
  ]).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  if (!isPostgres(db)) await sql`drop table asset_group_tag_members_fts`.execute(db);
  await db.schema.dropTable('graph_generation').execute();
  await db.schema.dropTable('asset_group_tag_member_counts').execute();
  await db.schema.dropTable(MEMBERS).execute();
  await db.schema.dropTable('asset_group_tag_selector_seeds').execute();
  await db.schema.dropTable('asset_group_tag_selectors').execute();
  await db.schema.dropTable('asset_group_tags').execute();
}
