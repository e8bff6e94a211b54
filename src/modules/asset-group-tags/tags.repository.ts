/** Kysely functions for tags and selectors; (db | trx) first. */
import { sql, type Kysely, type Transaction } from 'kysely';
import type { Database } from '../../db/database.ts';
import type { Micros } from '../../db/time.ts';
import type { SelectorRow, TagRow } from './tags.tables.ts';

type K = Kysely<Database> | Transaction<Database>;

export async function listTags(db: K): Promise<TagRow[]> {
  return db.selectFrom('asset_group_tags').selectAll().orderBy('id').execute();
}

export async function findTag(db: K, id: number): Promise<TagRow | undefined> {
  return db.selectFrom('asset_group_tags').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function findTagByName(db: K, name: string): Promise<TagRow | undefined> {
  return db.selectFrom('asset_group_tags').selectAll().where('name', '=', name).executeTakeFirst();
}

export interface TagValues {
  type?: number;
  name?: string;
  description?: string;
  position?: number | null;
  require_certify?: number | null;
  glyph?: string | null;
}

export async function insertTag(db: K, values: Required<Pick<TagValues, 'type' | 'name'>> & TagValues, by: string, now: Micros): Promise<TagRow> {
  return db.insertInto('asset_group_tags')
    .values({ description: '', ...values, created_at: now, created_by: by, updated_at: now, updated_by: by })
    .returningAll().executeTakeFirstOrThrow();
}

export async function updateTag(db: K, id: number, values: TagValues, by: string, now: Micros): Promise<TagRow | undefined> {
  return db.updateTable('asset_group_tags').set({ ...values, updated_at: now, updated_by: by })
    .where('id', '=', id).returningAll().executeTakeFirst();
}

/** Deletes a tag with its selectors (FK cascade), members, counts and index rows. */
export async function deleteTag(db: Transaction<Database>, id: number, sqlite: boolean): Promise<void> {
  if (sqlite) {
    await sql`delete from asset_group_tag_members_fts
      where rowid in (select id from asset_group_tag_members where tag_id = ${id})`.execute(db);
  }
  await db.deleteFrom('asset_group_tag_members').where('tag_id', '=', id).execute();
  await db.deleteFrom('asset_group_tag_member_counts').where('tag_id', '=', id).execute();
  const selectors = db.selectFrom('asset_group_tag_selectors').select('id').where('asset_group_tag_id', '=', id);
  await db.deleteFrom('asset_group_tag_selector_seeds').where('selector_id', 'in', selectors).execute();
  await db.deleteFrom('asset_group_tag_selectors').where('asset_group_tag_id', '=', id).execute();
  await db.deleteFrom('asset_group_tags').where('id', '=', id).execute();
}

export interface SelectorWithSeeds {
  selector: SelectorRow;
  seeds: Array<{ type: number; value: string }>;
}

export async function listSelectors(db: K, tagId: number, selectorId?: number): Promise<SelectorWithSeeds[]> {
  let qb = db.selectFrom('asset_group_tag_selectors').selectAll().where('asset_group_tag_id', '=', tagId);
  if (selectorId !== undefined) qb = qb.where('id', '=', selectorId);
  const selectors = await qb.orderBy('id').execute();
  if (selectors.length === 0) return [];
  const seeds = await db.selectFrom('asset_group_tag_selector_seeds').selectAll()
    .where('selector_id', 'in', selectors.map((s) => s.id)).orderBy('selector_id').orderBy('value').execute();
  return selectors.map((selector) => ({
    selector,
    seeds: seeds.filter((d) => Number(d.selector_id) === selector.id).map((d) => ({ type: d.type, value: d.value })),
  }));
}

export async function insertSelector(
  db: K,
  values: { tagId: number; name: string; description: string; expansion: number; seeds: Array<{ type: number; value: string }> },
  by: string,
  now: Micros,
): Promise<number> {
  const row = await db.insertInto('asset_group_tag_selectors').values({
    asset_group_tag_id: values.tagId, name: values.name, description: values.description, expansion: values.expansion,
    created_at: now, created_by: by, updated_at: now, updated_by: by,
  }).returning('id').executeTakeFirstOrThrow();
  const id = Number(row.id);
  const unique = new Map(values.seeds.map((s) => [`${s.type}\u0000${s.value}`, s]));
  await db.insertInto('asset_group_tag_selector_seeds')
    .values([...unique.values()].map((s) => ({ selector_id: id, type: s.type, value: s.value }))).execute();
  return id;
}

/** Returns whether the selector existed under that tag. */
export async function deleteSelector(db: K, tagId: number, selectorId: number): Promise<boolean> {
  const found = await db.selectFrom('asset_group_tag_selectors').select('id')
    .where('id', '=', selectorId).where('asset_group_tag_id', '=', tagId).executeTakeFirst();
  if (!found) return false;
  await db.deleteFrom('asset_group_tag_selector_seeds').where('selector_id', '=', selectorId).execute();
  await db.deleteFrom('asset_group_tag_selectors').where('id', '=', selectorId).execute();
  return true;
}
