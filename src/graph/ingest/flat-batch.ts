/**
 * The batch format between the parse worker and the writer: nodes with their properties already
 * serialised, and edges flattened to 6 strings each (start objectid, start kinds JSON, end objectid,
 * end kinds JSON, kind, properties JSON), which cross threads far cheaper than objects. An end that
 * names no kinds has '' for its kinds.
 */
import { edgePropertiesJson, type EdgeInput, type NodeInput } from '../merge.ts';

export const EDGE_FIELDS = 6;

export interface FlatBatch {
  nodes: NodeInput[];
  edges: string[];
}

const kindsJsonCache = new Map<readonly string[], string>();
const kindsJson = (kinds: string[] | undefined): string => {
  if (!kinds) return '';
  let s = kindsJsonCache.get(kinds);
  if (s === undefined) {
    s = JSON.stringify(kinds);
    if (Object.isFrozen(kinds) && kindsJsonCache.size < 1000) kindsJsonCache.set(kinds, s);
  }
  return s;
};

export function toFlat(nodes: NodeInput[], edges: EdgeInput[]): FlatBatch {
  const flat: string[] = new Array(edges.length * EDGE_FIELDS);
  let i = 0;
  for (const e of edges) {
    flat[i++] = e.start.objectid;
    flat[i++] = kindsJson(e.start.kinds);
    flat[i++] = e.end.objectid;
    flat[i++] = kindsJson(e.end.kinds);
    flat[i++] = e.kind;
    flat[i++] = edgePropertiesJson(e);
  }
  return {
    nodes: nodes.map((n) => ({
      objectid: n.objectid, kinds: n.kinds, name: n.name ?? null, environmentId: n.environmentId ?? null,
      propertiesJson: n.properties ? JSON.stringify(n.properties) : n.propertiesJson ?? '{}', sourceKind: n.sourceKind ?? null,
      ...(n.bare ? { bare: true } : {}),
      ...(n.clear?.length ? { clear: n.clear } : {}),
    })),
    edges: flat,
  };
}

export function fromFlat(batch: FlatBatch): { nodes: NodeInput[]; edges: EdgeInput[] } {
  const edges: EdgeInput[] = [];
  const f = batch.edges;
  for (let i = 0; i < f.length; i += EDGE_FIELDS) {
    edges.push({
      start: { objectid: f[i], kinds: f[i + 1] ? (JSON.parse(f[i + 1]) as string[]) : undefined },
      end: { objectid: f[i + 2], kinds: f[i + 3] ? (JSON.parse(f[i + 3]) as string[]) : undefined },
      kind: f[i + 4],
      propertiesJson: f[i + 5],
    });
  }
  return { nodes: batch.nodes, edges };
}
