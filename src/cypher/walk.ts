import type { Expr, PatternPart } from './ast.ts';
import { isAggregate } from './functions.ts';

/** The direct sub-expressions of an expression (pattern property maps included). */
export function children(e: Expr): Expr[] {
  switch (e.t) {
    case 'lit': case 'param': case 'var': case 'countstar':
      return [];
    case 'prop': case 'haslabels':
      return [e.target];
    case 'index':
      return [e.target, e.index];
    case 'slice':
      return [e.target, ...(e.from ? [e.from] : []), ...(e.to ? [e.to] : [])];
    case 'list':
      return e.items;
    case 'map':
      return e.entries.map((x) => x[1]);
    case 'not': case 'neg':
      return [e.arg];
    case 'isnull':
      return [e.arg];
    case 'and': case 'or': case 'xor': case 'cmp':
      return e.args;
    case 'bin': case 'strop':
      return [e.left, e.right];
    case 'call':
      return e.args;
    case 'case':
      return [...(e.subject ? [e.subject] : []), ...e.whens.flat(), ...(e.otherwise ? [e.otherwise] : [])];
    case 'quant':
      return [e.list, ...(e.where ? [e.where] : [])];
    case 'listcomp':
      return [e.list, ...(e.where ? [e.where] : []), ...(e.map ? [e.map] : [])];
    case 'reduce':
      return [e.init, e.list, e.map];
    case 'pattern':
      return patternExprs(e.pattern);
    case 'patcomp':
      return [...patternExprs(e.pattern), ...(e.where ? [e.where] : []), e.map];
  }
}

export function patternExprs(p: PatternPart): Expr[] {
  const out: Expr[] = [];
  for (const n of p.nodes) if (n.props) out.push(n.props);
  for (const r of p.rels) if (r.props) out.push(r.props);
  return out;
}

/** Whether the expression calls an aggregate (count(*) included), outside nested scopes' own aggregates. */
export function hasAggregate(e: Expr): boolean {
  if (e.t === 'countstar') return true;
  if (e.t === 'call' && isAggregate(e.name)) return true;
  return children(e).some(hasAggregate);
}

/** Variables an expression reads from its scope (variables bound inside it are left out). */
export function freeVariables(e: Expr, out = new Set<string>(), bound: ReadonlySet<string> = new Set()): Set<string> {
  const visit = (x: Expr, b: ReadonlySet<string>) => freeVariables(x, out, b);
  switch (e.t) {
    case 'var':
      if (!bound.has(e.name)) out.add(e.name);
      return out;
    case 'quant': case 'listcomp': {
      visit(e.list, bound);
      const inner = new Set([...bound, e.variable]);
      if (e.where) visit(e.where, inner);
      if (e.t === 'listcomp' && e.map) visit(e.map, inner);
      return out;
    }
    case 'reduce': {
      visit(e.init, bound);
      visit(e.list, bound);
      visit(e.map, new Set([...bound, e.acc, e.variable]));
      return out;
    }
    case 'pattern': case 'patcomp': {
      const names = patternVariables(e.pattern);
      if (e.t === 'pattern') for (const n of names) if (!bound.has(n)) out.add(n);
      const inner = e.t === 'patcomp' ? new Set([...bound, ...names]) : bound;
      for (const x of children(e)) visit(x, inner);
      return out;
    }
    default:
      for (const x of children(e)) visit(x, bound);
      return out;
  }
}

export function patternVariables(p: PatternPart): string[] {
  const out: string[] = [];
  if (p.pathVariable) out.push(p.pathVariable);
  for (const n of p.nodes) if (n.variable) out.push(n.variable);
  for (const r of p.rels) if (r.variable) out.push(r.variable);
  return out;
}

/** Whether evaluating these expressions reads node or relationship details (properties), not just structure. */
export function readsDetails(exprs: readonly Expr[]): boolean {
  const visit = (e: Expr): boolean => {
    if (e.t === 'prop' || e.t === 'index') return true;
    if (e.t === 'call' && ['properties', 'keys'].includes(e.name.toLowerCase())) return true;
    if ((e.t === 'pattern' || e.t === 'patcomp') && patternExprs(e.pattern).length > 0) return true;
    return children(e).some(visit);
  };
  return exprs.some(visit);
}
