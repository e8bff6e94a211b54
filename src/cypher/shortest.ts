import type { Edge } from '../graph/engine/index.ts';
import type { PatternPart } from './ast.ts';
import type { ExecContext } from './context.ts';
import type { Partial } from './match.ts';
import { nodeMatches, walkDirection } from './match.ts';
import { expandTypes } from './macros.ts';
import { NodeRef, RelRef } from './values.ts';

/**
 * `shortestPath` / `allShortestPaths` over a one-relationship pattern, on the graph engine. The far
 * end is a single node (a bound variable, or what WHERE narrows it to, e.g. an objectid): the
 * engine's bidirectional search gives the edges of every shortest path between the two
 * (view.shortestPaths), and the path(s) are read back along them. Otherwise its breadth-first levels
 * from the anchor end (view.shortestTree: the first edge into each node from the previous level, or
 * every such edge for all shortest paths), stopping once every candidate far end is reached; each
 * node reached that matches the far end's pattern yields its path(s).
 */
export interface StopEarly {
  /** Rows wanted (after `keep`): the search stops once it has them (LIMIT pushdown). */
  stopAfter: number;
  /** Applies what WHERE can test on a batch of rows, in order (those kept count). */
  keep: (rows: Partial[]) => Promise<Partial[]>;
}

/** Far ends turned into rows (and kept) this many at a time. */
const END_BATCH = 1024;

export async function shortestPaths(part: PatternPart, anchor: number, partials: Partial[], ctx: ExecContext, targets?: ReadonlySet<number>, early?: StopEarly): Promise<Partial[]> {
  const r = part.rels[0];
  const far = anchor === 0 ? 1 : 0;
  const farPattern = part.nodes[far];
  const hop = { direction: walkDirection(r, anchor === 0 ? 'right' : 'left'), kinds: r.types.length === 0 ? undefined : expandTypes(r.types), maxDepth: r.range ? r.range.max ?? Infinity : 1 };
  const all = part.shortest === 'all';
  const min = r.range?.min ?? 1;
  const out: Partial[] = [];
  let current: Partial | undefined;
  for (const p of partials) {
    current = p;
    const start = p.nodes[anchor]!;
    const boundFar = farPattern.variable && farPattern.variable in p.row ? (p.row[farPattern.variable] as NodeRef | null)?.id ?? null : undefined;
    if (boundFar === null) continue;
    const goals = boundFar !== undefined ? [boundFar] : targets ? [...targets] : undefined;
    const single = goals?.length === 1 && goals[0] !== start && hop.direction !== 'both';
    // When only the first rows are wanted and every node reached is a candidate far end, the levels are
    // searched to depth 1, 2, 4, …: a search to depth d gives the same first levels (nodes in the same
    // order, the same parents) as the whole search, so the rows of those levels come out before the
    // deeper levels are searched at all, and the search stops once the rows are there.
    const deepening = early !== undefined && !single && goals === undefined && hop.maxDepth > 1;
    let depth = deepening ? 1 : hop.maxDepth;
    let done = 0;
    let { reached, parents, work } = single ? between(start, goals![0], hop, all, ctx) : levels(start, { ...hop, maxDepth: depth }, all, goals, ctx);
    if (farPattern.props) await ctx.ensureRows([p.row]);
    for (;;) {
      const ends = min === 0 ? [start, ...reached] : reached;
      const wanted = goals && new Set(goals);
      const candidates = wanted ? ends.filter((n) => wanted.has(n)) : ends;
      const rows = await farEnds(candidates.slice(done), start, parents);
      if (rows === 'enough') return out;
      done = candidates.length;
      if (depth >= hop.maxDepth) break;
      const before = reached.length;
      depth = Math.min(hop.maxDepth, depth * 2);
      // A deeper search repeats the shallower one's work: only the levels it adds count against the cost guard.
      const charged = work;
      ({ reached, parents, work } = levels(start, { ...hop, maxDepth: depth }, all, goals, ctx, charged));
      // Nothing new at the deeper levels: the search was already complete.
      if (reached.length === before) break;
    }
    await ctx.breathe();
  }
  return out;

  /** Rows of far ends `candidates` (in order) through `parents`; 'enough' once a search stopping early has its rows. */
  async function farEnds(candidates: number[], start: number, parents: Parents): Promise<'enough' | 'more'> {
    const p = current!;
    // In batches of far ends, so that a search that needs only its first rows stops there.
    for (let at = 0; at < candidates.length; at += END_BATCH) {
      const batch = candidates.slice(at, at + END_BATCH);
      if (farPattern.props) await ctx.ensureNodes(batch);
      const rows: Partial[] = [];
      for (const end of batch) {
        if (end === start && min > 0) continue;
        if (!nodeMatches(farPattern, end, p.row, ctx)) continue;
        for (const chain of chains(end, start, parents, ctx)) {
          const rels = anchor === 0 ? chain.rels : [...chain.rels].reverse();
          const mids = anchor === 0 ? chain.nodes.slice(1, -1) : chain.nodes.slice(1, -1).reverse();
          const nodes = p.nodes.slice();
          nodes[far] = end;
          const row = { ...p.row };
          if (farPattern.variable) row[farPattern.variable] = new NodeRef(end);
          if (r.variable) row[r.variable] = rels;
          rows.push({ row, nodes, segs: [{ rels, mids }], used: new Set([...p.used, ...rels.map((x) => x.id)]) });
        }
        ctx.checkRows(out.length + rows.length);
      }
      out.push(...(early ? await early.keep(rows) : rows));
      if (early && out.length >= early.stopAfter) return 'enough';
    }
    return 'more';
  }
}

