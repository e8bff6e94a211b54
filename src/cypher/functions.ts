/**
 * The functions Scent's Cypher knows: name (lower case, as Cypher function names are case-insensitive)
 * → [least, most] number of arguments. Aggregates are listed apart. The evaluator (eval-functions.ts)
 * implements exactly these.
 */
export const SCALAR_FUNCTIONS: Record<string, [number, number]> = {
  abs: [1, 1],
  ceil: [1, 1],
  coalesce: [1, Infinity],
  date: [0, 1],
  datetime: [0, 1],
  endnode: [1, 1],
  exists: [1, 1],
  floor: [1, 1],
  head: [1, 1],
  id: [1, 1],
  isempty: [1, 1],
  keys: [1, 1],
  labels: [1, 1],
  last: [1, 1],
  left: [2, 2],
  length: [1, 1],
  ltrim: [1, 1],
  nodes: [1, 1],
  properties: [1, 1],
  range: [2, 3],
  relationships: [1, 1],
  replace: [3, 3],
  reverse: [1, 1],
  right: [2, 2],
  round: [1, 1],
  rtrim: [1, 1],
  sign: [1, 1],
  size: [1, 1],
  split: [2, 2],
  sqrt: [1, 1],
  startnode: [1, 1],
  substring: [2, 3],
  tail: [1, 1],
  timestamp: [0, 0],
  toboolean: [1, 1],
  tofloat: [1, 1],
  tointeger: [1, 1],
  tolower: [1, 1],
  tostring: [1, 1],
  toupper: [1, 1],
  trim: [1, 1],
  type: [1, 1],
};

export const AGGREGATE_FUNCTIONS: Record<string, [number, number]> = {
  avg: [1, 1],
  collect: [1, 1],
  count: [1, 1],
  max: [1, 1],
  min: [1, 1],
  sum: [1, 1],
};

export function isAggregate(name: string): boolean {
  return Object.hasOwn(AGGREGATE_FUNCTIONS, name.toLowerCase());
}
