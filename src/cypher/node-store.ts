import { sql } from 'kysely';
import type { Db } from '../db/create-db.ts';
import { PAGE, cacheableKey, tailHash, type Column } from './property-columns.ts';

/**
 * The node property store: one pass over every node's properties, read once per `nodes` data version
 * (src/db/data-versions.ts: any write to nodes, here or in another process, drops it), that keeps
 * - the key registry: for every top-level property key, how many nodes hold it with a non-null value
 *   (exact: a key no node holds is known absent at once, a key is known rare or common by its count);
 * - a column (property-columns.ts Column: ids ascending, values) of every key whose values are scalars
 *   (booleans, numbers, strings with at most MAX_KEY_STRINGS distinct values, lists of those): `enabled`,
 *   `lastlogon`, `pwdlastset`, `domainsid`, `operatingsystem`, `serviceprincipalnames`, ... Keys with
 *   more distinct strings (`email`, `distinguishedname`) or with maps are counted only;
 * - the column of `name` as Cypher sees it (the property, else the `name` column): every node's;
 * - every node's objectid tail hash (property-columns.ts objectidTails), read in the same pass.
 * The values are those the details hold (the stored JSON text parsed as the details are), repeated
 * strings held once, empty lists one shared frozen list, and columns over the same nodes (every
 * user's `enabled`, `lastlogon`, ...) share one ids array, so a value costs about 8 bytes.
 * It is read when a scan would otherwise test common keys in SQL over many nodes (graph-source.ts),
 * or when wide columns are asked for (the probe, the prefilter): the pass costs about as much as a few
 * such scans, and every later scan, probe and prefilter of those keys is done in memory.
 */
export interface NodeStore {
  /** Nodes holding each top-level key with a non-null value (every key). */
  holders: Map<string, number>;
  /** The columns of the keys whose values are all kept (scalars, few distinct strings). */
  columns: Map<string, Column>;
  /** Values held in all (list elements counted). */
  entries: number;
  /** `name` as Cypher reads it: the property, else the column. */
  name: Column;
  /** Every node's objectid (column) as the hash of its last `-` segment, ids ascending. */
  tails: { ids: Float64Array; hashes: Uint16Array };
}

/** Distinct strings a key may have (more: the key is counted only). */
export const MAX_KEY_STRINGS = 4_096;
/** Most values the store holds (further keys are counted only). */
const MAX_STORE_ENTRIES = 16_000_000;

interface Held {
  version: string;
  store: Promise<NodeStore | null>;
  done: NodeStore | null;
}

const held = new WeakMap<Db, Held>();
const EMPTY_LIST: readonly unknown[] = Object.freeze([]);

/** The store at the current `nodes` version when it has been read already (never reads); null otherwise. */
export function heldStore(db: Db): NodeStore | null {
  if (!db.versions.usable()) return null;
  const h = held.get(db);
  return h !== undefined && h.version === db.versions.snapshot(['nodes']) ? h.done : null;
}

/** The store at the current `nodes` version, read now when it is not (concurrent callers share the read); null when nothing may be kept. */
export function nodeStore(db: Db): Promise<NodeStore | null> {
  if (!db.versions.usable()) return Promise.resolve(null);
  const version = db.versions.snapshot(['nodes']);
  const h = held.get(db);
  if (h !== undefined && h.version === version) return h.store;
  const entry: Held = { version, store: Promise.resolve(null), done: null };
  entry.store = readStore(db).then((store) => {
    // Read at `version`: kept under it only (a write since makes it stale at once; the next caller reads again).
    if (held.get(db) === entry && db.versions.snapshot(['nodes']) === version) entry.done = store;
    else if (held.get(db) === entry) held.delete(db);
    return store;
  }, (err: unknown) => {
    if (held.get(db) === entry) held.delete(db);
    throw err;
  });
  held.set(db, entry);
  return entry.store;
}

/** An empty column (a key no node holds). */
export function emptyColumn(): Column {
  return { ids: new Float64Array(0), values: [] };
}

/**
 * The column of `key` from a store: its column, an empty one when no node holds it, undefined when the
 * store counts it only.
 */
export function storeColumn(store: NodeStore, key: string): Column | undefined {
  if (key === 'name') return store.name;
  if (!cacheableKey(key)) return undefined;
  const c = store.columns.get(key);
  if (c !== undefined) return c;
  return (store.holders.get(key) ?? 0) === 0 ? emptyColumn() : undefined;
}

