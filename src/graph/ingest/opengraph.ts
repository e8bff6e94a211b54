/**
 * BloodHound OpenGraph: {"metadata"?: {"source_kind"}, "graph": {"nodes": [...], "edges": [...]}}.
 * Validation as BloodHound documents it: node `id` (non-empty string), 1..3 kinds, flat
 * `properties` (primitives or arrays of primitives); edge `kind` ^[A-Za-z0-9_]+$, `start`/`end`
 * matched by id (default), name, or property matchers. Any invalid element fails the file.
 *
 * As BloodHound: ids (node ids and the values edge ends match by id or name) and the properties
 * `name`, `operatingsystem`, `distinguishedname` are upper-cased; a node whose `objectid` property
 * names another object is skipped with a warning.
 *
 * What the server derives is not read from the file (so `scent export` output reads back to the
 * same graph): `Tag_*` kinds and `system_tags` (tag membership comes from the tags' selectors),
 * `lastseen` / `lastcollected` (stamped at ingest). A node's source kind is `metadata.source_kind`,
 * else `Base` / `AZBase` when its kinds hold one (the AD and Azure sources); its environment is the
 * `environmentid` property, else its own id for a Domain, else `domainsid`, else `tenantid`.
 */
import { IngestError, type Sink } from './sink.ts';

const KIND = /^[A-Za-z0-9_]+$/;
type Obj = Record<string, unknown>;
/** Properties the server sets itself; values in a file are ignored. */
export const DERIVED_PROPERTIES = ['lastseen', 'lastcollected', 'system_tags'];
const isTagKind = (k: string) => k.startsWith('Tag_');
const UPPER = ['name', 'operatingsystem', 'distinguishedname'];

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
    if (v === null || DERIVED_PROPERTIES.includes(k)) continue;
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
  if (!Array.isArray(n.kinds)) throw new IngestError(`${where}: kinds must hold 1 to 3 kinds`);
  for (const k of n.kinds) if (typeof k !== 'string' || !KIND.test(k)) throw new IngestError(`${where}: invalid kind ${JSON.stringify(k)}`);
  const given = (n.kinds as string[]).filter((k) => !isTagKind(k));
  const kinds = [...new Set(sourceKind ? [...given, sourceKind] : given)];
  if (kinds.length < 1 || kinds.length > 3) throw new IngestError(`${where}: kinds must hold 1 to 3 kinds`);
  const properties = flatProperties(n.properties, where);
  const id = n.id.toUpperCase();
  if (typeof properties.objectid === 'string' && properties.objectid.toUpperCase() !== id) {
    sink.warn(`${where}: its objectid property ${JSON.stringify(properties.objectid)} is not its id ${JSON.stringify(n.id)}; node skipped`);
    return;
  }
  delete properties.objectid;
  for (const key of UPPER) if (typeof properties[key] === 'string') properties[key] = (properties[key] as string).toUpperCase();
  const source = sourceKind ?? (kinds.includes('Base') ? 'Base' : kinds.includes('AZBase') ? 'AZBase' : null);
  const text = (v: unknown) => (typeof v === 'string' && v !== '' ? v : null);
  sink.node({
    objectid: id,
    kinds,
    name: text(properties.name),
    environmentId: text(properties.environmentid) ?? (kinds.includes('Domain') ? id : null)
      ?? text(properties.domainsid)?.toUpperCase() ?? text(properties.tenantid)?.toUpperCase() ?? null,
    properties: { ...properties, objectid: id },
    sourceKind: source,
    ...(Object.keys(properties).length === 0 ? { bare: true } : {}),
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
    return { by, value: e.value.toUpperCase(), kind };
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
