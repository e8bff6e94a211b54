import type pg from 'pg';
import { nowMicros } from '../../db/time.ts';
import { edgePropertiesJson, mergeNode, parseKinds, placeholderValues, withKinds, type EdgeInput, type EndpointRef, type NodeInput, type NodeValues, type StoredNode } from '../merge.ts';
import { fromFlat, type FlatBatch } from '../ingest/flat-batch.ts';
import { codeOf, idOf, type IdCache } from './id-cache.ts';
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

/**
 * Multi-row statements over unnest() inside the caller's transaction (see writer.ts). Edges go to a
 * temporary, unindexed stage (dropped at commit) and are upserted in one statement at the end of the
 * document (`finish`, or before a removal), sorted in (start_id, kind, end_id) order: the server then
 * inserts into the table's three indexes in order (the unique index's and the id's at their right
 * edge) instead of batch by batch at random. Of the rows staged for one edge the last one wins.
 */
export class PgGraphWriter implements GraphWriter {
  readonly counts: WriteCounts = { nodes: 0, edges: 0, placeholders: 0, removed: 0 };
  tracked: string[] | null = null;
  private stage: 'none' | 'empty' | 'filled' = 'none';
  private staged = 0;

  constructor(private readonly client: pg.PoolClient, private readonly cache: IdCache) {}

  async finish(): Promise<void> {
    await this.flushStage();
  }

  private async flushStage(): Promise<void> {
    if (this.stage !== 'filled') return;
    // The sort spills to disk past work_mem (4 MB by default): a larger one for this transaction only.
    await this.client.query("SET LOCAL work_mem = '64MB'");
    await this.client.query(
      `INSERT INTO edges (start_id, end_id, kind, properties, last_seen)
       SELECT DISTINCT ON (start_id, kind, end_id) start_id, end_id, kind, properties, last_seen
       FROM pg_temp.scent_edge_stage ORDER BY start_id, kind, end_id, seq DESC
       ON CONFLICT (start_id, kind, end_id) DO UPDATE SET properties = excluded.properties, last_seen = excluded.last_seen`,
    );
    await this.client.query('TRUNCATE pg_temp.scent_edge_stage');
    this.stage = 'empty';
  }

  async write(nodes: NodeInput[], edges: EdgeInput[]): Promise<void> {
    const now = nowMicros();
    if (nodes.length) await this.writeNodes(nodes, now);
    if (edges.length) await this.writeEdges(edges, now);
  }

  async writeFlat(batch: FlatBatch): Promise<void> {
    const { nodes, edges } = fromFlat(batch);
    await this.write(nodes, edges);
  }

  async placeholdersAmong(objectids: string[]): Promise<string[]> {
    const { rows } = await this.client.query<{ objectid: string }>(
      'SELECT objectid FROM nodes WHERE objectid = ANY($1::text[]) AND is_placeholder = 1', [textArray(objectids)]);
    const still = new Set(rows.map((r) => r.objectid));
    return objectids.filter((oid) => still.has(oid));
  }

