/**
 * BloodHound OpenGraph: {"metadata"?: {"source_kind"}, "graph": {"nodes": [...], "edges": [...]}}.
 * Validation as BloodHound documents it: node `id` (non-empty string), 1..3 `kinds`, flat
 * `properties` (primitives or arrays of primitives); edge `kind` ^[A-Za-z0-9_]+$, `start`/`end`
 * matched by id (default), name, or property matchers. Any invalid element fails the file.
 */
import { IngestError, type Sink } from './sink.ts';

const KIND = /^[A-Za-z0-9_]+$/;
type Obj = Record<string, unknown>;

export interface OpenGraphMatch {
  /** 'id': `value` is the objectid; 'name': `value` is the node name; 'property': all matchers equal. */
  by: 'id' | 'name' | 'property';
  value?: string;
  kind?: string;
  properties?: Array<[string, string | number | boolean]>;
}

const isPrimitive = (v: unknown) => typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean';

function flatProperties(raw: unknown, where: string): Record<string, unknown> {
  if (raw === undefined || raw === null) return {};
  if (typeof raw !== 'object' || Array.isArray(raw)) throw new IngestError(`${where}: properties must be an object`);
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(raw as Obj)) {
    if (v === null) continue;
    if (isPrimitive(v) || (Array.isArray(v) && v.every(isPrimitive))) out[k] = v;
    else throw new IngestError(`${where}: property ${k} must be a string, number, boolean or an array of them`);
  }
  return out;
}

export function convertOpenGraphNode(raw: unknown, index: number, sourceKind: string | null, sink: Sink): void {
  const where = `graph.nodes[${index}]`;
  const n = raw as Obj | null;
  if (!n || typeof n !== 'object' || Array.isArray(n)) throw new IngestError(`${where}: a node must be an object`);
  if (typeof n.id !== 'string' || n.id === '') throw new IngestError(`${where}: id must be a non-empty string`);
  if (!Array.isArray(n.kinds) || n.kinds.length < 1 || n.kinds.length > 3) throw new IngestError(`${where}: kinds must hold 1 to 3 kinds`);
  for (const k of n.kinds) if (typeof k !== 'string' || !KIND.test(k)) throw new IngestError(`${where}: invalid kind ${JSON.stringify(k)}`);
  const properties = flatProperties(n.properties, where);
  const kinds = sourceKind ? [...(n.kinds as string[]), sourceKind] : (n.kinds as string[]);
  sink.node({
    objectid: n.id,
    kinds,
    name: typeof properties.name === 'string' ? properties.name : null,
    environmentId: typeof properties.environmentid === 'string' ? properties.environmentid : null,
    properties: { ...properties, objectid: n.id },
    sourceKind,
  });
}

export function parseEndpoint(raw: unknown, where: string): OpenGraphMatch {
  const e = raw as Obj | null;
  if (!e || typeof e !== 'object' || Array.isArray(e)) throw new IngestError(`${where} must be an object`);
  const by = (e.match_by ?? 'id') as string;
  const kind = e.kind === undefined ? undefined : e.kind;
  if (kind !== undefined && (typeof kind !== 'string' || !KIND.test(kind))) throw new IngestError(`${where}.kind is invalid`);
  if (by === 'id' || by === 'name') {
    if (typeof e.value !== 'string' || e.value === '') throw new IngestError(`${where}.value must be a non-empty string`);
    return { by, value: e.value, kind };
  }
  if (by === 'property') {
    const matchers = e.property_matchers;
    if (!Array.isArray(matchers) || matchers.length === 0) throw new IngestError(`${where}.property_matchers must be a non-empty array`);
    const properties = matchers.map((m, i): [string, string | number | boolean] => {
      const pm = m as Obj;
      if (typeof pm?.key !== 'string' || pm.key === '' || !isPrimitive(pm.value) || (pm.operator ?? 'equals') !== 'equals') {
        throw new IngestError(`${where}.property_matchers[${i}] must be {key, operator: "equals", value}`);
      }
      return [pm.key, pm.value as string | number | boolean];
    });
    return { by, kind, properties };
  }
  throw new IngestError(`${where}.match_by must be id, name or property`);
}

export interface OpenGraphEdge {
  kind: string;
  start: OpenGraphMatch;
  end: OpenGraphMatch;
  properties: Record<string, unknown>;
}

export function parseOpenGraphEdge(raw: unknown, index: number): OpenGraphEdge {
  const where = `graph.edges[${index}]`;
  const e = raw as Obj | null;
  if (!e || typeof e !== 'object' || Array.isArray(e)) throw new IngestError(`${where}: an edge must be an object`);
  if (typeof e.kind !== 'string' || !KIND.test(e.kind)) throw new IngestError(`${where}: kind must match ^[A-Za-z0-9_]+$`);
  return {
    kind: e.kind,
    start: parseEndpoint(e.start, `${where}.start`),
    end: parseEndpoint(e.end, `${where}.end`),
    properties: flatProperties(e.properties, where),
  };
}
