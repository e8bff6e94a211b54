/**
 * One graph model for the canvas, from either of BloodHound's graph shapes: the flat graph map
 * (node entries by id, `rel_<id>` edge entries) or the unified graph (`nodes` by id, `edges` list).
 */
import type { FlatGraph, FlatGraphEdge, FlatGraphNode, UnifiedGraph } from 'scent/client';

export interface ModelNode {
  /** The object id (or the answer's key for a node without one). */
  id: string; label: string; kind: string; kinds: string[]; objectId: string; isTierZero: boolean; color?: string; props: Record<string, unknown> }
export interface ModelEdge { id: string; source: string; target: string; kind: string }
export interface GraphModel { nodes: ModelNode[]; edges: ModelEdge[] }

const isUnified = (g: FlatGraph | UnifiedGraph): g is UnifiedGraph =>
  typeof (g as UnifiedGraph).nodes === 'object' && Array.isArray((g as UnifiedGraph).edges);

/**
 * Nodes are known by object id where they have one (answers key nodes differently: by node id, or
 * by object id), so that the answers of several requests merge into one drawing.
 */
export function toModel(g: FlatGraph | UnifiedGraph): GraphModel {
  const { nodes, edges } = read(g);
  const ids = new Map(nodes.map((n) => [n.id, n.objectId || n.id]));
  const id = (key: string) => ids.get(key) ?? key;
  const linked = edges.map((e) => ({ id: edgeId(id(e.source), e.kind, id(e.target)), source: id(e.source), target: id(e.target), kind: e.kind }));
  return {
    nodes: [...new Map(nodes.map((n) => [id(n.id), { ...n, id: id(n.id) }])).values()],
    edges: [...new Map(linked.map((e) => [e.id, e])).values()],
  };
}

function read(g: FlatGraph | UnifiedGraph): GraphModel {
  if (isUnified(g)) {
    return {
      nodes: Object.entries(g.nodes).map(([id, n]) => ({
        id, label: n.label || n.objectId || id, kind: n.kind, kinds: n.kinds ?? [], objectId: n.objectId, isTierZero: !!n.isTierZero,
        props: { ...n.properties, kinds: n.kinds, objectid: n.objectId },
      })),
      edges: g.edges.map((e) => ({ id: edgeId(e.source, e.kind || e.label, e.target), source: e.source, target: e.target, kind: e.kind || e.label })),
    };
  }
  const nodes: ModelNode[] = [];
  const edges: ModelEdge[] = [];
  for (const [key, v] of Object.entries(g)) {
    if (key.startsWith('rel_') && 'id1' in v) {
      const e = v as FlatGraphEdge;
      edges.push({ id: edgeId(e.id1, e.label?.text ?? '', e.id2), source: e.id1, target: e.id2, kind: e.label?.text ?? '' });
    } else {
      const n = v as FlatGraphNode;
      const data = n.data ?? {};
      nodes.push({
        id: key, label: n.label?.text ?? String(data.objectid ?? key), kind: String(data.nodetype ?? 'Unknown'), kinds: Array.isArray(data.kinds) ? data.kinds.map(String) : [],
        objectId: String(data.objectid ?? ''), isTierZero: !!data.isTierZero, color: n.color, props: data,
      });
    }
  }
  return { nodes, edges };
}

/** An edge's identity in every answer: its ends and kind (node ids are the server's, the same in every graph answer). */
const edgeId = (source: string, kind: string, target: string) => `${source}>${kind}>${target}`;

/** The model with another answer's nodes and edges added (each once): how a node is expanded on the canvas. */
export function merge(base: GraphModel, more: GraphModel): { model: GraphModel; added: number } {
  const nodeIds = new Set(base.nodes.map((n) => n.id));
  const edgeIds = new Set(base.edges.map((e) => e.id));
  const nodes = more.nodes.filter((n) => !nodeIds.has(n.id));
  const edges = more.edges.filter((e) => !edgeIds.has(e.id));
  return { model: { nodes: [...base.nodes, ...nodes], edges: [...base.edges, ...edges] }, added: nodes.length };
}

/** Colours by kind (BloodHound's palette for the common AD kinds). */
export const KIND_COLOURS: Record<string, string> = {
  User: '#17E625', Group: '#DBE617', Computer: '#E67873', Domain: '#17E6B9', OU: '#FFAA00', GPO: '#998EFD', Container: '#F79A78',
  AIACA: '#9769F0', RootCA: '#6968E8', EnterpriseCA: '#4696E9', NTAuthStore: '#D575F5', CertTemplate: '#B153F3', IssuancePolicy: '#99B2DD',
};