interface Building {
  ids: number[];
  values: unknown[];
  strings: Map<string, string>;
  live: boolean;
  /** List elements held. */
  elements: number;
}

async function readStore(db: Db): Promise<NodeStore | null> {
  const holders = new Map<string, number>();
  const nameIds: number[] = [];
  const names: unknown[] = [];
  const tailIds: number[] = [];
  const tailHashes: number[] = [];
  const building = new Map<string, Building>();
  let entries = 0;
  const drop = (b: Building) => {
    entries -= b.ids.length + b.elements;
    b.live = false;
    b.ids = [];
    b.values = [];
    b.strings = new Map();
  };
  // A value as kept (strings held once per key), or undefined when the key cannot be kept.
  const keepable = (v: unknown, b: Building): unknown => {
    if (typeof v === 'boolean' || typeof v === 'number') return v;
    if (typeof v === 'string') {
      const s = b.strings.get(v);
      if (s !== undefined) return s;
      if (b.strings.size >= MAX_KEY_STRINGS) return undefined;
      b.strings.set(v, v);
      return v;
    }
    if (Array.isArray(v)) {
      if (v.length === 0) return EMPTY_LIST;
      for (let i = 0; i < v.length; i++) {
        const x = v[i] as unknown;
        if (x === null) continue;
        if (Array.isArray(x)) return undefined;
        const k = keepable(x, b);
        if (k === undefined) return undefined;
        v[i] = k;
      }
      entries += v.length;
      b.elements += v.length;
      return v;
    }
    return undefined;
  };
  for (let after = Number.MIN_SAFE_INTEGER; ;) {
    const rows = (await sql<{ id: number; objectid: string; name: string | null; properties: string }>`select id, objectid, name, properties from nodes where id > ${after} order by id limit ${PAGE}`.execute(db.kysely)).rows;
    if (rows.length === 0) break;
    for (const r of rows) {
      let p: unknown;
      try {
        p = JSON.parse(r.properties);
      } catch {
        return null; // details would fail on this node too: nothing kept
      }
      const id = Number(r.id);
      tailIds.push(id);
      tailHashes.push(tailHash(r.objectid));
      const plain = p !== null && typeof p === 'object' && !Array.isArray(p);
      // name: the property, else the column (context.ts withColumns); a null property stays null.
      const name = plain && (p as Record<string, unknown>).name !== undefined ? (p as Record<string, unknown>).name : r.name;
      if (name !== null && name !== undefined) {
        nameIds.push(id);
        names.push(name);
      }
      if (!plain) continue;
      const o = p as Record<string, unknown>;
      for (const key of Object.keys(o)) {
        const v = o[key];
        if (v === null || v === undefined) continue;
        holders.set(key, (holders.get(key) ?? 0) + 1);
        let b = building.get(key);
        if (b === undefined) building.set(key, (b = { ids: [], values: [], strings: new Map(), live: cacheableKey(key), elements: 0 }));
        if (!b.live) continue;
        const kept = entries >= MAX_STORE_ENTRIES ? undefined : keepable(v, b);
        if (kept === undefined) drop(b);
        else {
          b.ids.push(id);
          b.values.push(kept);
          entries++;
        }
      }
    }
    after = Number(rows[rows.length - 1].id);
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
  // Columns over the same nodes share one ids array.
  const shared = new Map<string, Float64Array[]>();
  const idsOf = (list: number[]): Float64Array => {
    const sig = `${list.length}:${list[0]}:${list[list.length >> 1]}:${list[list.length - 1]}`;
    const candidates = shared.get(sig) ?? [];
    for (const c of candidates) {
      let same = true;
      for (let i = 0; i < list.length && same; i++) same = c[i] === list[i];
      if (same) return c;
    }
    const made = Float64Array.from(list);
    candidates.push(made);
    shared.set(sig, candidates);
    return made;
  };
  const columns = new Map<string, Column>();
  for (const [key, b] of building) if (b.live) columns.set(key, { ids: idsOf(b.ids), values: b.values.slice() });
  return {
    holders, columns, entries, name: { ids: idsOf(nameIds), values: names },
    tails: { ids: idsOf(tailIds), hashes: Uint16Array.from(tailHashes) },
  };
}
