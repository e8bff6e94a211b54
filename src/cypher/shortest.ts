import type { PatternPart } from './ast.ts';
import type { ExecContext } from './context.ts';
import type { Partial } from './match.ts';
import { nodeMatches } from './match.ts';
import { expandTypes } from './macros.ts';
import { NodeRef, RelRef } from './values.ts';

/**
 * `shortestPath` / `allShortestPaths` over a one-relationship pattern: a breadth-first search from
 * the anchor end, level by level (one expansion statement per level), keeping the first parent of
 * each node (shortest) or every parent on the previous level (all). Each node reached that matches
 * the far end's pattern yields its path(s). When the far end is a bound variable the search stops
 * as soon as it is reached.
 */
export async function shortestPaths(part: PatternPart, anchor: number, partials: Partial[], ctx: ExecContext): Promise<Partial[]> {
  const r = part.rels[0];
  const far = anchor === 0 ? 1 : 0;
  const farPattern = part.nodes[far];
  const walk: 'out' | 'in' | 'both' = r.direction === 'both' ? 'both' : anchor === 0 ? r.direction : r.direction === 'out' ? 'in' : 'out';
  const kinds = r.types.length === 0 ? null : expandTypes(r.types);
  const min = r.range?.min ?? 1;
  const max = r.range ? r.range.max ?? Infinity : 1;
  const out: Partial[] = [];
  for (const p of partials) {
    const start = p.nodes[anchor]!;
    const boundFar = farPattern.variable && farPattern.variable in p.row ? (p.row[farPattern.variable] as NodeRef | null)?.id ?? null : undefined;
    if (boundFar === null) continue;
    const parents = new Map<number, Array<{ from: number; rel: RelRef }>>([[start, []]]);
    const reached: number[] = min === 0 ? [start] : [];
    let frontier = [start];
    for (let depth = 1; depth <= max && frontier.length > 0; depth++) {
      const edges = [
        ...(walk !== 'in' ? await ctx.source.expand(frontier, 'out', kinds) : []),
        ...(walk !== 'out' ? (await ctx.source.expand(frontier, 'in', kinds)).map((e) => ({ ...e, flipped: true })) : []),
      ] as Array<{ id: number; start: number; end: number; kind: string; flipped?: boolean }>;
      ctx.charge(edges.length);
      const levelParents = new Map<number, Array<{ from: number; rel: RelRef }>>();
      for (const e of edges) {
        const from = e.flipped ? e.end : e.start;
        const to = e.flipped ? e.start : e.end;
        if (parents.has(to)) continue;
        let list = levelParents.get(to);
        if (!list) levelParents.set(to, (list = []));
        if (part.shortest === 'shortest' && list.length > 0) continue;
        list.push({ from, rel: new RelRef(e.id, e.start, e.end, e.kind) });
      }
      frontier = [];
      for (const [node, list] of levelParents) {
        parents.set(node, list);
        frontier.push(node);
        reached.push(node);
      }
      if (boundFar !== undefined && parents.has(boundFar)) break;
      await ctx.breathe();
    }
    const candidates = boundFar !== undefined ? reached.filter((n) => n === boundFar) : reached;
    if (farPattern.props) {
      await ctx.ensureNodes(candidates);
      await ctx.ensureRows([p.row]);
    }
    for (const end of candidates) {
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
        out.push({ row, nodes, segs: [{ rels, mids }], used: new Set([...p.used, ...rels.map((x) => x.id)]) });
      }
      ctx.checkRows(out.length);
    }
  }
  return out;
}

/** The paths from `start` to `end` through the parent links (node list from start, relationships in walk order). */
function chains(end: number, start: number, parents: Map<number, Array<{ from: number; rel: RelRef }>>, ctx: ExecContext): Array<{ nodes: number[]; rels: RelRef[] }> {
  if (end === start) return [{ nodes: [start], rels: [] }];
  const out: Array<{ nodes: number[]; rels: RelRef[] }> = [];
  for (const { from, rel } of parents.get(end) ?? []) {
    for (const c of chains(from, start, parents, ctx)) {
      ctx.charge(1);
      out.push({ nodes: [...c.nodes, end], rels: [...c.rels, rel] });
    }
  }
  return out;
}