type Hop = { direction: 'outbound' | 'inbound' | 'both'; kinds?: string[]; maxDepth: number };

/** Breadth-first levels from `start` (until every goal is reached, when there are goals). */
function levels(start: number, hop: Hop, all: boolean, goals: number[] | undefined, ctx: ExecContext, charged = 0): { reached: number[]; parents: Parents; work: number } {
  const tree = ctx.view.shortestTree(start, hop, all, goals);
  ctx.charge(Math.max(0, tree.work - charged));
  return { reached: tree.reached, parents: tree.parents, work: tree.work };
}

/** The edges of every shortest path from `start` to `goal` in walk order (the first edge into each node only, unless all). */
function between(start: number, goal: number, hop: Hop, all: boolean, ctx: ExecContext): { reached: number[]; parents: Parents; work: number } {
  const outbound = hop.direction === 'outbound';
  const found = outbound ? ctx.view.shortestPaths([start], [goal], hop.kinds, hop.maxDepth) : ctx.view.shortestPaths([goal], [start], hop.kinds, hop.maxDepth);
  ctx.charge(1 + (found?.edges.length ?? 0));
  const into = new Map<number, Array<{ from: number; edge: Edge }>>();
  for (const edge of found?.edges ?? []) {
    const [from, to] = outbound ? [edge.start, edge.end] : [edge.end, edge.start];
    const list = into.get(to);
    if (!list) into.set(to, [{ from, edge }]);
    else if (all) list.push({ from, edge });
  }
  return { reached: found && found.length > 0 ? [goal] : [], parents: (id) => into.get(id) ?? [], work: 1 + (found?.edges.length ?? 0) };
}

type Parents = (id: number) => Array<{ from: number; edge: Edge }>;

/** The paths from `start` to `end` through the parent links (node list from start, relationships in walk order). */
function chains(end: number, start: number, parents: Parents, ctx: ExecContext): Array<{ nodes: number[]; rels: RelRef[] }> {
  if (end === start) return [{ nodes: [start], rels: [] }];
  const out: Array<{ nodes: number[]; rels: RelRef[] }> = [];
  for (const { from, edge } of parents(end)) {
    const rel = new RelRef(edge.id, edge.start, edge.end, edge.kind);
    for (const c of chains(from, start, parents, ctx)) {
      ctx.charge(1);
      out.push({ nodes: [...c.nodes, end], rels: [...c.rels, rel] });
    }
  }
  return out;
}
