/**
 * Runtime values of the Cypher engine: null, booleans, numbers, strings, lists (arrays), maps (plain
 * objects), and graph values: nodes, relationships and paths (by graph id; their details live in the
 * execution's graph cache), plus date-times. Equality, ordering and grouping keys follow Cypher.
 */
export class NodeRef {
  constructor(readonly id: number) {}
}

export class RelRef {
  constructor(readonly id: number, readonly start: number, readonly end: number, readonly type: string) {}
}

export class PathValue {
  /** nodes.length === rels.length + 1 */
  constructor(readonly nodes: NodeRef[], readonly rels: RelRef[]) {}
}

export class DateTimeValue {
  constructor(readonly ms: number) {}
}

export type Value = null | boolean | number | string | Value[] | { [key: string]: Value } | NodeRef | RelRef | PathValue | DateTimeValue;

export type Row = Record<string, Value>;

export function isMap(v: Value): v is { [key: string]: Value } {
  return v !== null && typeof v === 'object' && !Array.isArray(v) && v.constructor === Object;
}

/** Cypher equality: null when either side is null (or a list holds a null that decides it). */
export function equals(a: Value, b: Value): boolean | null {
  if (a === null || b === null) return null;
  if (typeof a === 'number' && typeof b === 'number') return a === b;
  if (typeof a !== typeof b) return false;
  if (typeof a !== 'object') return a === b;
  if (a instanceof NodeRef) return b instanceof NodeRef && a.id === b.id;
  if (a instanceof RelRef) return b instanceof RelRef && a.id === b.id;
  if (a instanceof DateTimeValue) return b instanceof DateTimeValue && a.ms === b.ms;
  if (a instanceof PathValue) return b instanceof PathValue && groupKey(a) === groupKey(b);
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    let unknown = false;
    for (let i = 0; i < a.length; i++) {
      const e = equals(a[i], b[i]);
      if (e === false) return false;
      if (e === null) unknown = true;
    }
    return unknown ? null : true;
  }
  if (isMap(a) && isMap(b)) {
    const ka = Object.keys(a);
    if (ka.length !== Object.keys(b).length) return false;
    let unknown = false;
    for (const k of ka) {
      if (!Object.hasOwn(b, k)) return false;
      const e = equals(a[k], b[k]);
      if (e === false) return false;
      if (e === null) unknown = true;
    }
    return unknown ? null : true;
  }
  return false;
}

/** `<`, `<=`, `>`, `>=`: numbers with numbers, strings with strings, booleans, date-times; otherwise null. */
export function compare(a: Value, b: Value): number | null {
  if (a === null || b === null) return null;
  if (typeof a === 'number' && typeof b === 'number') return Number.isNaN(a) || Number.isNaN(b) ? null : a - b;
  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === 'boolean' && typeof b === 'boolean') return Number(a) - Number(b);
  if (a instanceof DateTimeValue && b instanceof DateTimeValue) return a.ms - b.ms;
  return null;
}

const TYPE_ORDER = (v: Value): number => {
  if (isMap(v)) return 0;
  if (v instanceof NodeRef) return 1;
  if (v instanceof RelRef) return 2;
  if (Array.isArray(v)) return 3;
  if (v instanceof PathValue) return 4;
  if (v instanceof DateTimeValue) return 5;
  if (typeof v === 'string') return 6;
  if (typeof v === 'boolean') return 7;
  if (typeof v === 'number') return 8;
  return 9; // null sorts last ascending
};

/** The total order ORDER BY uses (Cypher's: maps, nodes, relationships, lists, paths, times, strings, booleans, numbers, null). */
export function orderCompare(a: Value, b: Value): number {
  const ta = TYPE_ORDER(a);
  const tb = TYPE_ORDER(b);
  if (ta !== tb) return ta - tb;
  if (a === null) return 0;
  if (Array.isArray(a) && Array.isArray(b)) {
    for (let i = 0; i < Math.min(a.length, b.length); i++) {
      const c = orderCompare(a[i], b[i]);
      if (c !== 0) return c;
    }
    return a.length - b.length;
  }
  if (a instanceof NodeRef && b instanceof NodeRef) return a.id - b.id;
  if (a instanceof RelRef && b instanceof RelRef) return a.id - b.id;
  const c = compare(a, b);
  if (c !== null) return c;
  const ka = groupKey(a);
  const kb = groupKey(b);
  return ka < kb ? -1 : ka > kb ? 1 : 0;
}

/** A string equal for values Cypher groups together (DISTINCT, grouping keys, UNION). */
export function groupKey(v: Value): string {
  if (v === null) return 'N';
  switch (typeof v) {
    case 'boolean': return v ? 'T' : 'F';
    case 'number': return `#${v}`;
    case 'string': return `s${JSON.stringify(v)}`;
  }
  if (v instanceof NodeRef) return `n${v.id}`;
  if (v instanceof RelRef) return `r${v.id}`;
  if (v instanceof DateTimeValue) return `d${v.ms}`;
  if (v instanceof PathValue) return `p${v.nodes.map((n) => n.id).join(',')}|${v.rels.map((r) => r.id).join(',')}`;
  if (Array.isArray(v)) return `[${v.map(groupKey).join(',')}]`;
  return `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${groupKey(v[k])}`).join(',')}}`;
}

/** Converts a stored JSON property value (any JSON) into a Value. */
export function fromJson(v: unknown): Value {
  if (v === undefined) return null;
  return v as Value;
}
