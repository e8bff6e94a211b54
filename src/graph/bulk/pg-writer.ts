import type pg from 'pg';
import { nowMicros } from '../../db/time.ts';
import { edgePropertiesJson, mergeNode, placeholderValues, type EdgeInput, type EndpointRef, type NodeInput, type NodeValues, type StoredNode } from '../merge.ts';
import { fromFlat, type FlatBatch } from '../ingest/flat-batch.ts';
import type { IdCache } from './id-cache.ts';
import { intArray, nonNullTextArray, textArray } from './pg-arrays.ts';
import type { GraphWriter, NodeMatch, WriteCounts } from './writer.ts';

const COLS = 'objectid, kind, kinds, name, environment_id, properties, source_kind, is_placeholder, last_seen';
const UNNEST = 'unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::int[], $9::bigint[])';

function columns(rows: NodeValues[]): string[] {
  return [
    textArray(rows.map((r) => r.objectid)), textArray(rows.map((r) => r.kind)), textArray(rows.map((r) => r.kinds)),
    textArray(rows.map((r) => r.name)), textArray(rows.map((r) => r.environment_id)), textArray(rows.map((r) => r.properties)),
    textArray(rows.map((r) => r.source_kind)), intArray(rows.map((r) => r.is_placeholder)), intArray(rows.map((r) => r.last_seen)),
  ];
}

/** Edge ends not in the id cache yet, by objectid. */
type Missing = Map<string, EndpointRef>;

/** Multi-row statements over unnest() inside the caller's transaction (see writer.ts). */
export class PgGraphWriter implements GraphWriter {
  readonly counts: WriteCounts = { nodes: 0, edges: 0, placeholders: 0 };

  constructor(private readonly client: pg.PoolClient, private readonly cache: IdCache) {}

  async write(nodes: NodeInput[], edges: EdgeInput[]): Promise<void> {
    const now = nowMicros();
    if (nodes.length) await this.writeNodes(nodes, now);
    if (edges.length) await this.writeEdges(edges, now);
  }

  async writeFlat(batch: FlatBatch): Promise<void> {
    const { nodes, edges } = fromFlat(batch);
    await this.write(nodes, edges);
  }

  async match(m: NodeMatch, limit: number): Promise<string[]> {
    const where: string[] = [];
    const args: unknown[] = [];
    const p = (v: unknown) => `$${args.push(v)}`;
    if (m.name !== undefined) where.push(`name = ${p(m.name)}`);
    if (m.kind !== undefined) where.push(`(kind = ${p(m.kind)} OR kinds LIKE ${p(`%"${m.kind}"%`)})`);
    for (const [key, value] of m.properties ?? []) where.push(`(properties::jsonb ->> ${p(key)}) = ${p(String(value))}`);
    if (!where.length) return [];
    const { rows } = await this.client.query<{ objectid: string }>(
      `SELECT objectid FROM nodes WHERE is_placeholder = 0 AND ${where.join(' AND ')} LIMIT ${Number(limit)}`, args,
    );
    return rows.map((r) => r.objectid);
  }

  private async writeNodes(nodes: NodeInput[], now: number): Promise<void> {
    const { rows } = await this.client.query<StoredNode>(
      `SELECT id, ${COLS} FROM nodes WHERE objectid = ANY($1::text[])`, [textArray([...new Set(nodes.map((n) => n.objectid))])],
    );
    const existing = new Map(rows.map((r) => [r.objectid, r]));
    const pending = new Map<string, NodeValues>();
    for (const input of nodes) {
      pending.set(input.objectid, mergeNode(pending.get(input.objectid) ?? existing.get(input.objectid), input, now));
    }
    const fresh: NodeValues[] = [];
    const changed: Array<NodeValues & { id: number }> = [];
    for (const [oid, values] of pending) {
      const id = existing.get(oid)?.id;
      if (id === undefined) fresh.push(values);
      else changed.push({ ...values, id: Number(id) });
    }
    await this.insertNodes(fresh);
    if (changed.length) {
      await this.client.query(
        `UPDATE nodes n SET kind = u.kind, kinds = u.kinds, name = u.name, environment_id = u.environment_id,
           properties = u.properties, source_kind = u.source_kind, is_placeholder = u.is_placeholder, last_seen = u.last_seen
         FROM (SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::int[], $9::bigint[])
               AS t(id, kind, kinds, name, environment_id, properties, source_kind, is_placeholder, last_seen)) u
         WHERE n.id = u.id`,
        [intArray(changed.map((r) => r.id)), ...columns(changed).slice(1)],
      );
      for (const r of changed) this.cache.set(r.objectid, r.id);
    }
    this.counts.nodes += nodes.length;
  }

