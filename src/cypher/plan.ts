import type { Expr, LabelExpr, NodePattern, PatternPart } from './ast.ts';
import type { Pushdown } from './graph-source.ts';
import { freeVariables, patternVariables as patternVariablesOf } from './walk.ts';

/**
 * Planning helpers: split WHERE into conjuncts, find the conjuncts a node scan can apply in SQL, and
 * pick the node a pattern part starts from (the anchor): a bound variable first, then the node
 * whose label and predicates promise the fewest candidates.
 */
export function conjuncts(e: Expr | null): Expr[] {
  if (e === null) return [];
  if (e.t === 'and') return e.args.flatMap(conjuncts);
  return [e];
}

/** The one label every match of a label expression carries, when there is one (for the indexed kind scan). */
export function requiredLabel(l: LabelExpr | null): string | null {
  if (l === null) return null;
  if (l.t === 'label') return l.name;
  if (l.t === 'and') {
    const names = l.args.map(requiredLabel).filter((x): x is string => x !== null);
    return names.find((n) => !n.startsWith('Tag_')) ?? names[0] ?? null;
  }
  return null;
}

export function labelNames(l: LabelExpr | null, out = new Set<string>()): Set<string> {
  if (l === null) return out;
  if (l.t === 'label') out.add(l.name);
  else if (l.t === 'and' || l.t === 'or') for (const a of l.args) labelNames(a, out);
  else if (l.t === 'not') labelNames(l.arg, out);
  return out;
}

type Literal = string | number | boolean;

/** Evaluates an expression that reads no variable of the pattern (a literal, `datetime().epochseconds - 86400`, a WITH constant). */
export type ConstantOf = (e: Expr) => Literal | Literal[] | undefined;

/** A literal (or a list of literals) an expression always evaluates to, or undefined. */
export function literalOf(e: Expr): Literal | Literal[] | undefined {
  if (e.t === 'lit' && e.value !== null) return e.value;
  if (e.t === 'neg' && e.arg.t === 'lit' && typeof e.arg.value === 'number') return -e.arg.value;
  if (e.t === 'list') {
    const items = e.items.map(literalOf);
    if (items.every((x): x is Literal => x !== undefined && !Array.isArray(x))) return items;
  }
  return undefined;
}

/** `variable.key`, also under coalesce(variable.key, '') / toUpper / toLower → [key, case-insensitive] */
function propertyOf(e: Expr, variable: string): { key: string; ci: boolean } | null {
  if (e.t === 'prop' && e.target.t === 'var' && e.target.name === variable) return { key: e.key, ci: false };
  if (e.t === 'call' && e.args.length >= 1) {
    const name = e.name.toLowerCase();
    if ((name === 'toupper' || name === 'tolower') && e.args.length === 1) {
      const inner = propertyOf(e.args[0], variable);
      return inner ? { key: inner.key, ci: true } : null;
    }
    if (name === 'coalesce' && e.args.length === 2 && e.args[1].t === 'lit' && e.args[1].value === '') return propertyOf(e.args[0], variable);
  }
  return null;
}

const FLIP: Record<string, '=' | '<' | '>' | '<=' | '>='> = { '=': '=', '<': '>', '>': '<', '<=': '>=', '>=': '<=' };

/**
 * The pushdown a WHERE conjunct gives a scan of `variable`, when it reads only that variable's
 * properties and labels against constants. (Everything is still evaluated afterwards: pushdowns only narrow.)
 */
export function pushdownOf(e: Expr, variable: string, constantOf: ConstantOf = literalOf, presence = true): Pushdown | null {
  return predicatePushdown(e, variable, constantOf, presence) ?? (presence ? presenceOf(e, variable) : null);
}

/** Functions that answer null for a null argument (so a predicate over them needs the property). */
const NULL_IN_NULL_OUT = new Set(['toupper', 'tolower', 'trim', 'ltrim', 'rtrim', 'size']);

/** `variable.key`, also inside null-propagating functions (toUpper(n.key), size(n.key)) → key. */
function strictProperty(e: Expr, variable: string): string | null {
  if (e.t === 'prop' && e.target.t === 'var' && e.target.name === variable) return e.key;
  if (e.t === 'call' && e.args.length === 1 && NULL_IN_NULL_OUT.has(e.name.toLowerCase())) return strictProperty(e.args[0], variable);
  return null;
}

/**
 * A presence test for a predicate that cannot be true where a property is null: a comparison, string
 * predicate or list quantifier over `n.key` (null in, null out): `toUpper(n.email) <> ''`,
 * `n.name =~ '…'`, `ANY(x IN n.serviceprincipalnames WHERE …)`.
 */
function presenceOf(e: Expr, variable: string): Pushdown | null {
  let key: string | null = null;
  if (e.t === 'cmp' && e.ops.length === 1) key = strictProperty(e.args[0], variable) ?? strictProperty(e.args[1], variable);
  else if (e.t === 'strop') key = strictProperty(e.left, variable) ?? (e.op === 'IN' ? strictProperty(e.right, variable) : null);
  else if (e.t === 'quant') key = strictProperty(e.list, variable);
  return key === null ? null : { key, op: 'notnull' };
}

