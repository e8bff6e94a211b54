import type { Expr, LabelExpr } from './ast.ts';
import { NEEDS_DETAILS, type ExecContext } from './context.ts';
import { tailAtPosition, tailHash, valueAtPosition } from './property-columns.ts';
import { callFunction } from './eval-functions.ts';
import { compare, DateTimeValue, equals, isMap, NodeRef, PathValue, RelRef, type Row, type Value } from './values.ts';

/** Values of aggregate calls in a projection item, computed per group by the projection. */
export type Aggregates = Map<Expr, Value>;

/**
 * Evaluates an expression over a row (three-valued logic, Cypher's null rules). Every node in the
 * row is loaded in the context; pattern expressions were precomputed into the row by the executor.
 */
export function evaluate(e: Expr, row: Row, ctx: ExecContext, aggregates?: Aggregates): Value {
  // (No closure per call: a named arrow costs a defineProperty per evaluation under tsx's keepNames.)
  switch (e.t) {
    case 'lit':
      return e.value;
    case 'param':
      return ctx.fail(e.at, 'user-specified parameters are not supported');
    case 'var':
      return row[e.name] ?? null;
    case 'prop':
      return property(evaluate(e.target, row, ctx, aggregates), e.key, e, ctx);
    case 'index':
      return index(evaluate(e.target, row, ctx, aggregates), evaluate(e.index, row, ctx, aggregates), e, ctx);
    case 'slice':
      return slice(evaluate(e.target, row, ctx, aggregates), e.from ? evaluate(e.from, row, ctx, aggregates) : null, e.to ? evaluate(e.to, row, ctx, aggregates) : null, e, ctx);
    case 'haslabels': {
      const target = evaluate(e.target, row, ctx, aggregates);
      if (target === null) return null;
      if (target instanceof NodeRef) return labelsMatch(e.labels, (l) => ctx.hasLabel(target.id, l));
      if (target instanceof RelRef) return labelsMatch(e.labels, (l) => target.type === l);
      return ctx.fail(e.at, 'type mismatch: a label test needs a node or a relationship');
    }
    case 'list':
      return e.items.map((x) => evaluate(x, row, ctx, aggregates));
    case 'map': {
      const out: Record<string, Value> = {};
      for (const [k, x] of e.entries) out[k] = evaluate(x, row, ctx, aggregates);
      return out;
    }
    case 'not': {
      const v = truth(evaluate(e.arg, row, ctx, aggregates), e.arg, ctx);
      return v === null ? null : !v;
    }
    case 'and': {
      let unknown = false;
      for (const x of e.args) {
        const v = truth(evaluate(x, row, ctx, aggregates), x, ctx);
        if (v === false) return false;
        if (v === null) unknown = true;
      }
      return unknown ? null : true;
    }
    case 'or': {
      let unknown = false;
      for (const x of e.args) {
        const v = truth(evaluate(x, row, ctx, aggregates), x, ctx);
        if (v === true) return true;
        if (v === null) unknown = true;
      }
      return unknown ? null : false;
    }
    case 'xor': {
      let acc: boolean | null = false;
      for (const x of e.args) {
        const v = truth(evaluate(x, row, ctx, aggregates), x, ctx);
        if (v === null || acc === null) acc = null;
        else acc = acc !== v;
      }
      return acc;
    }
    case 'cmp': {
      let result: boolean | null = true;
      let left = evaluate(e.args[0], row, ctx, aggregates);
      for (let i = 0; i < e.ops.length; i++) {
        const right = evaluate(e.args[i + 1], row, ctx, aggregates);
        const r = compareOp(e.ops[i], left, right);
        if (r === false) return false;
        if (r === null) result = null;
        left = right;
      }
      return result;
    }
    case 'bin':
      return arithmetic(e.op, evaluate(e.left, row, ctx, aggregates), evaluate(e.right, row, ctx, aggregates), e, ctx);
    case 'neg': {
      const v = evaluate(e.arg, row, ctx, aggregates);
      if (v === null) return null;
      if (typeof v !== 'number') return ctx.fail(e.at, 'type mismatch: unary minus needs a number');
      return -v;
    }
    case 'strop':
      if (ctx.probing && ctx.objectidTails !== null && (e.op === 'ENDS WITH' || e.op === '=~')) {
        const decided = byObjectidTail(e, row, ctx);
        if (decided !== undefined) return decided;
      }
      return stringOp(e.op, evaluate(e.left, row, ctx, aggregates), evaluate(e.right, row, ctx, aggregates), e, ctx);
    case 'isnull': {
      const isNull = evaluate(e.arg, row, ctx, aggregates) === null;
      return e.negated ? !isNull : isNull;
    }
    case 'call': case 'countstar': {
      if (aggregates?.has(e)) return aggregates.get(e)!;
      if (e.t === 'countstar') return ctx.fail(e.at, 'aggregation (count(*)) is not allowed here');
      return callFunction(e, e.args.map((x) => evaluate(x, row, ctx, aggregates)), ctx);
    }
    case 'case': {
      if (e.subject) {
        const subject = evaluate(e.subject, row, ctx, aggregates);
        for (const [w, then] of e.whens) if (equals(subject, evaluate(w, row, ctx, aggregates)) === true) return evaluate(then, row, ctx, aggregates);
      } else {
        for (const [w, then] of e.whens) if (truth(evaluate(w, row, ctx, aggregates), w, ctx) === true) return evaluate(then, row, ctx, aggregates);
      }
      return e.otherwise ? evaluate(e.otherwise, row, ctx, aggregates) : null;
    }
    case 'quant': {
      const list = evaluate(e.list, row, ctx, aggregates);
      if (list === null) return null;
      if (!Array.isArray(list)) return ctx.fail(e.list.at, 'type mismatch: a quantifier needs a list');
      let matches = 0;
      let unknown = false;
      for (const item of list) {
        ctx.charge(1);
        const v = e.where ? truth(evaluate(e.where, { ...row, [e.variable]: item }, ctx, aggregates), e.where, ctx) : true;
        if (v === true) matches++;
        else if (v === null) unknown = true;
        if (e.kind === 'any' && matches > 0) return true;
        if (e.kind === 'none' && matches > 0) return false;
        if (e.kind === 'all' && v === false) return false;
      }
      if (e.kind === 'single') return matches > 1 ? false : unknown ? null : matches === 1;
      if (unknown) return null;
      return e.kind === 'all' || e.kind === 'none' ? true : false;
    }
    case 'listcomp': {
      const list = evaluate(e.list, row, ctx, aggregates);
      if (list === null) return null;
      if (!Array.isArray(list)) return ctx.fail(e.list.at, 'type mismatch: a list comprehension needs a list');
      const out: Value[] = [];
      for (const item of list) {
        ctx.charge(1);
        const scope = { ...row, [e.variable]: item };
        if (e.where && truth(evaluate(e.where, scope, ctx, aggregates), e.where, ctx) !== true) continue;
        out.push(e.map ? evaluate(e.map, scope, ctx, aggregates) : item);
      }
      return out;
    }
    case 'reduce': {
      let acc = evaluate(e.init, row, ctx, aggregates);
      const list = evaluate(e.list, row, ctx, aggregates);
      if (list === null) return null;
      if (!Array.isArray(list)) return ctx.fail(e.list.at, 'type mismatch: reduce needs a list');
      for (const item of list) {
        ctx.charge(1);
        acc = evaluate(e.map, { ...row, [e.acc]: acc, [e.variable]: item }, ctx, aggregates);
      }
      return acc;
    }
    case 'pattern': case 'patcomp': {
      const key = ctx.patternKey(e);
      if (!(key in row)) return ctx.fail(e.at, 'pattern expressions are supported in WHERE, WITH and RETURN only over variables of the row (not inside list comprehensions or quantifiers)');
      return row[key];
    }
  }
}

