import { sql, type RawBuilder } from 'kysely';
import type { Db } from '../db/create-db.ts';
import { graphEngine, type GraphView } from '../graph/engine/index.ts';
import { cacheableKey, column, heldColumn, keysOf, readColumnsTogether, objectidSuffixes, objectidsEndingIn, objectidTails, passes, wideColumns, type Column } from './property-columns.ts';
import { heldStore, nodeStore } from './node-store.ts';
import { edgeColumn, type EdgeColumn } from './relationship-columns.ts';

/**
 * What the Cypher executor reads from the graph: structure (kinds, tags, neighbours by kind and
 * direction) from the one graph engine (src/graph/engine: an in-memory snapshot, one consistent view
 * per query), and node / edge details and property predicates from the database in batches (SQL
 * over `nodes` / `edges`, src/graph/README.md): a scan applies its pushed-down predicates in SQL and
 * its label through the engine.
 */
export interface NodeData {
  id: number;
  objectid: string;
  name: string | null;
  kinds: string[];
  properties: Record<string, unknown>;
  /** Microseconds since the epoch. */
  lastSeen: number;
}

export interface EdgeData {
  id: number;
  start: number;
  end: number;
  kind: string;
}

/** A property predicate a scan can apply in SQL: it may keep more rows than Cypher would, never fewer. */
export type Pushdown =
  | { key: string; op: '=' | '<' | '>' | '<=' | '>='; value: string | number | boolean }
  | { key: string; op: 'starts' | 'ends' | 'contains'; value: string; caseInsensitive?: boolean }
  | { key: string; op: 'in'; values: Array<string | number | boolean> }
  | { key: string; op: 'elem'; value: string | number | boolean }
  | { key: string; op: 'notnull' }
  | { op: 'tag'; label: string }
  | { op: 'kind'; label: string }
  | { op: 'or'; parts: Pushdown[] };

export interface ScanSpec {
  /** Every node carries this kind (primary or not); null = any node. */
  kind: string | null;
  predicates: Pushdown[];
}

const BATCH = 500;
/** A label with at most this many nodes is scanned through the engine alone (no SQL predicate pass). */
export const SMALL_SCAN = 5_000;
/** A kept column this small drives a scan without reading more columns. */
const RARE = 1_000;
/** A scan testing property keys over more candidates than this reads the node store (node-store.ts) when it is not held. */
export const STORE_FROM = 20_000;

export interface GraphSourceOptions { columns?: boolean; keptColumns?: boolean; wideScansFrom?: number; store?: boolean; storeFrom?: number }

export class GraphSource {
  private viewPromise: Promise<GraphView> | null = null;
  /** Scans answered from kept property columns / objectid suffixes (tests check the path is taken). */
  readonly stats = { columnScans: 0, wideReads: 0, wideScans: 0, storeScans: 0, tailScans: 0 };
  private readonly kindCounts = new Map<string | null, number>();

  /**
   * `columns`: answer scans from kept property columns (property-columns.ts); on unless a test compares.
   * `wideScansFrom`: scans over more candidates than this (SMALL_SCAN; Infinity: none) test the keys many
   * nodes hold in the wide columns held for them; a test sets 0, and `keptColumns: false` to read every key as a
   * wide column (the scans too). `store` (on unless a test compares): columns from the node store
   * (node-store.ts), read by a scan over more candidates than `storeFrom` (STORE_FROM; a test sets 0) and by
   * any wide column read.
   */
  constructor(readonly db: Db, private readonly options: GraphSourceOptions = {}) {}

  private get store(): boolean {
    return this.options.store !== false && this.options.columns !== false;
  }

  /** The engine's view this query reads (taken once: one consistent graph for the whole query). */
  view(): Promise<GraphView> {
    this.viewPromise ??= graphEngine(this.db).view();
    return this.viewPromise;
  }

  /**
   * The kept column of a property key (every node holding it, with its value), read now if need be;
   * null when the key is held by too many nodes to keep, or columns are off.
   */
  async keptColumn(key: string): Promise<Column | null> {
    if (this.options.columns === false || this.options.keptColumns === false || !cacheableKey(key)) return null;
    const c = await column(this.db, key, this.store);
    return c === null || c === 'large' ? null : c;
  }

