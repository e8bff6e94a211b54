/** Kysely functions for selectors, their seeds and what they selected; (db | trx) first. */
import { sql, type Kysely, type Transaction } from 'kysely';
import type { Database } from '../../db/database.ts';
import type { Micros } from '../../db/time.ts';
import { applyFilters, applyPaging, applySort, defineQuery, type ParsedQuery } from '../../http/query/index.ts';
import type { Seed } from './selectors.schema.ts';
import type { SelectorRow } from './tags.tables.ts';

type K = Kysely<Database> | Transaction<Database>;

const environments = { type: 'string[]', description: 'environment ids (domain SID / tenant id); repeatable' } as const;

/** BloodHound's selector filters (and the seeds' `type`), sort columns and paging. */
export const selectorsQuery = defineQuery({
  filters: {
    auto_certify: { kind: 'integer', column: 's.auto_certify', predicates: ['eq', 'neq'] },
    created_at: { kind: 'timestamp', column: 's.created_at' },
    created_by: { kind: 'string', column: 's.created_by', predicates: ['eq', 'neq'] },
    description: { kind: 'string', column: 's.description' },
    disabled_at: { kind: 'timestamp', column: 's.disabled_at', nullable: true },
    disabled_by: { kind: 'string', column: 's.disabled_by', predicates: ['eq', 'neq'], nullable: true },
    is_default: { kind: 'boolean', column: 's.is_default' },
    name: { kind: 'string', column: 's.name' },
    updated_at: { kind: 'timestamp', column: 's.updated_at' },
    updated_by: { kind: 'string', column: 's.updated_by', predicates: ['eq', 'neq'] },
    type: { kind: 'integer', column: 's.seed_type', predicates: ['eq', 'neq'] },
  },
  sortable: { id: 's.id', name: 's.name', created_at: 's.created_at' },
  defaultSort: [{ column: 'id' }],
  tieBreaker: 's.id',
  paging: { defaultLimit: 50 },
  params: {
    counts: { type: 'boolean', default: false, description: 'add counts.members to each selector' },
    environments,
  },
});

/** The members a selector selected: sortable as the tag's members, no column filters (as BloodHound). */
export const selectorMembersQuery = defineQuery({
  sortable: { id: 'm.node_id', objectid: 'm.objectid', name: 'm.name' },
  defaultSort: [{ column: 'id' }],
  tieBreaker: 'm.node_id',
  paging: { defaultLimit: 50 },
  params: { environments },
});

/** The tag's selectors with their seeds' type as a column (for the `type` filter). */
function selectorTable(db: K, tagId: number) {
  return db.selectFrom((eb) => eb.selectFrom('asset_group_tag_selectors as t').selectAll('t')
    .select(sql<number>`(select min(d.type) from asset_group_tag_selector_seeds d where d.selector_id = t.id)`.as('seed_type'))
    .where('t.asset_group_tag_id', '=', tagId)
    .as('s'));
}

export async function selectorPage(db: K, tagId: number, parsed: ParsedQuery): Promise<{ count: number; rows: SelectorRow[] }> {
  const filtered = applyFilters(selectorTable(db, tagId), selectorsQuery, parsed);
  const total = await filtered.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  const rows = await applyPaging(applySort(filtered.selectAll('s'), selectorsQuery, parsed), parsed).execute();
  return { count: Number(total.n), rows: rows.map(({ seed_type: _, ...row }) => row as SelectorRow) };
}

