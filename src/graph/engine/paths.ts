/**
 * All shortest paths between two node sets (positions) over a kind mask, outbound from `from`
 * towards `to`: a bidirectional breadth-first search (levels from the side with the smaller
 * frontier), then the edges of every shortest path, collected back from the meeting level through
 * the predecessor edges each side recorded. Unweighted; cost proportional to the part of the graph
 * within half the distance of either end rather than the whole radius.
 */
import { throwIfPastDeadline } from '../../db/deadline.ts';
import type { KindMask } from './kinds.ts';
import type { GraphSnapshot } from './snapshot.ts';

export interface ShortestPaths {
  /** Number of edges on each shortest path (0 when a start is an end). */
  length: number;
  /** Edge slots of every shortest path (each once). */
  edges: number[];
}

const CHECK_EVERY = 1 << 15;

/** One side's distances: depth + 1 where the stamp is this search's, else 0 (unseen). */
class Dist {
  constructor(private readonly mark: Uint32Array, private readonly value: Int32Array, private readonly gen: number) {}
  get(p: number): number {
    return this.mark[p] === this.gen ? this.value[p] : 0;
  }
  set(p: number, d: number): void {
    this.mark[p] = this.gen;
    this.value[p] = d;
  }
}

interface Side {
  dist: Dist;
  frontier: number[];
  depth: number;
  /** DAG edges (slot) into each node at its depth, for nodes reached at depth >= 1. */
  preds: Map<number, number[]>;
}

/** Per-snapshot arrays reused by every search (searches are synchronous), told apart by a stamp. */
const scratches = new WeakMap<GraphSnapshot, { gen: number; marks: [Uint32Array, Uint32Array]; dists: [Int32Array, Int32Array] }>();

function sides(g: GraphSnapshot, from: ArrayLike<number>, to: ArrayLike<number>): [Side, Side] {
  let s = scratches.get(g);
  if (!s) {
    const n = g.nodeCount;
    s = { gen: 0, marks: [new Uint32Array(n), new Uint32Array(n)], dists: [new Int32Array(n), new Int32Array(n)] };
    scratches.set(g, s);
  }
  if (++s.gen === 0xffffffff) {
    s.marks[0].fill(0);
    s.marks[1].fill(0);
    s.gen = 1;
  }
  const make = (k: 0 | 1, roots: ArrayLike<number>): Side => {
    const dist = new Dist(s.marks[k], s.dists[k], s.gen);
    const frontier: number[] = [];
    for (let i = 0; i < roots.length; i++) {
      if (roots[i] >= 0 && !dist.get(roots[i])) {
        dist.set(roots[i], 1);
        frontier.push(roots[i]);
      }
    }
    return { dist, frontier, depth: 0, preds: new Map() };
  };
  return [make(0, from), make(1, to)];
}

export function shortestPaths(g: GraphSnapshot, from: ArrayLike<number>, to: ArrayLike<number>, mask: KindMask, maxDepth = Infinity): ShortestPaths | null {
  const [fwd, bwd] = sides(g, from, to);
  if (!fwd.frontier.length || !bwd.frontier.length) return null;
  const meet = fwd.frontier.filter((p) => bwd.dist.get(p));
  if (meet.length) return { length: 0, edges: [] };
  let work = 0;
  while (fwd.frontier.length && bwd.frontier.length && fwd.depth + bwd.depth < maxDepth) {
    const forward = fwd.frontier.length <= bwd.frontier.length;
    const s = forward ? fwd : bwd;
    const other = forward ? bwd : fwd;
    const start = forward ? g.outStart : g.inStart;
    const far = forward ? g.edgeDst : g.inSrc;
    const kinds = forward ? g.edgeKind : g.inKind;
    const next: number[] = [];
    const level = s.depth + 2;
    const met: number[] = [];
    for (const u of s.frontier) {
      for (let j = start[u], end = start[u + 1]; j < end; j++) {
        if (++work % CHECK_EVERY === 0) throwIfPastDeadline();
        if (!mask[kinds[j]]) continue;
        const v = far[j];
        const d = s.dist.get(v);
        if (d === 0) {
          s.dist.set(v, level);
          next.push(v);
          if (other.dist.get(v)) met.push(v);
        } else if (d !== level) continue;
        const e = forward ? j : g.inEdge[j];
        let list = s.preds.get(v);
        if (!list) s.preds.set(v, (list = []));
        list.push(e);
      }
    }
    s.frontier = next;
    s.depth++;
    if (met.length) {
      // Every shortest path crosses this level on a node both sides have reached at their depths.
      const edges = collect(g, fwd, bwd, met.filter((v) => other.dist.get(v) === other.depth + 1));
      return { length: fwd.depth + bwd.depth, edges };
    }
  }
  return null;
}

function collect(g: GraphSnapshot, fwd: Side, bwd: Side, meet: number[]): number[] {
  const kept = new Set<number>();
  // Back to the starts along forward predecessor edges, on to the ends along backward ones.
  for (const [s, back] of [[fwd, (e: number) => g.edgeSrc[e]], [bwd, (e: number) => g.edgeDst[e]]] as const) {
    const done = new Set(meet);
    const stack = [...meet];
    while (stack.length) {
      const v = stack.pop()!;
      for (const e of s.preds.get(v) ?? []) {
        kept.add(e);
        const u = back(e);
        if (!done.has(u)) {
          done.add(u);
          stack.push(u);
        }
      }
    }
  }
  return [...kept];
}
