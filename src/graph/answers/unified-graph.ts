/**
 * BloodHound's unified graph (reference bloodhound-api-surface.md §2.2): `{nodes: {<id>: node},
 * edges: [edge]}`, what the shortest-path, edge-composition and Cypher routes answer.
 */
import { toRfc3339 } from '../../db/time.ts';
import type { EdgeRecord, NodeRecord } from '../engine/index.ts';

export interface UnifiedNode {
  label: string;
  kind: string;
  kinds: string[];
  objectId: string;
  isTierZero: boolean;
  isOwnedObject: boolean;
  lastSeen: string;
  properties?: Record<string, unknown>;
}

export interface UnifiedEdge {
  source: string;
  target: string;
  label: string;
  kind: string;
  lastSeen: string;
  properties?: Record<string, unknown>;
}

export interface UnifiedGraph {
  nodes: Record<string, UnifiedNode>;
  edges: UnifiedEdge[];
}

/** `lastseen` property when it is a time, else the row's last ingest. */
function lastSeen(props: Record<string, unknown> | undefined, micros: number): string {
  const v = props?.lastseen;
  return typeof v === 'string' && !Number.isNaN(Date.parse(v)) ? v : toRfc3339(micros);
}

export function unifiedNode(n: NodeRecord, withProperties: boolean): UnifiedNode {
  const p = n.properties ?? {};
  const objectId = typeof p.objectid === 'string' ? p.objectid : n.objectid;
  const name = typeof p.name === 'string' && p.name !== '' ? p.name : n.name;
  const out: UnifiedNode = {
    label: name || objectId,
    kind: typeof p.primarykind === 'string' && p.primarykind !== '' ? p.primarykind : n.primaryKind,
    kinds: n.kinds,
    objectId,
    isTierZero: n.isTierZero,
    isOwnedObject: n.isOwned,
    lastSeen: lastSeen(p, n.lastSeen),
  };
  // Every node has an objectid property, as in BloodHound's graph (where a placeholder node made by an
  // edge holds it too): clients such as bhcli read `properties` of every node they get.
  if (withProperties) out.properties = typeof p.objectid === 'string' ? p : { ...p, objectid: n.objectid };
  return out;
}

export function unifiedEdge(e: EdgeRecord, withProperties: boolean): UnifiedEdge {
  const out: UnifiedEdge = { source: String(e.start), target: String(e.end), label: e.kind, kind: e.kind, lastSeen: lastSeen(e.properties, e.lastSeen) };
  if (withProperties && Object.keys(e.properties).length) out.properties = e.properties;
  return out;
}

export function unifiedGraph(nodes: readonly NodeRecord[], edges: readonly EdgeRecord[], withProperties: boolean): UnifiedGraph {
  const out: UnifiedGraph = { nodes: {}, edges: [] };
  for (const n of nodes) out.nodes[String(n.id)] = unifiedNode(n, withProperties);
  for (const e of edges) out.edges.push(unifiedEdge(e, withProperties));
  return out;
}
