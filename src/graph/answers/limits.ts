/** The configured bound on graph answers (`--graph-result-limit`, CONTRACT §8). */
import { ApiError } from '../../http/errors.ts';
import { GraphLimitError } from '../engine/index.ts';

export const graphLimitMessage = (limit: number) =>
  `the answer would exceed the graph result limit of ${limit} nodes and edges (--graph-result-limit); narrow the request or page through it`;

/** Throws the 400 when `size` (nodes + edges, or rows) is over the bound. */
export function checkGraphLimit(size: number, limit: number): void {
  if (size > limit) throw new ApiError(400, graphLimitMessage(limit));
}

/** GraphLimitError (thrown inside the engine) → the 400; anything else unchanged. */
export function asLimitError(err: unknown): unknown {
  return err instanceof GraphLimitError ? new ApiError(400, graphLimitMessage(err.limit)) : err;
}
