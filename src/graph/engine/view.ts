/**
 * GraphView: the engine's interface (README "Graph engine"). Node and edge ids are the database
 * ids the APIs show. Structure questions (kinds, neighbours, traversals, paths) are answered from
 * the snapshot synchronously; names and properties come from the database in batches.
 */
import type { Db } from '../../db/create-db.ts';
import type { KindMask } from './kinds.ts';
import { shortestPaths, shortestTree, trails } from './paths.ts';
import type { GraphSnapshot } from './snapshot.ts';
import { OWNED_KIND, TIER_ZERO_KIND, type TagLayer } from './tags.ts';
import { stepsTowards, walk, type Direction, type Walk } from './traverse.ts';
import { edgeRecords, nodeRecord, nodeRecords, type EdgeRecord, type NodeRecord, type NodeRow } from './details.ts';

export type { Direction } from './traverse.ts';
export type { EdgeRecord, NodeRecord, NodeRow } from './details.ts';

export interface Edge {
  id: number;
  start: number;
  end: number;
  kind: string;
}

/** Kind filter of a step: a list of edge kinds (undefined = every kind). */
export type Kinds = readonly string[] | undefined;

export interface Hop {
  direction: Direction | 'both';
  kinds?: Kinds;
  /** Path length bounds (edges), default 1..1. */
  minDepth?: number;
  maxDepth?: number;
}

export interface Path {
  start: number;
  end: number;
  edges: Edge[];
}

/** What a related-list walk (walk()) may ask about nodes and edges, in ids. */
export interface WalkPlan {
  roots: readonly number[];
  direction: Direction;
  kinds: Kinds;
  maxDepth?: number;
  /** May the walk go on out of this node (roots have depth 0)? */
  expand?: (id: number, depth: number) => boolean;
  /** May this edge be walked? `depth` is the depth of the node it leaves. */
  step?: (edge: Edge, depth: number) => boolean;
}

export interface WalkResult {
  /** Reached node ids, BFS order, roots first. */
  reached: number[];
  /** Reached node ids the walk could not leave (BloodHound's path terminals). */
  terminals: number[];
  depth(id: number): number;
  /** The edge a node was first reached by (undefined for roots and unreached nodes). */
  parentEdge(id: number): Edge | undefined;
  /** The walked edges leading from the roots to any of `targets` (for graph answers). */
  edgesTowards(targets: Iterable<number>): Edge[];
}

/** Stored-kind node lists per snapshot (snapshots never change; a new one replaces them). */
const byKindMemo = new WeakMap<GraphSnapshot, Map<string, number[]>>();

/**
 * Kind masks (64 KiB each) per snapshot and kind list, shared by every view of the snapshot (a
 * request's view used to build each again: an entity info answer walks eleven lists). At most
 * MAX_MASKS per snapshot (relationship filters come from requests), then started afresh.
 */
const masksMemo = new WeakMap<GraphSnapshot, Map<string, KindMask>>();
const MAX_MASKS = 256;

export class GraphLimitError extends Error {
  constructor(readonly limit: number) {
    super(`graph result limit of ${limit} exceeded`);
  }
}

export class GraphView {
  constructor(private readonly db: Db, readonly graph: GraphSnapshot, readonly tags: TagLayer) {}

  get nodeCount(): number {
    return this.graph.nodeCount;
  }

  get edgeCount(): number {
    return this.graph.edgeCount;
  }

  has(id: number): boolean {
    return this.graph.position(id) >= 0;
  }

  /** Every kind of a node, primary first, then its Tag_* kinds ([] when unknown). */
  kinds(id: number): string[] {
    const p = this.graph.position(id);
    if (p < 0) return [];
    const names = Array.from(this.graph.kindIds(p), (k) => this.graph.kinds.name(k));
    const tags = this.tags.byNode.get(id);
    return tags ? [...names, ...tags] : names;
  }

  /** The stored primary kind ('' when unknown). */
  primaryKind(id: number): string {
    const p = this.graph.position(id);
    if (p < 0) return '';
    const list = this.graph.kindIds(p);
    return list.length ? this.graph.kinds.name(list[0]) : '';
  }

  hasKind(id: number, kind: string): boolean {
    if (kind.startsWith('Tag_')) return this.tags.members.get(kind)?.has(id) ?? false;
    const p = this.graph.position(id);
    const k = this.graph.kinds.get(kind);
    return p >= 0 && k >= 0 && this.graph.hasKindId(p, k);
  }

  hasAnyKind(id: number, kinds: readonly string[]): boolean {
    return kinds.some((k) => this.hasKind(id, k));
  }

  isTierZero(id: number): boolean {
    return this.tags.members.get(TIER_ZERO_KIND)?.has(id) ?? false;
  }