/** A value used as a predicate: booleans and null; anything else is a type error. */
export function truth(v: Value, e: Expr, ctx: ExecContext): boolean | null {
  if (v === null || typeof v === 'boolean') return v;
  if (Array.isArray(v) && e.t === 'pattern') return v.length > 0;
  return ctx.fail(e.at, `type mismatch: expected a boolean, got ${typeName(v)}`);
}

export function labelsMatch(l: LabelExpr, has: (label: string) => boolean): boolean {
  switch (l.t) {
    case 'label': return has(l.name);
    case 'and': return l.args.every((x) => labelsMatch(x, has));
    case 'or': return l.args.some((x) => labelsMatch(x, has));
    case 'not': return !labelsMatch(l.arg, has);
    case 'anylabel': return true;
  }
}

export function compareOp(op: string, a: Value, b: Value): boolean | null {
  if (op === '=') return equals(a, b);
  if (op === '<>') {
    const eq = equals(a, b);
    return eq === null ? null : !eq;
  }
  const c = compare(a, b);
  if (c === null) return null;
  switch (op) {
    case '<': return c < 0;
    case '<=': return c <= 0;
    case '>': return c > 0;
    default: return c >= 0;
  }
}

export function property(target: Value, key: string, e: Expr, ctx: ExecContext): Value {
  if (target === null) return null;
  if (target instanceof NodeRef) {
    if (ctx.probing && !ctx.nodes.has(target.id)) {
      const column = ctx.probeColumns.get(key);
      if (column !== undefined) return (valueAtPosition(column, ctx.view.graph, target.id) as Value | undefined) ?? null;
    }
    return (ctx.node(target.id).properties[key] as Value) ?? null;
  }
  if (target instanceof RelRef) {
    if (ctx.probing) {
      const v = ctx.edgeColumnValue(target, key);
      if (v !== undefined) return v;
    }
    const p = ctx.edgeProps.get(target.id);
    if (!p && ctx.probing) throw NEEDS_DETAILS;
    if (!p) return ctx.fail(e.at, 'internal: relationship properties not loaded');
    return (p.properties[key] as Value) ?? null;
  }
  if (target instanceof DateTimeValue) return dateTimeField(target, key, e, ctx);
  if (isMap(target)) return target[key] ?? null;
  return ctx.fail(e.at, `type mismatch: cannot read property '${key}' of ${typeName(target)}`);
}