  private async insertNodes(rows: NodeValues[]): Promise<void> {
    if (!rows.length) return;
    const inserted = await this.client.query<{ id: number; objectid: string }>(
      `INSERT INTO nodes (${COLS}) SELECT * FROM ${UNNEST} RETURNING id, objectid`, columns(rows),
    );
    for (const r of inserted.rows) this.cache.set(r.objectid, Number(r.id));
  }

  /** Node ids of `missing` edge ends: read, or inserted as placeholders when unseen. */
  private async resolve(missing: Missing, now: number): Promise<Map<string, number>> {
    const ids = new Map<string, number>();
    const found = await this.client.query<{ id: number; objectid: string }>(
      'SELECT id, objectid FROM nodes WHERE objectid = ANY($1::text[])', [textArray([...missing.keys()])],
    );
    for (const r of found.rows) {
      ids.set(r.objectid, Number(r.id));
      missing.delete(r.objectid);
    }
    const placeholders = [...missing.values()].map((ref) => placeholderValues(ref, now));
    if (placeholders.length) {
      const inserted = await this.client.query<{ id: number; objectid: string }>(
        `INSERT INTO nodes (${COLS}) SELECT * FROM ${UNNEST} RETURNING id, objectid`, columns(placeholders),
      );
      for (const r of inserted.rows) ids.set(r.objectid, Number(r.id));
      this.counts.placeholders += placeholders.length;
    }
    for (const [oid, id] of ids) this.cache.set(oid, id);
    return ids;
  }

  private async writeEdges(edges: EdgeInput[], now: number): Promise<void> {
    const n = edges.length;
    const starts = new Float64Array(n);
    const ends = new Float64Array(n);
    const missing: Missing = new Map();
    for (let i = 0; i < n; i++) {
      const e = edges[i];
      starts[i] = this.cache.get(e.start.objectid) ?? -1;
      if (starts[i] < 0 && !missing.has(e.start.objectid)) missing.set(e.start.objectid, e.start);
      ends[i] = this.cache.get(e.end.objectid) ?? -1;
      if (ends[i] < 0 && !missing.has(e.end.objectid)) missing.set(e.end.objectid, e.end);
    }
    if (missing.size) {
      const ids = await this.resolve(missing, now);
      for (let i = 0; i < n; i++) {
        if (starts[i] < 0) starts[i] = ids.get(edges[i].start.objectid)!;
        if (ends[i] < 0) ends[i] = ids.get(edges[i].end.objectid)!;
      }
    }
    // In (start_id, kind, end_id) order, the unique index's order; stable, so of the rows for one
    // edge the last comes last and is the one kept: PostgreSQL refuses to upsert a row twice in one
    // statement.
    const order = Array.from({ length: n }, (_, i) => i).sort((a, b) =>
      starts[a] - starts[b] || (edges[a].kind < edges[b].kind ? -1 : edges[a].kind > edges[b].kind ? 1 : ends[a] - ends[b]));
    const s: number[] = [];
    const t: number[] = [];
    const k: string[] = [];
    const p: string[] = [];
    for (let j = 0; j < n; j++) {
      const i = order[j];
      const next = j + 1 < n ? order[j + 1] : -1;
      if (next >= 0 && starts[next] === starts[i] && ends[next] === ends[i] && edges[next].kind === edges[i].kind) continue;
      s.push(starts[i]);
      t.push(ends[i]);
      k.push(edges[i].kind);
      p.push(edgePropertiesJson(edges[i]));
    }
    await this.client.query(
      `INSERT INTO edges (start_id, end_id, kind, properties, last_seen)
       SELECT s, t, k, p, $5 FROM unnest($1::bigint[], $2::bigint[], $3::text[], $4::text[]) AS u(s, t, k, p)
       ON CONFLICT (start_id, kind, end_id) DO UPDATE SET properties = excluded.properties, last_seen = excluded.last_seen`,
      [intArray(s), intArray(t), nonNullTextArray(k), nonNullTextArray(p), now],
    );
    this.counts.edges += n;
  }
}
