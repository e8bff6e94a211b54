import type { GraphView } from '../graph/engine/index.ts';
import type { GraphSnapshot } from '../graph/engine/snapshot.ts';

/**
 * Start candidates from relationship kinds (planner): a node of a pattern next to a relationship of
 * some kinds (`(n)-[:AdminTo|CanRDP]->…`, at least one step) can only be a node with such an edge in
 * that direction. When those kinds are rare, that set is far smaller than any label (a kind the graph
 * does not hold at all gives none): the nodes with an edge of the kinds, ascending, read off the
 * engine's snapshot in one pass over its edges and kept per snapshot (snapshots never change).
 */
export type EndDirection = 'outbound' | 'inbound' | 'both';

interface Memo {
  /** Edges per kind id. */
  counts: Uint32Array;
  ends: Map<string, Float64Array>;
}

const memos = new WeakMap<GraphSnapshot, Memo>();
/** Most endpoint sets kept per snapshot (each at most one id per node). */
const MAX_SETS = 64;

function memoOf(g: GraphSnapshot): Memo {
  let m = memos.get(g);
  if (!m) {
    const counts = new Uint32Array(g.kinds.names.length + 1);
    const kinds = g.edgeKind;
    for (let e = 0; e < g.edgeCount; e++) counts[kinds[e]]++;
    memos.set(g, (m = { counts, ends: new Map() }));
  }
  return m;
}

/** How many edges carry one of `kinds` (an upper bound of the nodes at either end). */
export function edgeCount(view: GraphView, kinds: readonly string[]): number {
  const g = view.graph;
  const { counts } = memoOf(g);
  let n = 0;
  for (const k of new Set(kinds)) {
    const id = g.kinds.get(k);
    if (id >= 0 && id < counts.length) n += counts[id];
  }
  return n;
}

/** Node ids (ascending) with an edge of one of `kinds` leaving them (outbound), entering them (inbound), or either. */
export function nodesWithEdges(view: GraphView, kinds: readonly string[], direction: EndDirection): Float64Array {
  const g = view.graph;
  const memo = memoOf(g);
  const key = `${direction}:${[...new Set(kinds)].sort().join(',')}`;
  const known = memo.ends.get(key);
  if (known) return known;
  const mask = new Uint8Array(memo.counts.length);
  for (const k of kinds) {
    const id = g.kinds.get(k);
    if (id >= 0 && id < mask.length) mask[id] = 1;
  }
  const marked = new Uint8Array(g.nodeCount);
  let found = 0;
  const kindOf = g.edgeKind;
  for (let e = 0; e < g.edgeCount; e++) {
    if (!mask[kindOf[e]]) continue;
    if (direction !== 'inbound' && !marked[g.edgeSrc[e]]) {
      marked[g.edgeSrc[e]] = 1;
      found++;
    }
    if (direction !== 'outbound' && !marked[g.edgeDst[e]]) {
      marked[g.edgeDst[e]] = 1;
      found++;
    }
  }
  const out = new Float64Array(found);
  for (let p = 0, i = 0; p < g.nodeCount && i < found; p++) if (marked[p]) out[i++] = g.nodeIds[p];
  if (memo.ends.size >= MAX_SETS) memo.ends.delete(memo.ends.keys().next().value!);
  memo.ends.set(key, out);
  return out;
}
