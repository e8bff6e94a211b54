/**
 * Breadth-first traversal over a snapshot, in node positions (the view translates ids). One walk
 * serves every "related list" BloodHound defines: which edges may be walked (kinds, direction, an
 * optional per-step test), which nodes may be walked *out of* (an optional per-node test), and
 * what the caller then collects: every reached node, the terminals (nodes the walk could not leave),
 * or any subset, with the walked edges that lead to them (for graph answers).
 *
 * Each node is expanded once, at its first (shallowest) arrival; a step into a node already on the
 * walk's path back to the root is not taken (BloodHound's cycle rule), a step into a node reached
 * another way is recorded (it is an edge of the answer's graph) but not expanded again.
 *
 * Per-node bookkeeping lives in scratch arrays of the snapshot reused by every walk (a generation
 * stamp tells this walk's entries apart), so a walk costs what it visits, not the graph's size; the
 * result keeps only the visited part.
 */
import { throwIfPastDeadline } from '../../db/deadline.ts';
import type { KindMask } from './kinds.ts';
import type { GraphSnapshot } from './snapshot.ts';

export type Direction = 'outbound' | 'inbound';

export interface WalkRules {
  direction: Direction;
  kinds: KindMask;
  maxDepth?: number;
  /** May the walk go on out of node position p, reached at `depth` (roots: 0)? */
  expand?: (p: number, depth: number) => boolean;
  /** May edge slot e be walked from position `from` (at depth `depth`) to `to`? */
  step?: (e: number, from: number, to: number, depth: number) => boolean;
}

export interface Walk {
  /** Positions reached, in BFS order, roots first. */
  order: Int32Array;
  /** Aligned with order: depth of each. */
  depth: Int32Array;
  /** Aligned with order: the slot of the edge it was first reached by (-1 for roots). */
  via: Int32Array;
  /** Aligned with order: 1 when no step out of it was taken. */
  terminal: Uint8Array;
  /** Every step taken, as edge slots (tree edges and edges into nodes reached another way). */
  steps: Int32Array;
  /** Index in `order` of a position, or -1. */
  indexOf(p: number): number;
}

const CHECK_EVERY = 1 << 15;

/** Reusable per-snapshot bookkeeping (walks are synchronous: one at a time per snapshot). */
export interface Scratch {
  gen: number;
  mark: Uint32Array;
  depth: Int32Array;
  via: Int32Array;
  queue: Int32Array;
}

const scratches = new WeakMap<GraphSnapshot, Scratch>();

export function scratchOf(g: GraphSnapshot): Scratch {
  let s = scratches.get(g);
  if (!s) {
    const n = g.nodeCount;
    s = { gen: 0, mark: new Uint32Array(n), depth: new Int32Array(n), via: new Int32Array(n), queue: new Int32Array(n) };
    scratches.set(g, s);
  }
  if (++s.gen === 0xffffffff) {
    s.mark.fill(0);
    s.gen = 1;
  }
  return s;
}

export function walk(g: GraphSnapshot, roots: ArrayLike<number>, rules: WalkRules): Walk {
  const s = scratchOf(g);
  const { mark, depth: dep, via, queue } = s;
  const gen = s.gen;
  let steps = new Int32Array(64);
  let stepCount = 0;
  let head = 0;
  let tail = 0;
  for (let i = 0; i < roots.length; i++) {
    const r = roots[i];
    if (r >= 0 && mark[r] !== gen) {
      mark[r] = gen;
      dep[r] = 0;
      via[r] = -1;
      queue[tail++] = r;
    }
  }
  const out = rules.direction === 'outbound';
  const start = out ? g.outStart : g.inStart;
  const far = out ? g.edgeDst : g.inSrc;
  const kindOf = out ? g.edgeKind : g.inKind;
  const mask = rules.kinds;
  const maxDepth = rules.maxDepth ?? Infinity;
  const terminalAt: number[] = [];
  let work = 0;
  while (head < tail) {
    const u = queue[head++];
    const depth = dep[u];
    let took = false;
    if (depth < maxDepth && (!rules.expand || rules.expand(u, depth))) {
      for (let j = start[u], end = start[u + 1]; j < end; j++) {
        if (++work % CHECK_EVERY === 0) throwIfPastDeadline();
        if (!mask[kindOf[j]]) continue;
        const v = far[j];
        const seen = mark[v] === gen;
        // A step back onto the walk's own path (only a node reached no deeper than u can be on it).
        if (v === u || (seen && dep[v] <= depth && onPath(g, via, v, u, out))) continue;
        const e = out ? j : g.inEdge[j];
        if (rules.step && !rules.step(e, u, v, depth)) continue;
        took = true;
        if (stepCount === steps.length) {
          const bigger = new Int32Array(steps.length * 2);
          bigger.set(steps);
          steps = bigger;
        }
        steps[stepCount++] = e;
        if (!seen) {
          mark[v] = gen;
          dep[v] = depth + 1;
          via[v] = e;
          queue[tail++] = v;
        }
      }
    }
    if (!took) terminalAt.push(head - 1);
  }
  const order = queue.slice(0, tail);
  const depthOut = new Int32Array(tail);
  const viaOut = new Int32Array(tail);
  for (let i = 0; i < tail; i++) {
    depthOut[i] = dep[order[i]];
    viaOut[i] = via[order[i]];
  }
  const terminal = new Uint8Array(tail);
  for (const i of terminalAt) terminal[i] = 1;
  let index: Map<number, number> | null = null;
  return {
    order, depth: depthOut, via: viaOut, terminal, steps: steps.slice(0, stepCount),
    indexOf(p) {
      if (!index) index = new Map(Array.from(order, (q, i) => [q, i]));
      return index.get(p) ?? -1;
    },
  };
}

/** Whether position `v` lies on the tree path from `u` back to a root (during the walk). */
function onPath(g: GraphSnapshot, via: Int32Array, v: number, u: number, out: boolean): boolean {
  let x = u;
  for (let guard = 0; guard < 1_000_000; guard++) {
    const e = via[x];
    if (e < 0) return false;
    x = out ? g.edgeSrc[e] : g.edgeDst[e];
    if (x === v) return true;
  }
  return false;
}

/**
 * The steps of a walk that lie on a way from a root to one of `targets` (positions): the answer
 * graph of a related list (every walked edge that leads towards a collected node).
 */
export function stepsTowards(g: GraphSnapshot, w: Walk, targets: ArrayLike<number>, direction: Direction): number[] {
  const out = direction === 'outbound';
  // Steps grouped by their far end, to walk back from the targets.
  const into = new Map<number, number[]>();
  for (const e of w.steps) {
    const v = out ? g.edgeDst[e] : g.edgeSrc[e];
    let list = into.get(v);
    if (!list) into.set(v, (list = []));
    list.push(e);
  }
  const marked = new Set<number>();
  const stack: number[] = [];
  for (let i = 0; i < targets.length; i++) {
    if (!marked.has(targets[i])) {
      marked.add(targets[i]);
      stack.push(targets[i]);
    }
  }
  const kept: number[] = [];
  while (stack.length) {
    const v = stack.pop()!;
    for (const e of into.get(v) ?? []) {
      kept.push(e);
      const u = out ? g.edgeSrc[e] : g.edgeDst[e];
      if (!marked.has(u)) {
        marked.add(u);
        stack.push(u);
      }
    }
  }
  return kept;
}
