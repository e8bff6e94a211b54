import type SQLite from 'better-sqlite3';
import { nowMicros } from '../../db/time.ts';
import { edgePropertiesJson, mergeNode, placeholderValues, type EdgeInput, type NodeInput, type NodeValues, type StoredNode } from '../merge.ts';
import { EDGE_FIELDS, type FlatBatch } from '../ingest/flat-batch.ts';
import type { IdCache } from './id-cache.ts';
import type { GraphWriter, NodeMatch, WriteCounts } from './writer.ts';

const COLS = 'objectid, kind, kinds, name, environment_id, properties, source_kind, is_placeholder, last_seen';
const PARAMS = '@objectid, @kind, @kinds, @name, @environment_id, @properties, @source_kind, @is_placeholder, @last_seen';

/** Prepared statements inside the caller's transaction (see writer.ts). */
export class SqliteGraphWriter implements GraphWriter {
  readonly counts: WriteCounts = { nodes: 0, edges: 0, placeholders: 0 };
  private readonly selectNode: SQLite.Statement;
  private readonly selectId: SQLite.Statement;
  private readonly insertNode: SQLite.Statement;
  private readonly updateNode: SQLite.Statement;
  private readonly upsertEdge: SQLite.Statement;

  constructor(private readonly conn: SQLite.Database, private readonly cache: IdCache) {
    this.selectNode = conn.prepare(`SELECT id, ${COLS} FROM nodes WHERE objectid = ?`);
    this.selectId = conn.prepare('SELECT id FROM nodes WHERE objectid = ?').pluck();
    this.insertNode = conn.prepare(`INSERT INTO nodes (${COLS}) VALUES (${PARAMS})`);
    this.updateNode = conn.prepare(
      'UPDATE nodes SET kind = @kind, kinds = @kinds, name = @name, environment_id = @environment_id, properties = @properties, ' +
        'source_kind = @source_kind, is_placeholder = @is_placeholder, last_seen = @last_seen WHERE id = @id',
    );
    this.upsertEdge = conn.prepare(
      'INSERT INTO edges (start_id, end_id, kind, properties, last_seen) VALUES (?, ?, ?, ?, ?) ' +
        'ON CONFLICT (start_id, kind, end_id) DO UPDATE SET properties = excluded.properties, last_seen = excluded.last_seen',
    );
  }

  async write(nodes: NodeInput[], edges: EdgeInput[]): Promise<void> {
    const now = nowMicros();
    this.writeNodes(nodes, now);
    for (const e of edges) {
      const startId = this.resolve(e.start.objectid, e.start.kinds, now);
      const endId = this.resolve(e.end.objectid, e.end.kinds, now);
      this.upsertEdge.run(startId, endId, e.kind, edgePropertiesJson(e), now);
      this.counts.edges++;
    }
  }

  async writeFlat(batch: FlatBatch): Promise<void> {
    const now = nowMicros();
    this.writeNodes(batch.nodes, now);
    const f = batch.edges;
    for (let i = 0; i < f.length; i += EDGE_FIELDS) {
      const startId = this.resolve(f[i], f[i + 1], now);
      const endId = this.resolve(f[i + 2], f[i + 3], now);
      this.upsertEdge.run(startId, endId, f[i + 4], f[i + 5], now);
      this.counts.edges++;
    }
  }

  private writeNodes(nodes: NodeInput[], now: number): void {
    for (const input of nodes) {
      const current = this.selectNode.get(input.objectid) as StoredNode | undefined;
      const values = mergeNode(current, input, now);
      if (current) {
        this.updateNode.run({ ...values, id: current.id });
        this.cache.set(input.objectid, current.id);
      } else {
        this.cache.set(input.objectid, this.insert(values));
      }
      this.counts.nodes++;
    }
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

  /** Node id of an edge end; an unseen object becomes a placeholder with `kinds` (array or JSON text). */
  private resolve(objectid: string, kinds: string[] | string | undefined, now: number): number {
    let id = this.cache.get(objectid);
    if (id !== undefined) return id;
    id = this.selectId.get(objectid) as number | undefined;
    if (id === undefined) {
      const ref = { objectid, kinds: typeof kinds === 'string' ? (JSON.parse(kinds) as string[]) : kinds };
      id = this.insert(placeholderValues(ref, now));
      this.counts.placeholders++;
    }
    this.cache.set(objectid, id);
    return id;
  }
}
