import type { Clause, Expr, PatternPart, Projection, SingleQuery } from './ast.ts';
import { ExecContext, type Limits } from './context.ts';
import { CypherError } from './errors.ts';
import { evaluate, truth } from './eval.ts';
import type { GraphSource } from './graph-source.ts';
import { matchParts, streamable, variablesOf } from './match.ts';
import { conjuncts, literalOf } from './plan.ts';
import type { PreparedQuery } from './prepare.ts';
import { aggregateRows, aggregates, Grouping, type Projected } from './project.ts';
import { groupKey, orderCompare, type Row, type Value } from './values.ts';
import { children, freeVariables, hasAggregate, patternExprs, patternVariables, readsDetails } from './walk.ts';

export interface QueryResult {
  columns: string[];
  rows: Row[];
  ctx: ExecContext;
}

export interface ExecuteOptions {
  /** Stop matching once a simple `MATCH … RETURN … LIMIT n` has its rows (limitPushdown); on unless a test compares. */
  limitPushdown?: boolean;
  /** Start candidates from relationship kinds (match.ts endCandidates); on unless a test compares. */
  edgeAnchors?: boolean;
  /** Presence tests pushed down for null-rejecting predicates (plan.ts presenceOf); on unless a test compares. */
  presence?: boolean;
  /** Relationship-property predicates pushed down (match.ts relationshipFilters); on unless a test compares. */
  edgePushdown?: boolean;
  /** A MATCH reading nothing of the incoming rows matched once for all of them (independent); on unless a test compares. */
  matchOnce?: boolean;
  /** A step's matches tested by the conjuncts kept columns decide before rows are made of them (match.ts prefilterOf); on unless a test compares. */
  prefilter?: boolean;
  /** A step's far end narrowed by a scan of its own conjuncts before the walk tests it (match.ts farEndsOf); on unless a test compares. */
  farEnds?: boolean;
  /** Prefilter conjuncts comparing a start node's property with its far end's tested by column codes first (prefilter.ts pairTestsOf); on unless a test compares. */
  pairTests?: boolean;
  /** Rows from which the probe and a step's prefilter read wide and relationship columns (match.ts wideEnough: a third of the nodes, at least 20,000); a test sets 1. */
  wideAt?: number;
  /** A MATCH's matches streamed into the grouping of the aggregating WITH / RETURN after it (groupsMatches); on unless a test compares. */
  streamAggregation?: boolean;
  /** Rows of unread nodes past which a one-node conjunct is first tested in SQL (match.ts narrowInSql; Infinity: never); 5,000 unless a test compares. */
  sqlNarrowAt?: number;
}

