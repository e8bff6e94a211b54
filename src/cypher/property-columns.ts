import { sql } from 'kysely';
import type { Db } from '../db/create-db.ts';
import type { GraphView } from '../graph/engine/index.ts';
import type { Pushdown } from './graph-source.ts';
import { positionIn, type GraphSnapshot } from '../graph/engine/snapshot.ts';
import { heldStore, nodeStore, storeColumn } from './node-store.ts';

/**
 * Property columns for node scans: the value of one property key for every node that has it, read
 * in one pass over `nodes` the first time a scan tests that key, then kept while the `nodes` data
 * version stays the same (src/db/data-versions.ts: any write to nodes, here or in another process,
 * drops them all). Only keys few nodes have are kept (at most MAX_COLUMN: the read stops there and
 * the key is marked large for that version); MAX_ENTRIES values in all, least recently used first out.
 * A scan then starts from its rarest kept key instead of parsing every node's properties in SQL
 * (graph-source.ts). The in-memory tests keep at least every node Cypher's own test would keep: like
 * the SQL ones, they only narrow (WHERE is evaluated on the rows afterwards).
 */
export interface Column {
  /** Node ids (ascending) whose properties hold the key with a non-null value. */
  ids: Float64Array;
  values: unknown[];
}

/** Most values one column holds: a key more nodes have is marked large and left to SQL (read stops there). */
const MAX_COLUMN = 100_000;
/** Most values held over all keys (least recently used keys dropped first). */
const MAX_ENTRIES = 2_000_000;
/** Keys that can be kept: looked for as `"key"` in the stored JSON text. */
export const CACHEABLE = /^[A-Za-z0-9_]+$/;

interface Held {
  version: string;
  columns: Map<string, Column>;
  /** Keys more than MAX_COLUMN nodes have, at this version. */
  large: Set<string>;
  entries: number;
  /** Every node's objectid, as a hash of its last `-` segment (ids ascending). */
  suffixes?: { ids: Float64Array; hashes: Uint16Array };
  /** How many nodes hold each top-level property key, estimated from a sample (keySample; null: could not be read). */
  keys?: Promise<Map<string, number> | null>;
  /** Wide columns (wideColumns): keys more nodes hold, read for the probe and in-memory scans, least recently used first out. */
  wide: Map<string, Column>;
  wideEntries: number;
}

const held = new WeakMap<Db, Held>();

/** Whether a key's column may be kept (objectid, name and lastseen also read columns of their own: not here). */
export function cacheableKey(key: string): boolean {
  return key !== 'objectid' && key !== 'name' && key !== 'lastseen' && CACHEABLE.test(key);
}

/** `leaf` of a pushdown, or of every part of an OR of them, concatenated; null when any part's is null. */
function overOr(p: Pushdown, leaf: (q: Exclude<Pushdown, { op: 'or' }>) => string[] | null): string[] | null {
  if (p.op !== 'or') return leaf(p);
  const out: string[] = [];
  for (const part of p.parts) {
    const got = overOr(part, leaf);
    if (got === null) return null;
    out.push(...got);
  }
  return out;
}

/** The property keys a pushdown tests ([] for labels and tags; null when one of them cannot be kept; `name`: also name). */
export function keysOf(p: Pushdown, name = false): string[] | null {
  return overOr(p, (q) => (q.op === 'tag' || q.op === 'kind' ? [] : cacheableKey(q.key) || (name && q.key === 'name') ? [q.key] : null));
}

/**
 * The column of `key` at the current `nodes` version (read now when not kept: one pass over `nodes`
 * that stops after MAX_COLUMN + 1 holders); 'large' when more nodes have it; null when nothing may be
 * kept (data versions unusable). `store`: answered from the node store (node-store.ts) when it is held
 * (a key it counts but keeps no column of is read as before).
 */
export async function column(db: Db, key: string, store = false): Promise<Column | 'large' | null> {
  const h = cacheableKey(key) ? heldAt(db) : null;
  if (h === null) return null;
  if (h.large.has(key)) return 'large';
  const s = store ? heldStore(db) : null;
  if (s !== null) {
    if ((s.holders.get(key) ?? 0) > MAX_COLUMN) return 'large';
    const c = storeColumn(s, key);
    if (c !== undefined) return c;
  }
  const kept = h.columns.get(key);
  if (kept) {
    // Most recently used last.
    h.columns.delete(key);
    h.columns.set(key, kept);
    return kept;
  }
  // How many nodes hold each key, estimated from a sample of the nodes (once per version): a key far
  // commoner than a column may hold is large at once; any other is read (a key no node holds: an empty
  // column after one pass; one more nodes hold than MAX_COLUMN: large after MAX_COLUMN + 1), neither read again.
  h.keys ??= keySample(db);
  const estimate = (await h.keys)?.get(key);
  const read = estimate !== undefined && estimate > 2 * MAX_COLUMN ? 'large' as const : await readColumn(db, key);
  keep(db, h, key, read);
  return read;
}

