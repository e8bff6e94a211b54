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

export type StepDirection = 'outbound' | 'inbound' | 'both';

/** The edges at position `u` in a direction, as (slot, far position) pairs through `visit`; 'both' lists a self-loop once. */
export function eachStep(g: GraphSnapshot, u: number, direction: StepDirection, mask: KindMask, visit: (slot: number, far: number) => void): void {
  if (direction !== 'inbound') {
    for (let j = g.outStart[u], end = g.outStart[u + 1]; j < end; j++) if (mask[g.edgeKind[j]]) visit(j, g.edgeDst[j]);
  }
  if (direction !== 'outbound') {
    for (let j = g.inStart[u], end = g.inStart[u + 1]; j < end; j++) {
      if (!mask[g.inKind[j]]) continue;
      const far = g.inSrc[j];
      if (direction === 'both' && far === u) continue;
      visit(g.inEdge[j], far);
    }
  }
}

export interface ShortestTree {
  /** Positions reached at depth >= 1, in breadth-first order. */
  order: number[];
  /** For each reached position: the edges into it from the previous level, as [from position, edge slot]. */
  parents: Map<number, Array<[number, number]>>;
  /** Edges examined (the work done). */
  work: number;
}

/**
 * Single-source breadth-first levels (Cypher's shortestPath / allShortestPaths): every position
 * reached within `maxDepth` steps from `root`, with the first edge into it from the previous level,
 * or every such edge when `all`. Stops after the level that has reached every one of `stop` (when given).
 */
export function shortestTree(g: GraphSnapshot, root: number, mask: KindMask, direction: StepDirection, maxDepth: number, all: boolean, stop?: readonly number[]): ShortestTree {
  const parents = new Map<number, Array<[number, number]>>();
  const order: number[] = [];
  const seen = new Set<number>([root]);
  const waiting = stop ? new Set(stop.filter((p) => p >= 0 && p !== root)) : null;
  let frontier = [root];
  let work = 0;
  for (let depth = 1; depth <= maxDepth && frontier.length > 0 && (waiting === null || waiting.size > 0); depth++) {
    const level = new Map<number, Array<[number, number]>>();
    for (const u of frontier) {
      eachStep(g, u, direction, mask, (slot, v) => {
        if (++work % CHECK_EVERY === 0) throwIfPastDeadline();
        if (seen.has(v)) return;
        let list = level.get(v);
        if (!list) level.set(v, (list = []));
        else if (!all) return;
        list.push([u, slot]);
      });
    }
    frontier = [];
    for (const [v, list] of level) {
      seen.add(v);
      parents.set(v, list);
      order.push(v);
      frontier.push(v);
      waiting?.delete(v);
    }
  }
  return { order, parents, work };
}

/**
 * Every trail from `start` (no edge twice; nodes may repeat, as Cypher's relationship uniqueness)
 * of `min`..`max` edges, depth first; `skip` edge slots are never walked. `visit` gets the trail's
 * edge slots and its end; returning false stops the enumeration.
 */
export function trails(
  g: GraphSnapshot, start: number, mask: KindMask, direction: StepDirection, min: number, max: number,
  skip: (slot: number) => boolean, visit: (slots: readonly number[], end: number) => boolean | void,
): void {
  // Depth first with an explicit stack (a trail may be longer than the call stack is deep):
  // frames[k] holds the steps out of the trail's k-th node as (slot, far) pairs and where it is.
  const trail: number[] = [];
  const used = new Set<number>();
  const frames: Array<{ steps: number[]; next: number }> = [];
  let work = 0;
  const enter = (at: number): boolean => {
    if (trail.length >= min && visit(trail, at) === false) return false;
    const steps: number[] = [];
    if (trail.length < max) eachStep(g, at, direction, mask, (slot, far) => void steps.push(slot, far));
    frames.push({ steps, next: 0 });
    return true;
  };
  if (!enter(start)) return;
  while (frames.length > 0) {
    const f = frames[frames.length - 1];
    if (f.next >= f.steps.length) {
      frames.pop();
      if (trail.length > 0) used.delete(trail.pop()!);
      continue;
    }
    const slot = f.steps[f.next];
    const far = f.steps[f.next + 1];
    f.next += 2;
    if (used.has(slot) || skip(slot)) continue;
    if (++work % CHECK_EVERY === 0) throwIfPastDeadline();
    used.add(slot);
    trail.push(slot);
    if (!enter(far)) return;
  }
}