/** Runs a prepared (read-only) query: each clause turns the rows of the previous one into its own. */
export async function executeQuery(prepared: PreparedQuery, source: GraphSource, limits?: Limits, options: ExecuteOptions = {}): Promise<QueryResult> {
  const ctx = new ExecContext(source, prepared.text, limits);
  ctx.plan.edgeAnchors = options.edgeAnchors !== false;
  ctx.plan.presence = options.presence !== false;
  ctx.plan.edgePushdown = options.edgePushdown !== false;
  ctx.plan.matchOnce = options.matchOnce !== false;
  if (options.sqlNarrowAt !== undefined) ctx.plan.sqlNarrowAt = options.sqlNarrowAt;
  ctx.plan.streamAggregation = options.streamAggregation !== false;
  ctx.plan.prefilter = options.prefilter !== false;
  ctx.plan.farEnds = options.farEnds !== false;
  ctx.plan.pairTests = options.pairTests !== false;
  if (options.wideAt !== undefined) ctx.plan.wideAt = options.wideAt;
  const nodeVars = new Set<string>();
  visitQuery(prepared, () => {}, (p) => {
    for (const n of p.nodes) if (n.variable) nodeVars.add(n.variable);
    if (p.rels.some((r) => r.props !== null)) ctx.wantEdgeProps = true;
  });
  visitQuery(prepared, (e) => {
    if (e.t === 'prop' && !(e.target.t === 'var' && nodeVars.has(e.target.name))) ctx.wantEdgeProps = true;
    if (e.t === 'call' && ['properties', 'keys'].includes(e.name.toLowerCase())) ctx.wantEdgeProps = true;
  }, () => {});
  ctx.view = await source.view();
  let rows: Row[] = [];
  for (const part of prepared.query.parts) {
    rows = rows.concat(await runSingle(part, ctx, options.limitPushdown === false ? null : limitPushdown(part)));
    ctx.checkRows(rows.length);
  }
  if (prepared.query.parts.length > 1 && !prepared.query.unionAll[0]) {
    const seen = new Set<string>();
    rows = rows.filter((r) => {
      const key = prepared.columns.map((c) => groupKey(r[c] ?? null)).join('|');
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
  }
  return { columns: prepared.columns, rows, ctx };
}

/**
 * How many match rows a single query needs when it is the simplest shape, `MATCH <one pattern part>
 * [WHERE …] RETURN … [SKIP s] LIMIT n` (no OPTIONAL, DISTINCT, ORDER BY, aggregation, pattern
 * predicates; literal SKIP / LIMIT): s + n, as its answer is the first s + n matches. Otherwise null.
 * Leading `WITH` clauses of constants only (`WITH 180 AS inactive_days`, as Query Library queries open)
 * make one row and keep the shape; any other WITH does not.
 */
export function limitPushdown(part: SingleQuery): number | null {
  let first = 0;
  const constants = new Set<string>();
  while (first < part.clauses.length && constantRow(part.clauses[first], constants)) first++;
  if (part.clauses.length - first !== 2) return null;
  const [match, ret] = part.clauses.slice(first);
  if (match.c !== 'match' || match.optional || match.patterns.length !== 1) return null;
  if (ret.c !== 'return') return null;
  const proj = ret.projection;
  if (proj.distinct || proj.orderBy.length > 0 || proj.limit === null || proj.items.some((i) => hasAggregate(i.expr))) return null;
  if (match.where && hasPatternExpr(match.where)) return null;
  const skip = proj.skip ? literalOf(proj.skip) : 0;
  const limit = literalOf(proj.limit);
  const count = (v: unknown) => typeof v === 'number' && Number.isInteger(v) && v >= 0;
  return count(skip) && count(limit) ? (skip as number) + (limit as number) : null;
}

/**
 * A WITH that turns the one row before it into exactly one row: it reads only the constants of the WITHs
 * before it (`constants`, updated to its own aliases), with no aggregate, pattern, filter or paging.
 */
function constantRow(clause: Clause, constants: Set<string>): boolean {
  if (clause.c !== 'with' || clause.where) return false;
  const p = clause.projection;
  if (p.star || p.distinct || p.orderBy.length > 0 || p.skip || p.limit) return false;
  const constant = p.items.every((i) => [...freeVariables(i.expr)].every((v) => constants.has(v)) && !hasAggregate(i.expr) && !hasPatternExpr(i.expr));
  if (!constant) return false;
  constants.clear();
  for (const i of p.items) constants.add(i.alias ?? i.text);
  return true;
}

function hasPatternExpr(e: Expr): boolean {
  return e.t === 'pattern' || e.t === 'patcomp' || children(e).some(hasPatternExpr);
}

async function runSingle(part: SingleQuery, ctx: ExecContext, stopAfter: number | null): Promise<Row[]> {
  let rows: Row[] = [{}];
  for (let i = 0; i < part.clauses.length; i++) {
    const clause = part.clauses[i];
    const next = part.clauses[i + 1];
    if (ctx.plan.streamAggregation && clause.c === 'match' && next !== undefined && groupsMatches(clause, next, rows)) {
      // The matches go straight into the grouping: only the groups are held, not every match.
      rows = await runClause(next, rows, ctx, await groupMatches(clause, next, rows, ctx));
      i++;
      ctx.plan.streamAggregationTaken++;
    } else rows = stopAfter !== null && clause.c === 'match' ? await runMatch(clause, rows, ctx, stopAfter) : await runClause(clause, rows, ctx);
    ctx.checkRows(rows.length);
    await ctx.breathe();
  }
  return rows;
}

/**
 * Whether a MATCH's matches can be streamed into the grouping of the WITH / RETURN after it: a
 * non-optional MATCH whose matches stream (match.ts streamable) over at most one incoming row, then
 * an aggregating projection without pattern expressions.
 */
function groupsMatches(clause: Extract<Clause, { c: 'match' }>, next: Clause, rows: Row[]): next is Extract<Clause, { c: 'with' | 'return' }> {
  if (clause.optional || rows.length > 1 || !streamable(clause.patterns)) return false;
  if (next.c !== 'with' && next.c !== 'return') return false;
  const proj = next.projection;
  return aggregates(proj) && ![...proj.items.map((i) => i.expr), ...proj.orderBy.map((o) => o.expr)].some(hasPatternExpr);
}

async function groupMatches(clause: Extract<Clause, { c: 'match' }>, next: Extract<Clause, { c: 'with' | 'return' }>, rows: Row[], ctx: ExecContext): Promise<Grouping> {
  const proj = next.projection;
  let grouping: Grouping | null = null;
  const exprs = [...proj.items.map((i) => i.expr), ...proj.orderBy.map((o) => o.expr)];
  const details = readsDetails(exprs);
  // A WITH's WHERE commutes with its DISTINCT and ORDER BY (not with SKIP / LIMIT): groups finished
  // early are filtered at once, and only those it keeps are held (it is applied again after, to no effect).
  const where = next.c === 'with' && next.where !== null && proj.skip === null && proj.limit === null ? next.where : null;
  const keep = async (groups: Projected[]) => {
    if (where === null) return groups;
    const projected = groups.map((g) => g.projected);
    if (readsDetails([where])) await ctx.ensureRows(projected);
    const withPattern = await withPatterns([where], projected, ctx);
    return groups.filter((_, i) => truth(evaluate(where, withPattern[i], ctx), where, ctx) === true);
  };
  await runMatch(clause, rows, ctx, undefined, async (batch, anchor) => {
    // Matches come anchor node by anchor node: when the anchor is a grouping key, its groups are complete once the next begins.
    grouping ??= new Grouping(proj, ctx, anchor !== null && Grouping.keyedBy(proj, anchor) ? anchor : null);
    if (details) await ctx.ensureRows(batch);
    grouping.add(batch);
    await grouping.settle(keep);
    ctx.checkRows(grouping.size);
  });
  return grouping ?? new Grouping(proj, ctx);
}

async function runClause(clause: Clause, rows: Row[], ctx: ExecContext, grouped?: Grouping): Promise<Row[]> {
  switch (clause.c) {
    case 'match':
      return runMatch(clause, rows, ctx);
    case 'unwind': {
      const out: Row[] = [];
      if (readsDetails([clause.expr])) await ctx.ensureRows(rows);
      for (const row of await withPatterns([clause.expr], rows, ctx)) {
        const v = evaluate(clause.expr, row, ctx);
        const items = v === null ? [] : Array.isArray(v) ? v : [v];
        for (const item of items) out.push({ ...row, [clause.alias]: item });
        ctx.checkRows(out.length);
      }
      return out;
    }
    case 'with': {
      const projected = await project(clause.projection, rows, ctx, grouped);
      if (!clause.where) return projected;
      const where = clause.where;
      if (readsDetails([where])) await ctx.ensureRows(projected);
      return (await withPatterns([where], projected, ctx)).filter((r) => truth(evaluate(where, r, ctx), where, ctx) === true);
    }
    case 'return':
      return project(clause.projection, rows, ctx, grouped);
    default:
      throw new CypherError('updating clauses are not supported');
  }
}

const INDEX = '\u0000row';

async function runMatch(clause: Extract<Clause, { c: 'match' }>, rows: Row[], ctx: ExecContext, stopAfter?: number, sink?: (rows: Row[], anchor: string | null) => Promise<void>): Promise<Row[]> {
  if (sink !== undefined) {
    // Streamed (groupsMatches): each batch of matches finished as below (WHERE's rest, relationship properties), then handed on.
    const tagged = rows.map((r, i) => ({ ...r, [INDEX]: i }));
    await matchParts(clause.patterns, tagged, conjuncts(clause.where), ctx, undefined, async (matched, pending, anchor) => {
      const kept = await finishMatches(matched, pending, ctx);
      // The grouping reads variables only (and `*` leaves out the \u0000 keys): no copy without the row index.
      if (kept.length > 0) await sink(kept, anchor);
    });
    return [];
  }
  if (ctx.plan.matchOnce && rows.length > 1 && stopAfter === undefined && independent(clause, rows[0])) {
    ctx.plan.matchOnceTaken++;
    // Reads nothing the rows hold: matched once, every row takes the same matches (the order each row's own matching gives).
    const once = await runMatch(clause, [{}], ctx);
    const out: Row[] = [];
    for (const row of rows) {
      for (const m of once) out.push({ ...row, ...m });
      ctx.checkRows(out.length);
    }
    return out;
  }
  const tagged = rows.map((r, i) => ({ ...r, [INDEX]: i }));
  let { rows: matched, pending } = await matchParts(clause.patterns, tagged, conjuncts(clause.where), ctx, stopAfter);
  // Stopping early is exact only when WHERE was applied entirely while matching: else (when it may have stopped) match everything.
  if (stopAfter !== undefined && pending.length > 0 && matched.length >= stopAfter) ({ rows: matched, pending } = await matchParts(clause.patterns, tagged, conjuncts(clause.where), ctx));
  const kept = await finishMatches(matched, pending, ctx);
  if (!clause.optional) return kept.map(strip);
  const hit = new Set(kept.map((r) => r[INDEX] as number));
  const fresh = clause.patterns.flatMap(patternVariables);
  const byInput = new Map<number, Row[]>();
  for (const r of kept) {
    const i = r[INDEX] as number;
    const list = byInput.get(i) ?? [];
    list.push(strip(r));
    byInput.set(i, list);
  }
  const out: Row[] = [];
  for (let i = 0; i < rows.length; i++) {
    if (hit.has(i)) {
      out.push(...byInput.get(i)!);
      continue;
    }
    const row: Row = { ...rows[i] };
    for (const v of fresh) if (!(v in row)) row[v] = null;
    out.push(row);
  }
  return out;
}

/** The matches WHERE's pending conjuncts keep, with their relationships' properties loaded when expressions read them. */
async function finishMatches(matched: Row[], pending: Expr[], ctx: ExecContext): Promise<Row[]> {
  let kept = matched;
  if (pending.length > 0) {
    if (ctx.wantEdgeProps) await ctx.ensureEdgeProps(relIds(matched));
    if (readsDetails(pending)) await ctx.ensureRows(matched, variablesOf(pending));
    kept = (await withPatterns(pending, matched, ctx)).filter((r) => pending.every((c) => truth(evaluate(c, r, ctx), c, ctx) === true));
  }
  if (ctx.wantEdgeProps) await ctx.ensureEdgeProps(relIds(kept));
  return kept;
}

/**
 * Whether a MATCH reads no variable of the incoming rows (its patterns, property maps and WHERE), so
 * its matches are the same for every row. A MATCH with a variable-length relationship lists its
 * matches by length across all rows, so it only counts when OPTIONAL (whose matches are listed per row).
 */
function independent(clause: Extract<Clause, { c: 'match' }>, row: Row): boolean {
  if (!clause.optional && clause.patterns.some((p) => !p.shortest && p.rels.some((r) => r.range !== null))) return false;
  const reads = new Set<string>();
  for (const p of clause.patterns) {
    for (const name of patternVariables(p)) reads.add(name);
    for (const e of patternExprs(p)) freeVariables(e, reads);
  }
  if (clause.where) freeVariables(clause.where, reads);
  for (const name of reads) if (name in row) return false;
  return true;
}

function strip(row: Row): Row {
  const out: Row = {};
  for (const k of Object.keys(row)) if (!k.startsWith('\u0000')) out[k] = row[k];
  return out;
}

function relIds(rows: Row[]): number[] {
  const ids: number[] = [];
  const visit = (v: Value) => {
    if (v === null || typeof v !== 'object') return;
    if (Array.isArray(v)) v.forEach(visit);
    else if ('type' in v && 'start' in v && typeof (v as { id: unknown }).id === 'number') ids.push((v as { id: number }).id);
    else if ('rels' in v && Array.isArray((v as { rels: unknown }).rels)) (v as { rels: Array<{ id: number }> }).rels.forEach((r) => ids.push(r.id));
  };
  for (const r of rows) for (const v of Object.values(r)) visit(v);
  return ids;
}

/**
 * Precomputes the pattern expressions (predicates and comprehensions) of `exprs` for every row, into
 * the row slot the evaluator reads (one batched match per pattern, not one per row).
 */
export async function withPatterns(exprs: Expr[], rows: Row[], ctx: ExecContext): Promise<Row[]> {
  const patterns: Array<Extract<Expr, { t: 'pattern' | 'patcomp' }>> = [];
  const find = (e: Expr) => {
    if (e.t === 'pattern' || e.t === 'patcomp') patterns.push(e);
    if (e.t === 'quant' || e.t === 'listcomp' || e.t === 'reduce') return; // local scopes: not precomputable
    for (const c of children(e)) find(c);
  };
  exprs.forEach(find);
  if (patterns.length === 0 || rows.length === 0) return rows;
  const out: Row[] = rows.map((r, i) => ({ ...r, [INDEX]: i }));
  if (readsDetails(exprs)) await ctx.ensureRows(out);
  for (const e of patterns) {
    const key = ctx.patternKey(e);
    const { rows: matched, pending } = await matchParts([e.pattern], out, e.t === 'patcomp' ? conjuncts(e.where) : [], ctx);
    let kept = matched;
    if (readsDetails([...(e.t === 'patcomp' ? [e.map] : []), ...pending])) await ctx.ensureRows(matched);
    if (pending.length > 0) kept = matched.filter((r) => pending.every((c) => truth(evaluate(c, r, ctx), c, ctx) === true));
    const results = new Map<number, Value[]>();
    for (const r of kept) {
      const i = r[INDEX] as number;
      const list = results.get(i) ?? [];
      list.push(e.t === 'patcomp' ? evaluate(e.map, r, ctx) : (r as Row)[e.pattern.pathVariable ?? ''] ?? true);
      results.set(i, list);
    }
    for (const r of out) r[key] = results.get(r[INDEX] as number) ?? [];
  }
  return out;
}

/** WITH / RETURN: projection (with grouping when it aggregates), DISTINCT, ORDER BY, SKIP, LIMIT. */
async function project(proj: Projection, rows: Row[], ctx: ExecContext, grouped?: Grouping): Promise<Row[]> {
  let out: Projected[];
  if (grouped !== undefined) out = grouped.finish();
  else {
    const exprs = [...proj.items.map((i) => i.expr), ...proj.orderBy.map((o) => o.expr)];
    if (readsDetails(exprs)) await ctx.ensureRows(rows);
    const input = await withPatterns(exprs, rows, ctx);
    out = aggregateRows(proj, input, ctx);
  }
  if (proj.distinct) {
    const seen = new Set<string>();
    out = out.filter(({ projected }) => {
      const key = Object.values(projected).map(groupKey).join('|');
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
  }
  if (proj.orderBy.length > 0) {
    const keyed = out.map((o) => ({ o, keys: proj.orderBy.map((s) => evaluate(s.expr, { ...o.scope, ...o.projected }, ctx, o.aggregates)) }));
    keyed.sort((a, b) => {
      for (let i = 0; i < proj.orderBy.length; i++) {
        const c = orderCompare(a.keys[i], b.keys[i]);
        if (c !== 0) return proj.orderBy[i].descending ? -c : c;
      }
      return 0;
    });
    out = keyed.map((k) => k.o);
  }
  const skip = proj.skip ? count(proj.skip, 'SKIP', ctx) : 0;
  const limit = proj.limit ? count(proj.limit, 'LIMIT', ctx) : Infinity;
  return out.slice(skip, skip + limit).map((o) => o.projected);
}


function count(e: Expr, what: string, ctx: ExecContext): number {
  const v = evaluate(e, {}, ctx);
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0) return ctx.fail(e.at, `${what} must be a non-negative integer`);
  return v;
}

function visitQuery(prepared: PreparedQuery, onExpr: (e: Expr) => void, onPattern: (p: PatternPart) => void): void {
  const visitExpr = (e: Expr) => {
    onExpr(e);
    if (e.t === 'pattern' || e.t === 'patcomp') onPattern(e.pattern);
    for (const c of children(e)) visitExpr(c);
  };
  const visitValue = (v: unknown): void => {
    if (Array.isArray(v)) return v.forEach(visitValue);
    if (!v || typeof v !== 'object') return;
    if ('t' in v && 'at' in v) return visitExpr(v as Expr);
    if ('nodes' in v && 'rels' in v && 'shortest' in v) {
      onPattern(v as PatternPart);
    }
    for (const x of Object.values(v)) visitValue(x);
  };
  for (const part of prepared.query.parts) for (const c of part.clauses) visitValue(c);
}