  /**
   * The columns of these keys, kept ones as they are and the others read as wide columns (every node
   * holding the key, in one pass over `nodes` for all of them: property-columns.ts wideColumns); null when
   * columns are off or one of the keys cannot be held.
   */
  async wideColumns(keys: readonly string[]): Promise<Map<string, Column> | null> {
    if (this.options.columns === false) return null;
    this.stats.wideReads += keys.length;
    return wideColumns(this.db, keys, this.store);
  }

  /**
   * The column of a relationship property over the relationships of `kinds` (property-columns.ts
   * edgeColumn; `count`: how many relationships those kinds hold); null when columns are off or it is not kept.
   */
  async edgeColumn(key: string, kinds: readonly string[], count: number): Promise<EdgeColumn | null> {
    if (this.options.columns === false) return null;
    return edgeColumn(this.db, key, kinds, count);
  }

  /** Every node's objectid tail hash (property-columns.ts objectidTails); null when columns are off or cannot be kept. */
  async objectidTails(): Promise<{ ids: Float64Array; hashes: Uint16Array } | null> {
    return this.options.columns === false ? null : objectidTails(this.db, this.store);
  }

  /** Whether the node store (node-store.ts) is held at the current version and may be used: scans of its keys are in memory. */
  storeHeld(): boolean {
    return this.store && heldStore(this.db) !== null;
  }

  /** The column of a key held already (kept, wide or the node store's), without reading any; null when none is or columns are off. */
  heldColumn(key: string): Column | null {
    if (this.options.columns === false || !this.store) return null;
    return heldColumn(this.db, key, true);
  }

  /** How many nodes carry a kind (a stored kind or a Tag_* kind; null: all nodes). */
  async countKind(kind: string | null): Promise<number> {
    let n = this.kindCounts.get(kind);
    if (n === undefined) {
      const view = await this.view();
      n = kind === null ? view.nodeCount : nodesOfKind(view, kind).length;
      this.kindCounts.set(kind, n);
    }
    return n;
  }

  /**
   * Node ids (ascending) carrying `kind` and passing the pushed-down predicates (a superset of the
   * matches). `exact`: always apply the predicates in SQL (else a small label is returned whole).
   */
  async scan(spec: ScanSpec, exact = false): Promise<readonly number[]> {
    const view = await this.view();
    const byKind = spec.kind === null ? null : nodesOfKind(view, spec.kind);
    // Few enough candidates: their details are read anyway, and the predicates run on them in memory.
    if (spec.predicates.length === 0 || (!exact && byKind !== null && byKind.length <= SMALL_SCAN)) return byKind ?? Array.from(view.nodeIds());
    if (this.options.columns !== false) {
      const found = await this.scanColumns(view, spec, byKind);
      if (found !== null) {
        this.stats.columnScans++;
        return found;
      }
    }
    // The label's text test first (SQLite tests the terms in order): the other nodes' properties are not parsed.
    const label = spec.kind !== null && !spec.kind.startsWith('Tag_') ? [this.exactPushdown({ op: 'kind', label: spec.kind })] : [];
    const where = sql.join([...label, ...spec.predicates.map((p) => this.pushdown(p))], sql` and `);
    const rows = await sql<{ id: number }>`select id from nodes where ${where} order by id`.execute(this.db.kysely);
    const ids = rows.rows.map((r) => Number(r.id));
    return spec.kind === null ? ids.filter((id) => view.has(id)) : ids.filter((id) => view.hasKind(id, spec.kind!));
  }