function predicatePushdown(e: Expr, variable: string, constantOf: ConstantOf, presence: boolean): Pushdown | null {
  if (e.t === 'or') {
    const parts = e.args.map((a) => pushdownOf(a, variable, constantOf, presence));
    return parts.every((x): x is Pushdown => x !== null) ? { op: 'or', parts } : null;
  }
  if (e.t === 'haslabels' && e.target.t === 'var' && e.target.name === variable && e.labels.t === 'label') {
    return e.labels.name.startsWith('Tag_') ? { op: 'tag', label: e.labels.name } : { op: 'kind', label: e.labels.name };
  }
  if (e.t === 'cmp' && e.ops.length === 1 && e.ops[0] !== '<>') {
    const op = e.ops[0];
    const [l, r] = e.args;
    for (const [p, c, o] of [[l, r, op], [r, l, FLIP[op]]] as const) {
      const prop = propertyOf(p, variable);
      if (prop === null || prop.ci) continue;
      const value = constantOf(c);
      if (value !== undefined && !Array.isArray(value)) return { key: prop.key, op: o, value };
    }
    return null;
  }
  if (e.t === 'strop') {
    const prop = propertyOf(e.left, variable);
    if (prop === null) {
      // 'x' IN n.list
      const list = propertyOf(e.right, variable);
      const value = e.op === 'IN' && list && !list.ci ? constantOf(e.left) : undefined;
      return value !== undefined && !Array.isArray(value) ? { key: list!.key, op: 'elem', value } : null;
    }
    const value = constantOf(e.right);
    if (value === undefined) return null;
    if (e.op === 'IN' && Array.isArray(value) && !prop.ci) return { key: prop.key, op: 'in', values: value };
    if (typeof value !== 'string') return null;
    const ci = prop.ci ? { caseInsensitive: true } : {};
    if (e.op === 'STARTS WITH') return { key: prop.key, op: 'starts', value, ...ci };
    if (e.op === 'ENDS WITH') return { key: prop.key, op: 'ends', value, ...ci };
    if (e.op === 'CONTAINS') return { key: prop.key, op: 'contains', value, ...ci };
    return null;
  }
  if (e.t === 'isnull' && e.negated) {
    const prop = propertyOf(e.arg, variable);
    return prop === null ? null : { key: prop.key, op: 'notnull' };
  }
  const prop = propertyOf(e, variable);
  if (prop !== null && !prop.ci) return { key: prop.key, op: '=', value: true }; // a bare boolean property as a predicate
  return null;
}

/**
 * Pushdowns from a node pattern's own property map (`(n:User {enabled: true})`; a value may be any
 * constant, `{objectid: OID}` after `WITH "S-1-…" AS OID` included).
 */
export function mapPushdowns(n: NodePattern, constantOf: ConstantOf = literalOf): Pushdown[] {
  if (n.props === null || n.props.t !== 'map') return [];
  const out: Pushdown[] = [];
  for (const [key, value] of n.props.entries) {
    const c = constantOf(value);
    if (c !== undefined && !Array.isArray(c)) out.push({ key, op: '=', value: c });
  }
  return out;
}

export interface NodeEstimate {
  index: number;
  bound: boolean;
  label: string | null;
  pushdowns: Pushdown[];
  score: number;
}

/**
 * Scores each node of a pattern part as a starting point (lower is better): bound variables first,
 * then objectid equality, then predicates and the size of the label.
 */
export function estimateNodes(part: PatternPart, bound: ReadonlySet<string>, where: Expr[], counts: (label: string | null) => number, constantOf: ConstantOf = literalOf, presence = true): NodeEstimate[] {
  const patternNames = new Set(patternVariablesOf(part));
  return part.nodes.map((n, index) => {
    const isBound = n.variable !== null && bound.has(n.variable);
    const label = requiredLabel(n.labels);
    const pushdowns = [...mapPushdowns(n, constantOf)];
    if (n.variable) {
      for (const c of where) {
        const vars = freeVariables(c);
        if (vars.has(n.variable) && [...vars].every((v) => v === n.variable || !patternNames.has(v))) {
          const p = pushdownOf(c, n.variable, constantOf, presence);
          if (p) pushdowns.push(p);
        }
      }
    }
    let score = isBound ? 0 : counts(label);
    if (!isBound) {
      for (const p of pushdowns) {
        if ('key' in p && p.key === 'objectid' && p.op === '=') score = Math.min(score, 1);
        else if (p.op === 'tag') score *= 0.02;
        else score *= p.op === '=' || p.op === 'in' ? 0.05 : 0.2;
      }
      score += 1;
    }
    return { index, bound: isBound, label, pushdowns, score };
  });
}
