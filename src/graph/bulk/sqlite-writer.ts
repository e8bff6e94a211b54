import type SQLite from 'better-sqlite3';
import { nowMicros } from '../../db/time.ts';
import { edgePropertiesJson, mergeNode, parseKinds, placeholderValues, withKinds, type EdgeInput, type NodeInput, type NodeValues, type StoredNode } from '../merge.ts';
import { EDGE_FIELDS, type FlatBatch } from '../ingest/flat-batch.ts';
import { codeOf, idOf, type IdCache } from './id-cache.ts';
import type { GraphWriter, NodeMatch, WriteCounts } from './writer.ts';

const COLS = 'objectid, kind, kinds, name, environment_id, properties, source_kind, is_placeholder, last_seen';
const PARAMS = '@objectid, @kind, @kinds, @name, @environment_id, @properties, @source_kind, @is_placeholder, @last_seen';

/** Rows of one multi-row insert into the edge stage (5 parameters each: under SQLite's 32,766). */
const STAGE_ROWS = 128;
/**
 * The secondary edge index is also built again when the stage's edges into nodes older than the
 * transaction are more than 1 / OLDER_ENDS_RATIO of the table's edges (see the class comment).
 */
const OLDER_ENDS_RATIO = 4;
/** The page cache while the stage is applied (negative: KiB); see flushStage. */
const APPLY_CACHE_KIB = -16384;

/**
 * Prepared statements inside the caller's transaction (see writer.ts). Two pieces of index upkeep
 * wait for the end of the transaction (`finish`), where they cost a fraction of doing them row by row:
 * - Edges go to a temporary, unindexed stage (temp_store FILE: on disk, not in memory) and are
 *   upserted in one statement sorted in (start_id, kind, end_id) order: the unique index and the
 *   table are then written in order (each page once) rather than at random, and the end index in a
 *   few ordered sweeps. The stage is also applied before a removal (edges must exist to be removed).
 *   When the stage holds more edges than the table, the table's secondary indexes (edges_end_kind_start;
 *   the unique one cannot be dropped) are dropped first and created again after: one sort of the whole
 *   table costs less than inserting that many entries one by one (the first large document of a fresh
 *   database). So it does when more than a quarter of the table's edges are staged edges into older
 *   nodes: their entries go to random places of that index (a groups file's memberships into the groups
 *   a users file created: 1.26 M edges into a 3.6 M-edge table, 8.1 s of inserts → 2.7 + 2.6 s for the
 *   upsert and the new index); edges into the document's own new nodes land at the index's end, in
 *   few sweeps (a computers file: 3.6 s with or without the rebuild, which then costs 4.1 s more).
 *   Inside the transaction, so readers keep them, and a failure or a crash leaves them as they were.
 * - The name search (FTS5 `nodes_search`, kept by the nodes_search_* triggers of migration 0042): its
 *   triggers are dropped for the transaction and the names it wrote are indexed in one statement at
 *   the end, then the triggers are created again from their stored text. Row by row, every insert
 *   was a statement of its own for FTS5, which flushed its pending terms each time (~70% of a node
 *   insert's cost). Schema changes are transactional in SQLite: a reader sees the triggers all along,
 *   and a transaction that fails or a process that dies leaves them as they were.
 */
export class SqliteGraphWriter implements GraphWriter {
  readonly counts: WriteCounts = { nodes: 0, edges: 0, placeholders: 0, removed: 0 };
  tracked: string[] | null = null;
  private readonly selectNode: SQLite.Statement;
  private readonly selectIdKinds: SQLite.Statement;
  private readonly selectKinds: SQLite.Statement;
  private readonly updateKinds: SQLite.Statement;
  private readonly insertNode: SQLite.Statement;
  private readonly updateNode: SQLite.Statement;
  private readonly stageEdge: SQLite.Statement;
  private readonly stageEdges: SQLite.Statement;
  private readonly applyStage: SQLite.Statement;
  private readonly clearStage: SQLite.Statement;
  private staged = 0;
  /** Staged edges whose end is a node older than this transaction (see flushStage). */
  private olderEnds = 0;
  private readonly removeNode: SQLite.Statement[];
  private readonly search: DeferredSearch;

