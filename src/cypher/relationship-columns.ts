/**
 * Relationship columns: the value of one relationship property for every relationship of some kinds
 * holding it (`r.isprimarygroup` of every MemberOf), read for a step's prefilter (prefilter.ts) and kept
 * per `edges` data version, as the node columns of property-columns.ts are per `nodes` version.
 */
import { sql } from 'kysely';
import type { Db } from '../db/create-db.ts';
import { CACHEABLE, keepWithin, MAX_INTERNED, PAGE, type Column } from './property-columns.ts';

/** Most relationships one relationship column holds (more: not read; their properties are read as before). */
const MAX_EDGE_COLUMN = 4_000_000;
/** Most values held over all relationship columns of a version (least recently used dropped first). */
const MAX_EDGE_ENTRIES = 6_000_000;

/** A relationship property's column over the relationships of some kinds: the relationships of those kinds holding it (ids ascending), with their values. */
export interface EdgeColumn extends Column {
  kinds: ReadonlySet<string>;
}

interface HeldEdges {
  version: string;
  columns: Map<string, EdgeColumn>;
  entries: number;
}

const heldEdges = new WeakMap<Db, HeldEdges>();

/**
 * The column of a relationship property over the relationships of `kinds` (`r.isprimarygroup` of every
 * MemberOf): read in one pass per kind over `edges` (through its kind index) the first time, then kept
 * while the `edges` data version stays the same (MAX_EDGE_ENTRIES values in all, least recently used
 * first out). Null when nothing may be kept, the key cannot be, or the kinds hold more than
 * MAX_EDGE_COLUMN relationships (`count`: how many they hold, from the engine's snapshot).
 */
export async function edgeColumn(db: Db, key: string, kinds: readonly string[], count: number): Promise<EdgeColumn | null> {
  if (!CACHEABLE.test(key) || kinds.length === 0 || count > MAX_EDGE_COLUMN || !db.versions.usable()) return null;
  const version = db.versions.snapshot(['edges']);
  let h = heldEdges.get(db);
  if (!h || h.version !== version) heldEdges.set(db, (h = { version, columns: new Map(), entries: 0 }));
  const sorted = [...new Set(kinds)].sort();
  const name = `${key}\u0000${sorted.join(',')}`;
  const kept = h.columns.get(name);
  if (kept) {
    h.columns.delete(name);
    h.columns.set(name, kept);
    return kept;
  }
  const needle = `"${key}"`;
  const pairs: Array<[number, unknown]> = [];
  const interned = new Map<string, unknown>();
  for (const kind of sorted) {
    for (let after = Number.MIN_SAFE_INTEGER; ;) {
      const rows = db.dialect === 'sqlite'
        ? (await sql<{ id: number; v: string | null }>`select id, properties -> ${`$."${key}"`} as v from edges where kind = ${kind} and id > ${after} and instr(properties, ${needle}) > 0 order by id limit ${PAGE}`.execute(db.kysely)).rows
        : (await sql<{ id: number; v: string | null }>`select id, (properties::jsonb -> ${key})::text as v from edges where kind = ${kind} and id > ${after} and strpos(properties, ${needle}) > 0 order by id limit ${PAGE}`.execute(db.kysely)).rows;
      if (rows.length === 0) break;
      for (const r of rows) {
        if (r.v === null) continue;
        let value = interned.get(r.v);
        if (value === undefined) {
          value = JSON.parse(r.v);
          if (interned.size < MAX_INTERNED) interned.set(r.v, value);
        }
        if (value !== null) pairs.push([Number(r.id), value]);
      }
      after = Number(rows[rows.length - 1].id);
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
  }
  pairs.sort((a, b) => a[0] - b[0]);
  const read: EdgeColumn = { ids: Float64Array.from(pairs, (x) => x[0]), values: pairs.map((x) => x[1]), kinds: new Set(sorted) };
  // Read at `version`: kept under it only (a write since makes it stale at once).
  if (heldEdges.get(db) === h) h.entries = keepWithin(h.columns, h.entries, MAX_EDGE_ENTRIES, name, read);
  return read;
}
