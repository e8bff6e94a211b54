/**
 * Loading the graph structure into a GraphSnapshot, and keeping it current:
 * - full load: every node (id, kinds, environment) and edge (id, ends, kind), in id order;
 * - delta: what changed since the watermarks of the snapshot held (nodes and edges with larger
 *   ids, and the change log of migration 0040 for deletes and kind / environment changes), applied
 *   by rebuilding the arrays in memory from the old snapshot (no full read).
 * Watermarks advance only over a quiet database: on PostgreSQL a transaction that was writing when
 * the read began may commit rows with smaller ids later, so while any is in progress the next delta
 * starts from the old watermarks again (rows already held are recognised by id and skipped; change
 * entries are idempotent).
 */
import type { Db } from '../../db/create-db.ts';
import type { KindLists, KindTable } from './kinds.ts';
import { chunked, placeholders, runPlan, type Plan } from './read.ts';
import { SnapshotBuilder, type GraphSnapshot } from './snapshot.ts';

export interface Marks {
  node: number;
  edge: number;
  seq: number;
}

export interface Loaded {
  snapshot: GraphSnapshot;
  marks: Marks;
  /** How this state was reached from the previous one. */
  how: 'full' | 'delta' | 'unchanged';
}

type NodeRow = [number, string, string | null];
type EdgeRow = [number, number, number, string];

/** Larger deltas are read as a full load (cheaper than materialising them as rows). */
const DELTA_LIMIT = 200_000;

/**
 * Whether no transaction that could still commit graph rows was running when this read's snapshot
 * was taken. SQLite: always (one writer at a time, ids committed in order). PostgreSQL: every
 * transaction in progress at the snapshot (pg_snapshot_xip, cluster-wide) is still running and none
 * of them holds a write lock on this schema's nodes, edges or graph_changes (one that finished
 * since cannot be told apart: not quiet). Must be the transaction's first statement.
 */
function* quietCheck(dialect: 'sqlite' | 'postgres'): Plan<boolean> {
  if (dialect === 'sqlite') return true;
  const rows = yield {
    sql: `with x as (select distinct l.pid, s.xid from (select pg_snapshot_xip(pg_current_snapshot())::text::xid as xid) s
            left join pg_locks l on l.locktype = 'transactionid' and l.transactionid = s.xid and l.mode = 'ExclusiveLock' and l.granted)
          select (select count(*) from x where pid is null),
                 (select count(*) from pg_locks l where l.pid in (select pid from x where pid is not null) and l.mode = 'RowExclusiveLock'
                    and l.relation in ('nodes'::regclass, 'edges'::regclass, 'graph_changes'::regclass))`,
    params: [],
  };
  return Number(rows[0][0]) === 0 && Number(rows[0][1]) === 0;
}

export async function loadFull(db: Db, kinds: KindTable, lists: KindLists, slice?: number): Promise<Loaded> {
  for (let attempt = 0; ; attempt++) {
    const builder = new SnapshotBuilder(kinds, lists);
    const { quiet, seq } = await runPlan(db, function* (dialect) {
      const quiet = yield* quietCheck(dialect);
      const seq = Number((yield { sql: 'select coalesce(max(id), 0) from graph_changes', params: [] })[0][0]);
      yield {
        sql: 'select id, kinds, environment_id from nodes where id > ? order by id', params: [0], pageById: true,
        each: (r) => builder.addNode(...(r as NodeRow)),
      };
      yield {
        sql: 'select id, start_id, end_id, kind from edges where id > ? order by id', params: [0], pageById: true,
        each: (r) => builder.addEdge(...(r as EdgeRow)),
      };
      return { quiet, seq };
    }, { long: true, slice });
    const snapshot = builder.build();
    if (quiet) return { snapshot, marks: { node: snapshot.maxNodeId, edge: snapshot.maxEdgeId, seq }, how: 'full' };
    // Writers were active: retry briefly for a quiet read, then accept this one with watermarks at
    // zero (the next refresh re-reads everything and skips what is held).
    if (attempt === 2) return { snapshot, marks: { node: 0, edge: 0, seq: 0 }, how: 'full' };
    await new Promise((r) => setTimeout(r, 100));
  }
}

interface Delta {
  reset: boolean;
  quiet: boolean;
  seq: number;
  nodes: NodeRow[];
  goneNodes: number[];
  edges: EdgeRow[];
  goneEdges: number[];
}