  /**
   * A scan from kept property columns (property-columns.ts), or null when SQL must do it: the rarest
   * column a predicate needs outright drives (reading the columns not kept yet, until one is rare
   * enough), every predicate whose keys are kept is tested in memory, and the others in SQL on the
   * survivors when they are many. Without such a column, in memory only when every key is kept.
   */
  private async scanColumns(view: GraphView, spec: ScanSpec, byKind: readonly number[] | null): Promise<number[] | null> {
    const columns = new Map<string, Column>();
    const known = async (key: string) => {
      if (columns.has(key)) return true;
      if (this.options.keptColumns === false) return false;
      const c = await column(this.db, key, this.store);
      if (c === null || c === 'large') return false;
      columns.set(key, c);
      return true;
    };
    // Property keys tested over many candidates: the node store is read first when not held (one pass over
    // `nodes` for every key, instead of this scan's SQL and the next ones').
    // (name too: the store holds it as Cypher reads it.)
    const named = this.store;
    const storeKeys = spec.predicates.flatMap((p) => keysOf(p, named) ?? []);
    if (this.store && storeKeys.length > 0 && (byKind?.length ?? view.nodeCount) > (this.options.storeFrom ?? STORE_FROM) && heldStore(this.db) === null) await nodeStore(this.db);
    let driver: ArrayLike<number> | null = null;
    // The keys not read yet, read together (one pass for several rare keys).
    if (this.options.keptColumns !== false) await readColumnsTogether(this.db, storeKeys, this.store);
    // objectid ENDS WITH '…-512' (or an OR of such): the nodes whose objectid has that last segment.
    const bySuffix = new Set<Pushdown>();
    for (const p of spec.predicates) {
      const suffixes = objectidSuffixes(p);
      if (suffixes === null) continue;
      const ids = await objectidsEndingIn(this.db, suffixes, this.store);
      if (ids === null) break;
      bySuffix.add(p);
      if (driver === null || ids.length < driver.length) driver = ids;
    }
    for (const p of spec.predicates) {
      if (p.op === 'or' || p.op === 'tag' || p.op === 'kind' || keysOf(p) === null) continue;
      if (driver !== null && driver.length <= RARE) break;
      if (!(await known(p.key))) continue;
      const c = columns.get(p.key)!;
      if (driver === null || c.ids.length < driver.length) driver = c.ids;
    }
    // Keys more nodes hold than a kept column may (`enabled`, `domainsid`): over many candidates, their wide
    // columns, when the probe or a step's prefilter has read them at this version, or the node store's,
    // test them in memory instead of SQL. (Not read for a scan: a pass over every node's properties costs
    // more than the scan; the store is read above, for every key at once.)
    const candidateCount = driver?.length ?? byKind?.length ?? view.nodeCount;
    let fromStore = false;
    if (candidateCount > (this.options.wideScansFrom ?? SMALL_SCAN) && (driver === null || driver.length > RARE)) {
      const large: string[] = [];
      // (The keys beside an objectid suffix test too: `n.objectid ENDS WITH '-502' OR n.name STARTS WITH …`.)
      const leafKeys = (p: Pushdown): string[] => (p.op === 'or' ? p.parts.flatMap(leafKeys) : 'key' in p && p.key !== 'objectid' ? keysOf(p, named) ?? [] : []);
      for (const p of spec.predicates) for (const k of leafKeys(p)) if (!large.includes(k) && !(await known(k))) large.push(k);
      if (this.options.keptColumns === false && large.length > 0) {
        const wide = await wideColumns(this.db, large, this.store);
        if (wide !== null) {
          for (const [k, c] of wide) columns.set(k, c);
          this.stats.wideScans++;
        }
      } else {
        let some = false;
        for (const k of large) {
          const c = heldColumn(this.db, k, this.store);
          if (c === null) continue;
          columns.set(k, c);
          some = true;
        }
        if (some) this.stats.wideScans++;
        // Some keys only the store's (or the wide) columns test: the others (`n.email <> ""`, a key counted only)
        // are tested in SQL on the survivors.
        fromStore = some;
      }
    }
    // objectid suffixes (`n.objectid ENDS WITH '-502' OR n.name STARTS WITH …`) by the store's objectid tail hashes (a superset: WHERE decides).
    const tails = this.store ? heldStore(this.db)?.tails : undefined;
    const inMemory = (p: Pushdown): boolean => {
      if (p.op === 'or') return p.parts.every(inMemory);
      if (p.op === 'tag' || p.op === 'kind') return true;
      if (p.key === 'objectid') return tails !== undefined && p.op === 'ends' && p.value.includes('-');
      return columns.has(p.key);
    };
    const byTails = spec.predicates.filter((p) => !(keysOf(p, named)?.every((k) => columns.has(k)) ?? false) && tails !== undefined && inMemory(p));
    if (byTails.length > 0) this.stats.tailScans++;
    const testable = spec.predicates.filter((p) => (keysOf(p, named)?.every((k) => columns.has(k)) ?? false) || byTails.includes(p));
    if (driver === null && !(fromStore && testable.length > 0)) {
      for (const p of spec.predicates) {
        const keys = keysOf(p);
        if (keys === null) return null;
        for (const k of keys) if (!(await known(k))) return null;
      }
    }
    if (testable.length > 0 && this.storeHeld()) this.stats.storeScans++;
    // The suffix predicates narrowed by hash (a superset): the exact test is left to SQL or to WHERE.
    const rest = spec.predicates.filter((p) => !testable.includes(p) && !(bySuffix.has(p) && driver !== null && driver.length <= SMALL_SCAN));
    const candidates: ArrayLike<number> = driver ?? byKind ?? view.nodeIds();
    let out: number[] = [];
    for (let i = 0; i < candidates.length; i++) {
      const id = candidates[i];
      if (spec.kind === null ? !view.has(id) : !view.hasKind(id, spec.kind)) continue;
      if (testable.every((p) => passes(p, id, columns, view, tails))) out.push(id);
    }
    if (rest.length > 0 && out.length > SMALL_SCAN) {
      const where = sql.join(rest.map((p) => this.pushdown(p)), sql` and `);
      const kept: number[] = [];
      for (const batch of batches(out)) {
        const rows = await sql<{ id: number }>`select id from nodes where id in (${sql.join(batch)}) and ${where} order by id`.execute(this.db.kysely);
        for (const r of rows.rows) kept.push(Number(r.id));
      }
      out = kept;
    }
    return out;
  }