/** Keeps a column read at `h`'s version (not when a write has made it stale since: read at `version`, kept under it only). */
function keep(db: Db, h: Held, key: string, read: Column | 'large'): void {
  if (held.get(db) !== h) return;
  if (read === 'large') h.large.add(key);
  else h.entries = keepWithin(h.columns, h.entries, MAX_ENTRIES, key, read);
}

/**
 * Keeps `column` under `key` in `columns` (least recently used first), first dropping the oldest while the
 * values held would pass `max`; returns how many values are held then (`entries` before).
 */
export function keepWithin<C extends { ids: Float64Array }>(columns: Map<string, C>, entries: number, max: number, key: string, column: C): number {
  while (entries + column.ids.length > max && columns.size > 0) {
    const oldest = columns.keys().next().value!;
    entries -= columns.get(oldest)!.ids.length;
    columns.delete(oldest);
  }
  columns.set(key, column);
  return entries + column.ids.length;
}

/**
 * Reads the columns of several keys in one pass over `nodes` (a scan testing `n.userpassword IS NOT NULL
 * OR n.unixpassword IS NOT NULL OR …`: keys few or no nodes hold, each a pass of its own otherwise), when
 * none is kept or known large and together they are held by at most MAX_COLUMN nodes (else each is read
 * on its own, as column() does).
 */
export async function readColumnsTogether(db: Db, keys: readonly string[], store = false): Promise<void> {
  const h = heldAt(db);
  if (h === null) return;
  const s = store ? heldStore(db) : null;
  if (s !== null) keys = keys.filter((k) => storeColumn(s, k) === undefined && (s.holders.get(k) ?? 0) <= MAX_COLUMN);
  h.keys ??= keySample(db);
  const estimates = await h.keys;
  const wanted = [...new Set(keys)].filter((k) => cacheableKey(k) && !h.large.has(k) && !h.columns.has(k) && !((estimates?.get(k) ?? 0) > 2 * MAX_COLUMN));
  if (wanted.length < 2) return;
  const pg = db.dialect === 'postgres';
  const values = wanted.map((key, i) => (pg ? sql`(properties::jsonb -> ${key})::text as ${sql.raw(`v${i}`)}` : sql`properties -> ${`$."${key}"`} as ${sql.raw(`v${i}`)}`));
  const holds = wanted.map((key) => (pg ? sql`strpos(properties, ${`"${key}"`}) > 0` : sql`instr(properties, ${`"${key}"`}) > 0`));
  const rows = (await sql<Record<string, string | number | null>>`select id, ${sql.join(values)} from nodes where ${sql.join(holds, sql` or `)} limit ${MAX_COLUMN + 1}`.execute(db.kysely)).rows;
  if (rows.length > MAX_COLUMN) return;
  wanted.forEach((key, i) => {
    const pairs: Array<[number, unknown]> = [];
    for (const r of rows) {
      const text = r[`v${i}`];
      if (text === null || text === undefined) continue;
      const value: unknown = JSON.parse(String(text));
      if (value !== null) pairs.push([Number(r.id), value]);
    }
    pairs.sort((a, b) => a[0] - b[0]);
    keep(db, h, key, { ids: Float64Array.from(pairs, (x) => x[0]), values: pairs.map((x) => x[1]) });
  });
}

function heldAt(db: Db): Held | null {
  if (!db.versions.usable()) return null;
  const version = db.versions.snapshot(['nodes']);
  let h = held.get(db);
  if (!h || h.version !== version) held.set(db, (h = { version, columns: new Map(), large: new Set(), entries: 0, wide: new Map(), wideEntries: 0 }));
  return h;
}