  isOwned(id: number): boolean {
    return this.tags.members.get(OWNED_KIND)?.has(id) ?? false;
  }

  /** Domain SID / tenant id of a node (null when none or unknown). */
  environment(id: number): string | null {
    const p = this.graph.position(id);
    return p < 0 ? null : this.graph.environments[this.graph.nodeEnvs[p]] || null;
  }

  /** Every node id, ascending. */
  nodeIds(): Float64Array {
    return this.graph.nodeIds;
  }

  /** Node ids (ascending) carrying a kind (a stored kind at any place, or a Tag_* kind). */
  nodesWithKind(kind: string, environment?: string): number[] {
    const out: number[] = [];
    const g = this.graph;
    if (kind.startsWith('Tag_')) {
      for (const id of [...(this.tags.members.get(kind) ?? [])].sort((a, b) => a - b)) {
        if (environment === undefined || this.environment(id) === environment) out.push(id);
      }
      return out;
    }
    // Per snapshot, each (kind, environment) is listed once: a whole-graph pass is the costly part.
    let memo = byKindMemo.get(g);
    if (!memo) byKindMemo.set(g, (memo = new Map()));
    const key = `${kind}\u0000${environment ?? ''}`;
    const known = memo.get(key);
    if (known) return known.slice();
    memo.set(key, out);
    const k = g.kinds.get(kind);
    if (k < 0) return out.slice();
    const lists = g.lists.lists;
    const has = lists.map((l) => l.includes(k));
    const env = environment === undefined ? -1 : g.environments.indexOf(environment);
    if (environment !== undefined && env < 0) return out.slice();
    for (let p = 0; p < g.nodeCount; p++) {
      if (has[g.nodeLists[p]] && (env < 0 || g.nodeEnvs[p] === env)) out.push(g.nodeIds[p]);
    }
    return out.slice();
  }

  /** Every kind a node or edge carries in this graph (stored kinds, edge kinds and tag kinds). */
  allKinds(): string[] {
    return [...new Set([...this.graph.kinds.names, ...this.tags.kinds])];
  }

  /** The edge with this id, or undefined. */
  edge(id: number): Edge | undefined {
    const e = this.graph.edgeSlot(id);
    return e < 0 ? undefined : this.edgeAt(e);
  }

  /** Edges at a node by direction and kind, in edge-id order per direction. */
  edgesOf(id: number, direction: Direction | 'both', kinds?: Kinds): Edge[] {
    const g = this.graph;
    const p = g.position(id);
    if (p < 0) return [];
    const mask = this.mask(kinds);
    const out: Edge[] = [];
    if (direction !== 'inbound') {
      for (let e = g.outStart[p]; e < g.outStart[p + 1]; e++) if (mask[g.edgeKind[e]]) out.push(this.edgeAt(e));
    }
    if (direction !== 'outbound') {
      for (let j = g.inStart[p]; j < g.inStart[p + 1]; j++) if (mask[g.inKind[j]]) out.push(this.edgeAt(g.inEdge[j]));
    }
    return out;
  }

  /**
   * The slots of the edges at a node, as edgesOf lists them (same order) but without an Edge object
   * each: a caller walking millions of edges reads their ids and ends off the snapshot (graph.edgeIds,
   * edgeSrc, edgeDst: positions) and makes edges (edgeAtSlot) of those it keeps.
   */
  edgeSlotsOf(id: number, direction: Direction | 'both', kinds?: Kinds): number[] {
    const g = this.graph;
    const p = g.position(id);
    if (p < 0) return [];
    const mask = this.mask(kinds);
    const out: number[] = [];
    if (direction !== 'inbound') {
      for (let e = g.outStart[p]; e < g.outStart[p + 1]; e++) if (mask[g.edgeKind[e]]) out.push(e);
    }
    if (direction !== 'outbound') {
      for (let j = g.inStart[p]; j < g.inStart[p + 1]; j++) if (mask[g.inKind[j]]) out.push(g.inEdge[j]);
    }
    return out;
  }

  /** The edge at a slot (edgeSlotsOf). */
  edgeAtSlot(slot: number): Edge {
    return this.edgeAt(slot);
  }

  /** Edges from `start` to `end` (optionally of some kinds). */
  edgesBetween(start: number, end: number, kinds?: Kinds): Edge[] {
    return this.edgesOf(start, 'outbound', kinds).filter((e) => e.end === end);
  }