  constructor(private readonly conn: SQLite.Database, private readonly cache: IdCache) {
    this.search = new DeferredSearch(conn);
    conn.exec('CREATE TEMP TABLE IF NOT EXISTS scent_edge_stage (start_id INTEGER, end_id INTEGER, kind TEXT, properties TEXT, last_seen INTEGER)');
    conn.exec('DELETE FROM temp.scent_edge_stage');
    this.selectNode = conn.prepare(`SELECT id, ${COLS} FROM nodes WHERE objectid = ?`);
    this.selectIdKinds = conn.prepare('SELECT id, kinds FROM nodes WHERE objectid = ?');
    this.selectKinds = conn.prepare('SELECT kinds FROM nodes WHERE id = ?').pluck();
    this.updateKinds = conn.prepare('UPDATE nodes SET kind = ?, kinds = ? WHERE id = ?');
    this.insertNode = conn.prepare(`INSERT INTO nodes (${COLS}) VALUES (${PARAMS})`);
    this.updateNode = conn.prepare(
      'UPDATE nodes SET kind = @kind, kinds = @kinds, name = @name, environment_id = @environment_id, properties = @properties, ' +
        'source_kind = @source_kind, is_placeholder = @is_placeholder, last_seen = @last_seen WHERE id = @id',
    );
    this.removeNode = ['DELETE FROM edges WHERE start_id = ?', 'DELETE FROM edges WHERE end_id = ?', 'DELETE FROM nodes WHERE id = ?'].map((q) => conn.prepare(q));
    const stage = 'INSERT INTO temp.scent_edge_stage (start_id, end_id, kind, properties, last_seen) VALUES ';
    this.stageEdge = conn.prepare(`${stage}(?, ?, ?, ?, ?)`);
    this.stageEdges = conn.prepare(stage + Array.from({ length: STAGE_ROWS }, () => '(?, ?, ?, ?, ?)').join(', '));
    // Of the rows for one edge the last staged is upserted last, and wins. (`WHERE true`: an upsert
    // from a SELECT needs a WHERE clause to parse.)
    this.applyStage = conn.prepare(
      'INSERT INTO edges (start_id, end_id, kind, properties, last_seen) ' +
        'SELECT start_id, end_id, kind, properties, last_seen FROM temp.scent_edge_stage WHERE true ORDER BY start_id, kind, end_id, rowid ' +
        'ON CONFLICT (start_id, kind, end_id) DO UPDATE SET properties = excluded.properties, last_seen = excluded.last_seen',
    );
    this.clearStage = conn.prepare('DELETE FROM temp.scent_edge_stage');
  }

  /** Writes what waits for the end of the transaction (see the class comment): call before COMMIT. */
  async finish(): Promise<void> {
    this.flushStage();
    this.search.finish();
  }

  private flushStage(): void {
    if (!this.staged) return;
    // ids only grow (AUTOINCREMENT): the largest is an upper bound of the table's rows, read from the index's end.
    const rows = Number(this.conn.prepare('SELECT coalesce(max(id), 0) FROM edges').pluck().get());
    const rebuilt = this.staged > rows || this.olderEnds * OLDER_ENDS_RATIO > rows
      ? this.conn.prepare("SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'edges' AND sql IS NOT NULL").all() as Array<{ name: string; sql: string }>
      : [];
    // The sorts (of the stage, of a rebuilt index) take memory up to the page cache's size on top of
    // the cache itself: with the 64 MB cache, +55 MB of RSS at their peak (100,000 users' file); with
    // 16 MB, none, and no slower (their writes are in order).
    const cache = this.conn.pragma('cache_size', { simple: true }) as number;
    this.conn.pragma(`cache_size = ${APPLY_CACHE_KIB}`);
    try {
      for (const index of rebuilt) this.conn.exec(`DROP INDEX "${index.name}"`);
      this.applyStage.run();
      for (const index of rebuilt) this.conn.exec(index.sql);
    } finally {
      this.conn.pragma(`cache_size = ${cache}`);
    }
    this.clearStage.run();
    this.staged = 0;
    this.olderEnds = 0;
  }

