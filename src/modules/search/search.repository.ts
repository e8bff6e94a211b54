/**
 * Node search by name and objectid, case-insensitive, in ranked phases each answered by an index
 * (migration 0041) and read only as far as the page needs:
 *   1 exact name or objectid   2 name prefix   3 objectid prefix   4 substring of the name (3+ characters)
 * Within a phase: by name (objectid for phase 3), then node id. SQLite folds ASCII case in the
 * first three phases (NOCASE), Unicode case in the fourth; PostgreSQL folds with lower() throughout.
 * Phases 1–3 (index lookups of at most `limit` rows each) go as one statement; the substring phase
 * only runs when they do not fill the page. On PostgreSQL its trigram index is asked for the rarest
 * few 3-character pieces of the text (estimated from a sample of names), and the whole text is then
 * tested on the rows found: a common piece (`use` in a million `USER…` names) has a posting list
 * of hundreds of thousands of entries, read whole by the index scan (5–20 ms against 0.1 ms).
 */
import { sql, type Expression, type SqlBool } from 'kysely';
import type { Db } from '../../db/create-db.ts';
import { requestScope } from '../../db/deadline.ts';

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
  /** `pieces`: 3-character pieces of the value for the index to look up (PostgreSQL), else the value's own. */
  contains: (value: string, pieces?: readonly string[]) => Expression<SqlBool>;
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
  contains: (v, pieces) => {
    const lower = v.toLowerCase();
    if (!pieces?.length) return sql<SqlBool>`lower(name) like ${`%${escapeLike(lower)}%`}`;
    // The pieces are what the trigram index reads; strpos (not indexable) tests the whole text on what it finds.
    const indexed = pieces.map((p) => sql<SqlBool>`lower(name) like ${`%${p}%`}`);
    return sql<SqlBool>`(${sql.join(indexed, sql` and `)} and strpos(lower(name), ${lower}) > 0)`;
  },
  order: (c) => sql`lower(${col(c)}) collate "C"`,
};

/** Substring search needs this many characters (trigram indexes). */
export const MIN_SUBSTRING = 3;

interface PhaseQuery {
  where: Expression<SqlBool>;
  /** The phase's order (then node id); null: the caller orders (the exact phase). */
  order: 'name' | 'objectid' | null;
}

function phaseQueries(db: Db, q: string, pieces?: readonly string[]): PhaseQuery[][] {
  const f = db.dialect === 'postgres' ? POSTGRES : SQLITE;
  const nameEq = f.eq('name', q);
  const idEq = f.eq('objectid', q);
  const exact = sql<SqlBool>`(${nameEq} or ${idEq})`;
  const namePrefix = f.prefix('name', q);
  const idPrefix = f.prefix('objectid', q);
  const phases: PhaseQuery[][] = [
    [{ where: nameEq, order: null }, { where: sql<SqlBool>`${idEq} and not ${nameEq}`, order: null }],
    [{ where: sql<SqlBool>`${namePrefix} and not ${exact}`, order: 'name' }],
    [{ where: sql<SqlBool>`${idPrefix} and not ${namePrefix} and not ${exact}`, order: 'objectid' }],
  ];
  if ([...q].length >= MIN_SUBSTRING) {
    phases.push([{ where: sql<SqlBool>`${f.contains(q, pieces)} and not ${idPrefix} and not ${namePrefix} and not ${exact}`, order: 'name' }]);
  }
  return phases;
}

function phaseQuery(db: Db, filter: KindFilter | null, { where, order }: PhaseQuery, limit: number) {
  const f = db.dialect === 'postgres' ? POSTGRES : SQLITE;
  let qb = db.kysely.selectFrom('nodes').select(['id', 'objectid', 'name', 'kind', 'properties']).where(where).where(kindCondition(filter));
  if (order) qb = qb.orderBy(f.order(order)).orderBy('id');
  return qb.limit(limit);
}

/**
 * The ranked phases of a search, each a list of queries (every one reads at most `limit` rows
 * through an index; the exact phase is two equality lookups, merged and ordered here). `pieces`:
 * the substring phase's index terms (see rarePieces; PostgreSQL only).
 */
export function searchPhases(db: Db, q: string, filter: KindFilter | null, pieces?: readonly string[]) {
  return phaseQueries(db, q, pieces).map((phase) => phase.map((p) => (limit: number) => phaseQuery(db, filter, p, limit)));
}

