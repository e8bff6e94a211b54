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

export function placeholderValues(ref: EndpointRef, now: Micros): NodeValues {
  const kinds = ref.kinds?.length ? ref.kinds : ['Base'];
  return {
    objectid: ref.objectid,
    kind: kinds[0],
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
 * - a placeholder (or nothing) is replaced by the description;
 * - a described node keeps its properties and gains/overwrites the incoming ones; `name` and
 *   `environment_id` are replaced when the input has them;
 * - kinds: the same source kind replaces them (the collector is authoritative); another source
 *   adds its kinds after the existing ones, so the primary kind stays.
 */
export function mergeNode(current: NodeValues | undefined, input: NodeInput, now: Micros): NodeValues {
  const incomingKinds = dedupe(input.kinds);
  if (incomingKinds.length === 0) throw new Error(`node ${input.objectid} has no kind`);
  if (!current || current.is_placeholder) {
    return {
      objectid: input.objectid,
      kind: incomingKinds[0],
      kinds: JSON.stringify(incomingKinds),
      name: input.name ?? null,
      environment_id: input.environmentId ?? null,
      properties: input.properties ? JSON.stringify(input.properties) : input.propertiesJson ?? '{}',
      source_kind: input.sourceKind ?? null,
      is_placeholder: 0,
      last_seen: now,
    };
  }
  const props = input.properties ?? (input.propertiesJson ? (JSON.parse(input.propertiesJson) as Record<string, unknown>) : {});
  const sameSource = (input.sourceKind ?? null) === current.source_kind;
  const kinds = sameSource ? incomingKinds : dedupe([...parseKinds(current.kinds), ...incomingKinds]);
  const merged = Object.keys(props).length ? { ...(JSON.parse(current.properties) as object), ...props } : null;
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

export function parseKinds(text: string): string[] {
  return JSON.parse(text) as string[];
}

function dedupe(kinds: string[]): string[] {
  return [...new Set(kinds.filter((k) => typeof k === 'string' && k !== ''))];
}

/** Identity of an edge within a batch. */
export const edgeKey = (startId: number, kind: string, endId: number) => `${startId}\u0000${kind}\u0000${endId}`;
