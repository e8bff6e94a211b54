/**
 * The graph store over Kysely: upserts (by objectid; edges by start/kind/end, with placeholders for
 * unseen ends) and the plain indexed reads other areas build on. Functions take `db` or a `trx`.
 * Writers must not run concurrently on the same graph: the ingest serialises them (see README).
 * Bulk ingest uses the faster writers in ./bulk/, with the same merge rules (./merge.ts).
 */
import type { Kysely } from 'kysely';
import type { Database } from '../db/database.ts';
import { nowMicros, type Micros } from '../db/time.ts';
import type { EdgeRow, NodeRow } from './graph.tables.ts';
import {
  edgeKey, edgePropertiesJson, mergeNode, parseKinds, placeholderValues, withKinds,
  type EdgeInput, type EndpointRef, type NodeInput, type NodeValues, type StoredNode,
} from './merge.ts';

export type { EdgeInput, EndpointRef, NodeInput } from './merge.ts';

type Db = Kysely<Database>;
const CHUNK = 500;

function chunks<T>(items: T[], size = CHUNK): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

const NODE_COLUMNS = [
  'id', 'objectid', 'kind', 'kinds', 'name', 'environment_id', 'properties', 'source_kind', 'is_placeholder', 'last_seen',
] as const;

/** Stored nodes by objectid (missing ones are absent from the map). */
export async function findNodesByObjectIds(db: Db, objectids: string[]): Promise<Map<string, StoredNode>> {
  const out = new Map<string, StoredNode>();
  for (const part of chunks([...new Set(objectids)])) {
    const rows = await db.selectFrom('nodes').select(NODE_COLUMNS).where('objectid', 'in', part).execute();
    for (const r of rows) out.set(r.objectid, r as StoredNode);
  }
  return out;
}

export async function findNodeByObjectId(db: Db, objectid: string): Promise<NodeRow | undefined> {
  return db.selectFrom('nodes').selectAll().where('objectid', '=', objectid).executeTakeFirst();
}

/** Writes merged rows: updates those with an id, inserts the rest. Returns objectid → id. */
async function writeNodes(db: Db, rows: Map<string, NodeValues & { id?: number }>): Promise<Map<string, number>> {
  const ids = new Map<string, number>();
  const fresh: NodeValues[] = [];
  for (const row of rows.values()) {
    if (row.id === undefined) {
      fresh.push(row);
      continue;
    }
    const { id, ...values } = row;
    await db.updateTable('nodes').set(values).where('id', '=', id).execute();
    ids.set(row.objectid, id);
  }
  for (const part of chunks(fresh, 200)) {
    const inserted = await db.insertInto('nodes').values(part).returning(['id', 'objectid']).execute();
    for (const r of inserted) ids.set(r.objectid, Number(r.id));
  }
  return ids;
}

/** Upserts nodes by objectid (merge rules in ./merge.ts). Returns objectid → node id. */
export async function upsertNodes(db: Db, nodes: NodeInput[], now: Micros = nowMicros()): Promise<Map<string, number>> {
  const existing = await findNodesByObjectIds(db, nodes.map((n) => n.objectid));
  const pending = new Map<string, NodeValues & { id?: number }>();
  for (const input of nodes) {
    const current = pending.get(input.objectid) ?? existing.get(input.objectid);
    pending.set(input.objectid, { ...mergeNode(current, input, now), id: existing.get(input.objectid)?.id });
  }
  return writeNodes(db, pending);
}

/**
 * objectid → id for every ref, creating placeholder nodes for objects not stored yet (with the ref's
 * kinds, default ["Base"]); kinds a ref names that its stored node lacks are added to it.
 */
