/**
 * An in-process index of a tag's members for the sorted and filtered pages (the UI's shapes: 25 per page, moving skip,
 * sort_by name / objectid, `~eq` search), which the database can only answer by sorting or walking past `skip` rows.
 *
 * Per tag: the members' name, objectid, primary kind and environment in `ord` (node id) order, and, built when first
 * needed, the positions in name / objectid order AS THE DATABASE SORTS THEM (`order by name, node_id`), so the
 * collation is the database's own. Filters are evaluated here with the engine's meaning (src/http/query/apply.ts):
 * eq / neq exact, `~eq` = lower(value) contains lower(operand), lower() being JavaScript's toLowerCase, which is the
 * function SQLite runs (src/db/create-db.ts); on PostgreSQL `~eq` is answered here only when the column's values and
 * the operand are ASCII and the database lower-cases ASCII as ASCII (otherwise: the database). The page's rows (with
 * node properties) are then read by `ord`, an index range of at most `limit` keys.
 *
 * Valid while asset_group_tag_members is unchanged (src/db/data-versions.ts: the snapshot is taken before the reads,
 * checked again after the page's read); never used while the versions are not usable, nor for tags over
 * MAX_INDEXED members. Memory: about 200 bytes per member (≈ 40 MB for 200,000), built on the first such request, plus
 * recent filters' match sets (one byte per member each, plus, per sort asked, the matches' positions in that order:
 * four bytes per match; at most MATCH_BYTES_KEPT of sets and RANKED_BYTES_KEPT of positions), plus the members' JSON
 * (RenderedMembers: its bytes and eight per member, at most RENDERED_BYTES per database).
 */
import { sql, type Kysely } from 'kysely';
import type { Db } from '../../db/create-db.ts';
import type { Database } from '../../db/database.ts';
import type { ParsedQuery } from '../../http/query/index.ts';

const MAX_INDEXED = 500_000;
const TABLES = ['asset_group_tag_members'] as const;
const ASCII = /^[\x00-\x7f]*$/;

type Column = 'name' | 'objectid' | 'primary_kind';
const FILTER_COLUMN: Record<string, Column> = { name: 'name', object_id: 'objectid', primary_kind: 'primary_kind' };
const SORT_COLUMN: Record<string, Column | 'id'> = { id: 'id', name: 'name', objectid: 'objectid' };

interface TagIndex {
  stamp: string;
  size: number;
  values: Record<Column, string[]>;
  environment: Array<string | null>;
  /** Lower-cased values (built on the first `~eq` over the column) and whether every value is ASCII. */
  lower: Partial<Record<Column, { values: string[]; ascii: boolean }>>;
  /** Positions in the database's ascending / descending order of a column (ties: node id ascending). */
  order: Partial<Record<`${Column | 'id'}:${'asc' | 'desc'}`, Int32Array>>;
  /**
   * The matches of recent filter sets (a user pages through one search: the same filters, a moving skip, any
   * sort), one byte per member, the least recently used dropped first beyond MATCH_BYTES_KEPT.
   */
  matches: Map<string, MatchSet>;
  /** Bytes held by `matches`' bits, and by their ranked positions (each has its own bound). */
  matchBytes: number;
  rankedBytes: number;
  /** The members' JSON read so far (see renderedOf). */
  rendered?: Arena;
}

interface MatchSet {
  bits: Uint8Array;
  count: number;
  /** Per sort (`column:direction`): the matching positions in that order, so a page is a slice (made on first use). */
  ranked: Map<string, Int32Array>;
  /** Sorts asked once: their positions are ranked when asked again (a one-off count or page walks instead). */
  asked: Set<string>;
  /**
   * Per sort asked again whose ranked positions do not fit (RANKED_BYTES_KEPT): the number of matches before each
   * block of BLOCK positions of the order (4 bytes per block), so a page's walk starts at the block holding its first
   * match instead of at an end of the order (a page in the middle of a 200,000-member search walked 100,000).
   */
  blocks: Map<string, Int32Array>;
}

