/**
 * How an incoming node description merges into what the store already holds. Pure functions, shared
 * by every write path (the Kysely repository and the bulk writers), so they cannot disagree.
 */
import type { Selectable } from 'kysely';
import type { NodeTable } from './graph.tables.ts';
import type { Micros } from '../db/time.ts';

/** A node as a parser describes it. */
export interface NodeInput {
  objectid: string;
  /** Primary kind first, never empty, e.g. ['User', 'Base']. */
  kinds: string[];
  name?: string | null;
  environmentId?: string | null;
  properties?: Record<string, unknown>;
  /** `properties` already serialised (the parse worker sends this); used when `properties` is absent. */
  propertiesJson?: string;
  /** 'Base' (AD), 'AZBase' (Azure) or an OpenGraph source kind. */
  sourceKind?: string | null;
  /** Properties the collector reported as null: a stored value of theirs is removed (as BloodHound does). */
  clear?: string[];
  /**
   * The input names the node and its kinds but describes nothing (an OpenGraph node with no
   * property but its id, e.g. an exported placeholder): it stays or becomes a placeholder, and over
   * a stored node only its kinds merge.
   */
  bare?: boolean;
}

/** One end of an edge: the object id, and the kinds to give a placeholder if the object is unseen. */
export interface EndpointRef {
  objectid: string;
  kinds?: string[];
}

export interface EdgeInput {
  start: EndpointRef;
  end: EndpointRef;
  kind: string;
  properties?: Record<string, unknown>;
  /** `properties` already serialised (hot paths reuse one string); wins over `properties`. */
  propertiesJson?: string;
}

export const edgePropertiesJson = (e: EdgeInput): string =>
  e.propertiesJson ?? (e.properties ? JSON.stringify(e.properties) : '{}');

/** The columns of a node row that merging reads and writes (everything but id). */
export type NodeValues = Omit<Selectable<NodeTable>, 'id'>;

export interface StoredNode extends NodeValues {
  id: number;
}

/** A node only edges have named: the kinds the edge gave it (none when it gave none). */
export function placeholderValues(ref: EndpointRef, now: Micros): NodeValues {
  const kinds = ref.kinds ? dedupe(ref.kinds) : [];
  return {
    objectid: ref.objectid,
    kind: kinds[0] ?? '',
    kinds: JSON.stringify(kinds),
    name: null,
    environment_id: null,
    properties: '{}',
    source_kind: null,
    is_placeholder: 1,
    last_seen: now,
  };
}

/**
 * The row after `input` is applied to `current` (undefined = not stored yet):
 * - a placeholder (or nothing) takes the description's properties, name and environment;
 * - a described node keeps its properties and gains/overwrites the incoming ones; `name` and
 *   `environment_id` are replaced when the input has them;
 * - kinds only accumulate, as in BloodHound: the node keeps every kind it was ever given (by a
 *   description or as an edge end). The description's primary kind comes first when it is from the
 *   node's own source (or the node was a placeholder); another source's kinds go after the existing
 *   ones, so the primary kind stays.
 */
export function mergeNode(current: NodeValues | undefined, input: NodeInput, now: Micros): NodeValues {
  const incomingKinds = dedupe(input.kinds);
  if (incomingKinds.length === 0 && !input.bare) throw new Error(`node ${input.objectid} has no kind`);
  if (input.bare) return mergeBare(current, input, incomingKinds, now);
  const kinds = current ? accumulate(current, input, incomingKinds) : incomingKinds;
  if (!current || current.is_placeholder) {
    return {
      objectid: input.objectid,
      kind: kinds[0],
      kinds: JSON.stringify(kinds),
      name: input.name ?? null,
      environment_id: input.environmentId ?? null,
      properties: input.properties ? JSON.stringify(input.properties) : input.propertiesJson ?? '{}',
      source_kind: input.sourceKind ?? null,
      is_placeholder: 0,
      last_seen: now,
    };
  }
  const props = input.properties ?? (input.propertiesJson ? (JSON.parse(input.propertiesJson) as Record<string, unknown>) : {});
  let merged: Record<string, unknown> | null = Object.keys(props).length ? { ...(JSON.parse(current.properties) as object), ...props } : null;
  if (input.clear?.length) {
    merged ??= JSON.parse(current.properties) as Record<string, unknown>;
    for (const key of input.clear) if (!(key in props)) delete merged[key];
  }
  return {
    objectid: current.objectid,
    kind: kinds[0],
    kinds: JSON.stringify(kinds),
    name: input.name ?? current.name,
    environment_id: input.environmentId ?? current.environment_id,
    properties: merged ? JSON.stringify(merged) : current.properties,
    source_kind: current.source_kind ?? input.sourceKind ?? null,
    is_placeholder: 0,
    last_seen: now,
  };
}

function accumulate(current: NodeValues, input: NodeInput, incomingKinds: string[]): string[] {
  const stored = parseKinds(current.kinds);
  const own = current.is_placeholder || current.source_kind === null || (input.sourceKind ?? null) === current.source_kind;
  return own ? dedupe([...incomingKinds, ...stored]) : dedupe([...stored, ...incomingKinds]);
}

/** A bare input (kinds, no properties): a new placeholder, or kinds added to the stored node. */
function mergeBare(current: NodeValues | undefined, input: NodeInput, incomingKinds: string[], now: Micros): NodeValues {
  if (!current) return placeholderValues({ objectid: input.objectid, kinds: incomingKinds }, now);
  const kinds = accumulate(current, input, incomingKinds);
  return { ...current, kind: kinds[0] ?? '', kinds: JSON.stringify(kinds), last_seen: now };
}

/** The stored kinds with `add` appended where missing; null when nothing is missing. */
export function withKinds(stored: string[], add: readonly string[]): string[] | null {
  const missing = add.filter((k) => !stored.includes(k));
  return missing.length ? [...stored, ...missing] : null;
}

export function parseKinds(text: string): string[] {
  return JSON.parse(text) as string[];
}

function dedupe(kinds: string[]): string[] {
  return [...new Set(kinds.filter((k) => typeof k === 'string' && k !== ''))];
}

/** Identity of an edge within a batch. */
export const edgeKey = (startId: number, kind: string, endId: number) => `${startId}\u0000${kind}\u0000${endId}`;
