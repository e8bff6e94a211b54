import { UPDATING_CLAUSES, type Clause, type Expr, type PatternPart, type Projection, type Query, type SingleQuery } from './ast.ts';
import { errorAt } from './errors.ts';
import { AGGREGATE_FUNCTIONS, SCALAR_FUNCTIONS } from './functions.ts';
import { hasMacro } from './macros.ts';
import { children, hasAggregate } from './walk.ts';

/**
 * Semantic checks after parsing: every variable defined before use and used as one kind of thing,
 * known functions with the right number of arguments, aggregates only in projections, clause order,
 * and the refusals BloodHound makes (parameters, updating clauses unless mutations are enabled).
 * Errors name line and column.
 */
export type VarKind = 'node' | 'rel' | 'rels' | 'path' | 'value';
type Scope = Map<string, VarKind>;

export interface CheckOptions {
  mutations: boolean;
}

export interface Checked {
  hasMutation: boolean;
  /** Column names of the result (the last RETURN's). */
  columns: string[];
}

export function checkQuery(text: string, query: Query, options: CheckOptions): Checked {
  const fail = (at: number, message: string): never => {
    throw errorAt(text, at, message);
  };
  let hasMutation = false;
  let columns: string[] = [];
  if (query.unionAll.some((all) => all !== query.unionAll[0])) fail(query.parts[1].at, 'mixing UNION and UNION ALL is not supported');
  query.parts.forEach((part, i) => {
    const result = checkSingle(part, options, fail);
    hasMutation ||= result.hasMutation;
    if (i > 0 && result.columns.join('\u0000') !== columns.join('\u0000')) {
      fail(part.at, 'all sub queries in an UNION must have the same return column names');
    }
    columns = result.columns;
  });
  return { hasMutation, columns };
}

type Fail = (at: number, message: string) => never;

function checkSingle(part: SingleQuery, options: CheckOptions, fail: Fail): Checked {
  let scope: Scope = new Map();
  let hasMutation = false;
  let columns: string[] = [];
  const last = part.clauses[part.clauses.length - 1];
  if (last.c !== 'return' && !UPDATING_CLAUSES.has(last.c)) {
    fail(last.at, `query cannot conclude with ${clauseName(last)} (must be RETURN or an update clause)`);
  }
  for (const clause of part.clauses) {
    if (clause.c === 'return' && clause !== last) fail(clause.at, 'RETURN can only be used at the end of the query');
    if (UPDATING_CLAUSES.has(clause.c)) {
      if (!options.mutations) fail(clause.at, 'updating clauses are not supported');
      if (clause.c === 'merge') fail(clause.at, 'MERGE is not supported');
      hasMutation = true;
    }
    scope = checkClause(clause, scope, fail, (names) => (columns = names));
  }
  return { hasMutation, columns };
}

function clauseName(c: Clause): string {
  return c.c === 'match' ? (c.optional ? 'OPTIONAL MATCH' : 'MATCH') : c.c.toUpperCase();
}