  private prop(key: string): RawBuilder<unknown> {
    if (key === 'objectid') return sql`objectid`;
    if (this.db.dialect === 'sqlite') {
      const path = `$."${key.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
      const value = sql`json_extract(properties, ${path})`;
      return key === 'name' ? sql`coalesce(${value}, name)` : value;
    }
    const value = sql`(properties::jsonb -> ${key})`;
    // name from its column when the properties lack it (as SQLite's coalesce above, and Cypher's n.name).
    return key === 'name' ? sql`coalesce(${value}, to_jsonb(name))` : value;
  }

  private propText(key: string): RawBuilder<unknown> {
    if (key === 'objectid') return sql`objectid`;
    if (this.db.dialect === 'sqlite') return this.prop(key);
    const text = sql`(properties::jsonb ->> ${key})`;
    return key === 'name' ? sql`coalesce(${text}, name)` : text;
  }

  protected pushdown(p: Pushdown): RawBuilder<unknown> {
    const exact = this.exactPushdown(p);
    const pg = this.db.dialect === 'postgres';
    // A property predicate holds only where the key is in the JSON text: a plain substring test first,
    // far cheaper than parsing every row's properties (most keys are absent from most nodes).
    let present: RawBuilder<unknown> | null = null;
    if ('key' in p && p.key !== 'objectid' && p.key !== 'name' && /^[A-Za-z0-9_]+$/.test(p.key)) {
      const needle = `"${p.key}"`;
      present = pg ? sql`strpos(properties, ${needle}) > 0` : sql`instr(properties, ${needle}) > 0`;
    }
    // A string test (=, STARTS / ENDS WITH, CONTAINS) holds only where the JSON text holds the value's
    // characters (plain ones: JSON writes them as they are): a substring test before parsing the row
    // (a key every node has, such as name, is otherwise extracted from every row).
    const value = 'key' in p && p.key !== 'objectid' && (p.op === '=' || p.op === 'starts' || p.op === 'ends' || p.op === 'contains') && typeof p.value === 'string' && PLAIN.test(p.value) ? p.value : null;
    if (value !== null) {
      const insensitive = p.op !== '=' && (!pg || (p as { caseInsensitive?: boolean }).caseInsensitive === true);
      const pattern = `%${escapeLike(value)}%`;
      const holds = (column: RawBuilder<unknown>) => (!insensitive
        ? (pg ? sql`strpos(${column}, ${value}) > 0` : sql`instr(${column}, ${value}) > 0`)
        : (pg ? sql`${column} ilike ${pattern} escape '\\'` : sql`${column} like ${pattern} escape '\\'`));
      // name may also come from its column (when the properties lack it).
      const text = 'key' in p && p.key === 'name' ? sql`(${holds(sql`properties`)} or ${holds(sql`coalesce(name, '')`)})` : holds(sql`properties`);
      present = present === null ? text : sql`${present} and ${text}`;
    }
    return present === null ? exact : sql`(${present} and ${exact})`;
  }

  private exactPushdown(p: Pushdown): RawBuilder<unknown> {
    const pg = this.db.dialect === 'postgres';
    switch (p.op) {
      case 'or':
        return sql`(${sql.join(p.parts.map((x) => this.pushdown(x)), sql` or `)})`;
      case 'tag':
        return sql`id in (select m.node_id from asset_group_tag_members m join asset_group_tags t on t.id = m.tag_id
          where replace(t.name, ' ', '_') = ${p.label.slice('Tag_'.length)})`;
      case 'kind':
        return sql`kinds like ${`%"${p.label.replace(/[\\%_]/g, (c) => `\\${c}`)}"%`} escape '\\'`;
      case 'notnull':
        if (p.key === 'objectid') return sql`objectid is not null`;
        return pg ? sql`coalesce(${this.prop(p.key)}, 'null'::jsonb) <> 'null'::jsonb` : sql`${this.prop(p.key)} is not null`;
      case 'elem':
        // The JSON text of the list holds the element's JSON text (a superset: also inside longer strings).
        return sql`${pg ? sql`(${this.prop(p.key)})::text` : this.prop(p.key)} like ${`%${escapeLike(JSON.stringify(p.value))}%`} escape '\\'`;
      case 'starts': case 'ends': case 'contains': {
        const escaped = escapeLike(p.value);
        const pattern = p.op === 'starts' ? `${escaped}%` : p.op === 'ends' ? `%${escaped}` : `%${escaped}%`;
        // SQLite's LIKE ignores ASCII case already; PostgreSQL's ILIKE when the predicate does.
        return pg && p.caseInsensitive ? sql`${this.propText(p.key)} ilike ${pattern} escape '\\'` : sql`${this.propText(p.key)} like ${pattern} escape '\\'`;
      }
      case 'in':
        if (p.values.length === 0) return sql`1 = 0`;
        return sql`(${sql.join(p.values.map((value) => this.pushdown({ key: p.key, op: '=', value })), sql` or `)})`;
      default:
        return this.comparison(p.key, p.op, p.value);
    }
  }

  private comparison(key: string, op: '=' | '<' | '>' | '<=' | '>=', value: string | number | boolean): RawBuilder<unknown> {
    const sqlOp = sql.raw(op);
    if (key === 'objectid') return typeof value === 'string' ? sql`objectid ${sqlOp} ${value}` : sql`1 = 0`;
    if (this.db.dialect === 'sqlite') {
      const v = typeof value === 'boolean' ? Number(value) : value;
      const typeCheck = typeof value === 'boolean' ? sql` and json_type(properties, ${`$."${key.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`}) in ('true', 'false')` : sql``;
      return sql`(${this.prop(key)} ${sqlOp} ${v}${typeCheck})`;
    }
    const j = this.prop(key);
    if (typeof value === 'string') return op === '=' ? sql`${this.propText(key)} = ${value}` : sql`(jsonb_typeof(${j}) = 'string' and (${j} #>> '{}') ${sqlOp} ${value})`;
    if (typeof value === 'boolean') return op === '=' ? sql`${j} = ${JSON.stringify(value)}::jsonb` : sql`1 = 1`;
    return sql`(jsonb_typeof(${j}) = 'number' and (${j} #>> '{}')::double precision ${sqlOp} ${value})`;
  }

  /**
   * The relationships (id, start, end) of `kinds` (any kind: undefined) passing the pushed-down
   * predicates on their properties (a superset of the matches), in id order; null when there are more
   * than `max` (then the caller does without). Predicates on `objectid` / `name` / labels are not
   * for relationships (edgePushdownable).
   */
  async edgeScan(kinds: readonly string[] | undefined, predicates: Pushdown[], max: number): Promise<{ ids: number[]; starts: number[]; ends: number[] } | null> {
    if (kinds !== undefined && kinds.length === 0) return { ids: [], starts: [], ends: [] };
    const where = [...(kinds === undefined ? [] : [sql`kind in (${sql.join([...new Set(kinds)])})`]), ...predicates.map((p) => this.pushdown(p))];
    const rows = await sql<{ id: number; start_id: number; end_id: number }>`
      select id, start_id, end_id from edges where ${sql.join(where, sql` and `)} order by id limit ${max + 1}`.execute(this.db.kysely);
    if (rows.rows.length > max) return null;
    return { ids: rows.rows.map((r) => Number(r.id)), starts: rows.rows.map((r) => Number(r.start_id)), ends: rows.rows.map((r) => Number(r.end_id)) };
  }

  /** Of `ids`, those passing the pushed-down predicates in SQL (a superset of the matches). */
  async filterIds(ids: readonly number[], predicates: Pushdown[]): Promise<Set<number>> {
    const out = new Set<number>();
    const where = sql.join(predicates.map((p) => this.pushdown(p)), sql` and `);
    for (const batch of batches(ids)) {
      const rows = await sql<{ id: number }>`select id from nodes where id in (${sql.join(batch)}) and ${where}`.execute(this.db.kysely);
      for (const r of rows.rows) out.add(Number(r.id));
    }
    return out;
  }

  async loadNodes(ids: number[]): Promise<NodeData[]> {
    const out: NodeData[] = [];
    for (const batch of batches(ids)) {
      const rows = await sql<{ id: number; objectid: string; name: string | null; kinds: string; properties: string; last_seen: number }>`
        select id, objectid, name, kinds, properties, last_seen from nodes where id in (${sql.join(batch)})`.execute(this.db.kysely);
      for (const r of rows.rows) {
        out.push({
          id: Number(r.id), objectid: r.objectid, name: r.name, kinds: JSON.parse(r.kinds) as string[],
          properties: JSON.parse(r.properties) as Record<string, unknown>, lastSeen: Number(r.last_seen),
        });
      }
    }
    return out;
  }

  async edgeProperties(ids: number[]): Promise<Map<number, { properties: Record<string, unknown>; lastSeen: number }>> {
    const out = new Map<number, { properties: Record<string, unknown>; lastSeen: number }>();
    for (const batch of batches(ids)) {
      const rows = await sql<{ id: number; properties: string; last_seen: number }>`
        select id, properties, last_seen from edges where id in (${sql.join(batch)})`.execute(this.db.kysely);
      for (const r of rows.rows) out.set(Number(r.id), { properties: JSON.parse(r.properties), lastSeen: Number(r.last_seen) });
    }
    return out;
  }

  /** The `Tag_*` kinds each node carries (membership of asset group tags). */
  async tagsOf(ids: number[]): Promise<Map<number, string[]>> {
    const view = await this.view();
    const out = new Map<number, string[]>();
    for (const id of ids) {
      const tags = view.kinds(id).filter((k) => k.startsWith('Tag_'));
      if (tags.length > 0) out.set(id, tags);
    }
    return out;
  }


}

/**
 * The nodes of a kind (ascending ids), kept per snapshot (stored kinds) or per tag layer (Tag_* kinds):
 * both are immutable, so a query reads the shared list (never changes it) instead of copying a
 * label of a million nodes on every count.
 */
const kindLists = new WeakMap<object, Map<string, readonly number[]>>();

function nodesOfKind(view: GraphView, kind: string): readonly number[] {
  const owner: object = kind.startsWith('Tag_') ? view.tags : view.graph;
  let lists = kindLists.get(owner);
  if (!lists) kindLists.set(owner, (lists = new Map()));
  let list = lists.get(kind);
  if (!list) lists.set(kind, (list = Object.freeze(view.nodesWithKind(kind))));
  return list;
}

/** Whether a pushdown can run on `edges` (property tests only: no objectid / name columns, no labels). */
export function edgePushdownable(p: Pushdown): boolean {
  if (p.op === 'or') return p.parts.every(edgePushdownable);
  if (p.op === 'tag' || p.op === 'kind') return false;
  return p.key !== 'objectid' && p.key !== 'name';
}

/** Printable ASCII but the characters JSON may escape (quote, backslash, slash): written as they are in any JSON text. */
const PLAIN = /^[ !#-.0-\[\]-~]+$/;

function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}


function* batches(ids: readonly number[]): Generator<number[]> {
  for (let i = 0; i < ids.length; i += BATCH) yield ids.slice(i, i + BATCH) as number[];
}