export async function findSelector(db: K, id: number): Promise<SelectorRow | undefined> {
  return db.selectFrom('asset_group_tag_selectors').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Seeds per selector id. */
export async function seedsOf(db: K, selectorIds: number[]): Promise<Map<number, Seed[]>> {
  const out = new Map<number, Seed[]>(selectorIds.map((id) => [id, []]));
  if (selectorIds.length === 0) return out;
  const rows = await db.selectFrom('asset_group_tag_selector_seeds').selectAll()
    .where('selector_id', 'in', selectorIds).orderBy('selector_id').orderBy('type').orderBy('value').execute();
  for (const r of rows) out.get(Number(r.selector_id))?.push({ type: r.type, value: r.value });
  return out;
}

/** Selected nodes per selector (only those in `environments`, when given); disabled selectors have none. */
export async function selectorMemberCounts(db: K, tagId: number, selectorIds: number[], envs?: string[]): Promise<Map<number, number>> {
  const out = new Map<number, number>(selectorIds.map((id) => [id, 0]));
  if (selectorIds.length === 0) return out;
  let qb = db.selectFrom('asset_group_tag_selector_nodes as sn')
    .select(['sn.selector_id', (eb) => eb.fn.countAll<number>().as('n')])
    .where('sn.selector_id', 'in', selectorIds)
    .groupBy('sn.selector_id');
  if (envs) {
    qb = qb.innerJoin('asset_group_tag_members as m', (j) => j.on('m.tag_id', '=', tagId).onRef('m.node_id', '=', 'sn.node_id'))
      .where('m.environment_id', 'in', envs);
  }
  for (const r of await qb.execute()) out.set(Number(r.selector_id), Number(r.n));
  return out;
}

export interface SelectorCounts { selectors: number; custom_selectors: number; default_selectors: number; disabled_selectors: number }

/** Per tag: its selectors, and of them the custom (not default), default and disabled ones. */
export async function selectorCountsByTag(db: K): Promise<Map<number, SelectorCounts>> {
  const rows = await db.selectFrom('asset_group_tag_selectors')
    .select((eb) => [
      'asset_group_tag_id',
      eb.fn.countAll<number>().as('n'),
      eb.fn.sum<number>('is_default').as('defaults'),
      eb.fn.count<number>('disabled_at').as('disabled'),
    ])
    .groupBy('asset_group_tag_id').execute();
  return new Map(rows.map((r) => [Number(r.asset_group_tag_id), {
    selectors: Number(r.n),
    custom_selectors: Number(r.n) - Number(r.defaults ?? 0),
    default_selectors: Number(r.defaults ?? 0),
    disabled_selectors: Number(r.disabled),
  }]));
}

export async function selectorNameTaken(db: K, tagId: number, name: string, exceptId?: number): Promise<boolean> {
  let qb = db.selectFrom('asset_group_tag_selectors').select('id').where('asset_group_tag_id', '=', tagId).where('name', '=', name);
  if (exceptId !== undefined) qb = qb.where('id', '<>', exceptId);
  return (await qb.executeTakeFirst()) !== undefined;
}

async function writeSeeds(db: K, selectorId: number, seeds: Seed[]): Promise<void> {
  const unique = new Map(seeds.map((s) => [`${s.type}\u0000${s.value}`, s]));
  await db.insertInto('asset_group_tag_selector_seeds')
    .values([...unique.values()].map((s) => ({ selector_id: selectorId, type: s.type, value: s.value }))).execute();
}

export interface NewSelector {
  tagId: number;
  name: string;
  description: string;
  expansion: number;
  autoCertify: number;
  seeds: Seed[];
}

export async function insertSelector(db: K, v: NewSelector, by: string, now: Micros): Promise<number> {
  const row = await db.insertInto('asset_group_tag_selectors').values({
    asset_group_tag_id: v.tagId, name: v.name, description: v.description, expansion: v.expansion, auto_certify: v.autoCertify,
    disabled_at: null, disabled_by: null, created_at: now, created_by: by, updated_at: now, updated_by: by,
  }).returning('id').executeTakeFirstOrThrow();
  const id = Number(row.id);
  await writeSeeds(db, id, v.seeds);
  return id;
}

export interface SelectorChanges {
  name?: string;
  description?: string;
  expansion?: number;
  auto_certify?: number;
  disabled_at?: Micros | null;
  disabled_by?: string | null;
}

export async function updateSelector(db: K, id: number, changes: SelectorChanges, seeds: Seed[] | undefined, by: string, now: Micros) {
  await db.updateTable('asset_group_tag_selectors').set({ ...changes, updated_at: now, updated_by: by }).where('id', '=', id).execute();
  if (seeds) {
    await db.deleteFrom('asset_group_tag_selector_seeds').where('selector_id', '=', id).execute();
    await writeSeeds(db, id, seeds);
  }
}

export async function deleteSelector(db: K, id: number): Promise<void> {
  await db.deleteFrom('asset_group_tag_selector_nodes').where('selector_id', '=', id).execute();
  await db.deleteFrom('asset_group_tag_selector_seeds').where('selector_id', '=', id).execute();
  await db.deleteFrom('asset_group_tag_selectors').where('id', '=', id).execute();
}

/** The tag's selectors that selected the node, by id. */
export async function selectorsOfNode(db: K, tagId: number, nodeId: number): Promise<SelectorRow[]> {
  return db.selectFrom('asset_group_tag_selector_nodes as sn')
    .innerJoin('asset_group_tag_selectors as s', 's.id', 'sn.selector_id')
    .selectAll('s')
    .where('sn.node_id', '=', nodeId).where('s.asset_group_tag_id', '=', tagId)
    .orderBy('s.id').execute();
}

export interface SelectedRow {
  node_id: number;
  objectid: string;
  name: string;
  primary_kind: string;
  environment_id: string | null;
  source: number;
  properties: string;
}

/** A page of the nodes a selector selected (the tag's member rows, with the selector's own source). */
export async function selectedPage(db: K, tagId: number, selectorId: number, parsed: ParsedQuery, envs?: string[]) {
  let base = db.selectFrom('asset_group_tag_selector_nodes as sn')
    .innerJoin('asset_group_tag_members as m', (j) => j.on('m.tag_id', '=', tagId).onRef('m.node_id', '=', 'sn.node_id'))
    .where('sn.selector_id', '=', selectorId);
  if (envs) base = base.where('m.environment_id', 'in', envs);
  const total = await base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  const rows = await applyPaging(applySort(
    base.innerJoin('nodes as n', 'n.id', 'sn.node_id')
      .select(['m.node_id', 'm.objectid', 'm.name', 'm.primary_kind', 'm.environment_id', 'sn.source', 'n.properties']),
    selectorMembersQuery, parsed), parsed).execute();
  return { count: Number(total.n), rows: rows as SelectedRow[] };
}

/** The members a selector selected, per primary kind (the `environments` domain SIDs / tenant ids when given). */
export async function selectedCounts(db: K, tagId: number, selectorId: number, envs?: string[]) {
  let base = db.selectFrom('asset_group_tag_selector_nodes as sn')
    .innerJoin('asset_group_tag_members as m', (j) => j.on('m.tag_id', '=', tagId).onRef('m.node_id', '=', 'sn.node_id'))
    .where('sn.selector_id', '=', selectorId);
  if (envs) base = base.where('m.environment_id', 'in', envs);
  return base.select(['m.primary_kind', (eb) => eb.fn.countAll<number>().as('count')]).groupBy('m.primary_kind').orderBy('m.primary_kind').execute();
}