  async remove(objectids: string[]): Promise<number> {
    await this.flushStage();
    for (const oid of objectids) this.cache.delete(oid);
    const { rows } = await this.client.query<{ id: number }>('SELECT id FROM nodes WHERE objectid = ANY($1::text[])', [textArray(objectids)]);
    if (!rows.length) return 0;
    const ids = [intArray(rows.map((r) => Number(r.id)))];
    await this.client.query('DELETE FROM edges WHERE start_id = ANY($1::bigint[])', ids);
    await this.client.query('DELETE FROM edges WHERE end_id = ANY($1::bigint[])', ids);
    await this.client.query('DELETE FROM nodes WHERE id = ANY($1::bigint[])', ids);
    this.counts.removed += rows.length;
    return rows.length;
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
      for (const r of changed) this.cache.set(r.objectid, r.id, r.kinds);
    }
    this.counts.nodes += nodes.length;
  }

  private async insertNodes(rows: NodeValues[]): Promise<void> {
    if (!rows.length) return;
    const inserted = await this.client.query<{ id: number; objectid: string }>(
      `INSERT INTO nodes (${COLS}) SELECT * FROM ${UNNEST} RETURNING id, objectid`, columns(rows),
    );
    const kinds = new Map(rows.map((r) => [r.objectid, r.kinds]));
    for (const r of inserted.rows) this.cache.set(r.objectid, Number(r.id), kinds.get(r.objectid));
  }

  /** Node ids of `missing` edge ends: read (with their kinds), or inserted as placeholders when unseen. */
  private async resolve(missing: Missing, now: number): Promise<void> {
    const found = await this.client.query<{ id: number; objectid: string; kinds: string }>(
      'SELECT id, objectid, kinds FROM nodes WHERE objectid = ANY($1::text[])', [textArray([...missing.keys()])],
    );
    for (const r of found.rows) {
      this.cache.set(r.objectid, Number(r.id), r.kinds);
      missing.delete(r.objectid);
    }
    const placeholders = [...missing.values()].map((ref) => placeholderValues(ref, now));
    if (!placeholders.length) return;
    const inserted = await this.client.query<{ id: number; objectid: string }>(
      `INSERT INTO nodes (${COLS}) SELECT * FROM ${UNNEST} RETURNING id, objectid`, columns(placeholders),
    );
    const kinds = new Map(placeholders.map((p) => [p.objectid, p.kinds]));
    for (const r of inserted.rows) this.cache.set(r.objectid, Number(r.id), kinds.get(r.objectid));
    this.counts.placeholders += placeholders.length;
    if (this.tracked) for (const p of placeholders) this.tracked.push(p.objectid);
  }

  /**
   * The id of an edge end already in the cache; kinds it names that its node lacks are recorded in
   * `grown` (written after the batch's ends are all known) and in the cache.
   */
  private endId(ref: EndpointRef, grown: Map<number, string[]>, read: Map<number, string>): number {
    const entry = this.cache.entry(ref.objectid)!;
    const id = idOf(entry);
    if (!ref.kinds) return id;
    const table = this.cache.kinds;
    const code = codeOf(entry);
    if (table.includes(code, table.codeOfList(ref.kinds))) return id;
    const stored = grown.get(id) ?? (code ? table.list(code) : []);
    const kinds = withKinds(stored, ref.kinds);
    if (kinds) grown.set(id, kinds);
    // Kinds not known here (a full kinds table): read them before writing, keep the entry unknown.
    if (code === 0) read.set(id, ref.objectid);
    else this.cache.set(ref.objectid, id, kinds ?? stored);
    return id;
  }

  /** Writes the kinds edge ends added (nodes whose cached kinds were unknown are read first). */
  private async growKinds(grown: Map<number, string[]>, read: Map<number, string>): Promise<void> {
    if (read.size) {
      const { rows } = await this.client.query<{ id: number; kinds: string }>('SELECT id, kinds FROM nodes WHERE id = ANY($1::bigint[])', [intArray([...read.keys()])]);
      for (const r of rows) {
        const id = Number(r.id);
        const kinds = withKinds(parseKinds(r.kinds), grown.get(id) ?? []);
        if (kinds) grown.set(id, kinds);
        else grown.delete(id);
      }
    }
    if (!grown.size) return;
    const ids = [...grown.keys()];
    await this.client.query(
      `UPDATE nodes n SET kind = u.kind, kinds = u.kinds FROM unnest($1::bigint[], $2::text[], $3::text[]) AS u(id, kind, kinds) WHERE n.id = u.id`,
      [intArray(ids), textArray(ids.map((id) => grown.get(id)![0])), textArray(ids.map((id) => JSON.stringify(grown.get(id))))],
    );
  }

  private async writeEdges(edges: EdgeInput[], now: number): Promise<void> {
    const n = edges.length;
    const starts = new Float64Array(n);
    const ends = new Float64Array(n);
    const missing: Missing = new Map();
    for (let i = 0; i < n; i++) {
      const e = edges[i];
      if (this.cache.entry(e.start.objectid) === undefined && !missing.has(e.start.objectid)) missing.set(e.start.objectid, e.start);
      if (this.cache.entry(e.end.objectid) === undefined && !missing.has(e.end.objectid)) missing.set(e.end.objectid, e.end);
    }
    if (missing.size) await this.resolve(missing, now);
    const grown = new Map<number, string[]>();
    const read = new Map<number, string>();
    for (let i = 0; i < n; i++) {
      starts[i] = this.endId(edges[i].start, grown, read);
      ends[i] = this.endId(edges[i].end, grown, read);
    }
    if (grown.size) await this.growKinds(grown, read);
    const k = new Array<string>(n);
    const p = new Array<string>(n);
    for (let i = 0; i < n; i++) {
      k[i] = edges[i].kind;
      p[i] = edgePropertiesJson(edges[i]);
    }
    if (this.stage === 'none') {
      await this.client.query(
        'CREATE TEMP TABLE scent_edge_stage (seq bigint, start_id bigint, end_id bigint, kind text, properties text, last_seen bigint) ON COMMIT DROP');
    }
    // seq: the order rows were staged in (the last of one edge wins in flushStage), from $1 on.
    await this.client.query(
      `INSERT INTO pg_temp.scent_edge_stage (seq, start_id, end_id, kind, properties, last_seen)
       SELECT $1::bigint + ordinality, s, t, k, p, $6 FROM unnest($2::bigint[], $3::bigint[], $4::text[], $5::text[]) WITH ORDINALITY AS u(s, t, k, p, ordinality)`,
      [this.staged, intArray(starts), intArray(ends), nonNullTextArray(k), nonNullTextArray(p), now],
    );
    this.stage = 'filled';
    this.staged += n;
    this.counts.edges += n;
  }
}