/** Positions of an order per block of a match set's counts (MatchSet.blocks). */
const BLOCK = 512;

/** At most this many bytes of match sets per tag (80 sets of a 200,000-member tag). */
const MATCH_BYTES_KEPT = 16 * 1024 * 1024;
/** And of their positions ranked in an order (made only while they fit; a set evicted drops its own). */
const RANKED_BYTES_KEPT = 16 * 1024 * 1024;

const indexes = new WeakMap<Db, Map<number, TagIndex | Promise<TagIndex | null>>>();
/** PostgreSQL: whether lower() maps ASCII letters to ASCII lower case (any locale but a Turkish one). */
const asciiLowerOk = new WeakMap<Db, Promise<boolean>>();

async function load(db: Db, tagId: number, stamp: string): Promise<TagIndex | null> {
  const k = db.kysely;
  const n = await k.selectFrom('asset_group_tag_members').select((eb) => eb.fn.countAll<number>().as('n')).where('tag_id', '=', tagId).executeTakeFirstOrThrow();
  const size = Number(n.n);
  if (size > MAX_INDEXED) return null;
  const rows = await k.selectFrom('asset_group_tag_members').select(['ord', 'name', 'objectid', 'primary_kind', 'environment_id'])
    .where('tag_id', '=', tagId).orderBy('ord').execute();
  const values: Record<Column, string[]> = { name: new Array(rows.length), objectid: new Array(rows.length), primary_kind: new Array(rows.length) };
  const environment: Array<string | null> = new Array(rows.length);
  const kinds = new Map<string, string>();
  for (let i = 0; i < rows.length; i++) {
    const r = rows[i];
    if (Number(r.ord) !== i) return null; // positions must be 0..n-1 (they are: membership.service.ts)
    values.name[i] = r.name;
    values.objectid[i] = r.objectid;
    let kind = kinds.get(r.primary_kind);
    if (kind === undefined) kinds.set(r.primary_kind, (kind = r.primary_kind));
    values.primary_kind[i] = kind;
    environment[i] = r.environment_id;
  }
  if (db.versions.snapshot(TABLES) !== stamp) return null;
  return { stamp, size: rows.length, values, environment, lower: {}, order: {}, matches: new Map(), matchBytes: 0, rankedBytes: 0 };
}

async function indexOf(db: Db, tagId: number): Promise<TagIndex | null> {
  if (!db.versions.usable()) return null;
  const stamp = db.versions.snapshot(TABLES);
  let perDb = indexes.get(db);
  if (!perDb) indexes.set(db, (perDb = new Map()));
  const held = perDb.get(tagId);
  if (held && !(held instanceof Promise) && held.stamp === stamp) return held;
  if (held instanceof Promise) {
    const ready = await held;
    if (ready && ready.stamp === db.versions.snapshot(TABLES)) return ready;
  }
  const building = load(db, tagId, stamp);
  const previous = perDb.get(tagId);
  if (previous && !(previous instanceof Promise)) previous.rendered?.release(); // replaced: its kept JSON goes
  perDb.set(tagId, building);
  const built = await building;
  if (perDb.get(tagId) === building) {
    if (built) perDb.set(tagId, built);
    else perDb.delete(tagId);
  }
  return built;
}