  /**
   * A breadth-first walk (each node expanded once, at its shallowest depth; no step back onto the
   * walk's own path). The building block of every related list.
   */
  walk(plan: WalkPlan): WalkResult {
    const g = this.graph;
    const roots = plan.roots.map((id) => g.position(id)).filter((p) => p >= 0);
    const w: Walk = walk(g, roots, {
      direction: plan.direction,
      kinds: this.mask(plan.kinds),
      maxDepth: plan.maxDepth,
      expand: plan.expand && ((p, depth) => plan.expand!(g.nodeIds[p], depth)),
      step: plan.step && ((e, _from, _to, depth) => plan.step!(this.edgeAt(e), depth)),
    });
    const ids = (ps: ArrayLike<number>) => Array.from(ps, (p) => g.nodeIds[p]);
    let reached: number[] | undefined;
    let terminals: number[] | undefined;
    return {
      // Made when first asked for (a related list reads one of the two; a walk may reach 700,000 nodes).
      get reached() {
        return (reached ??= ids(w.order));
      },
      get terminals() {
        if (!terminals) {
          terminals = [];
          for (let i = 0; i < w.order.length; i++) if (w.terminal[i]) terminals.push(g.nodeIds[w.order[i]]);
        }
        return terminals;
      },
      depth: (id) => {
        const i = w.indexOf(g.position(id));
        return i < 0 ? -1 : w.depth[i];
      },
      parentEdge: (id) => {
        const i = w.indexOf(g.position(id));
        return i < 0 || w.via[i] < 0 ? undefined : this.edgeAt(w.via[i]);
      },
      edgesTowards: (targets) => {
        const ps = [...targets].map((id) => g.position(id)).filter((p) => p >= 0);
        return stepsTowards(g, w, ps, plan.direction).map((e) => this.edgeAt(e));
      },
    };
  }

  /** Transitive members of a group (MemberOf inbound, primary-group edges included), without the group. */
  members(groupId: number): number[] {
    return this.walk({ roots: [groupId], direction: 'inbound', kinds: ['MemberOf'] }).reached.slice(1);
  }

  /** Groups a node belongs to, transitively (MemberOf outbound), without the node. */
  memberships(id: number): number[] {
    return this.walk({ roots: [id], direction: 'outbound', kinds: ['MemberOf'] }).reached.slice(1);
  }

  /** Everything an OU / container / domain contains, transitively (Contains outbound), without itself. */
  contents(id: number): number[] {
    return this.walk({ roots: [id], direction: 'outbound', kinds: ['Contains'] }).reached.slice(1);
  }

  /**
   * Nodes reachable from `starts` within the hop's depth bounds, with their smallest depth (set
   * semantics: fast, for when only the far ends matter).
   */
  reachable(starts: readonly number[], hop: Hop): Map<number, number> {
    const min = hop.minDepth ?? 1;
    const max = hop.maxDepth ?? 1;
    const out = new Map<number, number>();
    const dirs: Direction[] = hop.direction === 'both' ? ['outbound', 'inbound'] : [hop.direction];
    if (min === 0) for (const s of starts) if (this.has(s)) out.set(s, 0);
    // With both directions a node may be reached at different depths each way: walk level by level.
    let frontier = starts.filter((s) => this.has(s));
    const seen = new Set(frontier);
    for (let depth = 1; depth <= max && frontier.length; depth++) {
      const next: number[] = [];
      for (const id of frontier) {
        for (const dir of dirs) {
          for (const e of this.edgesOf(id, dir, hop.kinds)) {
            const v = dir === 'outbound' ? e.end : e.start;
            if (seen.has(v)) continue;
            seen.add(v);
            next.push(v);
            if (depth >= min) out.set(v, depth);
          }
        }
      }
      frontier = next;
    }
    return out;
  }

  /**
   * Every path from `starts` over one hop pattern, Cypher style: each edge at most once per path
   * (and never one of `exclude`: edges a query has used already), lengths within the bounds; with
   * 'both', a self-loop is one step. `visit` returning false stops the enumeration. More than
   * `limit` paths → GraphLimitError.
   */
  expand(starts: readonly number[], hop: Hop & { exclude?: ReadonlySet<number> }, visit: (path: Path) => boolean | void, limit = Infinity): void {
    const g = this.graph;
    const min = hop.minDepth ?? 1;
    const max = hop.maxDepth ?? 1;
    const exclude = hop.exclude;
    const skip = exclude && exclude.size > 0 ? (slot: number) => exclude.has(g.edgeIds[slot]) : () => false;
    const mask = this.mask(hop.kinds);
    let count = 0;
    for (const s of starts) {
      const p = g.position(s);
      if (p < 0) continue;
      let stopped = false;
      trails(g, p, mask, hop.direction, min, max, skip, (slots, end) => {
        if (++count > limit) throw new GraphLimitError(limit);
        if (visit({ start: s, end: g.nodeIds[end], edges: slots.map((e) => this.edgeAt(e)) }) === false) stopped = true;
        return !stopped;
      });
      if (stopped) return;
    }
  }

