import type { EdgeInput, NodeInput } from '../merge.ts';

/** Where converters put what they read from one element. */
export interface Sink {
  node(node: NodeInput): void;
  edge(edge: EdgeInput): void;
  /** Something read but not taken (reported in the file's result, with its text). */
  warn(text: string): void;
}

export class IngestError extends Error {}

/** Object ids of AD and Azure objects are compared upper-case (SIDs and GUIDs). */
export const normId = (id: unknown): string | null =>
  typeof id === 'string' && id.trim() !== '' ? id.trim().toUpperCase() : null;

/** Collector properties without null values; the keys of those go to `nulls` when given (they clear stored values). */
export function cleanProperties(props: unknown, nulls?: string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (!props || typeof props !== 'object') return out;
  for (const [k, v] of Object.entries(props as Record<string, unknown>)) {
    if (v !== null && v !== undefined) out[k] = v;
    else if (v === null && nulls) nulls.push(k);
  }
  return out;
}