/** Positions sorted as `order by <column> <direction>, node_id asc` on the database. */
async function orderOf(db: Db, tagId: number, ix: TagIndex, column: Column | 'id', direction: 'asc' | 'desc'): Promise<Int32Array | null> {
  const key = `${column}:${direction}` as const;
  const held = ix.order[key];
  if (held) return held;
  if (column === 'id') {
    const order = new Int32Array(ix.size);
    for (let i = 0; i < ix.size; i++) order[i] = direction === 'asc' ? i : ix.size - 1 - i;
    return (ix.order[key] = order);
  }
  let asc = ix.order[`${column}:asc`];
  if (!asc) {
    const rows = await db.kysely.selectFrom('asset_group_tag_members').select('ord').where('tag_id', '=', tagId)
      .orderBy(column).orderBy('node_id').execute();
    if (rows.length !== ix.size || db.versions.snapshot(TABLES) !== ix.stamp) return null;
    asc = Int32Array.from(rows, (r) => Number(r.ord));
    ix.order[`${column}:asc`] = asc;
  }
  if (direction === 'asc') return asc;
  // Descending with node id ascending among equal values: the ascending runs of equal values, last run first.
  const values = ix.values[column];
  const desc = new Int32Array(asc.length);
  let out = 0;
  for (let end = asc.length; end > 0;) {
    let start = end - 1;
    while (start > 0 && values[asc[start - 1]] === values[asc[end - 1]]) start--;
    for (let i = start; i < end; i++) desc[out++] = asc[i];
    end = start;
  }
  ix.order[key] = desc;
  return desc;
}

function lowerOf(ix: TagIndex, column: Column): { values: string[]; ascii: boolean } {
  let held = ix.lower[column];
  if (!held) {
    const values = ix.values[column].map((v) => v.toLowerCase());
    held = { values, ascii: ix.values[column].every((v) => ASCII.test(v)) };
    ix.lower[column] = held;
  }
  return held;
}

async function postgresLowersAscii(db: Db): Promise<boolean> {
  let held = asciiLowerOk.get(db);
  if (!held) {
    held = sql<{ ok: boolean }>`select lower('ABCDEFGHIJKLMNOPQRSTUVWXYZ') = 'abcdefghijklmnopqrstuvwxyz' as ok`.execute(db.kysely as Kysely<Database>)
      .then((r) => Boolean(r.rows[0]?.ok), () => false);
    asciiLowerOk.set(db, held);
  }
  return held;
}

type Test = (position: number) => boolean;

/** The filters and `environments` as one test per position, or null when the database must answer. */
async function testsOf(db: Db, ix: TagIndex, parsed: ParsedQuery, environments: string[] | undefined): Promise<Test[] | null> {
  const groups = new Map<Column, { any: Test[]; all: Test[] }>();
  for (const f of parsed.filters) {
    const column = FILTER_COLUMN[f.name];
    if (!column) return null;
    let group = groups.get(column);
    if (!group) groups.set(column, (group = { any: [], all: [] }));
    const values = ix.values[column];
    for (const raw of f.values) {
      if (typeof raw !== 'string') return null;
      if (f.predicate === 'eq') group.any.push((p) => values[p] === raw);
      else if (f.predicate === 'neq') group.all.push((p) => values[p] !== raw);
      else if (f.predicate === '~eq') {
        const lower = lowerOf(ix, column);
        if (db.dialect === 'postgres' && (!lower.ascii || !ASCII.test(raw) || !(await postgresLowersAscii(db)))) return null;
        const operand = raw.toLowerCase();
        const lowered = lower.values;
        group.any.push((p) => lowered[p].includes(operand));
      } else return null;
    }
  }
  const tests: Test[] = [];
  for (const { any, all } of groups.values()) {
    if (any.length === 1) tests.push(any[0]);
    else if (any.length > 1) tests.push((p) => any.some((t) => t(p)));
    tests.push(...all);
  }
  if (environments) {
    const wanted = new Set(environments);
    tests.push((p) => ix.environment[p] !== null && wanted.has(ix.environment[p]!));
  }
  return tests;
}

