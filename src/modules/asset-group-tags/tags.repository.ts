/** Kysely functions for tags and selectors; (db | trx) first. */
import { sql, type Kysely, type Transaction } from 'kysely';
import type { Database } from '../../db/database.ts';
import type { Micros } from '../../db/time.ts';
import { applyFilters, defineQuery, type ParsedQuery } from '../../http/query/index.ts';
import type { TagRow } from './tags.tables.ts';

type K = Kysely<Database> | Transaction<Database>;

/** BloodHound's tag filters (its deleted_at / deleted_by are never set in Scent: not filterable). */
export const tagsQuery = defineQuery({
  filters: {
    type: { kind: 'integer', column: 'asset_group_tags.type', predicates: ['eq', 'neq'] },
    name: { kind: 'string', column: 'asset_group_tags.name' },
    description: { kind: 'string', column: 'asset_group_tags.description' },
    glyph: { kind: 'string', column: 'asset_group_tags.glyph', nullable: true },
    created_at: { kind: 'timestamp', column: 'asset_group_tags.created_at' },
    created_by: { kind: 'string', column: 'asset_group_tags.created_by', predicates: ['eq', 'neq'] },
    updated_at: { kind: 'timestamp', column: 'asset_group_tags.updated_at' },
    updated_by: { kind: 'string', column: 'asset_group_tags.updated_by', predicates: ['eq', 'neq'] },
    require_certify: { kind: 'boolean', column: 'asset_group_tags.require_certify', nullable: true },
    analysis_enabled: { kind: 'boolean', column: 'asset_group_tags.analysis_enabled', nullable: true },
  },
  params: { counts: { type: 'boolean', default: false, description: 'add counts (selectors, members) to each tag' } },
});

export async function listTags(db: K, parsed?: ParsedQuery): Promise<TagRow[]> {
  const qb = db.selectFrom('asset_group_tags').selectAll();
  return (parsed ? applyFilters(qb, tagsQuery, parsed) : qb).orderBy('id').execute();
}

/** Members per tag. */
export async function memberCountsByTag(db: K): Promise<Map<number, number>> {
  const rows = await db.selectFrom('asset_group_tag_member_counts')
    .select(['tag_id', (eb) => eb.fn.sum<number>('member_count').as('n')]).groupBy('tag_id').execute();
  return new Map(rows.map((r) => [Number(r.tag_id), Number(r.n)]));
}

/** A user id as that user's email address (BloodHound's GET of one tag or selector); otherwise as is. */
export async function actorEmail(db: K, actor: string): Promise<string> {
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(actor)) return actor;
  const user = await db.selectFrom('users').select('email_address').where('id', '=', actor.toLowerCase()).executeTakeFirst();
  return user?.email_address ?? actor;
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
  analysis_enabled?: number | null;
  glyph?: string | null;
}

export async function insertTag(db: K, values: Required<Pick<TagValues, 'type' | 'name'>> & TagValues, by: string, now: Micros): Promise<TagRow> {
  const row = await db.insertInto('asset_group_tags')
    .values({ description: '', kind_id: 0, analysis_enabled: null, ...values, created_at: now, created_by: by, updated_at: now, updated_by: by })
    .returningAll().executeTakeFirstOrThrow();
  // Scent has no graph-kind table: a tag's kind id is its own id (migration 0020).
  await db.updateTable('asset_group_tags').set({ kind_id: row.id }).where('id', '=', row.id).execute();
  return { ...row, kind_id: row.id };
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
  await db.deleteFrom('asset_group_tag_selector_nodes').where('selector_id', 'in', selectors).execute();
  await db.deleteFrom('asset_group_tag_selector_seeds').where('selector_id', 'in', selectors).execute();
  await db.deleteFrom('asset_group_tag_selectors').where('asset_group_tag_id', '=', id).execute();
  await db.deleteFrom('asset_group_tags').where('id', '=', id).execute();
}
