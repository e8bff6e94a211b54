import type { EdgeInput, NodeInput } from '../merge.ts';

/** Where converters put what they read from one element. */
export interface Sink {
  node(node: NodeInput): void;
  edge(edge: EdgeInput): void;
}

export class IngestError extends Error {}

/** Object ids of AD and Azure objects are compared upper-case (SIDs and GUIDs). */
export const normId = (id: unknown): string | null =>
  typeof id === 'string' && id.trim() !== '' ? id.trim().toUpperCase() : null;

/** Collector properties without null values (they carry no information). */
export function cleanProperties(props: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (!props || typeof props !== 'object') return out;
  for (const [k, v] of Object.entries(props as Record<string, unknown>)) if (v !== null && v !== undefined) out[k] = v;
  return out;
}