function dateTimeField(d: DateTimeValue, key: string, e: Expr, ctx: ExecContext): Value {
  const date = new Date(d.ms);
  switch (key.toLowerCase()) {
    case 'epochseconds': return Math.floor(d.ms / 1000);
    case 'epochmillis': return d.ms;
    case 'year': return date.getUTCFullYear();
    case 'month': return date.getUTCMonth() + 1;
    case 'day': return date.getUTCDate();
    case 'hour': return date.getUTCHours();
    case 'minute': return date.getUTCMinutes();
    case 'second': return date.getUTCSeconds();
    case 'millisecond': return date.getUTCMilliseconds();
    default: return ctx.fail(e.at, `unknown date-time field '${key}'`);
  }
}

function index(target: Value, idx: Value, e: Expr, ctx: ExecContext): Value {
  if (target === null || idx === null) return null;
  if (Array.isArray(target)) {
    if (typeof idx !== 'number' || !Number.isInteger(idx)) return ctx.fail(e.at, 'type mismatch: a list index must be an integer');
    const i = idx < 0 ? target.length + idx : idx;
    return target[i] ?? null;
  }
  if (typeof idx === 'string') return property(target, idx, e, ctx);
  return ctx.fail(e.at, `type mismatch: cannot index ${typeName(target)}`);
}

function slice(target: Value, from: Value, to: Value, e: Expr, ctx: ExecContext): Value {
  if (target === null) return null;
  if (!Array.isArray(target)) return ctx.fail(e.at, 'type mismatch: a slice needs a list');
  const norm = (v: Value, dflt: number) => {
    if (v === null) return dflt;
    if (typeof v !== 'number') return ctx.fail(e.at, 'type mismatch: slice bounds must be integers');
    return v < 0 ? Math.max(0, target.length + v) : v;
  };
  return target.slice(norm(from, 0), norm(to, target.length));
}

function arithmetic(op: string, a: Value, b: Value, e: Expr, ctx: ExecContext): Value {
  if (a === null || b === null) return null;
  if (op === '+') {
    if (Array.isArray(a)) return Array.isArray(b) ? [...a, ...b] : [...a, b];
    if (Array.isArray(b)) return [a, ...b];
    if (typeof a === 'string' || typeof b === 'string') {
      if (isScalar(a) && isScalar(b)) return `${scalarText(a)}${scalarText(b)}`;
    }
  }
  if (typeof a !== 'number' || typeof b !== 'number') {
    return ctx.fail(e.at, `type mismatch: cannot apply ${op} to ${typeName(a)} and ${typeName(b)}`);
  }
  switch (op) {
    case '+': return a + b;
    case '-': return a - b;
    case '*': return a * b;
    case '/':
      if (Number.isInteger(a) && Number.isInteger(b) && !isFloatExpr(e)) {
        if (b === 0) return ctx.fail(e.at, '/ by zero');
        return Math.trunc(a / b);
      }
      return a / b;
    case '%':
      if (Number.isInteger(a) && Number.isInteger(b) && b === 0) return ctx.fail(e.at, '% by zero');
      return a % b;
    default: return a ** b;
  }
}

/** Whether an arithmetic expression has a float literal operand (then `/` is a float division). */
function isFloatExpr(e: Expr): boolean {
  if (e.t !== 'bin') return false;
  const isFloat = (x: Expr): boolean => (x.t === 'lit' && x.float === true) || (x.t === 'neg' && isFloat(x.arg));
  return isFloat(e.left) || isFloat(e.right);
}

function isScalar(v: Value): v is string | number | boolean {
  return typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean';
}

function scalarText(v: string | number | boolean): string {
  return typeof v === 'number' && Number.isInteger(v) ? String(v) : String(v);
}