/** The single sort key of the request (the tie-breaker, node id ascending, is implied), or null. */
function sortOf(parsed: ParsedQuery): { column: Column | 'id'; direction: 'asc' | 'desc' } | null {
  const seen = new Set<string>();
  const terms = parsed.sort.filter((t) => !seen.has(t.name) && seen.add(t.name));
  if (terms.length === 0) return { column: 'id', direction: 'asc' };
  const [first, second] = terms;
  const column = SORT_COLUMN[first.name];
  if (!column || terms.length > 2) return null;
  if (second && !(second.name === 'id' && !second.descending)) return null;
  return { column, direction: first.descending ? 'desc' : 'asc' };
}

/** A request's matches: how many, and the positions of a page of them in the request's order. */
export interface Matches {
  stamp: string;
  count: number;
  page(skip: number, limit: number): Int32Array;
  /** The members' JSON kept so far (null while the versions are not usable); take it before reading rows. */
  rendered(): RenderedMembers | null;
}

/**
 * Each member's JSON (memberJson), by position: valid while asset_group_tag_members and nodes (its properties) are
 * unchanged. Filled as pages are read and, once asked, by one pass over the whole tag in `ord` order (`fill`: the
 * members' rows in node-id order read a range at a time, between other requests), so that every later page is a
 * slice of kept bytes and runs no statement. Held compactly: the JSON in 1 MiB chunks, eight bytes of position per
 * member; at most RENDERED_BYTES per database across tags (then nothing more is kept).
 */
export interface RenderedMembers {
  get(position: number): Buffer | undefined;
  keep(position: number, json: string): Buffer;
  /** Reads and keeps every member not kept yet, `read(from, to)` giving the rows of positions from … to-1 (once). */
  fill(read: (from: number, to: number) => Promise<Array<{ position: number; json: string }>>): void;
}
const RENDERED_TABLES = ['asset_group_tag_members', 'nodes'] as const;
const RENDERED_BYTES = 128 * 1024 * 1024;
const CHUNK = 1024 * 1024;
/** Members read per statement by `fill` (a few milliseconds of other requests' wait each). */
const FILL_BATCH = 250;
/** Bytes held by the arenas of each database (all tags). */
const arenaBytes = new WeakMap<Db, { bytes: number }>();

class Arena {
  /** Where each position's JSON starts (chunk * CHUNK + offset), -1 while not kept; and its length. */
  readonly start: Int32Array;
  readonly length: Int32Array;
  private readonly chunks: Buffer[] = [];
  private used = CHUNK;
  bytes = 0;
  filling = false;

  constructor(readonly stamp: string, size: number, private readonly budget: { bytes: number }) {
    this.start = new Int32Array(size).fill(-1);
    this.length = new Int32Array(size);
  }

  get(position: number): Buffer | undefined {
    const at = this.start[position];
    if (at < 0) return undefined;
    const chunk = this.chunks[Math.floor(at / CHUNK)];
    const offset = at % CHUNK;
    return chunk.subarray(offset, offset + this.length[position]);
  }

  /** Keeps `json` for `position` if it fits (a member over a quarter chunk is not kept); false when it does not. */
  put(position: number, json: string): boolean {
    if (this.start[position] >= 0) return true;
    const n = Buffer.byteLength(json);
    if (n > CHUNK / 4) return true;
    if (this.used + n > CHUNK) {
      if (this.budget.bytes + CHUNK > RENDERED_BYTES) return false;
      this.chunks.push(Buffer.allocUnsafe(CHUNK));
      this.budget.bytes += CHUNK;
      this.bytes += CHUNK;
      this.used = 0;
    }
    const chunk = this.chunks.length - 1;
    this.chunks[chunk].write(json, this.used, 'utf8');
    this.start[position] = chunk * CHUNK + this.used;
    this.length[position] = n;
    this.used += n;
    return true;
  }

  release(): void {
    this.budget.bytes -= this.bytes;
    this.bytes = 0;
    this.chunks.length = 0;
    this.start.fill(-1);
    this.used = CHUNK;
  }
}

function budgetOf(db: Db): { bytes: number } {
  let b = arenaBytes.get(db);
  if (!b) arenaBytes.set(db, (b = { bytes: 0 }));
  return b;
}