/** Most values held over all wide columns (least recently used dropped first; 8 + 8 bytes a value). */
const MAX_WIDE_ENTRIES = 6_000_000;
/** Keys a wide column may hold: those of the kept columns, and name / objectid (read as Cypher sees them: the property, else the column). */
export function wideKey(key: string): boolean {
  return key === 'name' || key === 'objectid' || cacheableKey(key);
}
/** Distinct values shared (one copy each) while a wide column is read. */
export const MAX_INTERNED = 65_536;

/**
 * Wide columns: like the kept columns, the value of a key for every node holding it, for keys held by
 * more nodes than a kept column may (`domainsid`, `enabled`, `name`: every node), read for many keys in one
 * pass over `nodes` and kept while the `nodes` data version stays the same (MAX_WIDE_ENTRIES values in all,
 * least recently used first out). Read when a question would otherwise read the details, or test in SQL,
 * of a large part of the nodes (the probe over many rows, a scan of a common key): the same values the
 * details hold, so the probe and the scans read them instead. Repeated values are held once. Null when
 * nothing may be kept or a key cannot be (lastseen: formatted from its own column). `store`: the keys the node
 * store keeps (node-store.ts) are taken from it, read first when it is not held (one pass for every key).
 */
export async function wideColumns(db: Db, keys: readonly string[], store = false): Promise<Map<string, Column> | null> {
  if (keys.some((k) => !wideKey(k))) return null;
  const h = heldAt(db);
  if (h === null) return null;
  const out = new Map<string, Column>();
  const missing: string[] = [];
  let s = store ? heldStore(db) : null;
  if (store && s === null && keys.some((k) => (cacheableKey(k) || k === 'name') && !h.columns.has(k) && !h.wide.has(k))) s = await nodeStore(db);
  for (const key of new Set(keys)) {
    const kept = h.columns.get(key) ?? h.wide.get(key) ?? (s === null ? undefined : storeColumn(s, key));
    if (kept === undefined) missing.push(key);
    else {
      out.set(key, kept);
      if (h.wide.has(key)) {
        // Most recently used last.
        h.wide.delete(key);
        h.wide.set(key, kept);
      }
    }
  }
  if (missing.length === 0) return out;
  const read = await readWide(db, missing);
  for (const [key, c] of read) {
    out.set(key, c);
    if (held.get(db) !== h) continue; // read at `version`: a write since makes it stale at once
    h.wideEntries = keepWithin(h.wide, h.wideEntries, MAX_WIDE_ENTRIES, key, c);
  }
  return out;
}

/** The wide (or kept) columns of these keys already held at the current version, without reading any; null unless all are. */
export function heldWideColumns(db: Db, keys: readonly string[], store = false): Map<string, Column> | null {
  const out = new Map<string, Column>();
  for (const key of keys) {
    const c = heldColumn(db, key, store);
    if (c === null) return null;
    out.set(key, c);
  }
  return out;
}

/** The wide or kept column of a key already held at the current version (`store`: or the node store's), without reading any; null when none is. */
export function heldColumn(db: Db, key: string, store = false): Column | null {
  if (!db.versions.usable()) return null;
  const h = held.get(db);
  const version = db.versions.snapshot(['nodes']);
  const c = h === undefined || h.version !== version ? undefined : h.columns.get(key) ?? h.wide.get(key);
  if (c !== undefined) return c;
  const s = store ? heldStore(db) : null;
  return (s === null ? undefined : storeColumn(s, key)) ?? null;
}

