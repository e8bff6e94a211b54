import type { PatternPart } from './ast.ts';
import type { ExecContext } from './context.ts';
import type { Partial } from './match.ts';
import { nodeMatches, walkDirection } from './match.ts';
import { expandTypes } from './macros.ts';
import { NodeRef, RelRef } from './values.ts';

/**
 * `shortestPath` / `allShortestPaths` over a one-relationship pattern: the graph engine's
 * breadth-first levels from the anchor end (view.shortestTree: the first edge into each node from
 * the previous level, or every such edge for all shortest paths). Each node reached that matches the
 * far end's pattern yields its path(s). When the far end is a bound variable the search stops as
 * soon as it is reached.
 */
export async function shortestPaths(part: PatternPart, anchor: number, partials: Partial[], ctx: ExecContext): Promise<Partial[]> {
  const r = part.rels[0];
  const far = anchor === 0 ? 1 : 0;
  const farPattern = part.nodes[far];
  const hop = { direction: walkDirection(r, anchor === 0 ? 'right' : 'left'), kinds: r.types.length === 0 ? undefined : expandTypes(r.types), maxDepth: r.range ? r.range.max ?? Infinity : 1 };
  const min = r.range?.min ?? 1;
  const out: Partial[] = [];
  for (const p of partials) {
    const start = p.nodes[anchor]!;
    const boundFar = farPattern.variable && farPattern.variable in p.row ? (p.row[farPattern.variable] as NodeRef | null)?.id ?? null : undefined;
    if (boundFar === null) continue;
    const tree = ctx.view.shortestTree(start, hop, part.shortest === 'all', boundFar);
    ctx.charge(tree.work);
    const reached = min === 0 ? [start, ...tree.reached] : tree.reached;
    const candidates = boundFar !== undefined ? reached.filter((n) => n === boundFar) : reached;
    if (farPattern.props) {
      await ctx.ensureNodes(candidates);
      await ctx.ensureRows([p.row]);
    }
    for (const end of candidates) {
      if (end === start && min > 0) continue;
      if (!nodeMatches(farPattern, end, p.row, ctx)) continue;
      for (const chain of chains(end, start, tree.parents, ctx)) {
        const rels = anchor === 0 ? chain.rels : [...chain.rels].reverse();
        const mids = anchor === 0 ? chain.nodes.slice(1, -1) : chain.nodes.slice(1, -1).reverse();
        const nodes = p.nodes.slice();
        nodes[far] = end;
        const row = { ...p.row };
        if (farPattern.variable) row[farPattern.variable] = new NodeRef(end);
        if (r.variable) row[r.variable] = rels;
        out.push({ row, nodes, segs: [{ rels, mids }], used: new Set([...p.used, ...rels.map((x) => x.id)]) });
      }
      ctx.checkRows(out.length);
    }
    await ctx.breathe();
  }
  return out;
}

type Parents = (id: number) => Array<{ from: number; edge: { id: number; start: number; end: number; kind: string } }>;

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