const TAILS_WANTED = new WeakMap<Expr, Uint8Array | null>();

/**
 * For `x.objectid ENDS WITH '…-512'` or `x.objectid =~ '.*-(512|519|S-1-5-32-544)'` (a literal whose
 * every match ends in `-` and one of those texts): the objectid tail hashes a match can have (the
 * hash of the text after its last `-`, property-columns.ts tailHash); null for any other test.
 */
export function tailsWanted(e: Expr): Uint8Array | null {
  if (e.t !== 'strop' || (e.op !== 'ENDS WITH' && e.op !== '=~')) return null;
  let wanted = TAILS_WANTED.get(e);
  if (wanted !== undefined) return wanted;
  wanted = null;
  if (e.left.t === 'prop' && e.left.key === 'objectid' && e.left.target.t === 'var' && e.right.t === 'lit' && typeof e.right.value === 'string') {
    const text = e.right.value;
    let endings: string[] | null = null;
    if (e.op === 'ENDS WITH') endings = text.includes('-') ? [text] : null;
    else {
      const m = /^(?:\(\?i\))?\.\*-(?:\(([A-Za-z0-9-]+(?:\|[A-Za-z0-9-]+)*)\)|([A-Za-z0-9-]+))\$?$/.exec(text);
      if (m) endings = (m[1] ?? m[2]).split('|').map((alt) => `-${alt}`);
    }
    if (endings !== null) {
      wanted = new Uint8Array(65_536);
      for (const x of endings) wanted[tailHash(x)] = 1;
    }
  }
  TAILS_WANTED.set(e, wanted);
  return wanted;
}

/**
 * While probing: false for an objectid suffix test (tailsWanted) on a node not read whose objectid
 * tail hashes otherwise (its objectid cannot end so: the same column the scans narrow by); else undefined.
 */
export function byObjectidTail(e: Expr, row: Row, ctx: ExecContext): boolean | undefined {
  const wanted = tailsWanted(e);
  if (wanted === null || e.t !== 'strop' || e.left.t !== 'prop' || e.left.target.t !== 'var') return undefined;
  const node = row[e.left.target.name];
  if (!(node instanceof NodeRef) || ctx.nodes.has(node.id)) return undefined;
  const hash = tailAtPosition(ctx.objectidTails!, ctx.view.graph, node.id);
  return hash !== undefined && wanted[hash] === 0 ? false : undefined;
}

const REGEX_CACHE = new Map<string, RegExp>();

/** Cypher `=~` (Java regular expressions matching the whole string, as Neo4j; see docs/cypher.md). */
export function regexFor(pattern: string, e: Expr, ctx: ExecContext): RegExp {
  let re = REGEX_CACHE.get(pattern);
  if (re) return re;
  let flags = 'u';
  let body = pattern;
  const lead = /^\(\?([imsu]+)\)/.exec(body);
  if (lead) {
    for (const f of lead[1]) if (f !== 'u' && !flags.includes(f)) flags += f;
    body = body.slice(lead[0].length);
  }
  try {
    re = new RegExp(`^(?:${body})$`, flags);
  } catch (err) {
    try {
      re = new RegExp(`^(?:${body})$`, flags.replace('u', ''));
    } catch {
      return ctx.fail(e.at, `invalid regular expression: ${(err as Error).message}`);
    }
  }
  if (REGEX_CACHE.size > 1000) REGEX_CACHE.clear();
  REGEX_CACHE.set(pattern, re);
  return re;
}

export function stringOp(op: string, a: Value, b: Value, e: Expr, ctx: ExecContext): Value {
  if (op === 'IN') {
    if (b === null) return null;
    if (!Array.isArray(b)) return ctx.fail(e.at, `type mismatch: IN needs a list, got ${typeName(b)}`);
    if (a === null) return b.length === 0 ? false : null;
    let unknown = false;
    for (const item of b) {
      const eq = equals(a, item);
      if (eq === true) return true;
      if (eq === null) unknown = true;
    }
    return unknown ? null : false;
  }
  if (typeof a !== 'string' || typeof b !== 'string') return null;
  switch (op) {
    case 'STARTS WITH': return a.startsWith(b);
    case 'ENDS WITH': return a.endsWith(b);
    case 'CONTAINS': return a.includes(b);
    default: return regexFor(b, e, ctx).test(a);
  }
}

export function typeName(v: Value): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'a list';
  if (v instanceof NodeRef) return 'a node';
  if (v instanceof RelRef) return 'a relationship';
  if (v instanceof PathValue) return 'a path';
  if (v instanceof DateTimeValue) return 'a date-time';
  if (isMap(v)) return 'a map';
  return `a ${typeof v}`;
}
