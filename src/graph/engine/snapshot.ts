/**
 * One immutable in-memory copy of the graph's structure: every node (id, kinds, environment) and
 * every edge (id, kind, ends) in compressed adjacency form (CSR), both directions, in typed arrays.
 * Node *positions* (0..nodeCount-1, in node-id order) are what traversals work on; the database ids
 * are what the engine's interface speaks. Names and properties stay in the database (fetched in
 * batches, ./details.ts). Built by ./load.ts; replaced, never mutated.
 *
 * Memory per node 24 B (+4 B per id of the direct id table) + per edge 32 B (1M nodes / 5M edges
 * ≈ 190 MB; measured in README).
 */
import { KindLists, KindTable } from './kinds.ts';

export class GraphSnapshot {
  constructor(
    readonly kinds: KindTable,
    readonly lists: KindLists,
    /** Environment (domain SID / tenant id) strings; 0 = none. */
    readonly environments: readonly string[],
    readonly nodeCount: number,
    /** Position → node id (ascending). */
    readonly nodeIds: Float64Array,
    /** Position → kind list id. */
    readonly nodeLists: Uint32Array,
    /** Position → environment index. */
    readonly nodeEnvs: Uint32Array,
    /** id → position when ids are dense enough (else binary search over nodeIds). */
    private readonly direct: Int32Array | null,
    readonly edgeCount: number,
    /** Outbound CSR: edges of position p are outStart[p] .. outStart[p+1]-1; the edge index is that slot. */
    readonly outStart: Int32Array,
    readonly edgeSrc: Int32Array,
    readonly edgeDst: Int32Array,
    readonly edgeKind: Uint16Array,
    readonly edgeIds: Float64Array,
    /** Inbound CSR: slots inStart[p] .. inStart[p+1]-1 hold the edge indexes into p (inEdge), copies of their source and kind. */
    readonly inStart: Int32Array,
    readonly inSrc: Int32Array,
    readonly inKind: Uint16Array,
    readonly inEdge: Int32Array,
    /** The slots in ascending edge-id order (edge id → slot by binary search). */
    readonly edgeOrder: Int32Array,
  ) {}

  /** The slot of an edge id, or -1. */
  edgeSlot(id: number): number {
    let lo = 0;
    let hi = this.edgeCount - 1;
    const order = this.edgeOrder;
    const ids = this.edgeIds;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const v = ids[order[mid]];
      if (v === id) return order[mid];
      if (v < id) lo = mid + 1;
      else hi = mid - 1;
    }
    return -1;
  }

  /** The largest node id held (0 when empty). */
  get maxNodeId(): number {
    return this.nodeCount ? this.nodeIds[this.nodeCount - 1] : 0;
  }

  /** The largest edge id held (0 when empty). */
  get maxEdgeId(): number {
    return this.edgeCount ? this.edgeIds[this.edgeOrder[this.edgeCount - 1]] : 0;
  }

  /** Position of a node id, or -1. */
  position(id: number): number {
    if (this.direct) return id >= 0 && id < this.direct.length ? this.direct[id] : -1;
    return positionIn(this.nodeIds, id, this.nodeCount);
  }

  /** Kind ids of the node at a position, primary first. */
  kindIds(p: number): Uint16Array {
    return this.lists.lists[this.nodeLists[p]];
  }

  hasKindId(p: number, kind: number): boolean {
    const list = this.lists.lists[this.nodeLists[p]];
    for (let i = 0; i < list.length; i++) if (list[i] === kind) return true;
    return false;
  }

  /** Approximate bytes held by the typed arrays. */
  bytes(): number {
    let n = 0;
    for (const a of [this.nodeIds, this.nodeLists, this.nodeEnvs, this.direct, this.outStart, this.edgeSrc, this.edgeDst,
      this.edgeKind, this.edgeIds, this.inStart, this.inSrc, this.inKind, this.inEdge, this.edgeOrder]) n += a?.byteLength ?? 0;
    return n;
  }
}

/** A growable typed array. */
class Column<T extends Float64Array | Int32Array | Uint32Array | Uint16Array> {
  length = 0;
  constructor(private data: T, private readonly make: (n: number) => T) {}
  push(v: number): void {
    if (this.length === this.data.length) {
      const bigger = this.make(Math.max(1024, this.data.length * 2));
      bigger.set(this.data);
      this.data = bigger;
    }
    this.data[this.length++] = v;
  }
  get(i: number): number {
    return this.data[i];
  }
  /** The filled part (a copy sized exactly, so the spare capacity is released); the column is emptied. */
  finish(): T {
    const out = this.data.slice(0, this.length) as T;
    this.release();
    return out;
  }
  /**
   * The filled part as a view of the column's own buffer (no copy), for arrays only read while the
   * snapshot is built; the column is emptied.
   */
  take(): T {
    const out = this.data.subarray(0, this.length) as T;
    this.release();
    return out;
  }
  private release(): void {
    this.data = this.make(0);
    this.length = 0;
  }
}

const f64 = (n: number) => new Float64Array(n);
const i32 = (n: number) => new Int32Array(n);
const u32 = (n: number) => new Uint32Array(n);
const u16 = (n: number) => new Uint16Array(n);

/**
 * Collects nodes, then edges, each in ascending id order (neighbours are visited in edge-id order),
 * then builds.
 */
export class SnapshotBuilder {
  readonly kinds: KindTable;
  readonly lists: KindLists;
  private readonly envIndex = new Map<string, number>([['', 0]]);
  private readonly environments: string[] = [''];
  private readonly nodeIds = new Column(f64(1024), f64);
  private readonly nodeLists = new Column(u32(1024), u32);
  private readonly nodeEnvs = new Column(u32(1024), u32);
  private direct: Int32Array | null = null;
  private readonly eSrc = new Column(i32(1024), i32);
  private readonly eDst = new Column(i32(1024), i32);
  private readonly eKind = new Column(u16(1024), u16);
  private readonly eIds = new Column(f64(1024), f64);
  private lastNodeId = -Infinity;
  private nodesSealed = false;
  /** Edges skipped because an end is not among the nodes (a write between the two reads). */
  dangling = 0;

