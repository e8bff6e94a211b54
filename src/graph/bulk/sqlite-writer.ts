import type SQLite from 'better-sqlite3';
import { nowMicros } from '../../db/time.ts';
import { edgePropertiesJson, mergeNode, parseKinds, placeholderValues, withKinds, type EdgeInput, type NodeInput, type NodeValues, type StoredNode } from '../merge.ts';
import { EDGE_FIELDS, type FlatBatch } from '../ingest/flat-batch.ts';
import { codeOf, idOf, type IdCache } from './id-cache.ts';
import type { GraphWriter, NodeMatch, WriteCounts } from './writer.ts';

const COLS = 'objectid, kind, kinds, name, environment_id, properties, source_kind, is_placeholder, last_seen';
const PARAMS = '@objectid, @kind, @kinds, @name, @environment_id, @properties, @source_kind, @is_placeholder, @last_seen';

/** Prepared statements inside the caller's transaction (see writer.ts). */
export class SqliteGraphWriter implements GraphWriter {
  readonly counts: WriteCounts = { nodes: 0, edges: 0, placeholders: 0, removed: 0 };
  tracked: string[] | null = null;
  private readonly selectNode: SQLite.Statement;
  private readonly selectIdKinds: SQLite.Statement;
  private readonly selectKinds: SQLite.Statement;
  private readonly updateKinds: SQLite.Statement;
  private readonly insertNode: SQLite.Statement;
  private readonly updateNode: SQLite.Statement;
  private readonly upsertEdge: SQLite.Statement;
  private readonly removeNode: SQLite.Statement[];

  constructor(private readonly conn: SQLite.Database, private readonly cache: IdCache) {
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
    this.upsertEdge = conn.prepare(
      'INSERT INTO edges (start_id, end_id, kind, properties, last_seen) VALUES (?, ?, ?, ?, ?) ' +
        'ON CONFLICT (start_id, kind, end_id) DO UPDATE SET properties = excluded.properties, last_seen = excluded.last_seen',
    );
  }

  async write(nodes: NodeInput[], edges: EdgeInput[]): Promise<void> {
    const now = nowMicros();
    this.writeNodes(nodes, now);
    const rows = new EdgeRows(edges.length);
    for (let i = 0; i < edges.length; i++) {
      const e = edges[i];
      rows.set(i, this.resolve(e.start.objectid, e.start.kinds, now), this.resolve(e.end.objectid, e.end.kinds, now), e.kind, edgePropertiesJson(e));
    }
    this.writeEdges(rows, now);
  }

  async writeFlat(batch: FlatBatch): Promise<void> {
    const now = nowMicros();
    this.writeNodes(batch.nodes, now);
    const f = batch.edges;
    const rows = new EdgeRows(f.length / EDGE_FIELDS);
    for (let i = 0, j = 0; i < f.length; i += EDGE_FIELDS, j++) {
      rows.set(j, this.resolve(f[i], f[i + 1], now), this.resolve(f[i + 2], f[i + 3], now), f[i + 4], f[i + 5]);
    }
    this.writeEdges(rows, now);
  }

  /** In (start_id, kind, end_id) order, so that consecutive upserts touch neighbouring index pages. */
  private writeEdges(rows: EdgeRows, now: number): void {
    for (const i of rows.order()) {
      this.upsertEdge.run(rows.starts[i], rows.ends[i], rows.kinds[i], rows.props[i], now);
    }
    this.counts.edges += rows.kinds.length;
  }

  private writeNodes(nodes: NodeInput[], now: number): void {
    for (const input of nodes) {
      const current = this.selectNode.get(input.objectid) as StoredNode | undefined;
      const values = mergeNode(current, input, now);
      if (current) {
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
    let found = 0;
    for (const objectid of objectids) {
      const row = this.selectIdKinds.get(objectid) as { id: number } | undefined;
      this.cache.delete(objectid);
      if (!row) continue;
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

/** One batch of edges with resolved ends. */
class EdgeRows {
  readonly starts: Float64Array;
  readonly ends: Float64Array;
  readonly kinds: string[];
  readonly props: string[];
  constructor(n: number) {
    this.starts = new Float64Array(n);
    this.ends = new Float64Array(n);
    this.kinds = new Array<string>(n);
    this.props = new Array<string>(n);
  }
  set(i: number, start: number, end: number, kind: string, props: string): void {
    this.starts[i] = start;
    this.ends[i] = end;
    this.kinds[i] = kind;
    this.props[i] = props;
  }
  /** Row indexes in (start, kind, end) order; stable, so repeats of one edge keep their order (the last wins). */
  order(): number[] {
    const { starts, ends, kinds } = this;
    return Array.from({ length: kinds.length }, (_, i) => i).sort((a, b) =>
      starts[a] - starts[b] || (kinds[a] < kinds[b] ? -1 : kinds[a] > kinds[b] ? 1 : ends[a] - ends[b]));
  }
}