  async write(nodes: NodeInput[], edges: EdgeInput[]): Promise<void> {
    const now = nowMicros();
    this.writeNodes(nodes, now);
    const rows = new Array<unknown>(edges.length * 5);
    for (let i = 0, j = 0; i < edges.length; i++) {
      const e = edges[i];
      rows[j++] = this.resolve(e.start.objectid, e.start.kinds, now);
      const end = this.resolve(e.end.objectid, e.end.kinds, now);
      if (end <= this.search.before) this.olderEnds++;
      rows[j++] = end;
      rows[j++] = e.kind;
      rows[j++] = edgePropertiesJson(e);
      rows[j++] = now;
    }
    this.writeEdges(rows);
  }

  async writeFlat(batch: FlatBatch): Promise<void> {
    const now = nowMicros();
    this.writeNodes(batch.nodes, now);
    const f = batch.edges;
    const rows = new Array<unknown>((f.length / EDGE_FIELDS) * 5);
    for (let i = 0, j = 0; i < f.length; i += EDGE_FIELDS) {
      rows[j++] = this.resolve(f[i], f[i + 1], now);
      const end = this.resolve(f[i + 2], f[i + 3], now);
      if (end <= this.search.before) this.olderEnds++;
      rows[j++] = end;
      rows[j++] = f[i + 4];
      rows[j++] = f[i + 5];
      rows[j++] = now;
    }
    this.writeEdges(rows);
  }

  /** Stages edges given as (start id, end id, kind, properties, last seen) runs: STAGE_ROWS a statement. */
  private writeEdges(rows: unknown[]): void {
    const n = rows.length / 5;
    const full = n - (n % STAGE_ROWS);
    for (let i = 0; i < full; i += STAGE_ROWS) this.stageEdges.run(rows.slice(i * 5, (i + STAGE_ROWS) * 5));
    for (let i = full; i < n; i++) this.stageEdge.run(rows.slice(i * 5, i * 5 + 5));
    this.staged += n;
    this.counts.edges += n;
  }

  private writeNodes(nodes: NodeInput[], now: number): void {
    for (const input of nodes) {
      const current = this.selectNode.get(input.objectid) as StoredNode | undefined;
      const values = mergeNode(current, input, now);
      if (current) {
        this.search.renamed(current.id, current.name, values.name);
        this.updateNode.run({ ...values, id: current.id });
        this.cache.set(input.objectid, current.id, values.kinds);
      } else {
        this.cache.set(input.objectid, this.insert(values), values.kinds);
      }
      this.counts.nodes++;
    }
  }

  async placeholdersAmong(objectids: string[]): Promise<string[]> {
    const stmt = this.conn.prepare('SELECT objectid FROM nodes WHERE objectid = ? AND is_placeholder = 1').pluck();
    return objectids.filter((oid) => stmt.get(oid) !== undefined);
  }

  async remove(objectids: string[]): Promise<number> {
    this.flushStage();
    let found = 0;
    for (const objectid of objectids) {
      const row = this.selectIdKinds.get(objectid) as { id: number } | undefined;
      this.cache.delete(objectid);
      if (!row) continue;
      this.search.removed(row.id);
      for (const stmt of this.removeNode) stmt.run(row.id);
      found++;
    }
    this.counts.removed += found;
    return found;
  }

  async match(m: NodeMatch, limit: number): Promise<string[]> {
    const where: string[] = [];
    const args: unknown[] = [];
    if (m.name !== undefined) where.push('name = ?') && args.push(m.name);
    if (m.kind !== undefined) where.push('(kind = ? OR kinds LIKE ?)') && args.push(m.kind, `%"${m.kind}"%`);
    for (const [key, value] of m.properties ?? []) {
      where.push('json_extract(properties, ?) = ?');
      args.push(`$."${key.replace(/"/g, '')}"`, typeof value === 'boolean' ? Number(value) : value);
    }
    if (!where.length) return [];
    const sql = `SELECT objectid FROM nodes WHERE is_placeholder = 0 AND ${where.join(' AND ')} LIMIT ${Number(limit)}`;
    return this.conn.prepare(sql).pluck().all(...args) as string[];
  }

  private insert(values: NodeValues): number {
    return Number(this.insertNode.run(values).lastInsertRowid);
  }