function renderedOf(db: Db, ix: TagIndex): RenderedMembers | null {
  // Positions are the index's: its members table must be the one the kept JSON is of.
  if (!db.versions.usable() || db.versions.snapshot(TABLES) !== ix.stamp) return null;
  const stamp = db.versions.snapshot(RENDERED_TABLES);
  let held = ix.rendered;
  if (!held || held.stamp !== stamp) {
    held?.release();
    ix.rendered = held = new Arena(stamp, ix.size, budgetOf(db));
  }
  const arena = held;
  // Only what was read with the tables as the snapshot saw them (a write since: not kept).
  const current = () => ix.rendered === arena && db.versions.usable() && db.versions.snapshot(RENDERED_TABLES) === arena.stamp;
  return {
    get: (position) => arena.get(position),
    keep(position, json) {
      if (current() && arena.put(position, json)) return arena.get(position) ?? Buffer.from(json);
      return Buffer.from(json);
    },
    fill(read) {
      if (arena.filling) return;
      arena.filling = true;
      void (async () => {
        for (let from = 0; from < ix.size; from += FILL_BATCH) {
          const to = Math.min(ix.size, from + FILL_BATCH);
          let missing = false;
          for (let p = from; p < to && !missing; p++) missing = arena.start[p] < 0;
          if (!missing) continue;
          await new Promise((resolve) => setImmediate(resolve)); // other requests first
          if (!current()) return;
          const rows = await read(from, to);
          if (!current()) return;
          for (const r of rows) if (!arena.put(r.position, r.json)) return;
        }
      })().catch(() => {}); // the database may be closing: pages read their rows themselves
    },
  };
}

/** MatchSet.blocks of `bits` in `order`: entry b is the number of matches before position b * BLOCK of the order. */
export function blockCounts(order: Int32Array, bits: Uint8Array): Int32Array {
  const blocks = new Int32Array(Math.ceil(order.length / BLOCK) + 1);
  for (let b = 0, r = 0; b * BLOCK < order.length; b++) {
    const to = Math.min(order.length, (b + 1) * BLOCK);
    for (let i = b * BLOCK; i < to; i++) r += bits[order[i]];
    blocks[b + 1] = r;
  }
  return blocks;
}

/**
 * The positions of the matches of rank skip … skip+limit-1 (limit 0: to the end) in `order`: a walk testing each
 * position's bit, from the start of the block holding the first (with the set's block counts), else from the
 * nearer end of the order (at most half the tag per page).
 */
export function pageOf(order: Int32Array, bits: Uint8Array, count: number, skip: number, limit: number, blocks?: Int32Array): Int32Array {
  const end = limit > 0 ? Math.min(count, skip + limit) : count;
  if (skip >= end) return new Int32Array(0);
  const out = new Int32Array(end - skip);
  if (blocks) {
    // The last block with at most `skip` matches before it (blocks ascend), then a walk from its start.
    // (skip < count = the last entry: never past the last block.)
    let lo = 0;
    let hi = blocks.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (blocks[mid] <= skip) lo = mid;
      else hi = mid - 1;
    }
    for (let i = lo * BLOCK, rank = blocks[lo]; rank < end; i++) {
      const p = order[i];
      if (bits[p]) {
        if (rank >= skip) out[rank - skip] = p;
        rank++;
      }
    }
  } else if (skip <= count - end) {
    for (let i = 0, rank = 0; rank < end; i++) {
      const p = order[i];
      if (bits[p]) {
        if (rank >= skip) out[rank - skip] = p;
        rank++;
      }
    }
  } else {
    // From the end: rank r is the (count-1-r)-th match counted from the end.
    for (let i = order.length - 1, rank = count - 1; rank >= skip; i--) {
      const p = order[i];
      if (bits[p]) {
        if (rank < end) out[rank - skip] = p;
        rank--;
      }
    }
  }
  return out;
}

