/**
 * Shapes of BloodHound's JavaScript client types (`js-client-library/src/types.ts`,
 * `responses.ts`), written as data, and a checker that an answer matches one: every field the type
 * names is present, with the right JSON kind (number vs string, ...) and nullability. Fields the
 * type does not name are allowed (TypeScript types are structural), unless `exact()` says otherwise.
 *
 *   string | number | integer | boolean | uuid | datetime | any | object     a leaf
 *   'string|null'                                                             nullable leaf
 *   '?string'                                                                 optional field
 *   [shape]                                                                   array of shape
 *   { field: shape, ... }                                                     object
 *   nullable({ ... }) / optional({ ... })                                     object that may be null / absent
 */
export type Leaf = string;
export type Shape = Leaf | Shape[] | { [key: string]: Shape } | Wrapped;
interface Wrapped {
  $wrapped: true;
  shape: Shape;
  nullable: boolean;
  optional: boolean;
  exact: boolean;
}

const wrap = (shape: Shape, o: Partial<Omit<Wrapped, '$wrapped' | 'shape'>>): Wrapped => {
  const base = isWrapped(shape) ? shape : { $wrapped: true as const, shape, nullable: false, optional: false, exact: false };
  return { ...base, ...o };
};
export const nullable = (shape: Shape): Wrapped => wrap(shape, { nullable: true });
export const optional = (shape: Shape): Wrapped => wrap(shape, { optional: true });
/** An object that may carry no field besides those named. */
export const exact = (shape: Shape): Wrapped => wrap(shape, { exact: true });

function isWrapped(s: Shape): s is Wrapped {
  return typeof s === 'object' && s !== null && !Array.isArray(s) && (s as Wrapped).$wrapped === true;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const DATETIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,9})?(Z|[+-]\d\d:\d\d)$/;

function leafProblem(kind: string, value: unknown): string | null {
  switch (kind) {
    case 'any':
      return null;
    case 'string':
      return typeof value === 'string' ? null : 'a string';
    case 'number':
      return typeof value === 'number' ? null : 'a number';
    case 'integer':
      return Number.isInteger(value) ? null : 'an integer';
    case 'boolean':
      return typeof value === 'boolean' ? null : 'a boolean';
    case 'uuid':
      return typeof value === 'string' && UUID.test(value) ? null : 'a UUID string';
    case 'datetime':
      return typeof value === 'string' && DATETIME.test(value) ? null : 'an RFC-3339 string';
    case 'object':
      return typeof value === 'object' && value !== null && !Array.isArray(value) ? null : 'an object';
    default:
      throw new Error(`unknown leaf kind ${kind}`);
  }
}

/** Every mismatch between `value` and `shape`, as "path: expected ..., got ..." lines. */
export function shapeProblems(value: unknown, shape: Shape, path = '$'): string[] {
  let nullableOk = false;
  let exactKeys = false;
  if (isWrapped(shape)) {
    nullableOk = shape.nullable;
    exactKeys = shape.exact;
    shape = shape.shape;
  }
  if (typeof shape === 'string') {
    const kinds = shape.replace(/^\?/, '').split('|');
    if (value === null) return kinds.includes('null') || nullableOk ? [] : [`${path}: expected ${kinds.join('|')}, got null`];
    const problems = kinds.filter((k) => k !== 'null').map((k) => leafProblem(k, value));
    return problems.some((p) => p === null) ? [] : [`${path}: expected ${problems.join(' or ')}, got ${JSON.stringify(value)?.slice(0, 80)}`];
  }
  if (value === null) return nullableOk ? [] : [`${path}: expected ${Array.isArray(shape) ? 'an array' : 'an object'}, got null`];
  if (Array.isArray(shape)) {
    if (!Array.isArray(value)) return [`${path}: expected an array, got ${JSON.stringify(value)?.slice(0, 80)}`];
    return value.flatMap((item, i) => shapeProblems(item, shape[0], `${path}[${i}]`));
  }
  if (typeof value !== 'object' || Array.isArray(value)) return [`${path}: expected an object, got ${JSON.stringify(value)?.slice(0, 80)}`];
  const record = value as Record<string, unknown>;
  const problems: string[] = [];
  for (const [key, fieldShape] of Object.entries(shape)) {
    const optionalField = (typeof fieldShape === 'string' && fieldShape.startsWith('?')) || (isWrapped(fieldShape) && fieldShape.optional);
    if (!(key in record)) {
      if (!optionalField) problems.push(`${path}.${key}: missing`);
      continue;
    }
    problems.push(...shapeProblems(record[key], fieldShape, `${path}.${key}`));
  }
  if (exactKeys) for (const key of Object.keys(record)) if (!(key in shape)) problems.push(`${path}.${key}: not in the type`);
  return problems;
}

/** Throws with every mismatch listed. */
export function assertShape(value: unknown, shape: Shape, label = 'answer'): void {
  const problems = shapeProblems(value, shape);
  if (problems.length) throw new Error(`${label} does not match the client type:\n  ${problems.join('\n  ')}`);
}