/**
 * The first three phases as one statement (one round trip): each query a sub-select with its own
 * order and limit, its rows tagged with its place in the list (`part`) and their rank in its order
 * (`rank`, by the same order over its at most `limit` rows); `union all` keeps them apart.
 */
export function indexedPhasesQuery(db: Db, q: string, filter: KindFilter | null, limit: number) {
  const f = db.dialect === 'postgres' ? POSTGRES : SQLITE;
  const parts = phaseQueries(db, q).slice(0, 3).flat().map((p, i) =>
    db.kysely.selectFrom(phaseQuery(db, filter, p, limit).as(`p${i}`)).selectAll()
      .select([sql.lit(i).as('part'), (p.order ? sql<number>`row_number() over (order by ${f.order(p.order)}, id)` : sql<number>`0`).as('rank')]));
  return parts.slice(1).reduce((all, part) => all.unionAll(part), parts[0]);
}

const byName = (a: SearchRow, b: SearchRow) => {
  const x = (a.name ?? '').toLowerCase();
  const y = (b.name ?? '').toLowerCase();
  return x < y ? -1 : x > y ? 1 : a.id - b.id;
};

/** Up to `need` rows of the ranked matches (the caller slices its page). */
export async function searchNodes(db: Db, q: string, filter: KindFilter | null, need: number): Promise<SearchRow[]> {
  if (need <= 0) return [];
  const parts: Array<Array<SearchRow & { rank: number }>> = [[], [], [], []];
  for (const r of await indexedPhasesQuery(db, q, filter, need).execute()) {
    parts[Number(r.part)].push({ id: Number(r.id), objectid: r.objectid, name: r.name, kind: r.kind, properties: r.properties, rank: Number(r.rank) });
  }
  // Parts 0 and 1 are the exact phase (name, then objectid): merged by name. The others by their rank.
  const byRank = (a: { rank: number }, b: { rank: number }) => a.rank - b.rank;
  const out: SearchRow[] = [...parts[0], ...parts[1]].sort(byName).concat(parts[2].sort(byRank), parts[3].sort(byRank)).slice(0, need)
    .map((r) => ({ id: r.id, objectid: r.objectid, name: r.name, kind: r.kind, properties: r.properties }));
  if (out.length >= need || [...q].length < MIN_SUBSTRING) return out;
  for (const r of await substringQuery(db, q, filter, need - out.length, trigramSample(db)).execute()) out.push({ ...r, id: Number(r.id) });
  return out;
}

/** The substring phase (3+ characters): on PostgreSQL steered by the trigram sample when there is one. */
export function substringQuery(db: Db, q: string, filter: KindFilter | null, limit: number, sample: TrigramSample | null) {
  const phase = phaseQueries(db, q, sample ? rarePieces(q, sample) : undefined)[3][0];
  return db.dialect === 'postgres' && sample && fewInside(q, sample) ? fewMatchesQuery(db, filter, phase, limit) : phaseQuery(db, filter, phase, limit);
}

/** At most this share of the sampled names hold the text after their start: "few" substring matches. */
const FEW = 0.001;

/** Whether the sample says few names hold the text other than at their start (the substring phase's matches). */
export function fewInside(q: string, sample: TrigramSample): boolean {
  const lower = q.toLowerCase();
  let inside = 0;
  for (const n of sample.names) if (n.includes(lower, 1) && !n.startsWith(lower)) inside++;
  return inside <= sample.rows * FEW;
}

/**
 * PostgreSQL, substring phase with few matches: every match is found first (the trigram index;
 * MATERIALIZED keeps the planner from merging the order in), then ordered and cut to the page. The
 * planner cannot tell that the phase excludes the prefix matches, so it expects thousands of matches
 * and walks the name index in order until it has the page: with none (`user5@b` on the 1M-node bench
 * graph) that is the whole index, 0.6-1.5 s.
 */
function fewMatchesQuery(db: Db, filter: KindFilter | null, { where }: PhaseQuery, limit: number) {
  return db.kysely
    .with((cte) => cte('matches').materialized(), (qb) => qb.selectFrom('nodes').select(['id', 'objectid', 'name', 'kind', 'properties']).where(where).where(kindCondition(filter)))
    .selectFrom('matches').selectAll().orderBy(POSTGRES.order('name')).orderBy('id').limit(limit);
}