/** The request's matches in its order, or null when the database must answer. */
export async function indexedMatches(db: Db, tagId: number, parsed: ParsedQuery, environments: string[] | undefined): Promise<Matches | null> {
  const sort = sortOf(parsed);
  if (!sort) return null;
  const ix = await indexOf(db, tagId);
  if (!ix) return null;
  const tests = await testsOf(db, ix, parsed, environments);
  if (!tests) return null;
  const order = await orderOf(db, tagId, ix, sort.column, sort.direction);
  if (!order) return null;
  const rendered = () => renderedOf(db, ix);
  if (tests.length === 0) return { stamp: ix.stamp, count: order.length, page: (skip, limit) => order.subarray(skip, limit > 0 ? skip + limit : undefined), rendered };
  const key = JSON.stringify([parsed.filters.map((f) => [f.name, f.predicate, f.values]), environments ?? null]);
  let kept = ix.matches.get(key);
  if (kept) {
    ix.matches.delete(key); // most recently used last
    ix.matches.set(key, kept);
  } else {
    const bits = new Uint8Array(ix.size);
    let count = 0;
    outer: for (let p = 0; p < ix.size; p++) {
      for (const t of tests) if (!t(p)) continue outer;
      bits[p] = 1;
      count++;
    }
    kept = { bits, count, ranked: new Map(), asked: new Set(), blocks: new Map() };
    if (ix.size <= MATCH_BYTES_KEPT) {
      ix.matches.set(key, kept);
      ix.matchBytes += ix.size;
      evict(ix, kept);
    }
  }
  const set = kept;
  const sortKey = `${sort.column}:${sort.direction}`;
  let ranked = set.ranked.get(sortKey);
  const again = set.asked.has(sortKey);
  if (!again) set.asked.add(sortKey);
  if (!ranked && again && ix.matches.get(key) === set && ix.rankedBytes + set.count * 4 <= RANKED_BYTES_KEPT) {
    // The matches in this order, once: every later page of this search in this order is a slice. Only while they
    // fit: dropping others' to make room made searches rebuild theirs on every page (200,000 members, 50 searches).
    ranked = new Int32Array(set.count);
    for (let i = 0, r = 0; r < set.count; i++) if (set.bits[order[i]]) ranked[r++] = order[i];
    set.ranked.set(sortKey, ranked);
    ix.rankedBytes += ranked.byteLength;
  }
  const { bits, count } = set;
  if (ranked) {
    const positions = ranked;
    return { stamp: ix.stamp, count, page: (skip, limit) => positions.subarray(skip, limit > 0 ? skip + limit : undefined), rendered };
  }
  let blocks = set.blocks.get(sortKey);
  if (!blocks && again && ix.matches.get(key) === set) {
    blocks = blockCounts(order, bits);
    set.blocks.set(sortKey, blocks);
  }
  const counted = blocks;
  return { stamp: ix.stamp, count, page: (skip, limit) => pageOf(order, bits, count, skip, limit, counted), rendered };
}

/** Drops the least recently used match sets (never `keep`) until the tag's sets fit MATCH_BYTES_KEPT. */
function evict(ix: TagIndex, keep: MatchSet): void {
  for (const [k, m] of ix.matches) {
    if (ix.matchBytes <= MATCH_BYTES_KEPT) break;
    if (m === keep) continue;
    ix.matches.delete(k);
    ix.matchBytes -= ix.size;
    dropRanked(ix, m);
  }
}

function dropRanked(ix: TagIndex, m: MatchSet): void {
  for (const r of m.ranked.values()) ix.rankedBytes -= r.byteLength;
  m.ranked.clear();
}

/** Whether the members table is still what `stamp` was taken of. */
export function indexStillValid(db: Db, stamp: string): boolean {
  return db.versions.usable() && db.versions.snapshot(TABLES) === stamp;
}
