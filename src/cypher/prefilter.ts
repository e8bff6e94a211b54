/**
 * What a step tests its matches by before rows are made of them (match.ts step): the WHERE conjuncts
 * that columns decide, compiled (prefilterOf, prefilterPasses), the columns they read (columnsFor: kept,
 * wide and relationship columns, objectid tail hashes), and the set of nodes a far end may be from a scan
 * of its own conjuncts (farEndsOf). Each only drops matches WHERE would drop: the rest is WHERE's, as before.
 */
import type { Expr, NodePattern } from './ast.ts';
import { edgeCount } from './adjacency.ts';
import { compile, type Compiled } from './compiled.ts';
import { NEEDS_DETAILS, type ExecContext } from './context.ts';
import { tailsWanted, truth } from './eval.ts';
import type { Pushdown } from './graph-source.ts';
import { literalOf, pushdownOf, requiredLabel } from './plan.ts';
import { positionIndex, wideKey, type Column } from './property-columns.ts';
import { NodeRef, RelRef, type Row } from './values.ts';
import { children, freeVariables, readsDetails } from './walk.ts';

/**
 * Whether a question over `rows` rows (all batches) is worth a wide column: a pass over every node's
 * properties costs about a third of reading the details of as many nodes, so over a third of the graph's
 * nodes (and ctx.plan.wideAt, unless a test sets it).
 */
function wideEnough(rows: number, ctx: ExecContext): boolean {
  return rows >= (ctx.plan.wideAt ?? Math.max(WIDE_AT, ctx.view.nodeCount / 3));
}
/** Fewest rows for a wide column. */
const WIDE_AT = 20_000;

/**
 * The columns for the node properties a conjunct reads (`sample`: a row binding its variables), into
 * ctx.probeColumns: kept columns, else, over many rows (wideEnough), wide columns (every node
 * holding the key, read in one pass for all of them: `a.domainsid <> b.domainsid`, `n.enabled`, `n.name`),
 * and the objectid tail hashes for suffix tests. Whether every property it reads is so covered.
 */
export async function columnsFor(c: Expr, sample: Row, rowCount: number, ctx: ExecContext, read = true, relKinds?: ReadonlyMap<string, readonly string[]>): Promise<boolean> {
  const keys = new Set<string>();
  const relKeys = new Set<string>();
  let relVar: string | null = null;
  let covered = true;
  let tails = false;
  const visit = (e: Expr) => {
    if (tailsWanted(e) !== null && e.t === 'strop' && e.left.t === 'prop' && e.left.target.t === 'var' && sample[e.left.target.name] instanceof NodeRef) {
      // An objectid suffix test: decided by the objectid tail hashes for most nodes.
      tails = true;
      return;
    }
    if (e.t === 'prop' && e.target.t === 'var') {
      const v = sample[e.target.name];
      if (v instanceof NodeRef) keys.add(e.key);
      else if (v instanceof RelRef && relKinds?.has(e.target.name) && (relVar === null || relVar === e.target.name)) {
        relVar = e.target.name;
        relKeys.add(e.key);
      } else covered = false;
    } else if (e.t === 'prop' || e.t === 'index' || (e.t === 'call' && ['properties', 'keys'].includes(e.name.toLowerCase()))) covered = false;
    children(e).forEach(visit);
  };
  visit(c);
  const wide: string[] = [];
  for (const key of keys) {
    if (ctx.probeColumns.has(key)) continue;
    // A column held already (the node store's, a kept or wide one): read at no cost, whatever the rows.
    const held = ctx.source.heldColumn(key);
    if (held !== null) {
      ctx.probeColumns.set(key, held);
      ctx.plan.storeTaken++;
      continue;
    }
    if (!read) return false;
    const column = await ctx.source.keptColumn(key);
    if (column !== null) ctx.probeColumns.set(key, column);
    else if (wideEnough(rowCount, ctx) && wideKey(key)) wide.push(key);
    else covered = false;
  }
  if (covered && wide.length > 0) {
    const read = await ctx.source.wideColumns(wide);
    if (read === null) covered = false;
    else {
      for (const [key, column] of read) ctx.probeColumns.set(key, column);
      ctx.plan.wideTaken++;
    }
  }
  // Relationship properties (`r.isprimarygroup` of a `[r:MemberOf]` step): columns over the relationships of the step's kinds.
  for (const key of relKeys) {
    if (!covered) break;
    const kinds = relKinds!.get(relVar!)!;
    const held = ctx.probeEdgeColumns.get(key);
    if (held !== undefined && kinds.every((k) => held.kinds.has(k))) continue;
    if (!read || !wideEnough(rowCount, ctx)) {
      covered = false;
      break;
    }
    const column = await ctx.source.edgeColumn(key, kinds, edgeCount(ctx.view, kinds));
    if (column === null) covered = false;
    else {
      ctx.probeEdgeColumns.set(key, column);
      ctx.plan.edgeColumnsTaken++;
    }
  }
  if (tails && ctx.objectidTails === null && read) ctx.objectidTails = await ctx.source.objectidTails();
  if (tails && ctx.objectidTails === null) covered = false;
  return covered && (keys.size > 0 || relKeys.size > 0 || tails);
}