export async function resolveNodeIds(db: Db, refs: EndpointRef[], now: Micros = nowMicros()): Promise<Map<string, number>> {
  const existing = await findNodesByObjectIds(db, refs.map((r) => r.objectid));
  const ids = new Map<string, number>([...existing].map(([oid, n]) => [oid, n.id]));
  const missing = new Map<string, NodeValues>();
  const grown = new Map<number, string[]>();
  for (const ref of refs) {
    const stored = existing.get(ref.objectid);
    if (stored && ref.kinds) {
      const kinds = withKinds(grown.get(stored.id) ?? parseKinds(stored.kinds), ref.kinds);
      if (kinds) grown.set(stored.id, kinds);
    } else if (!stored && !missing.has(ref.objectid)) {
      missing.set(ref.objectid, placeholderValues({ objectid: ref.objectid, kinds: ref.kinds ?? ['Base'] }, now));
    }
  }
  for (const [id, kinds] of grown) await db.updateTable('nodes').set({ kind: kinds[0], kinds: JSON.stringify(kinds) }).where('id', '=', id).execute();
  for (const [oid, id] of await writeNodes(db, missing)) ids.set(oid, id);
  return ids;
}

/** Upserts edges by (start, kind, end); properties are replaced. Returns the number written. */
export async function upsertEdges(db: Db, edges: EdgeInput[], now: Micros = nowMicros()): Promise<number> {
  const ids = await resolveNodeIds(db, edges.flatMap((e) => [e.start, e.end]), now);
  const rows = new Map<string, { start_id: number; end_id: number; kind: string; properties: string; last_seen: Micros }>();
  for (const e of edges) {
    const start_id = ids.get(e.start.objectid)!;
    const end_id = ids.get(e.end.objectid)!;
    rows.set(edgeKey(start_id, e.kind, end_id), {
      start_id, end_id, kind: e.kind, properties: edgePropertiesJson(e), last_seen: now,
    });
  }
  for (const part of chunks([...rows.values()], 300)) {
    await db.insertInto('edges').values(part)
      .onConflict((oc) => oc.columns(['start_id', 'kind', 'end_id']).doUpdateSet((eb) => ({
        properties: eb.ref('excluded.properties'),
        last_seen: eb.ref('excluded.last_seen'),
      })))
      .execute();
  }
  return rows.size;
}

/** Edges into a node, optionally only of some kinds (index edges_end_kind_start). */
export async function inboundEdges(db: Db, endId: number, kinds?: string[]): Promise<EdgeRow[]> {
  let qb = db.selectFrom('edges').selectAll().where('end_id', '=', endId);
  if (kinds) qb = kinds.length ? qb.where('kind', 'in', kinds) : qb.where((eb) => eb.lit(false));
  return qb.orderBy('id').execute();
}

/** Edges out of a node, optionally only of some kinds (index edges_start_kind_end). */
export async function outboundEdges(db: Db, startId: number, kinds?: string[]): Promise<EdgeRow[]> {
  let qb = db.selectFrom('edges').selectAll().where('start_id', '=', startId);
  if (kinds) qb = kinds.length ? qb.where('kind', 'in', kinds) : qb.where((eb) => eb.lit(false));
  return qb.orderBy('id').execute();
}

/** Node counts per primary kind, optionally within one environment (domain SID / tenant id). */
export async function countNodesByKind(db: Db, environmentId?: string): Promise<Map<string, number>> {
  let qb = db.selectFrom('nodes').select(['kind', (eb) => eb.fn.countAll<number>().as('n')]).where('is_placeholder', '=', 0);
  if (environmentId !== undefined) qb = qb.where('environment_id', '=', environmentId);
  const rows = await qb.groupBy('kind').execute();
  return new Map(rows.map((r) => [r.kind, Number(r.n)]));
}

/** A node row with kinds and properties parsed. */
export function toNode(row: NodeRow) {
  return {
    id: row.id,
    objectid: row.objectid,
    kind: row.kind,
    kinds: parseKinds(row.kinds),
    name: row.name,
    environmentId: row.environment_id,
    properties: JSON.parse(row.properties) as Record<string, unknown>,
    sourceKind: row.source_kind,
    isPlaceholder: row.is_placeholder === 1,
    lastSeen: row.last_seen,
  };
}
