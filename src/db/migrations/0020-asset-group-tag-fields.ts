/**
 * FROZEN: BloodHound's tag and selector fields, and what each selector selected.
 *
 * asset_group_tags               + kind_id (stands for BloodHound's graph-kind row: Scent has no kind
 *                                table, so it is the tag's own id), + analysis_enabled (0/1/null: tiers
 *                                only, Tier Zero 1); Tier Zero gets glyph `gem`, Owned `skull`
 * asset_group_tag_selectors      + auto_certify (0 off, 1 all members, 2 seeds only), is_default,
 *                                allow_disable, disabled_at (µs) / disabled_by (user id)
 * asset_group_tag_selector_nodes one row per (selector, node) the selector selected, with its source
 *                                (1 seed, 2 child, 3 parent); a tag's members are the union over its
 *                                enabled selectors. Filled here for the selectors that exist already
 *                                (the same derivation as the membership refresh of that time).
 */
import { sql, type Kysely } from 'kysely';

const NODES = 'asset_group_tag_selector_nodes';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('asset_group_tags').addColumn('kind_id', 'bigint', (c) => c.notNull().defaultTo(0)).execute();
  await db.schema.alterTable('asset_group_tags').addColumn('analysis_enabled', 'integer').execute();
  await db.updateTable('asset_group_tags').set({ kind_id: sql`id` }).execute();
  await db.updateTable('asset_group_tags').set({ analysis_enabled: 0 }).where('type', '=', 1).execute();
  await db.updateTable('asset_group_tags').set({ analysis_enabled: 1 }).where('type', '=', 1).where('position', '=', 1).execute();
  await db.updateTable('asset_group_tags').set({ glyph: 'gem' })
    .where('type', '=', 1).where('position', '=', 1).where('glyph', 'is', null).execute();
  await db.updateTable('asset_group_tags').set({ glyph: 'skull' }).where('type', '=', 3).where('glyph', 'is', null).execute();

  const selectors = () => db.schema.alterTable('asset_group_tag_selectors');
  await selectors().addColumn('auto_certify', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  await selectors().addColumn('is_default', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  await selectors().addColumn('allow_disable', 'integer', (c) => c.notNull().defaultTo(1)).execute();
  await selectors().addColumn('disabled_at', 'bigint').execute();
  await selectors().addColumn('disabled_by', 'text').execute();

  await db.schema.createTable(NODES)
    .addColumn('selector_id', 'bigint', (c) => c.notNull().references('asset_group_tag_selectors.id').onDelete('cascade'))
    .addColumn('node_id', 'bigint', (c) => c.notNull())
    .addColumn('source', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint(`${NODES}_pk`, ['selector_id', 'node_id'])
    .execute();
  await db.schema.createIndex(`${NODES}_node`).on(NODES).columns(['node_id', 'selector_id']).execute();

  await sql`
    with recursive
    seed(selector_id, id, expansion) as (
      select s.id, n.id, s.expansion from asset_group_tag_selectors s
      join asset_group_tag_selector_seeds d on d.selector_id = s.id and d.type = 1
      join nodes n on n.objectid = d.value
    ),
    child(selector_id, id) as (
      select selector_id, id from seed where expansion in (1, 2)
      union
      select c.selector_id, case when e.kind = 'MemberOf' then e.start_id else e.end_id end
      from child c join edges e
        on (e.end_id = c.id and e.kind = 'MemberOf') or (e.start_id = c.id and e.kind = 'Contains')
    ),
    parent(selector_id, id) as (
      select selector_id, id from seed where expansion in (1, 3)
      union
      select p.selector_id, case when e.kind = 'MemberOf' then e.end_id else e.start_id end
      from parent p join edges e
        on (e.start_id = p.id and e.kind = 'MemberOf') or (e.end_id = p.id and e.kind = 'Contains')
    )
    insert into ${sql.table(NODES)} (selector_id, node_id, source)
    select selector_id, id, min(source) from (
      select selector_id, id, 1 as source from seed
      union all select selector_id, id, 2 from child
      union all select selector_id, id, 3 from parent
    ) u group by selector_id, id`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable(NODES).execute();
  for (const column of ['disabled_by', 'disabled_at', 'allow_disable', 'is_default', 'auto_certify']) {
    await db.schema.alterTable('asset_group_tag_selectors').dropColumn(column).execute();
  }
  await db.schema.alterTable('asset_group_tags').dropColumn('analysis_enabled').execute();
  await db.schema.alterTable('asset_group_tags').dropColumn('kind_id').execute();
}