  /**
   * Node id of an edge end (kinds: an array, JSON text, or '' / undefined for none). An unseen object
   * becomes a placeholder with those kinds; a stored node gains the ones it lacks (as in BloodHound).
   */
  private resolve(objectid: string, kinds: readonly string[] | string | undefined, now: number): number {
    const known = kinds === undefined || kinds === '' ? undefined : kinds;
    const table = this.cache.kinds;
    let entry = this.cache.entry(objectid);
    if (entry === undefined) {
      const row = this.selectIdKinds.get(objectid) as { id: number; kinds: string } | undefined;
      if (!row) {
        const list = known === undefined ? undefined : typeof known === 'string' ? (JSON.parse(known) as string[]) : [...known];
        const values = placeholderValues({ objectid, kinds: list }, now);
        const id = this.insert(values);
        this.counts.placeholders++;
        this.tracked?.push(objectid);
        this.cache.set(objectid, id, values.kinds);
        return id;
      }
      this.cache.set(objectid, Number(row.id), row.kinds);
      entry = this.cache.entry(objectid)!;
    }
    const id = idOf(entry);
    if (known === undefined) return id;
    const end = typeof known === 'string' ? table.codeOfText(known) : table.codeOfList(known);
    if (table.includes(codeOf(entry), end)) return id;
    const stored = parseKinds(this.selectKinds.get(id) as string);
    const grown = withKinds(stored, end ? table.list(end) : typeof known === 'string' ? (JSON.parse(known) as string[]) : known);
    if (grown) this.updateKinds.run(grown[0], JSON.stringify(grown), id);
    this.cache.set(objectid, id, grown ?? stored);
    return id;
  }
}

/**
 * The name search's upkeep for one transaction (see SqliteGraphWriter): its triggers on `nodes` are
 * dropped at the start and created again by `finish`, which indexes the names of the nodes inserted
 * meanwhile (ids above the largest before: ids only grow, AUTOINCREMENT) and of the older nodes whose
 * name changed. An older node's entry is deleted when its name changes or it is removed, as the
 * triggers did. Without the search table (or its triggers) nothing is done.
 */
class DeferredSearch {
  private readonly triggers: Array<{ name: string; sql: string }>;
  /** The largest node id before the transaction (0 for an empty table): ids above it are this transaction's. */
  readonly before: number;
  /** Older nodes whose entry was deleted and whose name is indexed again by finish(). */
  private readonly stale = new Set<number>();
  private readonly deleteEntry: SQLite.Statement | null = null;

  constructor(private readonly conn: SQLite.Database) {
    this.triggers = conn.prepare(
      "SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'nodes' AND name LIKE 'nodes\\_search\\_%' ESCAPE '\\' ORDER BY name",
    ).all() as Array<{ name: string; sql: string }>;
    this.before = Number(conn.prepare('SELECT coalesce(max(id), 0) FROM nodes').pluck().get());
    if (!this.triggers.length) return;
    for (const t of this.triggers) conn.exec(`DROP TRIGGER "${t.name}"`);
    this.deleteEntry = conn.prepare('DELETE FROM nodes_search WHERE rowid = ?');
  }

  /** A stored node is updated: its entry goes when the name changes (re-indexed by finish). */
  renamed(id: number, from: string | null, to: string | null): void {
    if (!this.deleteEntry || from === to || id > this.before || this.stale.has(id)) return;
    if (from !== null) this.deleteEntry.run(id);
    this.stale.add(id);
  }

  removed(id: number): void {
    if (!this.deleteEntry || id > this.before) return;
    if (!this.stale.has(id)) this.deleteEntry.run(id);
    this.stale.add(id); // gone: finish() finds no row for it
  }

  finish(): void {
    if (!this.triggers.length) return;
    this.conn.prepare('INSERT INTO nodes_search (rowid, name) SELECT id, name FROM nodes WHERE id > ? AND name IS NOT NULL ORDER BY id').run(this.before);
    if (this.stale.size) {
      this.conn.prepare('INSERT INTO nodes_search (rowid, name) SELECT id, name FROM nodes WHERE id IN (SELECT value FROM json_each(?)) AND name IS NOT NULL ORDER BY id')
        .run(JSON.stringify([...this.stale]));
    }
    for (const t of this.triggers) this.conn.exec(t.sql);
  }
}