async function readWide(db: Db, keys: readonly string[]): Promise<Map<string, Column>> {
  const pg = db.dialect === 'postgres';
  // name and objectid: the property, else the column (as Cypher sees them), each on its own. SQLite reads
  // the other keys with one json_extract of them all (one JSON array a row: the text parsed once, each
  // value's JSON type kept), PostgreSQL key by key.
  const own = keys.filter((k) => k === 'name' || k === 'objectid');
  const plain = keys.filter((k) => k !== 'name' && k !== 'objectid');
  const select = own.map((key, i) => {
    const alias = sql.raw(`o${i}`);
    if (pg) return sql`coalesce((properties::jsonb -> ${key})::text, to_jsonb(${sql.ref(key)})::text) as ${alias}`;
    return sql`coalesce(properties -> ${`$."${key}"`}, json_quote(${sql.ref(key)})) as ${alias}`;
  });
  if (pg) plain.forEach((key, i) => select.push(sql`(properties::jsonb -> ${key})::text as ${sql.raw(`p${i}`)}`));
  else if (plain.length > 0) {
    // Two paths at least, so the answer is always an array.
    const paths = plain.map((k) => `$."${k}"`);
    select.push(sql`json_extract(properties, ${sql.join(paths.length === 1 ? [paths[0], paths[0]] : paths)}) as m`);
  }
  const ids = new Map(keys.map((k) => [k, [] as number[]]));
  const values = new Map(keys.map((k) => [k, [] as unknown[]]));
  // Repeated strings held once (domainsid, operatingsystem), while there are few of them.
  const strings = new Map<string, string>();
  const put = (key: string, id: number, value: unknown) => {
    if (value === null || value === undefined) return;
    if (typeof value === 'string' && strings.size < MAX_INTERNED) {
      const held = strings.get(value);
      if (held === undefined) strings.set(value, value);
      else value = held;
    }
    ids.get(key)!.push(id);
    values.get(key)!.push(value);
  };
  for (let after = Number.MIN_SAFE_INTEGER; ;) {
    const rows = (await sql<Record<string, string | number | null>>`select id, ${sql.join(select)} from nodes where id > ${after} order by id limit ${PAGE}`.execute(db.kysely)).rows;
    if (rows.length === 0) break;
    for (const r of rows) {
      const id = Number(r.id);
      own.forEach((key, i) => {
        const text = r[`o${i}`];
        if (text !== null && text !== undefined) put(key, id, JSON.parse(String(text)));
      });
      if (pg) {
        plain.forEach((key, i) => {
          const text = r[`p${i}`];
          if (text !== null && text !== undefined) put(key, id, JSON.parse(String(text)));
        });
      } else if (plain.length > 0 && r.m !== null && r.m !== undefined) {
        const all = JSON.parse(String(r.m)) as unknown[];
        for (let i = 0; i < plain.length; i++) put(plain[i], id, all[i]);
      }
    }
    after = Number(rows[rows.length - 1].id);
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
  return new Map(keys.map((key) => [key, { ids: Float64Array.from(ids.get(key)!), values: values.get(key)! }]));
}

/** Hash of the last `-` segment of a text, upper-cased (16 bits). */
export function tailHash(text: string): number {
  const tail = text.slice(text.lastIndexOf('-') + 1).toUpperCase();
  let h = 0x811c9dc5;
  for (let i = 0; i < tail.length; i++) h = Math.imul(h ^ tail.charCodeAt(i), 16777619);
  return (h ^ (h >>> 16)) & 0xffff;
}

/**
 * The objectid suffixes an `objectid ENDS WITH '…-x'` predicate (or an OR of them) asks for, when
 * each holds a `-`: an objectid ending so has exactly that last segment (`…-512` → `512`), whatever
 * comes before; null for any other predicate.
 */
export function objectidSuffixes(p: Pushdown): string[] | null {
  return overOr(p, (q) => (q.op === 'ends' && q.key === 'objectid' && q.value.includes('-') ? [q.value] : null));
}

/**
 * Node ids (ascending) whose objectid may end in one of `suffixes` (each holding a `-`, as
 * objectidSuffixes gives them): those whose last segment hashes as the suffix's, from every node's
 * objectid read once per `nodes` version (16 bits and an id per node). Null when nothing may be kept.
 */
export async function objectidsEndingIn(db: Db, suffixes: readonly string[], store = false): Promise<number[] | null> {
  const tails = await objectidTails(db, store);
  if (tails === null) return null;
  const wanted = new Uint8Array(65_536);
  for (const x of suffixes) wanted[tailHash(x)] = 1;
  const { ids, hashes } = tails;
  const out: number[] = [];
  for (let i = 0; i < ids.length; i++) if (wanted[hashes[i]]) out.push(ids[i]);
  return out;
}

/**
 * Every node's objectid as the hash of its last `-` segment (upper-cased), ids ascending; read once per
 * `nodes` version (`store`: as part of the node store, node-store.ts). Null when nothing may be kept.
 */
export async function objectidTails(db: Db, store = false): Promise<{ ids: Float64Array; hashes: Uint16Array } | null> {
  const h = heldAt(db);
  if (h === null) return null;
  if (!h.suffixes && store) {
    const s = await nodeStore(db);
    if (s !== null) return s.tails;
  }
  if (!h.suffixes) {
    const idList: number[] = [];
    const hashList: number[] = [];
    for (let after = Number.MIN_SAFE_INTEGER; ;) {
      const rows = (await sql<{ id: number; objectid: string }>`select id, objectid from nodes where id > ${after} order by id limit ${PAGE}`.execute(db.kysely)).rows;
      if (rows.length === 0) break;
      for (const r of rows) {
        idList.push(Number(r.id));
        hashList.push(tailHash(r.objectid));
      }
      after = Number(rows[rows.length - 1].id);
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    const read = { ids: Float64Array.from(idList), hashes: Uint16Array.from(hashList) };
    // Read at `version`: kept under it only (a write since makes it stale at once).
    if (held.get(db) !== h) return read;
    h.suffixes = read;
  }
  return h.suffixes;
}

const tailsByPosition = new WeakMap<{ ids: Float64Array; hashes: Uint16Array }, { graph: GraphSnapshot; byPosition: Int32Array }>();

/** tailAt through the node's position in an engine snapshot (an index per snapshot made once, as valueAtPosition). */
export function tailAtPosition(tails: { ids: Float64Array; hashes: Uint16Array }, graph: GraphSnapshot, id: number): number | undefined {
  let held = tailsByPosition.get(tails);
  if (held === undefined || held.graph !== graph) {
    const byPosition = new Int32Array(graph.nodeCount).fill(-1);
    for (let i = 0, p = 0; i < tails.ids.length; i++) {
      while (p < graph.nodeCount && graph.nodeIds[p] < tails.ids[i]) p++;
      if (p < graph.nodeCount && graph.nodeIds[p] === tails.ids[i]) byPosition[p] = tails.hashes[i];
    }
    tailsByPosition.set(tails, (held = { graph, byPosition }));
  }
  const p = graph.position(id);
  if (p < 0) return tailAt(tails, id);
  const h = held.byPosition[p];
  return h < 0 ? undefined : h;
}

/** The hash of a node's objectid tail (objectidTails) at an id; undefined when the node is not there. */
export function tailAt(tails: { ids: Float64Array; hashes: Uint16Array }, id: number): number | undefined {
  const at = positionIn(tails.ids, id);
  return at < 0 ? undefined : tails.hashes[at];
}

/** Nodes read per statement by the whole-table passes (between pages, other requests run). */
export const PAGE = 50_000;

/** Nodes read for the key estimate (keySample). */
const SAMPLE = 2_000;

/**
 * How many nodes hold each top-level property key, estimated from about SAMPLE nodes at evenly spread
 * ids (point reads, a few milliseconds: a census of every node's keys took ~4.5 s on 555,902 nodes), or
 * null when none could be read. Only says a key is far too common for a column: a key the sample misses
 * may still be held (its column is read, and finds it).
 */
async function keySample(db: Db): Promise<Map<string, number> | null> {
  const range = (await sql<{ lo: number | null; hi: number | null; n: number }>`select min(id) as lo, max(id) as hi, count(*) as n from nodes`.execute(db.kysely)).rows[0];
  if (!range || range.lo === null || range.hi === null) return new Map();
  const lo = Number(range.lo);
  const hi = Number(range.hi);
  const ids = [...new Set(Array.from({ length: SAMPLE }, (_, i) => lo + Math.floor(((hi - lo) * i) / SAMPLE)))];
  const counts = new Map<string, number>();
  let found = 0;
  for (let i = 0; i < ids.length; i += 500) {
    const rows = (await sql<{ properties: string }>`select properties from nodes where id in (${sql.join(ids.slice(i, i + 500))})`.execute(db.kysely)).rows;
    for (const r of rows) {
      let p: unknown;
      try {
        p = JSON.parse(r.properties);
      } catch {
        continue;
      }
      if (p === null || typeof p !== 'object' || Array.isArray(p)) continue;
      found++;
      for (const k of Object.keys(p)) counts.set(k, (counts.get(k) ?? 0) + 1);
    }
  }
  if (found === 0) return null;
  const n = Number(range.n);
  return new Map([...counts].map(([k, c]) => [k, (c / found) * n]));
}

async function readColumn(db: Db, key: string): Promise<Column | 'large'> {
  const needle = `"${key}"`;
  const rows = db.dialect === 'sqlite'
    ? (await sql<{ id: number; v: string | null }>`select id, properties -> ${`$."${key}"`} as v from nodes where instr(properties, ${needle}) > 0 limit ${MAX_COLUMN + 1}`.execute(db.kysely)).rows
    : (await sql<{ id: number; v: string | null }>`select id, (properties::jsonb -> ${key})::text as v from nodes where strpos(properties, ${needle}) > 0 limit ${MAX_COLUMN + 1}`.execute(db.kysely)).rows;
  if (rows.length > MAX_COLUMN) return 'large';
  const pairs: Array<[number, unknown]> = [];
  for (const r of rows) {
    if (r.v === null) continue;
    const value: unknown = JSON.parse(r.v);
    if (value !== null) pairs.push([Number(r.id), value]);
  }
  pairs.sort((a, b) => a[0] - b[0]);
  return { ids: Float64Array.from(pairs, (x) => x[0]), values: pairs.map((x) => x[1]) };
}

/**
 * A column's value index per position of one engine snapshot (-1: none), made on first use (one pass over
 * both); kept per ids array, so the columns sharing one (the node store's over the same nodes) share it.
 */
const byPosition = new WeakMap<Float64Array, { graph: GraphSnapshot; index: Int32Array }>();

/**
 * The value of a column at a node id (undefined when the node lacks the key), found through the
 * position of the node in an engine snapshot: per column and snapshot, an index by position is made
 * once (the column's ids merged with the snapshot's), so each read is two array reads, not a search
 * (a prefilter over millions of matches reads two columns a match).
 */
export function valueAtPosition(column: Column, graph: GraphSnapshot, id: number): unknown {
  const p = graph.position(id);
  // A node the snapshot does not hold: searched in the column.
  if (p < 0) return valueAt(column, id);
  const at = positionIndex(column, graph)[p];
  return at < 0 ? undefined : column.values[at];
}

/** A column's value index by position in a snapshot (-1: the node lacks the key), made once per column and snapshot. */
export function positionIndex(column: Column, graph: GraphSnapshot): Int32Array {
  let held = byPosition.get(column.ids);
  if (held === undefined || held.graph !== graph) {
    const index = new Int32Array(graph.nodeCount).fill(-1);
    const ids = column.ids;
    for (let i = 0, p = 0; i < ids.length; i++) {
      while (p < graph.nodeCount && graph.nodeIds[p] < ids[i]) p++;
      if (p < graph.nodeCount && graph.nodeIds[p] === ids[i]) index[p] = i;
    }
    byPosition.set(column.ids, (held = { graph, index }));
  }
  return held.index;
}

/** The value of a column at a node id (undefined when the node lacks the key). */
export function valueAt(column: Column, id: number): unknown {
  const at = positionIn(column.ids, id);
  return at < 0 ? undefined : column.values[at];
}

const same = (a: unknown, b: unknown) => a === b;

/**
 * Whether a node may pass a pushdown (never false where Cypher's own test could be true); its keys' columns
 * are given, and `tails` (objectidTails) for `objectid ENDS WITH '…-x'` (a node whose objectid's last segment
 * hashes otherwise cannot pass).
 */
export function passes(p: Pushdown, id: number, columns: Map<string, Column>, view: GraphView, tails?: { ids: Float64Array; hashes: Uint16Array }): boolean {
  switch (p.op) {
    case 'or':
      return p.parts.some((x) => passes(x, id, columns, view, tails));
    case 'tag': case 'kind':
      return view.hasKind(id, p.label);
    default:
      break;
  }
  if (p.key === 'objectid' && tails !== undefined && p.op === 'ends' && p.value.includes('-')) return tailAt(tails, id) === tailHash(p.value);
  const v = valueAt(columns.get(p.key)!, id);
  if (v === undefined) return false;
  switch (p.op) {
    case 'notnull':
      return true;
    case '=':
      return same(v, p.value);
    case 'in':
      return p.values.some((x) => same(v, x));
    case 'elem':
      return Array.isArray(v) && v.some((x) => same(x, p.value));
    case 'starts': case 'ends': case 'contains': {
      if (typeof v !== 'string') return false;
      if (p.caseInsensitive) return true;
      return p.op === 'starts' ? v.startsWith(p.value) : p.op === 'ends' ? v.endsWith(p.value) : v.includes(p.value);
    }
    default: {
      // Ordered comparisons: numbers with numbers, strings with strings; anything else kept.
      const c = p.value;
      if (typeof v !== typeof c || (typeof v !== 'number' && typeof v !== 'string')) return typeof c === 'boolean' || typeof v === 'boolean';
      const a = v as number | string;
      const b = c as number | string;
      return p.op === '<' ? a < b : p.op === '>' ? a > b : p.op === '<=' ? a <= b : a >= b;
    }
  }
}
