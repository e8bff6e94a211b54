/**
 * One graph model for the canvas, from either of BloodHound's graph shapes: the flat graph map
 * (node entries by id, `rel_<id>` edge entries) or the unified graph (`nodes` by id, `edges` list).
 */
import type { FlatGraph, FlatGraphEdge, FlatGraphNode, UnifiedGraph } from 'scent/client';

export interface ModelNode { id: string; label: string; kind: string; objectId: string; isTierZero: boolean; color?: string; props: Record<string, unknown> }
export interface ModelEdge { id: string; source: string; target: string; kind: string }
export interface GraphModel { nodes: ModelNode[]; edges: ModelEdge[] }

const isUnified = (g: FlatGraph | UnifiedGraph): g is UnifiedGraph =>
  typeof (g as UnifiedGraph).nodes === 'object' && Array.isArray((g as UnifiedGraph).edges);

export function toModel(g: FlatGraph | UnifiedGraph): GraphModel {
  if (isUnified(g)) {
    return {
      nodes: Object.entries(g.nodes).map(([id, n]) => ({
        id, label: n.label || n.objectId || id, kind: n.kind, objectId: n.objectId, isTierZero: !!n.isTierZero,
        props: { ...n.properties, kinds: n.kinds, objectid: n.objectId },
      })),
      edges: g.edges.map((e, i) => ({ id: `e${i}`, source: e.source, target: e.target, kind: e.kind || e.label })),
    };
  }
  const nodes: ModelNode[] = [];
  const edges: ModelEdge[] = [];
  for (const [key, v] of Object.entries(g)) {
    if (key.startsWith('rel_') && 'id1' in v) {
      const e = v as FlatGraphEdge;
      edges.push({ id: key, source: e.id1, target: e.id2, kind: e.label?.text ?? '' });
    } else {
      const n = v as FlatGraphNode;
      const data = n.data ?? {};
      nodes.push({
        id: key, label: n.label?.text ?? String(data.objectid ?? key), kind: String(data.nodetype ?? 'Unknown'),
        objectId: String(data.objectid ?? ''), isTierZero: !!data.isTierZero, color: n.color, props: data,
      });
    }
  }
  return { nodes, edges };
}

/** Colours by kind (BloodHound's palette for the common AD kinds). */
export const KIND_COLOURS: Record<string, string> = {
  User: '#17E625', Group: '#DBE617', Computer: '#E67873', Domain: '#17E6B9', OU: '#FFAA00', GPO: '#998EFD', Container: '#F79A78',
  AIACA: '#9769F0', RootCA: '#6968E8', EnterpriseCA: '#4696E9', NTAuthStore: '#D575F5', CertTemplate: '#B153F3', IssuancePolicy: '#99B2DD',
};