// ------------------------------------------------------------ PostgreSQL: which pieces the index reads

/** Names containing each 3-character piece, in a sample of `rows` names. */
export interface TrigramSample {
  rows: number;
  counts: Map<string, number>;
  /** The sampled names, lower-cased. */
  names: string[];
}

const SAMPLE_ROWS = 20_000;
/** A sample is taken again when the nodes changed, at most this often (it only steers the index lookups). */
const SAMPLE_AGE_MS = 60_000;
/** A piece in more than this share of the sampled names is left to strpos (after the rarest). */
const COMMON = 0.01;
const samples = new WeakMap<Db, { at: number; key: string | null; sample: TrigramSample | null }>();
const taking = new WeakMap<Db, Promise<TrigramSample>>();

/**
 * The index terms for a substring search: the rarest piece of three ASCII letters / digits of the
 * (lower-cased) text, and up to two more that are rare too (the trigram index intersects them).
 * Empty when the text has no such piece (the index is then given the whole text).
 */
export function rarePieces(q: string, sample: TrigramSample): string[] {
  const lower = q.toLowerCase();
  const found = new Set<string>();
  for (let i = 0; i + 3 <= lower.length; i++) {
    const piece = lower.slice(i, i + 3);
    if (/^[a-z0-9]{3}$/.test(piece)) found.add(piece);
  }
  const count = (p: string) => sample.counts.get(p) ?? 0;
  const ranked = [...found].sort((a, b) => count(a) - count(b) || (a < b ? -1 : a > b ? 1 : 0));
  return ranked.filter((p, i) => i === 0 || (i < 3 && count(p) <= sample.rows * COMMON));
}

/**
 * The trigram sample at hand (null until the first is taken; always on SQLite, whose FTS5 table needs none). A missing or stale one (the nodes
 * changed and it is over SAMPLE_AGE_MS old) is taken in the background, outside the request's
 * deadline: no search waits for it (0.2–1 s on a cold 1M-node table); meanwhile the index is given
 * the whole text, as without a sample.
 */
export function trigramSample(db: Db): TrigramSample | null {
  if (db.dialect !== 'postgres') return null;
  const key = db.versions.usable() ? db.versions.snapshot(['nodes']) : null;
  const kept = samples.get(db);
  const fresh = kept && ((kept.key === key && key !== null) || Date.now() - kept.at < SAMPLE_AGE_MS);
  if (!fresh && !taking.has(db)) requestScope.exit(() => void takeTrigramSample(db).catch(() => {}));
  return kept?.sample ?? null;
}

/** Takes a trigram sample (~20,000 names: TABLESAMPLE SYSTEM) and keeps it for trigramSample. */
export function takeTrigramSample(db: Db): Promise<TrigramSample> {
  const running = taking.get(db);
  if (running) return running;
  const key = db.versions.usable() ? db.versions.snapshot(['nodes']) : null;
  const at = Date.now();
  const sample = (async () => {
    const { rows: [stats] } = await sql<{ n: number }>`select reltuples::float8 as n from pg_class where oid = 'nodes'::regclass`.execute(db.kysely);
    const total = Number(stats?.n ?? -1);
    const names = total > SAMPLE_ROWS * 2
      ? await sql<{ n: string }>`select lower(name) as n from nodes tablesample system (${sql.lit(Math.max(0.001, (100 * SAMPLE_ROWS) / total))}) where name is not null`.execute(db.kysely)
      : await sql<{ n: string }>`select lower(name) as n from nodes where name is not null limit ${SAMPLE_ROWS * 2}`.execute(db.kysely);
    const counts = new Map<string, number>();
    for (const { n } of names.rows) {
      const seen = new Set<string>();
      for (let i = 0; i + 3 <= n.length; i++) seen.add(n.slice(i, i + 3));
      for (const p of seen) counts.set(p, (counts.get(p) ?? 0) + 1);
    }
    return { rows: names.rows.length, counts, names: names.rows.map((r) => r.n) };
  })();
  taking.set(db, sample);
  // A failed sample is tried again after SAMPLE_AGE_MS (the old one, if any, is used meanwhile).
  sample.then((s) => samples.set(db, { at, key, sample: s }), () => samples.set(db, { at, key: null, sample: samples.get(db)?.sample ?? null }))
    .finally(() => taking.delete(db));
  return sample;
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
