import type { Expr } from './ast.ts';
import { NEEDS_DETAILS, type ExecContext } from './context.ts';
import { typeName } from './eval.ts';
import { DateTimeValue, isMap, NodeRef, PathValue, RelRef, type Value } from './values.ts';

type Call = Extract<Expr, { t: 'call' }>;
type Fn = (args: Value[], e: Call, ctx: ExecContext) => Value;

const str = (f: (s: string) => Value): Fn => (args, e, ctx) => {
  const v = args[0];
  if (v === null) return null;
  if (typeof v !== 'string') return ctx.fail(e.at, `type mismatch: ${e.name}() needs a string, got ${typeName(v)}`);
  return f(v);
};

const num = (f: (n: number) => Value): Fn => (args, e, ctx) => {
  const v = args[0];
  if (v === null) return null;
  if (typeof v !== 'number') return ctx.fail(e.at, `type mismatch: ${e.name}() needs a number, got ${typeName(v)}`);
  return f(v);
};

const intArg = (v: Value, e: Call, ctx: ExecContext): number => {
  if (typeof v !== 'number' || !Number.isInteger(v)) return ctx.fail(e.at, `type mismatch: ${e.name}() needs an integer`);
  return v;
};

const list = (v: Value, e: Call, ctx: ExecContext): Value[] | null => {
  if (v === null) return null;
  if (!Array.isArray(v)) return ctx.fail(e.at, `type mismatch: ${e.name}() needs a list, got ${typeName(v)}`);
  return v;
};

const path = (v: Value, e: Call, ctx: ExecContext): PathValue | null => {
  if (v === null) return null;
  if (!(v instanceof PathValue)) return ctx.fail(e.at, `type mismatch: ${e.name}() needs a path, got ${typeName(v)}`);
  return v;
};

function toDateTime(v: Value, e: Call, ctx: ExecContext): Value {
  if (v === null) return null;
  if (typeof v === 'string') {
    const ms = Date.parse(v);
    if (Number.isNaN(ms)) return ctx.fail(e.at, `cannot parse date-time: ${v}`);
    return new DateTimeValue(ms);
  }
  if (isMap(v)) {
    if (typeof v.epochseconds === 'number') return new DateTimeValue(v.epochseconds * 1000);
    if (typeof v.epochmillis === 'number') return new DateTimeValue(v.epochmillis);
  }
  return ctx.fail(e.at, `type mismatch: ${e.name}() needs a string or {epochSeconds: n}`);
}

