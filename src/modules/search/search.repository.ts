/**
 * Node search by name and objectid, case-insensitive, in ranked phases each answered by an index
 * (migration 0041) and read only as far as the page needs:
 *   1 exact name or objectid   2 name prefix   3 objectid prefix   4 substring of the name (3+ characters)
 * Within a phase: by name (objectid for phase 3), then node id. SQLite folds ASCII case in the
 * first three phases (NOCASE), Unicode case in the fourth; PostgreSQL folds with lower() throughout.
 */
import { sql, type Expression, type SqlBool } from 'kysely';
import type { Db } from '../../db/create-db.ts';

export interface SearchRow {
  id: number;
  objectid: string;
  name: string | null;
  kind: string;
  properties: string;
}

/** Which nodes a search may return: stored kinds (any place in `kinds`) or tag ids (Tag_* kinds). */
export interface KindFilter {
  kinds: string[];
  tagIds: number[];
}

const TOP = '\u{10FFFF}';
const escapeLike = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

/** Local groups that are not also Groups are never listed (as BloodHound). */
const NOT_LOCAL_ONLY = sql<SqlBool>`not (kinds like '%"ADLocalGroup"%' and kinds not like '%"Group"%')`;

function kindCondition(filter: KindFilter | null): Expression<SqlBool> {
  if (!filter) return NOT_LOCAL_ONLY;
  // Kind names are [A-Za-z0-9_]+, so '%"Kind"%' is an exact test of one JSON array element.
  const parts = filter.kinds.map((k) => sql`kinds like ${`%"${k}"%`}`);
  if (filter.tagIds.length) parts.push(sql`id in (select node_id from asset_group_tag_members where tag_id in (${sql.join(filter.tagIds)}))`);
  return parts.length ? sql<SqlBool>`(${sql.join(parts, sql` or `)}) and ${NOT_LOCAL_ONLY}` : sql<SqlBool>`1 = 0`;
}

interface Fold {
  eq: (column: 'name' | 'objectid', value: string) => Expression<SqlBool>;
  prefix: (column: 'name' | 'objectid', value: string) => Expression<SqlBool>;
  contains: (value: string) => Expression<SqlBool>;
  order: (column: 'name' | 'objectid') => Expression<unknown>;
}

const col = (c: 'name' | 'objectid') => sql.ref(c);

const SQLITE: Fold = {
  eq: (c, v) => sql<SqlBool>`${col(c)} = ${v} collate nocase`,
  prefix: (c, v) => sql<SqlBool>`(${col(c)} >= ${v} collate nocase and ${col(c)} < ${v + TOP} collate nocase)`,
  contains: (v) => sql<SqlBool>`(id in (select rowid from nodes_search where nodes_search match ${`"${v.replaceAll('"', '""')}"`})
    and instr(lower(name), ${v.toLowerCase()}) > 0)`,
  order: (c) => sql`${col(c)} collate nocase`,
};

const POSTGRES: Fold = {
  eq: (c, v) => sql<SqlBool>`lower(${col(c)}) collate "C" = ${v.toLowerCase()}`,
  prefix: (c, v) => sql<SqlBool>`(lower(${col(c)}) collate "C" >= ${v.toLowerCase()} and lower(${col(c)}) collate "C" < ${v.toLowerCase() + TOP})`,
  contains: (v) => sql<SqlBool>`lower(name) like ${`%${escapeLike(v.toLowerCase())}%`}`,
  order: (c) => sql`lower(${col(c)}) collate "C"`,
};

/** Substring search needs this many characters (trigram indexes). */
export const MIN_SUBSTRING = 3;

/**
 * The ranked phases of a search, each a list of queries (every one reads at most `limit` rows
 * through an index; the exact phase is two equality lookups, merged and ordered here).
 */
export function searchPhases(db: Db, q: string, filter: KindFilter | null) {
  const f = db.dialect === 'postgres' ? POSTGRES : SQLITE;
  const kinds = kindCondition(filter);
  const nameEq = f.eq('name', q);
  const idEq = f.eq('objectid', q);
  const exact = sql<SqlBool>`(${nameEq} or ${idEq})`;
  const namePrefix = f.prefix('name', q);
  const idPrefix = f.prefix('objectid', q);
  const query = (where: Expression<SqlBool>, order: 'name' | 'objectid' | null) => (limit: number) => {
    let qb = db.kysely.selectFrom('nodes').select(['id', 'objectid', 'name', 'kind', 'properties']).where(where).where(kinds);
    if (order) qb = qb.orderBy(f.order(order)).orderBy('id');
    return qb.limit(limit);
  };
  const phases = [
    [query(nameEq, null), query(sql<SqlBool>`${idEq} and not ${nameEq}`, null)],
    [query(sql<SqlBool>`${namePrefix} and not ${exact}`, 'name')],
    [query(sql<SqlBool>`${idPrefix} and not ${namePrefix} and not ${exact}`, 'objectid')],
  ];
  if ([...q].length >= MIN_SUBSTRING) {
    phases.push([query(sql<SqlBool>`${f.contains(q)} and not ${idPrefix} and not ${namePrefix} and not ${exact}`, 'name')]);
  }
  return phases;
}

const byName = (a: SearchRow, b: SearchRow) => {
  const x = (a.name ?? '').toLowerCase();
  const y = (b.name ?? '').toLowerCase();
  return x < y ? -1 : x > y ? 1 : a.id - b.id;
};

/** Up to `need` rows of the ranked matches (the caller slices its page). */
export async function searchNodes(db: Db, q: string, filter: KindFilter | null, need: number): Promise<SearchRow[]> {
  const out: SearchRow[] = [];
  for (const phase of searchPhases(db, q, filter)) {
    if (out.length >= need) break;
    const rows: SearchRow[] = [];
    for (const query of phase) for (const r of await query(need - out.length).execute()) rows.push({ ...r, id: Number(r.id) });
    if (phase.length > 1) rows.sort(byName);
    out.push(...rows.slice(0, need - out.length));
  }
  return out;
}

/** graph-search: queries for node ids whose name / objectid equals (`exact`) or starts with the value, at most `max` + 1 each. */
export function graphSearchQueries(db: Db, value: string, exact: boolean, max: number) {
  const f = db.dialect === 'postgres' ? POSTGRES : SQLITE;
  return (['name', 'objectid'] as const).map((c) =>
    db.kysely.selectFrom('nodes').select('id').where(exact ? f.eq(c, value) : f.prefix(c, value)).limit(max + 1));
}

export async function graphSearchIds(db: Db, value: string, exact: boolean, max: number): Promise<number[]> {
  const ids = new Set<number>();
  for (const q of graphSearchQueries(db, value, exact, max)) for (const r of await q.execute()) ids.add(Number(r.id));
  return [...ids].sort((a, b) => a - b);
}