function checkClause(clause: Clause, scope: Scope, fail: Fail, setColumns: (names: string[]) => void): Scope {
  switch (clause.c) {
    case 'match': {
      const next = new Map(scope);
      for (const p of clause.patterns) bindPattern(p, next, fail, false);
      if (clause.where) checkExpr(clause.where, next, fail, false);
      return next;
    }
    case 'unwind': {
      checkExpr(clause.expr, scope, fail, false);
      if (scope.has(clause.alias)) fail(clause.at, `variable '${clause.alias}' already declared`);
      return new Map(scope).set(clause.alias, 'value');
    }
    case 'with': {
      const next = project(clause.projection, scope, fail, true);
      if (clause.where) checkExpr(clause.where, next, fail, false);
      return next;
    }
    case 'return': {
      const next = project(clause.projection, scope, fail, false);
      setColumns([...next.keys()]);
      return next;
    }
    case 'create': {
      const next = new Map(scope);
      for (const p of clause.patterns) {
        if (p.shortest) fail(p.at, 'shortestPath cannot be used in CREATE');
        for (const r of p.rels) {
          if (r.range) fail(r.at, 'variable length relationships cannot be used in CREATE');
          if (r.types.length !== 1) fail(r.at, 'a relationship in CREATE must have exactly one type');
          if (hasMacro(r.types)) fail(r.at, 'relationship type shortcuts are not supported in graph mutations');
          if (r.direction === 'both') fail(r.at, 'only directed relationships are supported in CREATE');
        }
        bindPattern(p, next, fail, true);
      }
      return next;
    }
    case 'set':
      for (const item of clause.items) {
        if (item.kind === 'property') checkExpr(item.target, scope, fail, false);
        else requireVar(item.variable, item.at, scope, fail);
        if (item.kind !== 'labels') checkExpr(item.value, scope, fail, false);
      }
      return scope;
    case 'remove':
      for (const item of clause.items) {
        if (item.kind === 'property') checkExpr(item.target, scope, fail, false);
        else requireVar(item.variable, item.at, scope, fail);
      }
      return scope;
    case 'delete':
      for (const e of clause.exprs) checkExpr(e, scope, fail, false);
      return scope;
    case 'merge':
      return scope;
  }
}

function requireVar(name: string, at: number, scope: Scope, fail: Fail): void {
  if (!scope.has(name)) fail(at, `variable '${name}' not defined`);
}

/** Binds a pattern's variables into `scope` (new or compatible with what is bound), checking its maps. */
function bindPattern(p: PatternPart, scope: Scope, fail: Fail, creating: boolean): void {
  const bind = (name: string, kind: VarKind, at: number) => {
    const had = scope.get(name);
    if (had === undefined) return void scope.set(name, kind);
    if (kind === 'path' || had === 'path') fail(at, `variable '${name}' already declared`);
    if (had !== kind && had !== 'value') fail(at, `type mismatch: variable '${name}' is a ${describeKind(had)}, not a ${describeKind(kind)}`);
    if (creating && kind === 'rel') fail(at, `variable '${name}' already declared`);
  };
  if (p.shortest) {
    if (p.rels.length !== 1) fail(p.at, 'shortestPath requires a pattern with exactly one relationship');
    const range = p.rels[0].range;
    if (range && range.min !== null && range.min > 1) fail(p.rels[0].at, 'shortestPath does not support a minimal length above 1');
  }
  for (const n of p.nodes) {
    if (n.props) checkExpr(n.props, scope, fail, false);
    if (n.variable) bind(n.variable, 'node', n.at);
  }
  for (const r of p.rels) {
    if (r.props) checkExpr(r.props, scope, fail, false);
    if (r.range && r.range.min !== null && r.range.max !== null && r.range.min > r.range.max) {
      fail(r.at, `invalid range: the lower bound ${r.range.min} is above the upper bound ${r.range.max}`);
    }
    if (r.variable) bind(r.variable, r.range ? 'rels' : 'rel', r.at);
  }
  if (p.pathVariable) bind(p.pathVariable, 'path', p.at);
}

function describeKind(kind: VarKind): string {
  return { node: 'node', rel: 'relationship', rels: 'list of relationships', path: 'path', value: 'value' }[kind];
}

