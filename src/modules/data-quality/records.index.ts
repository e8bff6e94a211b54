/**
 * The platform data-quality pages from memory: per aggregation table, every record's JSON (toWireRecord, rendered
 * once) in (created_at, id) order, valid while the table is unchanged (src/db/data-versions.ts; the snapshot is
 * taken before the read and checked after it). A page of a range is then two binary searches and a join, instead of
 * reading and rendering up to 1,000 rows per distinct range. Only the default order (created_at, either direction;
 * ties by id ascending, as the statement's tie-breaker) is served here; other sorts, tables over MAX_RECORDS rows
 * and moments when versions are not usable go to the database (data-quality.repository.ts).
 */
import type { Db } from '../../db/create-db.ts';
import type { ParsedQuery } from '../../http/query/index.ts';
import type { RecordTable } from './data-quality.repository.ts';
import { toWireRecord } from './data-quality.schema.ts';

const MAX_RECORDS = 200_000;

interface Records {
  stamp: string;
  /** created_at, ascending (ties: id ascending). */
  at: Float64Array;
  json: string[];
}

const held = new WeakMap<Db, Map<RecordTable, Records | Promise<Records | null>>>();

async function load(db: Db, table: RecordTable, stamp: string): Promise<Records | null> {
  const k = db.kysely as unknown as import('kysely').Kysely<Record<string, { id: number; created_at: number }>>;
  const n = Number((await k.selectFrom(table).select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);
  if (n > MAX_RECORDS) return null;
  const rows = (await k.selectFrom(table).selectAll().orderBy('created_at').orderBy('id').execute()) as Array<Record<string, unknown>>;
  if (db.versions.snapshot([table]) !== stamp) return null;
  return { stamp, at: Float64Array.from(rows, (r) => Number(r.created_at)), json: rows.map((r) => JSON.stringify(toWireRecord(r))) };
}

async function recordsOf(db: Db, table: RecordTable): Promise<Records | null> {
  if (!db.versions.usable()) return null;
  const stamp = db.versions.snapshot([table]);
  let perDb = held.get(db);
  if (!perDb) held.set(db, (perDb = new Map()));
  const current = perDb.get(table);
  if (current && !(current instanceof Promise) && current.stamp === stamp) return current;
  if (current instanceof Promise) {
    const ready = await current;
    if (ready && ready.stamp === db.versions.snapshot([table])) return ready;
  }
  const building = load(db, table, stamp);
  perDb.set(table, building);
  const built = await building;
  if (perDb.get(table) === building) {
    if (built) perDb.set(table, built);
    else perDb.delete(table);
  }
  return built;
}

/** First index whose created_at >= t. */
function lowerBound(at: Float64Array, t: number): number {
  let lo = 0;
  let hi = at.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (at[mid] < t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * The page's part after start/end (`"count":…,"skip":…,"limit":…,"data":[…]}`, as JSON.stringify writes that object)
 * and when the range's record set can next change without a write (rangeStableUntil's meaning), or null.
 */
export async function recordsPage(
  db: Db, table: RecordTable, parsed: ParsedQuery, range: { start: number; end: number }, window: number | null, clocked: boolean,
): Promise<{ rest: string; stableUntil: number } | null> {
  const terms = parsed.sort.filter((t, i) => parsed.sort.findIndex((u) => u.name === t.name) === i);
  if (terms.length !== 1 || terms[0].name !== 'created_at') return null;
  const r = await recordsOf(db, table);
  if (!r) return null;
  const lo = lowerBound(r.at, range.start);
  const hi = Math.max(lo, lowerBound(r.at, range.end));
  const count = hi - lo;
  const { skip, limit } = parsed;
  const want = limit > 0 ? limit : Infinity;
  const parts: string[] = [];
  if (!terms[0].descending) {
    for (let i = lo + skip; i < hi && parts.length < want; i++) parts.push(r.json[i]);
  } else {
    // Newest first; equal created_at keep id ascending: the runs of equal values, last run first.
    let passed = 0;
    for (let end = hi; end > lo && parts.length < want;) {
      let begin = end - 1;
      while (begin > lo && r.at[begin - 1] === r.at[end - 1]) begin--;
      for (let i = begin; i < end && parts.length < want; i++) {
        if (passed++ >= skip) parts.push(r.json[i]);
      }
      end = begin;
    }
  }
  let stableUntil = Infinity;
  if (clocked) {
    if (hi < r.at.length) stableUntil = r.at[hi];
    if (window !== null && count > 0) stableUntil = Math.min(stableUntil, r.at[lo] + window + 1);
  }
  return { rest: `"count":${count},"skip":${skip},"limit":${limit},"data":[${parts.join(',')}]}`, stableUntil };
}