/**
 * The conjuncts a step's matches are tested by before rows are made of them (`sample`: a row as the
 * step makes them): those ready once the step has bound its node and relationship, with no pattern, that
 * read no details (labels, types) or read node properties only from columns (columnsFor; `read`: columns
 * not held yet may be read, else only those the query holds already). Null when none.
 */
export async function prefilterOf(where: Expr[], sample: Row, rowCount: number, ctx: ExecContext, read: boolean, relKinds?: ReadonlyMap<string, readonly string[]>): Promise<Prefilter | null> {
  if (!ctx.plan.prefilter) return null;
  const out: Prefilter = [];
  for (const c of where) {
    if (hasPattern(c) || ![...freeVariables(c)].every((v) => v in sample)) continue;
    if (!readsDetails([c]) || (await columnsFor(c, sample, rowCount, ctx, read, relKinds))) out.push({ expr: c, test: compile(c, ctx) });
  }
  if (out.length > 0) ctx.plan.prefilterTaken++;
  return out.length > 0 ? out : null;
}

/**
 * Whether a match (its row: `scratch`) may pass the prefilter's conjuncts: false when one of them is
 * decided not true without details (by labels, kept columns, objectid tails), as filterReady would decide
 * it. A conjunct that needs details, or fails with an error, leaves the row to filterReady (which reads
 * them, or raises the error).
 */
export function prefilterPasses(conjuncts: Prefilter, scratch: Row, ctx: ExecContext): boolean {
  ctx.probing = true;
  try {
    for (let i = 0; i < conjuncts.length; i++) {
      const c = conjuncts[i];
      let v: boolean | null;
      try {
        v = truth(c.test(scratch), c.expr, ctx);
      } catch (err) {
        if (err === NEEDS_DETAILS) continue;
        return true;
      }
      if (v !== true) return false;
    }
    return true;
  } finally {
    ctx.probing = false;
  }
}

/**
 * An upper bound of a one-step walk's matches: the edges of any kind at its start nodes in its direction
 * (a longer or undirected step: the number of its start nodes).
 */
export function estimateWalk(starts: readonly number[], direction: 'outbound' | 'inbound' | 'both', oneStep: boolean, ctx: ExecContext): number {
  if (!oneStep || direction === 'both') return starts.length;
  const g = ctx.view.graph;
  let n = 0;
  for (const id of starts) {
    const at = g.position(id);
    if (at < 0) continue;
    n += direction === 'outbound' ? g.outStart[at + 1] - g.outStart[at] : g.inStart[at + 1] - g.inStart[at];
  }
  return n;
}

/** Most nodes a far-end set holds (a scan finding more: not used). */
const MAX_FAR_ENDS = 100_000;

/** The conjuncts of `where` on the step's far end alone that a scan can narrow by (`n.name STARTS WITH "DNSADMINS@"`). */
function farConjuncts(target: NodePattern, where: Expr[]): Array<{ c: Expr; p: Pushdown }> {
  const out: Array<{ c: Expr; p: Pushdown }> = [];
  if (target.variable === null) return out;
  for (const c of where) {
    const vars = freeVariables(c);
    if (vars.size !== 1 || !vars.has(target.variable) || hasPattern(c)) continue;
    const p = pushdownOf(c, target.variable, literalOf, true);
    // Presence tests narrow little: left to the prefilter and WHERE. Labels and tags are the engine's, and
    // lastseen is read from its own column: only property tests, as narrowInSql.
    if (p !== null && p.op !== 'notnull' && propertyTests(p)) out.push({ c, p });
  }
  return out;
}

/** Whether every test of a pushdown (through its ORs) is on a node property other than lastseen: no label, no tag. */
function propertyTests(p: Pushdown): boolean {
  if (p.op === 'or') return p.parts.every(propertyTests);
  return p.op !== 'tag' && p.op !== 'kind' && p.key !== 'lastseen';
}

/** The far-end set of the step's conjuncts this query has scanned already (farEndsOf; null: too many), or undefined. */
export function farEndsHeld(target: NodePattern, where: Expr[], ctx: ExecContext): ReadonlySet<number> | null | undefined {
  return heldFor(farConjuncts(target, where), ctx);
}

function heldFor(conjuncts: Array<{ c: Expr; p: Pushdown }>, ctx: ExecContext): ReadonlySet<number> | null | undefined {
  if (conjuncts.length === 0 || !ctx.plan.farEnds) return null;
  const key = conjuncts.map((x) => x.c);
  for (const [held, ids] of ctx.farEnds) if (held.length === key.length && held.every((c, i) => c === key[i])) return ids;
  return undefined;
}

