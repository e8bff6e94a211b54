/**
 * The platform data-quality pages from memory: per aggregation table, every record's JSON (toWireRecord, rendered
 * once) in (created_at, id) order, valid while the table is unchanged (src/db/data-versions.ts; the snapshot is
 * taken before the read and checked after it). A page of a range is then two binary searches and a join, instead of
 * reading and rendering up to 1,000 rows per distinct range. Only the default order (created_at, either direction;
 * ties by id ascending, as the statement's tie-breaker) is served here; other sorts, tables over MAX_RECORDS rows
 * and moments when versions are not usable go to the database (data-quality.repository.ts).
 * The records' bytes count against the memory the operator gives kept answers (`--response-cache-mb`): a table whose
 * rendered records exceed that share is read from the database (remembered until the table changes), and with
 * `--response-cache-mb 0` nothing is kept at all.
 */
import type { Db } from '../../db/create-db.ts';
import type { ParsedQuery } from '../../http/query/index.ts';
import type { RecordTable } from './data-quality.repository.ts';
import { toWireRecord } from './data-quality.schema.ts';

const MAX_RECORDS = 200_000;
const COMMA = Buffer.from(',');
const END = Buffer.from(']}');

interface Records {
  stamp: string;
  /** created_at, ascending (ties: id ascending). */
  at: Float64Array;
  /**
   * Every record's JSON, comma-separated, in the default order (newest first, ties by id ascending): a newest-first
   * page is one slice of it. `from[k]` / `to[k]`: the bytes of the k-th record in that order.
   */
  newestFirst: Buffer;
  from: Float64Array;
  to: Float64Array;
  /** Ascending index i → its position in newestFirst. */
  positionOf: Int32Array;
}

/**
 * A table too large for a memory share (`within` bytes; Infinity: too many rows) at a data version: read from the
 * database until it changes, or until a larger share is given.
 */
interface TooLarge { stamp: string; tooLarge: true; within: number }

const held = new WeakMap<Db, Map<RecordTable, Records | TooLarge | Promise<Records | TooLarge | null>>>();

async function load(db: Db, table: RecordTable, stamp: string, maxBytes: number): Promise<Records | TooLarge | null> {
  const k = db.kysely as unknown as import('kysely').Kysely<Record<string, { id: number; created_at: number }>>;
  const n = Number((await k.selectFrom(table).select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);
  if (n > MAX_RECORDS) return { stamp, tooLarge: true, within: Infinity };
  const rows = (await k.selectFrom(table).selectAll().orderBy('created_at').orderBy('id').execute()) as Array<Record<string, unknown>>;
  if (db.versions.snapshot([table]) !== stamp) return null;
  const at = Float64Array.from(rows, (r) => Number(r.created_at));
  // Newest first with equal created_at kept id ascending: the ascending runs of equal values, last run first.
  const order: number[] = [];
  for (let end = at.length; end > 0;) {
    let begin = end - 1;
    while (begin > 0 && at[begin - 1] === at[end - 1]) begin--;
    for (let i = begin; i < end; i++) order.push(i);
    end = begin;
  }
  const parts: Buffer[] = [];
  const from = new Float64Array(order.length);
  const to = new Float64Array(order.length);
  const positionOf = new Int32Array(order.length);
  let offset = 0;
  let tooLarge = false;
  order.forEach((i, k) => {
    if (tooLarge) return;
    const json = Buffer.from(JSON.stringify(toWireRecord(rows[i])));
    if (k > 0) {
      parts.push(COMMA);
      offset += 1;
    }
    parts.push(json);
    if (offset + json.length > maxBytes) tooLarge = true;
    from[k] = offset;
    offset += json.length;
    to[k] = offset;
    positionOf[i] = k;
  });
  if (tooLarge) return { stamp, tooLarge: true, within: maxBytes };
  return { stamp, at, newestFirst: Buffer.concat(parts), from, to, positionOf };
}

async function recordsOf(db: Db, table: RecordTable, maxBytes: number): Promise<Records | TooLarge | null> {
  if (maxBytes <= 0 || !db.versions.usable()) return null;
  const stamp = db.versions.snapshot([table]);
  let perDb = held.get(db);
  if (!perDb) held.set(db, (perDb = new Map()));
  const current = perDb.get(table);
  if (current && !(current instanceof Promise) && current.stamp === stamp) {
    if ('tooLarge' in current) {
      if (maxBytes <= current.within) return current;
    } else return current.newestFirst.length <= maxBytes ? current : null;
  }
  if (current instanceof Promise) {
    const ready = await current;
    if (ready && ready.stamp === db.versions.snapshot([table])) {
      if ('tooLarge' in ready) {
        if (maxBytes <= ready.within) return ready;
      } else return ready.newestFirst.length <= maxBytes ? ready : null;
    }
  }
  const building = load(db, table, stamp, maxBytes);
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
 * as byte ranges (slices of the held records: nothing is copied) and when the range's record set can next change
 * without a write (rangeStableUntil's meaning), or null.
 */
export async function recordsPage(
  db: Db, table: RecordTable, parsed: ParsedQuery, range: { start: number; end: number }, window: number | null, clocked: boolean,
  maxBytes: number,
): Promise<{ parts: Buffer[]; length: number; stableUntil: number } | null> {
  const terms = parsed.sort.filter((t, i) => parsed.sort.findIndex((u) => u.name === t.name) === i);
  if (terms.length !== 1 || terms[0].name !== 'created_at') return null;
  const r = await recordsOf(db, table, maxBytes);
  if (!r || 'tooLarge' in r) return null;
  const lo = lowerBound(r.at, range.start);
  const hi = Math.max(lo, lowerBound(r.at, range.end));
  const count = hi - lo;
  const { skip, limit } = parsed;
  const want = limit > 0 ? limit : Infinity;
  const head = Buffer.from(`"count":${count},"skip":${skip},"limit":${limit},"data":[`);
  let body: Buffer[];
  const n = r.at.length;
  if (terms[0].descending) {
    // A range is whole runs of equal created_at, so its records are positions n-hi … n-lo-1 of newestFirst.
    const first = n - hi + skip;
    const last = Math.min(n - lo, first + want) - 1;
    body = first <= last ? [r.newestFirst.subarray(r.from[first], r.to[last])] : [];
  } else {
    body = [];
    for (let i = lo + skip, taken = 0; i < hi && taken < want; i++, taken++) {
      const k = r.positionOf[i];
      if (body.length > 0) body.push(COMMA);
      body.push(r.newestFirst.subarray(r.from[k], r.to[k]));
    }
  }
  let stableUntil = Infinity;
  if (clocked) {
    if (hi < r.at.length) stableUntil = r.at[hi];
    if (window !== null && count > 0) stableUntil = Math.min(stableUntil, r.at[lo] + window + 1);
  }
  const parts = [head, ...body, END];
  return { parts, length: parts.reduce((n, b) => n + b.length, 0), stableUntil };
}
