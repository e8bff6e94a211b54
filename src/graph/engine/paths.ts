/**
 * All shortest paths between two node sets (positions) over a kind mask, outbound from `from`
 * towards `to`: a bidirectional breadth-first search (a level from the side whose frontier has
 * fewer edges to look at), then the edges of every shortest path, found back from the meeting
 * level through the depths each side stamped (no per-edge bookkeeping while searching: typed arrays
 * only). Unweighted; cost proportional to the part of the graph within half the distance of either
 * end rather than the whole radius (bench: ~4,000 edges looked at for a user → Tier Zero path at
 * 1M nodes / 5M edges, where one plain breadth-first search looks at most of the graph).
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

/**
 * Per-snapshot arrays reused by every search (searches are synchronous), told apart by a stamp: per
 * side a stamp and a depth + 1 per node, and a queue holding the side's nodes level after level.
 */
interface Scratch {
  gen: number;
  mark: [Uint32Array, Uint32Array];
  dist: [Int32Array, Int32Array];
  queue: [Int32Array, Int32Array];
}

const scratches = new WeakMap<GraphSnapshot, Scratch>();

function scratchOf(g: GraphSnapshot): Scratch {
  let s = scratches.get(g);
  if (!s) {
    const n = g.nodeCount;
    s = { gen: 0, mark: [new Uint32Array(n), new Uint32Array(n)], dist: [new Int32Array(n), new Int32Array(n)], queue: [new Int32Array(n), new Int32Array(n)] };
    scratches.set(g, s);
  }
  if (++s.gen === 0xffffffff) {
    s.mark[0].fill(0);
    s.mark[1].fill(0);
    s.gen = 1;
  }
  return s;
}

/** One side of the search: its queue[head..tail) is the frontier (the deepest level), `depth` its depth. */
interface Side {
  mark: Uint32Array;
  dist: Int32Array;
  queue: Int32Array;
  head: number;
  tail: number;
  depth: number;
  /** Edges leaving the frontier in this side's direction (any kind): the cost of expanding it. */
  degree: number;
}

export function shortestPaths(g: GraphSnapshot, from: ArrayLike<number>, to: ArrayLike<number>, mask: KindMask, maxDepth = Infinity): ShortestPaths | null {
  const sc = scratchOf(g);
  const gen = sc.gen;
  const make = (k: 0 | 1, roots: ArrayLike<number>): Side => {
    const side: Side = { mark: sc.mark[k], dist: sc.dist[k], queue: sc.queue[k], head: 0, tail: 0, depth: 0, degree: 0 };
    const start = k === 0 ? g.outStart : g.inStart;
    for (let i = 0; i < roots.length; i++) {
      const r = roots[i];
      if (r >= 0 && side.mark[r] !== gen) {
        side.mark[r] = gen;
        side.dist[r] = 1;
        side.queue[side.tail++] = r;
        side.degree += start[r + 1] - start[r];
      }
    }
    return side;
  };
  const fwd = make(0, from);
  const bwd = make(1, to);
  if (fwd.tail === 0 || bwd.tail === 0) return null;
  for (let i = 0; i < fwd.tail; i++) if (bwd.mark[fwd.queue[i]] === gen) return { length: 0, edges: [] };
  let work = 0;
  while (fwd.head < fwd.tail && bwd.head < bwd.tail && fwd.depth + bwd.depth < maxDepth) {
    // Expand the side whose frontier has fewer edges to look at.
    const forward = fwd.degree <= bwd.degree;
    const s = forward ? fwd : bwd;
    const other = forward ? bwd : fwd;
    const start = forward ? g.outStart : g.inStart;
    const far = forward ? g.edgeDst : g.inSrc;
    const kinds = forward ? g.edgeKind : g.inKind;
    const { mark, dist, queue } = s;
    const otherMark = other.mark;
    const level = s.depth + 2;
    const end = s.tail;
    let degree = 0;
    let met = false;
    for (let i = s.head; i < end; i++) {
      const u = queue[i];
      for (let j = start[u], stop = start[u + 1]; j < stop; j++) {
        if (++work % CHECK_EVERY === 0) throwIfPastDeadline();
        if (!mask[kinds[j]]) continue;
        const v = far[j];
        if (mark[v] === gen) continue;
        mark[v] = gen;
        dist[v] = level;
        queue[s.tail++] = v;
        degree += start[v + 1] - start[v];
        if (otherMark[v] === gen) met = true;
      }
    }
    s.head = end;
    s.depth++;
    s.degree = degree;
    if (met) {
      // Every shortest path crosses this level on a node both sides have reached at their deepest levels.
      const meet: number[] = [];
      const otherLevel = other.depth + 1;
      for (let i = end; i < s.tail; i++) {
        const v = queue[i];
        if (otherMark[v] === gen && other.dist[v] === otherLevel) meet.push(v);
      }
      return { length: fwd.depth + bwd.depth, edges: collect(g, fwd, bwd, meet, mask, gen) };
    }
  }
  return null;
}

/**
 * The edges of every shortest path through `meet`: back to the starts along edges that come from a
 * node one level shallower on the forward side, on to the ends along edges going to a node one
 * level shallower on the backward side.
 */
function collect(g: GraphSnapshot, fwd: Side, bwd: Side, meet: number[], mask: KindMask, gen: number): number[] {
  const kept: number[] = [];
  for (const forward of [true, false]) {
    const { mark, dist } = forward ? fwd : bwd;
    const start = forward ? g.inStart : g.outStart;
    const near = forward ? g.inSrc : g.edgeDst;
    const kinds = forward ? g.inKind : g.edgeKind;
    const done = new Set(meet);
    const stack = [...meet];
    while (stack.length) {
      const v = stack.pop()!;
      const want = dist[v] - 1;
      if (want < 1) continue;
      for (let j = start[v], stop = start[v + 1]; j < stop; j++) {
        const u = near[j];
        if (mark[u] !== gen || dist[u] !== want || !mask[kinds[j]]) continue;
        kept.push(forward ? g.inEdge[j] : j);
        if (!done.has(u)) {
          done.add(u);
          stack.push(u);
        }
      }
    }
  }
  return [...new Set(kept)];
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