  /**
   * expand() without an Path object per trail: `visit` gets the trail's start and end ids and its edge
   * slots (the engine's own array, valid during the call only: edgeAtSlot makes the edges of a trail kept).
   * Same trails, same order.
   */
  expandSlots(starts: readonly number[], hop: Hop & { exclude?: ReadonlySet<number> }, visit: (start: number, end: number, slots: readonly number[]) => void): void {
    const g = this.graph;
    const min = hop.minDepth ?? 1;
    const max = hop.maxDepth ?? 1;
    const exclude = hop.exclude;
    const skip = exclude && exclude.size > 0 ? (slot: number) => exclude.has(g.edgeIds[slot]) : () => false;
    const mask = this.mask(hop.kinds);
    for (const s of starts) {
      const p = g.position(s);
      if (p < 0) continue;
      trails(g, p, mask, hop.direction, min, max, skip, (slots, end) => visit(s, g.nodeIds[end], slots));
    }
  }

  /**
   * Breadth-first levels from one node (Cypher's shortestPath / allShortestPaths): the nodes reached
   * within `maxDepth` steps in BFS order, each with the first edge into it from the previous level,
   * or every such edge when `all`; stops after the level that has reached all of `stop`. `work`: edges examined.
   */
  shortestTree(root: number, hop: { direction: Direction | 'both'; kinds?: Kinds; maxDepth?: number }, all: boolean, stop?: readonly number[]): { reached: number[]; parents(id: number): Array<{ from: number; edge: Edge }>; work: number } {
    const g = this.graph;
    const r = g.position(root);
    if (r < 0) return { reached: [], parents: () => [], work: 0 };
    const tree = shortestTree(g, r, this.mask(hop.kinds), hop.direction, hop.maxDepth ?? Infinity, all, stop?.map((id) => g.position(id)));
    return {
      reached: tree.order.map((p) => g.nodeIds[p]),
      parents: (id) => (tree.parents.get(g.position(id)) ?? []).map(([from, e]) => ({ from: g.nodeIds[from], edge: this.edgeAt(e) })),
      work: tree.work,
    };
  }

  /**
   * All shortest paths from any of `from` to any of `to`, outbound over `kinds` (every kind when
   * undefined): the path length and the edges of every shortest path, or null when there is none.
   */
  shortestPaths(from: readonly number[], to: readonly number[], kinds?: Kinds, maxDepth?: number): { length: number; edges: Edge[] } | null {
    const g = this.graph;
    const pos = (ids: readonly number[]) => ids.map((id) => g.position(id)).filter((p) => p >= 0);
    const found = shortestPaths(g, pos(from), pos(to), this.mask(kinds), maxDepth);
    return found && { length: found.length, edges: found.edges.map((e) => this.edgeAt(e)).sort((a, b) => a.id - b.id) };
  }

  /** Nodes with names, kinds and (optionally) properties, in the order of `ids` (unknown ids left out). */
  nodes(ids: readonly number[], options: { properties?: boolean } = {}): Promise<NodeRecord[]> {
    return nodeRecords(this.db, this, ids, options.properties ?? false);
  }

  /** The record of a `nodes` row the caller has read already (no statement). */
  nodeFromRow(row: NodeRow, options: { properties?: boolean } = {}): NodeRecord {
    return nodeRecord(this, row, options.properties ?? false);
  }

  /** Edges with their properties, in the order of `ids` (unknown ids left out). */
  edgeDetails(ids: readonly number[]): Promise<EdgeRecord[]> {
    return edgeRecords(this.db, this, ids);
  }

  private edgeAt(e: number): Edge {
    const g = this.graph;
    return { id: g.edgeIds[e], start: g.nodeIds[g.edgeSrc[e]], end: g.nodeIds[g.edgeDst[e]], kind: g.kinds.name(g.edgeKind[e]) };
  }

  /** The last kind list asked for and its mask (a caller walking from many nodes passes the same list each time). */
  private lastMask: { kinds: Kinds; mask: KindMask } | null = null;

  private mask(kinds: Kinds): KindMask {
    if (this.lastMask !== null && this.lastMask.kinds === kinds) return this.lastMask.mask;
    const mask = this.maskOf(kinds);
    this.lastMask = { kinds, mask };
    return mask;
  }

  private maskOf(kinds: Kinds): KindMask {
    const key = kinds === undefined ? '*' : [...kinds].sort().join(',');
    let masks = masksMemo.get(this.graph);
    if (!masks || masks.size >= MAX_MASKS) masksMemo.set(this.graph, (masks = new Map()));
    let m = masks.get(key);
    if (!m) {
      if (kinds === undefined) m = new Uint8Array(65_536).fill(1);
      else m = this.graph.kinds.mask(kinds);
      masks.set(key, m);
    }
    return m;
  }
}