const FUNCTIONS: Record<string, Fn> = {
  abs: num(Math.abs),
  ceil: num(Math.ceil),
  floor: num(Math.floor),
  round: num((n) => Math.round(n)),
  sign: num(Math.sign),
  sqrt: num(Math.sqrt),
  coalesce: (args) => args.find((a) => a !== null) ?? null,
  date: (args, e, ctx) => (args.length === 0 ? new DateTimeValue(Math.floor(ctx.now / 86_400_000) * 86_400_000) : toDateTime(args[0], e, ctx)),
  datetime: (args, e, ctx) => (args.length === 0 ? new DateTimeValue(ctx.now) : toDateTime(args[0], e, ctx)),
  timestamp: (_a, _e, ctx) => ctx.now,
  exists: (args) => args[0] !== null,
  isempty: (args, e, ctx) => {
    const v = args[0];
    if (v === null) return null;
    if (typeof v === 'string' || Array.isArray(v)) return v.length === 0;
    if (isMap(v)) return Object.keys(v).length === 0;
    return ctx.fail(e.at, 'type mismatch: isEmpty() needs a string, a list or a map');
  },
  size: (args, e, ctx) => {
    const v = args[0];
    if (v === null) return null;
    if (typeof v === 'string' || Array.isArray(v)) return v.length;
    return ctx.fail(e.at, `type mismatch: size() needs a string or a list, got ${typeName(v)}`);
  },
  length: (args, e, ctx) => {
    const v = args[0];
    if (v === null) return null;
    if (v instanceof PathValue) return v.rels.length;
    if (typeof v === 'string' || Array.isArray(v)) return v.length;
    return ctx.fail(e.at, `type mismatch: length() needs a path, got ${typeName(v)}`);
  },
  head: (args, e, ctx) => list(args[0], e, ctx)?.[0] ?? null,
  last: (args, e, ctx) => {
    const l = list(args[0], e, ctx);
    return l === null || l.length === 0 ? null : l[l.length - 1];
  },
  tail: (args, e, ctx) => list(args[0], e, ctx)?.slice(1) ?? null,
  reverse: (args, e, ctx) => {
    const v = args[0];
    if (typeof v === 'string') return [...v].reverse().join('');
    return list(v, e, ctx)?.slice().reverse() ?? null;
  },
  range: (args, e, ctx) => {
    const [from, to] = [intArg(args[0], e, ctx), intArg(args[1], e, ctx)];
    const step = args.length > 2 ? intArg(args[2], e, ctx) : 1;
    if (step === 0) return ctx.fail(e.at, 'range() step cannot be zero');
    const out: number[] = [];
    for (let i = from; step > 0 ? i <= to : i >= to; i += step) {
      ctx.charge(1);
      out.push(i);
    }
    return out;
  },
  id: (args, e, ctx) => {
    const v = args[0];
    if (v === null) return null;
    if (v instanceof NodeRef || v instanceof RelRef) return v.id;
    return ctx.fail(e.at, 'type mismatch: id() needs a node or a relationship');
  },
  type: (args, e, ctx) => {
    const v = args[0];
    if (v === null) return null;
    if (v instanceof RelRef) return v.type;
    return ctx.fail(e.at, 'type mismatch: type() needs a relationship');
  },
  labels: (args, e, ctx) => {
    const v = args[0];
    if (v === null) return null;
    if (!(v instanceof NodeRef)) return ctx.fail(e.at, 'type mismatch: labels() needs a node');
    return ctx.view.kinds(v.id);
  },
  keys: (args, e, ctx) => {
    const p = properties(args[0], e, ctx);
    return p === null ? null : Object.keys(p);
  },
  properties: (args, e, ctx) => properties(args[0], e, ctx),
  nodes: (args, e, ctx) => path(args[0], e, ctx)?.nodes.slice() ?? null,
  relationships: (args, e, ctx) => path(args[0], e, ctx)?.rels.slice() ?? null,
  startnode: (args, e, ctx) => {
    const v = args[0];
    if (v === null) return null;
    if (!(v instanceof RelRef)) return ctx.fail(e.at, 'type mismatch: startNode() needs a relationship');
    return new NodeRef(v.start);
  },
  endnode: (args, e, ctx) => {
    const v = args[0];
    if (v === null) return null;
    if (!(v instanceof RelRef)) return ctx.fail(e.at, 'type mismatch: endNode() needs a relationship');
    return new NodeRef(v.end);
  },
  tolower: str((s) => s.toLowerCase()),
  toupper: str((s) => s.toUpperCase()),
  trim: str((s) => s.trim()),
  ltrim: str((s) => s.trimStart()),
  rtrim: str((s) => s.trimEnd()),
  replace: (args, e, ctx) => {
    if (args.some((a) => a === null)) return null;
    if (!args.every((a) => typeof a === 'string')) return ctx.fail(e.at, 'type mismatch: replace() needs strings');
    return (args[0] as string).split(args[1] as string).join(args[2] as string);
  },
  split: (args, e, ctx) => {
    if (args[0] === null || args[1] === null) return null;
    if (typeof args[0] !== 'string' || typeof args[1] !== 'string') return ctx.fail(e.at, 'type mismatch: split() needs strings');
    return args[0].split(args[1]);
  },
  substring: (args, e, ctx) => {
    if (args[0] === null) return null;
    if (typeof args[0] !== 'string') return ctx.fail(e.at, 'type mismatch: substring() needs a string');
    const start = intArg(args[1], e, ctx);
    return args.length > 2 ? args[0].substr(start, intArg(args[2], e, ctx)) : args[0].slice(start);
  },
  left: (args, e, ctx) => (args[0] === null ? null : str((s) => s.slice(0, intArg(args[1], e, ctx)))(args, e, ctx)),
  right: (args, e, ctx) => (args[0] === null ? null : str((s) => s.slice(Math.max(0, s.length - intArg(args[1], e, ctx))))(args, e, ctx)),
  tostring: (args, e, ctx) => {
    const v = args[0];
    if (v === null || typeof v === 'string') return v;
    if (typeof v === 'number' || typeof v === 'boolean') return String(v);
    if (v instanceof DateTimeValue) return new Date(v.ms).toISOString();
    return ctx.fail(e.at, `type mismatch: toString() cannot convert ${typeName(v)}`);
  },
  tointeger: (args) => {
    const v = args[0];
    if (typeof v === 'number') return Math.trunc(v);
    if (typeof v === 'boolean') return v ? 1 : 0;
    if (typeof v === 'string' && /^\s*[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\s*$/.test(v)) return Math.trunc(Number(v));
    return null;
  },
  tofloat: (args) => {
    const v = args[0];
    if (typeof v === 'number') return v;
    if (typeof v === 'string' && /^\s*[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\s*$/.test(v)) return Number(v);
    return null;
  },
  toboolean: (args) => {
    const v = args[0];
    if (typeof v === 'boolean') return v;
    if (typeof v === 'string') return /^true$/i.test(v.trim()) ? true : /^false$/i.test(v.trim()) ? false : null;
    return null;
  },
};

function properties(v: Value, e: Call, ctx: ExecContext): Record<string, Value> | null {
  if (v === null) return null;
  if (v instanceof NodeRef) return { ...(ctx.node(v.id).properties as Record<string, Value>) };
  if (v instanceof RelRef) {
    if (ctx.probing && !ctx.edgeProps.has(v.id)) throw NEEDS_DETAILS;
    return { ...((ctx.edgeProps.get(v.id)?.properties ?? {}) as Record<string, Value>) };
  }
  if (isMap(v)) return v;
  return ctx.fail(e.at, `type mismatch: ${e.name}() needs a node, a relationship or a map`);
}

export function callFunction(e: Call, args: Value[], ctx: ExecContext): Value {
  const fn = FUNCTIONS[e.name.toLowerCase()];
  if (!fn) return ctx.fail(e.at, `unknown function '${e.name}'`);
  return fn(args, e, ctx);
}