  constructor(kinds: KindTable, lists: KindLists) {
    this.kinds = kinds;
    this.lists = lists;
  }

  addNode(id: number, kindsJson: string, environment: string | null): void {
    this.addNodeWithList(id, this.lists.intern(kindsJson), environment);
  }

  /** A node whose kind list is already interned (copied from an older snapshot). */
  addNodeWithList(id: number, list: number, environment: string | null): void {
    if (this.nodesSealed) throw new Error('nodes after edges');
    if (!(id > this.lastNodeId)) throw new Error('nodes must be added in ascending id order');
    this.lastNodeId = id;
    this.nodeIds.push(id);
    this.nodeLists.push(list);
    let env = 0;
    if (environment) {
      env = this.envIndex.get(environment) ?? -1;
      if (env < 0) {
        env = this.environments.length;
        this.environments.push(environment);
        this.envIndex.set(environment, env);
      }
    }
    this.nodeEnvs.push(env);
  }

  /** Position (in the snapshot being built) of a node id, or -1; seals the nodes. */
  position(id: number): number {
    this.sealNodes();
    return this.lookup(id);
  }

  private sealNodes(): void {
    if (this.nodesSealed) return;
    this.nodesSealed = true;
    const n = this.nodeIds.length;
    const maxId = n ? this.nodeIds.get(n - 1) : 0;
    // A direct id → position table while it costs at most ~4 slots per node.
    if (maxId <= 4 * n + 4096 && maxId < 2 ** 31) {
      this.direct = new Int32Array(maxId + 1).fill(-1);
      for (let p = 0; p < n; p++) this.direct[this.nodeIds.get(p)] = p;
    }
  }

  private lookup(id: number): number {
    if (this.direct) return id >= 0 && id < this.direct.length ? this.direct[id] : -1;
    let lo = 0;
    let hi = this.nodeIds.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const v = this.nodeIds.get(mid);
      if (v === id) return mid;
      if (v < id) lo = mid + 1;
      else hi = mid - 1;
    }
    return -1;
  }

  addEdge(id: number, startId: number, endId: number, kind: string): void {
    this.sealNodes();
    this.addEdgeAt(id, this.lookup(startId), this.lookup(endId), this.kinds.intern(kind));
  }

  private lastEdgeId = -Infinity;

  /** An edge between positions of the snapshot being built (-1: an end is missing, the edge is skipped). */
  addEdgeAt(id: number, s: number, d: number, kind: number): void {
    this.sealNodes();
    if (s < 0 || d < 0) {
      this.dangling++;
      return;
    }
    if (!(id > this.lastEdgeId)) throw new Error('edges must be added in ascending id order');
    this.lastEdgeId = id;
    this.eSrc.push(s);
    this.eDst.push(d);
    this.eKind.push(kind);
    this.eIds.push(id);
  }

  build(): GraphSnapshot {
    this.sealNodes();
    const n = this.nodeIds.length;
    const m = this.eSrc.length;
    // Read only while building: views of the columns' buffers, not copies (at 1.3 M edges a copy
    // was 23 MB more at the build's peak).
    const src0 = this.eSrc.take();
    const dst0 = this.eDst.take();
    const kind0 = this.eKind.take();
    const ids0 = this.eIds.take();

    // Outbound CSR by a stable counting sort on the source position.
    const outStart = new Int32Array(n + 1);
    for (let i = 0; i < m; i++) outStart[src0[i] + 1]++;
    for (let p = 0; p < n; p++) outStart[p + 1] += outStart[p];
    const fill = outStart.slice(0, n);
    const edgeSrc = new Int32Array(m);
    const edgeDst = new Int32Array(m);
    const edgeKind = new Uint16Array(m);
    const edgeIds = new Float64Array(m);
    const slotOf = new Int32Array(m);
    for (let i = 0; i < m; i++) {
      const e = fill[src0[i]]++;
      edgeSrc[e] = src0[i];
      edgeDst[e] = dst0[i];
      edgeKind[e] = kind0[i];
      edgeIds[e] = ids0[i];
      slotOf[i] = e;
    }
    // Inbound CSR, in the same (added) order within each target.
    const inStart = new Int32Array(n + 1);
    for (let i = 0; i < m; i++) inStart[dst0[i] + 1]++;
    for (let p = 0; p < n; p++) inStart[p + 1] += inStart[p];
    const inFill = inStart.slice(0, n);
    const inSrc = new Int32Array(m);
    const inKind = new Uint16Array(m);
    const inEdge = new Int32Array(m);
    for (let i = 0; i < m; i++) {
      const j = inFill[dst0[i]]++;
      inSrc[j] = src0[i];
      inKind[j] = kind0[i];
      inEdge[j] = slotOf[i];
    }
    return new GraphSnapshot(
      this.kinds, this.lists, this.environments, n,
      this.nodeIds.finish(), this.nodeLists.finish(), this.nodeEnvs.finish(), this.direct,
      m, outStart, edgeSrc, edgeDst, edgeKind, edgeIds, inStart, inSrc, inKind, inEdge, slotOf,
    );
  }
}

/** Where an id stands among the first `length` of ascending ids (binary search), -1 when it is not there. */
export function positionIn(ids: ArrayLike<number>, id: number, length = ids.length): number {
  let lo = 0;
  let hi = length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const v = ids[mid];
    if (v === id) return mid;
    if (v < id) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}