/**
 * The nodes a step's far end may be, from the WHERE conjuncts on it alone that a scan can narrow by
 * (a superset: WHERE still decides): scanned once per query (kept columns, wide columns or SQL, as a start
 * node's scan), so a walk over a million memberships tests each far end in a set instead of reading its
 * details. Null when there are none, or more than MAX_FAR_ENDS nodes may pass.
 */
export async function farEndsOf(target: NodePattern, where: Expr[], ctx: ExecContext): Promise<ReadonlySet<number> | null> {
  const conjuncts = farConjuncts(target, where);
  const held = heldFor(conjuncts, ctx);
  if (held !== undefined) return held;
  const ids = await ctx.source.scan({ kind: requiredLabel(target.labels), predicates: conjuncts.map((x) => x.p) }, true);
  ctx.charge(ids.length);
  const set = ids.length > MAX_FAR_ENDS ? null : new Set(ids);
  ctx.farEnds.push([conjuncts.map((x) => x.c), set]);
  if (set !== null) ctx.plan.farEndsTaken++;
  return set;
}

/** A step's prefilter: its conjuncts, each compiled (compiled.ts). */
export type Prefilter = Array<{ expr: Expr; test: Compiled }>;

export function hasPattern(c: Expr): boolean {
  const text = JSON.stringify(c);
  return text.includes('"t":"pattern') || text.includes('"t":"patcomp');
}

/**
 * A prefilter conjunct comparing one property of a step's start node with one of its far end
 * (`s.domainsid <> t.domainsid`, `a.x = b.x`), both read from columns: each column's values as small codes
 * by snapshot position (equal primitive values, equal codes; -1 no value, -2 a list or map), so a match is
 * tested by two array reads before its scratch row is made. Only drops what the conjunct drops (a null
 * side, or codes deciding it not true); the prefilter and WHERE still test what it lets through.
 */
export interface PairTest {
  start: Int32Array;
  end: Int32Array;
  equal: boolean;
}

const codesByColumn = new WeakMap<object, { graph: object; codes: Int32Array }>();

function codesOf(column: Column, ctx: ExecContext): Int32Array {
  const graph = ctx.view.graph;
  const held = codesByColumn.get(column);
  if (held !== undefined && held.graph === graph) return held.codes;
  const index = positionIndex(column, graph);
  const codes = new Int32Array(graph.nodeCount);
  const known = new Map<unknown, number>();
  for (let p = 0; p < codes.length; p++) {
    const at = index[p];
    const v = at < 0 ? null : (column.values[at] as unknown) ?? null;
    if (v === null) codes[p] = -1;
    else if (typeof v === 'object') codes[p] = -2;
    else {
      let code = known.get(v);
      if (code === undefined) known.set(v, (code = known.size));
      codes[p] = code;
    }
  }
  codesByColumn.set(column, { graph, codes });
  return codes;
}

/** The pair tests of a step's prefilter (`startVar`: the start node's variable, `endVar`: the far end's). */
export function pairTestsOf(pre: Prefilter | null, startVar: string | null, endVar: string | null, ctx: ExecContext): PairTest[] {
  if (pre === null || startVar === null || endVar === null || startVar === endVar) return [];
  const out: PairTest[] = [];
  for (const { expr: e } of pre) {
    if (e.t !== 'cmp' || e.ops.length !== 1 || (e.ops[0] !== '<>' && e.ops[0] !== '=')) continue;
    const [l, r] = e.args;
    if (l.t !== 'prop' || r.t !== 'prop' || l.target.t !== 'var' || r.target.t !== 'var') continue;
    const sides = l.target.name === startVar && r.target.name === endVar ? [l.key, r.key] : l.target.name === endVar && r.target.name === startVar ? [r.key, l.key] : null;
    if (sides === null) continue;
    const a = ctx.probeColumns.get(sides[0]);
    const b = ctx.probeColumns.get(sides[1]);
    if (a === undefined || b === undefined) continue;
    if (a !== b) continue; // codes are per column: the same key on both sides
    const codes = codesOf(a, ctx);
    out.push({ start: codes, end: codes, equal: e.ops[0] === '=' });
  }
  return out;
}

/** Whether a match (start and far end by snapshot position) may pass its pair tests: false only when one of them is decided not true. */
export function pairPasses(tests: PairTest[], startPos: number, endPos: number): boolean {
  for (let i = 0; i < tests.length; i++) {
    const t = tests[i];
    const a = startPos < 0 ? -2 : t.start[startPos];
    const b = t.end[endPos];
    if (a === -2 || b === -2) continue;
    if (a === -1 || b === -1) return false;
    if ((a === b) !== t.equal) return false;
  }
  return true;
}
