import { unifiedEdge, unifiedNode, type UnifiedEdge, type UnifiedNode } from '../graph/answers/unified-graph.ts';
import { checkGraphLimit } from '../graph/answers/limits.ts';
import type { QueryResult } from './execute.ts';
import { DateTimeValue, isMap, NodeRef, PathValue, RelRef, type Value } from './values.ts';

/**
 * The Cypher route's answer: BloodHound's unified graph (src/graph/answers/unified-graph.ts, shared
 * with the path routes): every node, relationship and path in the result rows (also inside lists)
 * goes in; a relationship brings its two end nodes. Scalar columns become `literals` (BloodHound
 * 9.6's field); with properties, the sorted `node_keys` / `edge_keys`.
 */
export interface CypherAnswer {
  node_keys?: string[];
  edge_keys?: string[];
  nodes: Record<string, UnifiedNode>;
  edges: UnifiedEdge[];
  literals?: Array<{ key: string; value: unknown }>;
}

export async function cypherAnswer(result: QueryResult, includeProperties: boolean, limit = Infinity): Promise<CypherAnswer> {
  const { ctx } = result;
  const nodeIds = new Set<number>();
  const rels = new Map<number, RelRef>();
  const literals: Array<{ key: string; value: unknown }> = [];
  const collect = (v: Value): boolean => {
    if (v instanceof NodeRef) return nodeIds.add(v.id), true;
    if (v instanceof RelRef) {
      rels.set(v.id, v);
      nodeIds.add(v.start).add(v.end);
      return true;
    }
    if (v instanceof PathValue) {
      for (const n of v.nodes) nodeIds.add(n.id);
      for (const r of v.rels) rels.set(r.id, r);
      return true;
    }
    if (Array.isArray(v)) return v.map(collect).some(Boolean);
    return false;
  };
  // A column that holds graph elements contributes them (its nulls, e.g. from OPTIONAL MATCH, are dropped);
  // any other column contributes each row's value as a literal.
  const graphColumns = new Set<string>();
  for (const row of result.rows) for (const column of result.columns) if (collect(row[column] ?? null)) graphColumns.add(column);
  for (const row of result.rows) {
    for (const column of result.columns) {
      if (!graphColumns.has(column)) literals.push({ key: column, value: literalValue(row[column] ?? null) });
    }
  }
  // Over the bound: refused before any node or edge is read (the ids are what is counted).
  checkGraphLimit(nodeIds.size + rels.size + literals.length, limit);
  const view = await ctx.source.view();
  const nodeRecords = await view.nodes([...nodeIds].sort((a, b) => a - b), { properties: true });
  const edgeRecords = await view.edgeDetails([...rels.keys()]);
  const nodes: Record<string, UnifiedNode> = {};
  const nodeKeys = new Set<string>();
  for (const n of nodeRecords) {
    const node = (nodes[String(n.id)] = unifiedNode(n, includeProperties));
    if (includeProperties) for (const k of Object.keys(node.properties ?? {})) nodeKeys.add(k);
  }
  const edges: UnifiedEdge[] = [];
  const edgeKeys = new Set<string>();
  for (const e of edgeRecords) {
    edges.push(unifiedEdge(e, includeProperties));
    if (includeProperties) for (const k of Object.keys(e.properties)) edgeKeys.add(k);
  }
  const graph: CypherAnswer = includeProperties ? ({} as CypherAnswer) : { nodes, edges };
  if (includeProperties) {
    if (nodeKeys.size > 0) graph.node_keys = [...nodeKeys].sort();
    if (edgeKeys.size > 0) graph.edge_keys = [...edgeKeys].sort();
    graph.edges = edges;
    graph.nodes = nodes;
  }
  if (literals.length > 0) graph.literals = literals;
  return graph;
}

export function isEmptyAnswer(g: CypherAnswer): boolean {
  return Object.keys(g.nodes).length === 0 && g.edges.length === 0 && (g.literals?.length ?? 0) === 0;
}


/** A scalar result as JSON (date-times as RFC 3339, maps and lists element by element). */
function literalValue(v: Value): unknown {
  if (v instanceof DateTimeValue) return new Date(v.ms).toISOString();
  if (Array.isArray(v)) return v.map(literalValue);
  if (isMap(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, literalValue(x)]));
  if (v instanceof NodeRef || v instanceof RelRef || v instanceof PathValue) return null;
  return v;
}