/** Checks a WITH / RETURN projection and returns the scope after it. */
function project(proj: Projection, scope: Scope, fail: Fail, isWith: boolean): Scope {
  const next: Scope = new Map();
  if (proj.star) {
    if (scope.size === 0) fail(0, 'RETURN * is not allowed when there are no variables in scope');
    for (const [k, v] of scope) next.set(k, v);
  }
  let aggregating = false;
  for (const item of proj.items) {
    checkExpr(item.expr, scope, fail, true);
    aggregating ||= hasAggregate(item.expr);
    if (isWith && item.alias === null && item.expr.t !== 'var') {
      fail(item.at, `expression in WITH must be aliased (use AS): ${item.text}`);
    }
    const name = item.alias ?? item.text;
    if (next.has(name) && !proj.star) fail(item.at, `multiple result columns with the same name are not supported: ${name}`);
    const kind = item.expr.t === 'var' ? scope.get(item.expr.name) ?? 'value' : 'value';
    next.set(name, kind);
  }
  // ORDER BY sees the projected names, and (without aggregation or DISTINCT) what was in scope before.
  const orderScope = aggregating || proj.distinct ? next : new Map([...scope, ...next]);
  for (const s of proj.orderBy) checkExpr(s.expr, orderScope, fail, aggregating);
  for (const e of [proj.skip, proj.limit]) if (e) checkExpr(e, new Map(), fail, false);
  return next;
}

/** Checks an expression against a scope; `aggregates` says whether aggregate calls may appear here. */
function checkExpr(e: Expr, scope: Scope, fail: Fail, aggregates: boolean): void {
  switch (e.t) {
    case 'param':
      return fail(e.at, 'user-specified parameters are not supported');
    case 'var':
      if (!scope.has(e.name)) fail(e.at, `variable '${e.name}' not defined`);
      return;
    case 'countstar':
      if (!aggregates) fail(e.at, 'aggregation (count(*)) is not allowed here');
      return;
    case 'call': {
      const name = e.name.toLowerCase();
      const agg = AGGREGATE_FUNCTIONS[name];
      const arity = agg ?? SCALAR_FUNCTIONS[name];
      if (!arity) return fail(e.at, `unknown function '${e.name}'`);
      if (e.args.length < arity[0] || e.args.length > arity[1]) {
        fail(e.at, `function '${e.name}' takes ${arityText(arity)}, got ${e.args.length}`);
      }
      if (agg && !aggregates) fail(e.at, `aggregation (${e.name}) is not allowed here`);
      if (e.distinct && !agg) fail(e.at, `DISTINCT is only allowed in aggregate functions, not in '${e.name}'`);
      for (const a of e.args) checkExpr(a, scope, fail, agg ? false : aggregates);
      return;
    }
    case 'quant': case 'listcomp': {
      checkExpr(e.list, scope, fail, aggregates);
      const inner = new Map(scope).set(e.variable, 'value' as VarKind);
      if (e.where) checkExpr(e.where, inner, fail, false);
      if (e.t === 'listcomp' && e.map) checkExpr(e.map, inner, fail, aggregates);
      return;
    }
    case 'reduce': {
      checkExpr(e.init, scope, fail, aggregates);
      checkExpr(e.list, scope, fail, aggregates);
      checkExpr(e.map, new Map(scope).set(e.acc, 'value').set(e.variable, 'value'), fail, false);
      return;
    }
    case 'pattern': {
      for (const n of e.pattern.nodes) if (n.variable && !scope.has(n.variable)) {
        fail(n.at, `a pattern predicate cannot introduce new variables ('${n.variable}')`);
      }
      for (const r of e.pattern.rels) if (r.variable && !scope.has(r.variable)) {
        fail(r.at, `a pattern predicate cannot introduce new variables ('${r.variable}')`);
      }
      for (const x of children(e)) checkExpr(x, scope, fail, false);
      return;
    }
    case 'patcomp': {
      const inner = new Map(scope);
      bindPattern(e.pattern, inner, fail, false);
      if (e.where) checkExpr(e.where, inner, fail, false);
      checkExpr(e.map, inner, fail, false);
      return;
    }
    default:
      for (const x of children(e)) checkExpr(x, scope, fail, aggregates);
  }
}

function arityText([min, max]: [number, number]): string {
  if (min === max) return `${min} argument${min === 1 ? '' : 's'}`;
  if (max === Infinity) return `at least ${min} argument${min === 1 ? '' : 's'}`;
  return `${min} to ${max} arguments`;
}