function* deltaPlan(dialect: 'sqlite' | 'postgres', since: Marks): Plan<Delta> {
  const quiet = yield* quietCheck(dialect);
  const none: Delta = { reset: true, quiet, seq: since.seq, nodes: [], goneNodes: [], edges: [], goneEdges: [] };
  const pruned = Number((yield { sql: 'select upto from graph_changes_pruned where id = 1', params: [] })[0]?.[0] ?? 0);
  if (pruned > since.seq) return none;
  const [[maxNode, maxEdge]] = (yield { sql: 'select (select coalesce(max(id), 0) from nodes), (select coalesce(max(id), 0) from edges)', params: [] }) as number[][];
  if (Number(maxEdge) - since.edge > DELTA_LIMIT || Number(maxNode) - since.node > DELTA_LIMIT) return none;
  const changes = (yield { sql: 'select id, node_id, edge_id from graph_changes where id > ? order by id', params: [since.seq] }) as Array<[number, number | null, number | null]>;
  if (changes.length > DELTA_LIMIT || changes.some(([, n, e]) => n === null && e === null)) return none;
  let seq = since.seq;
  const changedNodes = new Set<number>();
  const changedEdges = new Set<number>();
  for (const [id, n, e] of changes) {
    seq = Math.max(seq, Number(id));
    if (n !== null && Number(n) <= since.node) changedNodes.add(Number(n));
    if (e !== null && Number(e) <= since.edge) changedEdges.add(Number(e));
  }
  const nodes = (yield { sql: 'select id, kinds, environment_id from nodes where id > ? order by id', params: [since.node] }) as NodeRow[];
  const found = new Set<number>();
  for (const part of chunked([...changedNodes])) {
    const rows = (yield { sql: `select id, kinds, environment_id from nodes where id in ${placeholders(part.length)}`, params: part }) as NodeRow[];
    for (const r of rows) {
      found.add(Number(r[0]));
      nodes.push(r);
    }
  }
  const edges = (yield { sql: 'select id, start_id, end_id, kind from edges where id > ? order by id', params: [since.edge] }) as EdgeRow[];
  for (const part of chunked([...changedEdges])) {
    edges.push(...((yield { sql: `select id, start_id, end_id, kind from edges where id in ${placeholders(part.length)}`, params: part }) as EdgeRow[]));
  }
  return {
    reset: false, quiet, seq, nodes,
    goneNodes: [...changedNodes].filter((id) => !found.has(id)), edges, goneEdges: [...changedEdges],
  };
}

/**
 * The snapshot brought up to date: the same object when nothing changed, a rebuilt one when
 * something did, a full load when the change log cannot tell (pruned past our watermark, TRUNCATE)
 * or the change is large.
 */
export async function loadDelta(db: Db, held: Loaded): Promise<Loaded> {
  const { snapshot: old, marks } = held;
  const d = await runPlan(db, (dialect) => deltaPlan(dialect, marks));
  if (d.reset) return loadFull(db, old.kinds, old.lists);
  const next = d.quiet ? { node: maxId(marks.node, d.nodes), edge: maxId(marks.edge, d.edges), seq: d.seq } : marks;
  const goneEdges = new Set(d.goneEdges.filter((id) => old.edgeSlot(id) >= 0));
  const freshEdges = d.edges.filter((r) => goneEdges.has(Number(r[0])) || old.edgeSlot(Number(r[0])) < 0);
  const goneNodes = new Set(d.goneNodes.filter((id) => old.position(id) >= 0));
  const upserts = d.nodes.filter((r) => {
    const p = old.position(Number(r[0]));
    return p < 0 || old.lists.intern(r[1]) !== old.nodeLists[p] || (r[2] ?? '') !== old.environments[old.nodeEnvs[p]];
  });
  if (!goneEdges.size && !freshEdges.length && !goneNodes.size && !upserts.length) return { snapshot: old, marks: next, how: 'unchanged' };
  return { snapshot: rebuild(old, upserts, goneNodes, freshEdges, goneEdges), marks: next, how: 'delta' };
}

function maxId(from: number, rows: ReadonlyArray<readonly unknown[]>): number {
  let m = from;
  for (const r of rows) m = Math.max(m, Number(r[0]));
  return m;
}

function rebuild(old: GraphSnapshot, upserts: NodeRow[], goneNodes: Set<number>, freshEdges: EdgeRow[], goneEdges: Set<number>): GraphSnapshot {
  const b = new SnapshotBuilder(old.kinds, old.lists);
  const byId = new Map(upserts.map((r) => [Number(r[0]), r]));
  const freshNodes = [...byId.keys()].filter((id) => old.position(id) < 0).sort((x, y) => x - y);
  const oldToNew = new Int32Array(old.nodeCount).fill(-1);
  let f = 0;
  let next = 0;
  const addFresh = (id: number) => {
    const r = byId.get(id)!;
    b.addNode(id, r[1], r[2]);
    next++;
  };
  for (let p = 0; p < old.nodeCount; p++) {
    const id = old.nodeIds[p];
    while (f < freshNodes.length && freshNodes[f] < id) addFresh(freshNodes[f++]);
    if (goneNodes.size && goneNodes.has(id)) continue;
    const r = byId.get(id);
    if (r) b.addNode(id, r[1], r[2]);
    else b.addNodeWithList(id, old.nodeLists[p], old.environments[old.nodeEnvs[p]] || null);
    oldToNew[p] = next++;
  }
  while (f < freshNodes.length) addFresh(freshNodes[f++]);

  const fresh = freshEdges.map((r) => [Number(r[0]), Number(r[1]), Number(r[2]), r[3]] as EdgeRow).sort((x, y) => x[0] - y[0]);
  let k = 0;
  const order = old.edgeOrder;
  for (let i = 0; i < old.edgeCount; i++) {
    const e = order[i];
    const id = old.edgeIds[e];
    while (k < fresh.length && fresh[k][0] < id) b.addEdge(...fresh[k++]);
    if (goneEdges.size && goneEdges.has(id)) continue;
    b.addEdgeAt(id, oldToNew[old.edgeSrc[e]], oldToNew[old.edgeDst[e]], old.edgeKind[e]);
  }
  while (k < fresh.length) b.addEdge(...fresh[k++]);
  return b.build();
}
