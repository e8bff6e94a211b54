import type { Expr, NodePattern, PatternPart, RelPattern } from './ast.ts';
import { NEEDS_DETAILS, type ExecContext } from './context.ts';
import { evaluate, labelsMatch, truth } from './eval.ts';
import type { Edge } from '../graph/engine/index.ts';
import { expandTypes } from './macros.ts';
import { estimateNodes, labelNames, literalOf, pushdownOf, type ConstantOf, type NodeEstimate } from './plan.ts';
import { edgePushdownable, type Pushdown } from './graph-source.ts';
import { nodesWithEdges, edgeCount, type EndDirection } from './adjacency.ts';
import { shortestPaths } from './shortest.ts';
import { columnsFor, estimateWalk, farEndsHeld, farEndsOf, hasPattern, pairPasses, pairTestsOf, prefilterOf, prefilterPasses, type PairTest, type Prefilter } from './prefilter.ts';
import { equals, NodeRef, PathValue, RelRef, type Row, type Value } from './values.ts';
import { freeVariables, readsDetails } from './walk.ts';

/** A partial match of one pattern part: the row plus where each node / relationship of the part landed. */
export interface Partial {
  row: Row;
  nodes: Array<number | undefined>;
  /** Per relationship pattern: the relationships walked (one for a single hop) and the nodes between them, in pattern order. */
  segs: Array<{ rels: RelRef[]; mids: number[] } | undefined>;
  /** Relationship ids used so far in this MATCH (relationship uniqueness). */
  used: Set<number>;
}

/**
 * Matches a MATCH clause's pattern parts against rows, applying each WHERE conjunct as soon as its
 * variables are bound. Returns the extended rows (the caller evaluates what remains of WHERE).
 */
export async function matchParts(parts: PatternPart[], rows: Row[], where: Expr[], ctx: ExecContext, stopAfter?: number, sink?: MatchSink): Promise<{ rows: Row[]; pending: Expr[] }> {
  let partials: Array<{ row: Row; used: Set<number> }> = rows.map((row) => ({ row, used: new Set() }));
  let pending = [...where];
  if (sink !== undefined && !streamable(parts)) throw new Error('internal: matches streamed from a part that cannot stream them');
  for (const part of parts) {
    const next: Array<{ row: Row; used: Set<number> }> = [];
    const matched = await matchPart(part, partials, pending, ctx, parts.length === 1 ? stopAfter : undefined, sink, part === parts[parts.length - 1]);
    for (const p of matched.partials) next.push({ row: p.row, used: p.used });
    pending = matched.pending;
    partials = next;
    ctx.checkRows(partials.length);
    if (partials.length === 0) break;
  }
  return { rows: partials.map((p) => p.row), pending };
}

/**
 * Takes the matches of a part a batch at a time, in the order matching them all gives, with the WHERE
 * conjuncts still pending on them and the variable of the node they start from (all matches of one
 * such node come together); matchParts then returns no rows.
 */
export type MatchSink = (rows: Row[], pending: Expr[], anchor: string | null) => Promise<void>;

/**
 * Whether a MATCH's matches can be streamed to a sink (one part of fixed-length relationships, not
 * shortestPath: its matches come out in anchor order, so anchors extended a chunk at a time give them
 * in the same order as all at once).
 */
export function streamable(parts: readonly PatternPart[]): boolean {
  return parts.length === 1 && !parts[0].shortest && parts[0].rels.every((r) => r.range === null);
}

/** Matches handed on by a step as they are filtered, with the conjuncts still pending on them (in order). */
type Emit = (matched: Partial[], pending: Expr[]) => Promise<void>;

/** Anchors extended together when matches are streamed to a sink. */
const SINK_CHUNK = 2048;

/** Most anchors extended together when a part may stop early (LIMIT pushdown); chunks start small and double. */
const STOP_CHUNK = 4096;

/**
 * `stopAfter`: the caller needs only the first rows (LIMIT pushdown). Honoured for a part of
 * fixed-length relationships only, whose matches come out in anchor order: the anchors are then
 * extended a chunk at a time, stopping once `stopAfter` matches exist; the first matches are the
 * same as without it. (Variable-length steps order matches by length across all anchors: no early stop.)
 */
async function matchPart(given: PatternPart, inputs: Array<{ row: Row; used: Set<number> }>, where: Expr[], ctx: ExecContext, stopAfter?: number, sink?: MatchSink, lastPart = false) {
  const bound = new Set(Object.keys(inputs[0]?.row ?? {}));
  const narrowed = ctx.plan.edgePushdown ? narrowTypes(given, bound, where) : { part: given, decided: new Set<Expr>() };
  const part = narrowed.part;
  // The conjuncts the narrowed type lists decide are true on every match: not evaluated again.
  if (narrowed.decided.size > 0) where = where.filter((c) => !narrowed.decided.has(c));
  const counts = await labelCounts(part, ctx);
  const estimates = estimateNodes(part, bound, where, (l) => counts.get(l) ?? Infinity, constantsFor(inputs, ctx), ctx.plan.presence);
  const allowed = ctx.plan.edgePushdown ? await relationshipFilters(part, bound, where, constantsFor(inputs, ctx), ctx) : new Map<number, RelFilter>();
  const ends = ctx.plan.edgeAnchors ? endCandidates(part, estimates, ctx, allowed) : new Map<number, Float64Array>();
  let anchor = estimates.reduce((best, e) => (e.score < best.score ? e : best), estimates[0]);
  if (part.shortest) anchor = estimates[0].score <= estimates[part.nodes.length - 1].score ? estimates[0] : estimates[part.nodes.length - 1];
  if (ends.has(anchor.index)) ctx.plan.edgeAnchorsTaken++;
  if (anchor.pushdowns.some((p) => p.op === 'notnull')) ctx.plan.presenceTaken++;
  if (part.shortest && stopAfter !== undefined) return shortestFirst(part, anchor, estimates, ends.get(anchor.index), inputs, where, ctx, stopAfter);
  let partials: Partial[] = [];
  let pending: Expr[] = where;
  const applyReady = async () => {
    ({ partials, pending } = await filterReady(partials, pending, ctx));
  };
  // The relationships used so far matter to the steps after (relationship uniqueness): not after the MATCH's last step.
  const lastStep = anchor.index > 0 ? 0 : part.rels.length - 1;
  const keepUsed = (i: number) => !lastPart || i !== lastStep;
  // `enough`: the rows wanted (LIMIT pushdown); the last step stops once it has kept them, even within one node's edges.
  // `emit`: the last step hands its matches on as they are filtered (never holding one start node's millions).
  const extend = async (enough?: number, emit?: Emit) => {
    for (let i = anchor.index; i < part.rels.length && partials.length > 0; i++) {
      ({ partials, pending } = await step(part, i, 'right', partials, pending, ctx, allowed.get(i), keepUsed(i), i === lastStep ? enough : undefined, i === lastStep ? emit : undefined));
      await applyReady();
    }
    for (let i = anchor.index - 1; i >= 0 && partials.length > 0; i--) {
      ({ partials, pending } = await step(part, i, 'left', partials, pending, ctx, allowed.get(i), keepUsed(i), i === lastStep ? enough : undefined, i === lastStep ? emit : undefined));
      await applyReady();
    }
  };
  if (sink !== undefined) {
    // Streamed: anchors a chunk at a time, each chunk's matches handed on (never all rows at once).
    let after: Expr[] | null = null;
    const anchored = await anchorPartials(part, anchor, ends.get(anchor.index), inputs, where, ctx, async (chunk, before) => {
      const hand = async (matched: Partial[], left: Expr[]) => {
        after = left;
        if (part.pathVariable) for (const p of matched) p.row[part.pathVariable] = pathOf(p);
        await sink(matched.map((p) => p.row), left, part.nodes[anchor.index].variable);
      };
      for (let at = 0; at < chunk.length; at += SINK_CHUNK) {
        partials = chunk.slice(at, at + SINK_CHUNK);
        pending = before;
        // The last step's matches go to the sink as they come, in the same order (a start node with
        // more relationships than the row bound: 'Non-Tier Zero account with excessive control').
        await extend(undefined, part.rels.length > 0 ? hand : undefined);
        if (partials.length > 0) await hand(partials, pending);
        await ctx.breathe();
      }
      return false;
    });
    return { partials: [], pending: after ?? anchored.pending };
  }
  if (stopAfter !== undefined && !part.shortest && part.rels.every((r) => r.range === null)) {
    // Anchors streamed (a chunk bound and filtered at a time), extended in growing chunks until enough rows exist.
    const out: Partial[] = [];
    let after: Expr[] | null = null;
    let size = Math.min(STOP_CHUNK, Math.max(16, stopAfter));
    const anchored = await anchorPartials(part, anchor, ends.get(anchor.index), inputs, where, ctx, async (chunk, before) => {
      for (let at = 0; at < chunk.length && out.length < stopAfter; at += size, size = Math.min(STOP_CHUNK, 2 * size)) {
        partials = chunk.slice(at, at + size);
        pending = before;
        await extend(stopAfter - out.length);
        // Every chunk with matches binds the same variables, so leaves the same conjuncts pending.
        if (partials.length > 0) after = pending;
        for (const p of partials) out.push(p);
        ctx.checkRows(out.length);
      }
      return out.length >= stopAfter;
    }, true);
    partials = out;
    pending = after ?? anchored.pending;
  } else if (part.shortest) {
    ({ partials, pending } = await anchorPartials(part, anchor, ends.get(anchor.index), inputs, where, ctx));
    const far = estimates[anchor.index === 0 ? part.nodes.length - 1 : 0];
    partials = await shortestPaths(part, anchor.index, partials, ctx, await shortestTargets(part.nodes[far.index], far, ctx));
  } else {
    ({ partials, pending } = await anchorPartials(part, anchor, ends.get(anchor.index), inputs, where, ctx));
    await extend();
  }
  if (part.pathVariable) {
    for (const p of partials) p.row[part.pathVariable] = pathOf(p);
  }
  return { partials, pending };
}

/**
 * A shortestPath part when only its first `stopAfter` rows are needed (LIMIT pushdown): start nodes
 * are bound a chunk at a time and searched from in order, rows come per start node in breadth-first
 * order of the far ends with WHERE applied as they come, and it stops once enough are kept: the same
 * first rows as searching from every start node.
 */
async function shortestFirst(
  part: PatternPart, anchor: NodeEstimate, estimates: NodeEstimate[], ends: Float64Array | undefined,
  inputs: Array<{ row: Row; used: Set<number> }>, where: Expr[], ctx: ExecContext, stopAfter: number,
): Promise<{ partials: Partial[]; pending: Expr[] }> {
  const far = estimates[anchor.index === 0 ? part.nodes.length - 1 : 0];
  const targets = await shortestTargets(part.nodes[far.index], far, ctx);
  const out: Partial[] = [];
  let after: Expr[] | null = null;
  const anchored = await anchorPartials(part, anchor, ends, inputs, where, ctx, async (chunk, pending) => {
    const rows = await shortestPaths(part, anchor.index, chunk, ctx, targets, {
      stopAfter: stopAfter - out.length,
      keep: async (batch) => {
        const kept = await filterReady(batch, pending, ctx);
        if (batch.length > 0) after = kept.pending;
        return kept.partials;
      },
    });
    out.push(...rows);
    ctx.checkRows(out.length);
    return out.length >= stopAfter;
  }, true);
  if (part.pathVariable) {
    for (const p of out) p.row[part.pathVariable] = pathOf(p);
  }
  return { partials: out, pending: after ?? anchored.pending };
}

/** Most far-end candidates a shortest-path search aims at (more: it walks on and filters). */
const MAX_TARGETS = 10_000;

/**
 * The far end of a shortestPath pattern, when WHERE or a property map narrows it in SQL (an objectid,
 * say): the nodes it can be (a superset), so the search stops once it has reached them all.
 */
async function shortestTargets(pattern: NodePattern, far: ReturnType<typeof estimateNodes>[number], ctx: ExecContext): Promise<Set<number> | undefined> {
  if (far.bound || far.pushdowns.length === 0) return undefined;
  const ids = await ctx.source.scan({ kind: far.label, predicates: far.pushdowns }, true);
  ctx.charge(ids.length);
  if (ids.length > MAX_TARGETS) return undefined;
  return new Set(ids.filter((id) => nodeMatchesStatic(pattern, id, ctx)));
}

/** Evaluates closed expressions (and, over a single input row, expressions of that row) for pushdowns. */
function constantsFor(inputs: Array<{ row: Row }>, ctx: ExecContext): ConstantOf {
  return (e: Expr) => {
    const literal = literalOf(e);
    if (literal !== undefined) return literal;
    if (freeVariables(e).size > 0 && inputs.length !== 1) return undefined;
    try {
      const v = evaluate(e, inputs[0]?.row ?? {}, ctx);
      if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') return v;
      if (Array.isArray(v) && v.every((x) => typeof x === 'string' || typeof x === 'number' || typeof x === 'boolean')) return v as Array<string | number | boolean>;
    } catch {
      // not a constant here (a type error or a pattern): no pushdown
    }
    return undefined;
  };
}

async function labelCounts(part: PatternPart, ctx: ExecContext): Promise<Map<string | null, number>> {
  const out = new Map<string | null, number>();
  out.set(null, await ctx.source.countKind(null));
  for (const n of part.nodes) {
    for (const l of labelNames(n.labels)) {
      if (out.has(l)) continue;
      out.set(l, await ctx.source.countKind(l));
    }
  }
  return out;
}

/** Anchor candidates bound and filtered this many at a time (rows never pile up before WHERE has narrowed them). */
const ANCHOR_CHUNK = 20_000;
/** Start candidates from relationship kinds are used as they are up to this many (else the SQL scan narrows them too). */
const ENDS_AS_IS = 100_000;

/**
 * Binds the anchor node of a part for every input row (bound variable, or one shared scan) and applies
 * the WHERE conjuncts it makes ready, a chunk of candidates at a time. `ends`: the nodes with an edge of
 * the kinds of a neighbouring relationship (a superset of the anchor's matches), when those are rarer.
 */
async function anchorPartials(
  part: PatternPart, anchor: NodeEstimate, ends: Float64Array | undefined,
  inputs: Array<{ row: Row; used: Set<number> }>, where: Expr[], ctx: ExecContext,
  each?: (chunk: Partial[], pending: Expr[]) => Promise<boolean>,
  mayStop = false,
): Promise<{ partials: Partial[]; pending: Expr[] }> {
  const { index, pushdowns, label } = anchor;
  const pattern = part.nodes[index];
  const fresh = (input: { row: Row; used: Set<number> }, id: number): Partial => {
    const nodes: Array<number | undefined> = new Array(part.nodes.length).fill(undefined);
    nodes[index] = id;
    return { row: pattern.variable ? { ...input.row, [pattern.variable]: new NodeRef(id) } : { ...input.row }, nodes, segs: new Array(part.rels.length).fill(undefined), used: input.used };
  };
  if (pattern.variable && inputs.length > 0 && pattern.variable in inputs[0].row) {
    const out: Partial[] = [];
    for (const input of inputs) {
      const v = input.row[pattern.variable];
      if (v instanceof NodeRef) out.push(fresh(input, v.id));
      else if (v !== null) ctx.fail(pattern.at, `type mismatch: variable '${pattern.variable}' is not a node`);
    }
    if (pattern.props) {
      await ctx.ensureNodes(out.map((p) => p.nodes[index]!));
      await ctx.ensureRows(out.map((p) => p.row));
    }
    const filtered = await filterReady(out.filter((p) => nodeMatches(pattern, p.nodes[index]!, p.row, ctx)), where, ctx);
    if (!each) return filtered;
    if (filtered.partials.length > 0) await each(filtered.partials, filtered.pending);
    return { partials: [], pending: filtered.pending };
  }
  let candidates: readonly number[];
  if (ends !== undefined && (ends.length <= ENDS_AS_IS || pushdowns.length === 0)) candidates = Array.from(ends);
  else {
    candidates = await ctx.source.scan({ kind: label, predicates: pushdowns });
    if (ends !== undefined) {
      const set = new Set(ends);
      candidates = candidates.filter((id) => set.has(id));
    }
  }
  ctx.charge(candidates.length);
  const accepted = candidates.filter((id) => nodeMatchesStatic(pattern, id, ctx));
  if (pattern.props) await ctx.ensureRows(inputs.map((i) => i.row));
  const out: Partial[] = [];
  let pending = where;
  for (const input of inputs) {
    for (let at = 0; at < accepted.length; at += ANCHOR_CHUNK) {
      const chunk = accepted.slice(at, at + ANCHOR_CHUNK);
      const loadedBefore = pattern.props || readsDetails(where) ? new Set(chunk.filter((id) => ctx.nodes.has(id))) : null;
      if (pattern.props) await ctx.ensureNodes(chunk);
      const bound: Partial[] = [];
      for (const id of chunk) if (nodeMatchesProps(pattern, id, input.row, ctx)) bound.push(fresh(input, id));
      // The rows expected over all chunks: every candidate's, unless the caller may stop early (LIMIT pushdown).
      const filtered = await filterReady(bound, where, ctx, mayStop ? bound.length : accepted.length);
      // Every chunk with candidates binds the same variables, so leaves the same conjuncts pending.
      if (bound.length > 0) pending = filtered.pending;
      // Streamed: each chunk is consumed at once and the caller says when it has enough.
      if (each && filtered.partials.length > 0 && (await each(filtered.partials, filtered.pending))) return { partials: [], pending };
      if (!each) out.push(...filtered.partials);
      ctx.checkRows(out.length);
      // Details read only to reject candidates are dropped again (a large scan must not keep them all).
      if (loadedBefore !== null && filtered.partials.length < chunk.length) {
        const kept = new Set(filtered.partials.map((p) => p.nodes[index]!));
        for (const id of chunk) if (!kept.has(id) && !loadedBefore.has(id)) ctx.nodes.delete(id);
      }
      await ctx.breathe();
    }
  }
  return { partials: out, pending };
}

/**
 * For each unbound node of a part next to a relationship with types (at least one step), the nodes
 * having such an edge in the walk's direction, when they are fewer than the node's own estimate:
 * the estimate is lowered to their number (so the planner may start there).
 */
function endCandidates(part: PatternPart, estimates: NodeEstimate[], ctx: ExecContext, allowed: Map<number, RelFilter>): Map<number, Float64Array> {
  const out = new Map<number, Float64Array>();
  for (const e of estimates) {
    if (e.bound) continue;
    const sides: Array<{ r: RelPattern; side: 'right' | 'left'; filter?: RelFilter }> = [];
    if (e.index < part.rels.length) sides.push({ r: part.rels[e.index], side: 'right', filter: allowed.get(e.index) });
    if (e.index > 0) sides.push({ r: part.rels[e.index - 1], side: 'left', filter: allowed.get(e.index - 1) });
    for (const { r, side, filter } of sides) {
      // A pushed-down relationship predicate: the ends of the relationships that may pass it.
      if (filter !== undefined) {
        const set = filter.endsOf(walkDirection(r, side));
        if (set.length + 1 < e.score) {
          e.score = set.length + 1;
          out.set(e.index, set);
        }
        continue;
      }
      if (r.types.length === 0 || (r.range !== null && (r.range.min ?? 1) < 1)) continue;
      const kinds = expandTypes(r.types);
      if (edgeCount(ctx.view, kinds) + 1 >= e.score) continue;
      const set = nodesWithEdges(ctx.view, kinds, walkDirection(r, side) as EndDirection);
      if (set.length + 1 < e.score) {
        e.score = set.length + 1;
        out.set(e.index, set);
      }
    }
  }
  return out;
}

/** A kind no relationship has (a type list narrowed to nothing). */
const NO_KIND = '\u0000none';

/**
 * A part whose one-step relationships with a type list take only the types WHERE lets through:
 * `r:K` / `NOT r:K` (any label expression) is, for a relationship of type k, the same test for every
 * such relationship, so the types failing it are dropped, and the conjunct, true for every type
 * left, is `decided` (not evaluated on the matches).
 */
function narrowTypes(part: PatternPart, bound: ReadonlySet<string>, where: Expr[]): { part: PatternPart; decided: Set<Expr> } {
  let changed = false;
  const decided = new Set<Expr>();
  const rels = part.rels.map((r) => {
    if (part.shortest || r.range !== null || r.variable === null || bound.has(r.variable) || r.types.length === 0) return r;
    let kinds = expandTypes(r.types);
    for (const c of where) {
      const negated = c.t === 'not';
      const test = c.t === 'not' ? c.arg : c;
      if (test.t !== 'haslabels' || test.target.t !== 'var' || test.target.name !== r.variable) continue;
      const labels = test.labels;
      kinds = kinds.filter((k) => labelsMatch(labels, (l) => l === k) !== negated);
      changed = true;
      // True for a relationship of every type left (a relationship of the match is never null).
      decided.add(c);
    }
    return kinds.length === expandTypes(r.types).length ? r : { ...r, types: kinds.length > 0 ? kinds : [NO_KIND] };
  });
  return { part: changed ? { ...part, rels } : part, decided };
}

/** Most relationships a pushed-down relationship predicate may select to be used (more: matched as without it). */
const MAX_REL_FILTER = 100_000;

/** The relationships a one-step relationship pattern may take (a superset), and their ends by walk direction. */
export interface RelFilter extends ReadonlySet<number> {
  endsOf(direction: 'outbound' | 'inbound' | 'both'): Float64Array;
}

/**
 * For each one-step relationship pattern with a variable that WHERE tests on its own properties
 * (`r.isacl`, `r.isprimarygroup = true`): the relationships of its types passing those tests in SQL,
 * when they are few (a superset: WHERE is still evaluated on every row). The walk then takes only
 * those, and the nodes at their ends are start candidates (a property no relationship holds answers at once).
 */
async function relationshipFilters(part: PatternPart, bound: ReadonlySet<string>, where: Expr[], constantOf: ConstantOf, ctx: ExecContext): Promise<Map<number, RelFilter>> {
  const out = new Map<number, RelFilter>();
  if (part.shortest) return out;
  for (const [i, r] of part.rels.entries()) {
    if (r.range !== null || r.variable === null || bound.has(r.variable)) continue;
    const pushdowns: Pushdown[] = [];
    for (const c of where) {
      const vars = freeVariables(c);
      if (vars.size !== 1 || !vars.has(r.variable)) continue;
      const p = pushdownOf(c, r.variable, constantOf, ctx.plan.presence);
      if (p !== null && edgePushdownable(p)) pushdowns.push(p);
    }
    if (pushdowns.length === 0) continue;
    const found = await ctx.source.edgeScan(relKinds(r), pushdowns, MAX_REL_FILTER);
    if (found === null) continue;
    ctx.charge(found.ids.length);
    out.set(i, relFilter(found, ctx));
    ctx.plan.edgePushdownTaken++;
  }
  return out;
}

function relFilter(found: { ids: number[]; starts: number[]; ends: number[] }, ctx: ExecContext): RelFilter {
  const set = new Set(found.ids) as Set<number> & { endsOf?: RelFilter['endsOf'] };
  const sorted = (xs: number[]) => Float64Array.from(new Set(xs.filter((id) => ctx.view.has(id)))).sort();
  set.endsOf = (direction) => sorted(direction === 'outbound' ? found.starts : direction === 'inbound' ? found.ends : [...found.starts, ...found.ends]);
  return set as RelFilter;
}

/** Label test of a node pattern (no row needed). */
export function nodeMatchesStatic(pattern: NodePattern, id: number, ctx: ExecContext): boolean {
  if (!ctx.view.has(id)) return false;
  if (pattern.labels === null) return true;
  // One label (the common case, tested for every node a walk reaches): no closure.
  if (pattern.labels.t === 'label') return ctx.hasLabel(id, pattern.labels.name);
  return labelsMatch(pattern.labels, (l) => ctx.hasLabel(id, l));
}

/** Property-map test of a node pattern, evaluated in the row. */
export function nodeMatchesProps(pattern: NodePattern, id: number, row: Row, ctx: ExecContext): boolean {
  if (pattern.props === null) return true;
  return propsMatch(evaluate(pattern.props, row, ctx), ctx.node(id).properties as Record<string, Value>, pattern.props, ctx);
}

export function nodeMatches(pattern: NodePattern, id: number, row: Row, ctx: ExecContext): boolean {
  return nodeMatchesStatic(pattern, id, ctx) && nodeMatchesProps(pattern, id, row, ctx);
}

function propsMatch(wanted: Value, actual: Record<string, Value>, e: Expr, ctx: ExecContext): boolean {
  if (wanted === null || typeof wanted !== 'object' || Array.isArray(wanted) || wanted.constructor !== Object) {
    return ctx.fail(e.at, 'type mismatch: a pattern property map must be a map');
  }
  for (const [k, v] of Object.entries(wanted as Record<string, Value>)) {
    if (equals(actual[k] ?? null, v) !== true) return false;
  }
  return true;
}

/** Evaluates the WHERE conjuncts whose variables are all bound (and need no pattern evaluation). */
/**
 * Whether a conjunct may read a relationship's properties: it reads a bound value that is not a node or a
 * scalar in the sample row (a relationship, a path, a list or map of them), or one that is null or unbound
 * there (another row may hold a relationship in it).
 */
function readsRelationship(c: Expr, row: Row): boolean {
  return [...freeVariables(c)].some((v) => {
    const value = row[v];
    return value === null || value === undefined || (typeof value === 'object' && !(value instanceof NodeRef));
  });
}

/** `expected`: how many rows the caller expects over all its batches (wide columns are read for many: wideEnough). */
async function filterReady(partials: Partial[], pending: Expr[], ctx: ExecContext, expected = partials.length): Promise<{ partials: Partial[]; pending: Expr[] }> {
  if (partials.length === 0 || pending.length === 0) return { partials, pending };
  const bound = new Set(Object.keys(partials[0].row));
  const ready: Expr[] = [];
  const rest: Expr[] = [];
  for (const c of pending) {
    const vars = freeVariables(c);
    if (!hasPattern(c) && [...vars].every((v) => bound.has(v))) ready.push(c);
    else rest.push(c);
  }
  if (ready.length === 0) return { partials, pending };
  // Conjunct by conjunct, on the rows every earlier one kept (as a row's evaluation stops at its first
  // conjunct that is not true): details are read only for rows still in question. Those that read no
  // relationship go first (AND is commutative): relationship properties are read for fewer rows, or none
  // (`a.domainsid <> b.domainsid AND r.isacl` over every edge: only the cross-domain edges' properties).
  const sample = partials[0].row;
  const relationshipReaders = new Set(ready.filter((c) => readsRelationship(c, sample)));
  ready.sort((x, y) => Number(relationshipReaders.has(x)) - Number(relationshipReaders.has(y)));
  let kept = partials;
  for (const c of ready) {
    if (kept.length === 0) break;
    let undecided = kept;
    let passed: Set<Partial> | null = null;
    const columns = readsDetails([c]) && kept.length >= ctx.plan.sqlNarrowAt ? await probeColumns(kept, c, ctx, Math.max(expected, kept.length)) : false;
    if (readsDetails([c]) && (columns || mayDecideWithout(c))) {
      // First without details: a row that `(n:Tag_Tier_Zero) OR n.x …` decides by its label needs none read.
      ({ undecided, passed } = probe(kept, c, ctx));
    }
    // Then, of the rest, those whose node cannot pass in SQL are dropped unread.
    undecided = await narrowInSql(undecided, c, ctx);
    if (undecided.length > 0 && readsDetails([c])) {
      await ctx.ensureRows(undecided.map((p) => p.row), variablesOf([c]));
      if (ctx.wantEdgeProps && relationshipReaders.has(c)) await ctx.ensureEdgeProps(undecided.flatMap((p) => p.segs.flatMap((s) => s?.rels.map((r) => r.id) ?? [])));
    }
    const accepted = undecided.filter((p) => truth(evaluate(c, p.row, ctx), c, ctx) === true);
    if (passed === null) kept = accepted;
    else {
      for (const p of accepted) passed.add(p);
      kept = kept.filter((p) => passed.has(p));
    }
  }
  return { partials: kept, pending: rest };
}

/**
 * A conjunct on one node variable that a scan could push down (`n.name STARTS WITH 'DNSADMINS@'`),
 * when many rows (ctx.plan.sqlNarrowAt) hold nodes whose details are not read yet: the nodes passing it in SQL (a superset,
 * as for a scan) are found first, and the rows of the others, which cannot pass, are dropped without
 * reading their details.
 */
async function narrowInSql(rows: Partial[], c: Expr, ctx: ExecContext): Promise<Partial[]> {
  if (rows.length < ctx.plan.sqlNarrowAt || !readsDetails([c])) return rows;
  const vars = freeVariables(c);
  if (vars.size !== 1) return rows;
  const [v] = vars;
  const p = pushdownOf(c, v, literalOf, true);
  // lastseen is read from its own column when the properties lack it: not for SQL on the properties.
  // Labels and tags are the engine's (the probe decides them): only property tests go to SQL.
  const text = JSON.stringify(p);
  if (p === null || text.includes('"op":"tag"') || text.includes('"op":"kind"') || text.includes('"key":"lastseen"')) return rows;
  const unread = new Set<number>();
  for (const r of rows) {
    const x = r.row[v];
    if (x instanceof NodeRef && !ctx.nodes.has(x.id)) unread.add(x.id);
  }
  if (unread.size < ctx.plan.sqlNarrowAt) return rows;
  const may = await ctx.source.filterIds([...unread].sort((a, b) => a - b), [p]);
  ctx.charge(unread.size);
  ctx.plan.sqlNarrowTaken++;
  return rows.filter((r) => {
    const x = r.row[v];
    return !(x instanceof NodeRef) || !unread.has(x.id) || may.has(x.id);
  });
}

/**
 * Before probing a conjunct over many rows: the kept columns (property-columns.ts) of the node
 * properties it reads (`n.system_tags`, a key few nodes hold), so the probe reads those from the
 * columns and decides rows without their details. Whether every property it reads is so covered.
 */
async function probeColumns(rows: Partial[], c: Expr, ctx: ExecContext, expected: number): Promise<boolean> {
  return columnsFor(c, rows[0].row, expected, ctx);
}

/** Whether a conjunct may be decided without details for some rows: a boolean combination with a part that reads none. */
function mayDecideWithout(e: Expr): boolean {
  if (e.t === 'not') return mayDecideWithout(e.arg);
  if (e.t === 'or' || e.t === 'and' || e.t === 'xor') return e.args.some((a) => !readsDetails([a]) || mayDecideWithout(a));
  return false;
}

/**
 * Evaluates a conjunct on each row without reading details (ctx.probing): the rows it decides (those
 * passing in `passed`), and those whose evaluation needed details. Evaluation is the same with or
 * without them up to the first read, so a decided row has its final answer (an error is the error).
 */
function probe(rows: Partial[], c: Expr, ctx: ExecContext): { undecided: Partial[]; passed: Set<Partial> } {
  const undecided: Partial[] = [];
  const passed = new Set<Partial>();
  ctx.probing = true;
  try {
    for (const p of rows) {
      try {
        if (truth(evaluate(c, p.row, ctx), c, ctx) === true) passed.add(p);
      } catch (err) {
        if (err !== NEEDS_DETAILS) throw err;
        undecided.push(p);
      }
    }
  } finally {
    ctx.probing = false;
  }
  return { undecided, passed };
}

/** The variables a list of expressions reads. */
export function variablesOf(exprs: readonly Expr[]): Set<string> {
  const out = new Set<string>();
  for (const e of exprs) freeVariables(e, out);
  return out;
}

function relKinds(r: RelPattern): string[] | undefined {
  return r.types.length === 0 ? undefined : expandTypes(r.types);
}

/** Direction of walking relationship pattern `r` rightwards (pattern order) or leftwards, in the engine's terms. */
export function walkDirection(r: RelPattern, side: 'right' | 'left'): 'outbound' | 'inbound' | 'both' {
  if (r.direction === 'both') return 'both';
  const out = side === 'right' ? r.direction === 'out' : r.direction === 'in';
  return out ? 'outbound' : 'inbound';
}

const BREATHE_EVERY = 256;
/** Trails turned into rows and filtered by WHERE this many at a time (the row bound counts what WHERE keeps). */
const STEP_FLUSH = 20_000;

/**
 * Extends partials across relationship pattern `i` (from node i to i+1 when going right, i+1 to i
 * when left): the graph engine enumerates the trails (view.expand), this keeps those whose end
 * matches the pattern's node, in breadth-first order (shorter first; per length, in input order).
 * The WHERE conjuncts the step makes ready (`where`) are applied to the trails a batch at a time as
 * they come, so intermediate rows that WHERE rejects never pile up; `allowed`: the only relationships
 * a one-step pattern may take (a superset from a pushed-down relationship predicate), if any.
 */
async function step(part: PatternPart, i: number, side: 'right' | 'left', partials: Partial[], where: Expr[], ctx: ExecContext, allowed?: ReadonlySet<number>, keepUsed = true, enough?: number, emit?: Emit): Promise<{ partials: Partial[]; pending: Expr[] }> {
  const r = part.rels[i];
  const from = side === 'right' ? i : i + 1;
  const to = side === 'right' ? i + 1 : i;
  const target = part.nodes[to];
  const hop = {
    direction: walkDirection(r, side), kinds: relKinds(r),
    minDepth: r.range ? r.range.min ?? 1 : 1, maxDepth: r.range ? r.range.max ?? Infinity : 1,
  };
  const only = r.range === null ? allowed : undefined;
  const boundEnd = (p: Partial) => p.nodes[to] ?? (target.variable && target.variable in p.row ? (p.row[target.variable] as NodeRef | null)?.id : undefined);
  let found: Array<{ p: Partial; start: number; end: number; edges: Edge[] }> = [];
  const kept: Partial[] = [];
  let pending = where;
  // The conjuncts matches are tested by before rows are made of them (prefilterOf; undefined: not decided
  // yet, once many matches are found), on a scratch row per partial holding the match's node and relationship.
  // The matches the step may make (one step: its start nodes' edges in that direction, of any kind; longer: its partials).
  const walkEstimate = estimateWalk(partials.map((p) => p.nodes[from]!), hop.direction, r.range === null, ctx);
  let pre: Prefilter | null | undefined;
  // Whether the prefilter was decided with columns read for it (over many matches).
  let preRead = false;
  let preRel = false;
  let scratchOf: Partial | null = null;
  let scratch: Row = {};
  // `rel`: the relationship variable's value, when the prefilter reads it (preRel).
  const passesPre = (p: Partial, end: number, rel: Value | undefined): boolean => {
    if (scratchOf !== p) {
      scratchOf = p;
      scratch = { ...p.row };
    }
    if (target.variable) scratch[target.variable] = new NodeRef(end);
    if (rel !== undefined) scratch[r.variable!] = rel;
    if (prefilterPasses(pre!, scratch, ctx)) return true;
    ctx.plan.prefilterDropped++;
    return false;
  };
  // A one-step relationship variable of a typed step: its properties may be read from relationship columns.
  const stepKinds = r.variable !== null && r.range === null && hop.kinds !== undefined ? new Map([[r.variable, hop.kinds]]) : undefined;
  // Conjuncts comparing a property of the start node with one of the far end, by column codes (prefilter.ts pairTestsOf).
  let pairs: PairTest[] = [];
  const setPre = (conjuncts: Prefilter | null) => {
    pre = conjuncts;
    preRel = pre !== null && r.variable !== null && pre.some((c) => freeVariables(c.expr).has(r.variable!));
    pairs = ctx.plan.pairTests ? pairTestsOf(pre, part.nodes[from].variable, target.variable, ctx) : [];
    if (pairs.length > 0) ctx.plan.pairTestsTaken++;
  };
  // A row as the step makes them (for the kinds of values its variables hold).
  const sampleAfter = (row: Row, end: number): Row => {
    const sample: Row = { ...row };
    if (target.variable) sample[target.variable] = new NodeRef(end);
    if (r.variable) sample[r.variable] = r.range ? [] : new RelRef(0, 0, 0, '');
    return sample;
  };
  const relValue = (edges: Edge[]): Value => {
    const rels = edges.map((e) => new RelRef(e.id, e.start, e.end, e.kind));
    return r.range ? (side === 'right' ? rels : rels.reverse()) : rels[0];
  };
  // Turns the trails found so far into rows and keeps those WHERE (as far as it is ready) accepts, in order.
  const flush = async () => {
    if (found.length === 0) return;
    let batch = found;
    found = [];
    if (!farDecided && where.length > 0 && batch.length >= ctx.plan.sqlNarrowAt) {
      // Over many matches, the far end's own conjuncts become a set of nodes it may be (the matches found before: tested now).
      farDecided = true;
      far ??= await farEndsOf(target, where, ctx);
      if (far !== null) batch = batch.filter((f) => far!.has(f.end));
      if (batch.length === 0) return;
    }
    if (!preRead && where.length > 0 && batch.length >= ctx.plan.sqlNarrowAt) {
      // Over many matches, columns may be read for the prefilter (it may have started with the held ones).
      preRead = true;
      setPre(await prefilterOf(where, sampleAfter(batch[0].p.row, batch[0].end), Math.max(batch.length, walkEstimate), ctx, true, stepKinds));
      // The matches found before it was decided; those after are tested as they are found.
      if (pre !== null) batch = batch.filter((f) => passesPre(f.p, f.end, preRel ? relValue(f.edges) : undefined));
      if (batch.length === 0) return;
    }
    if (target.props) {
      await ctx.ensureRows(batch.map((f) => f.p.row));
      await ctx.ensureNodes(new Set(batch.map((f) => f.end)));
    }
    let out: Partial[] = [];
    for (const { p, start, end, edges } of batch) {
      if (!nodeMatchesProps(target, end, p.row, ctx)) continue;
      const walked = edges.map((e) => new RelRef(e.id, e.start, e.end, e.kind));
      // The nodes between the relationships, in walk order.
      const passed: number[] = [];
      let at = start;
      for (let k = 0; k < edges.length - 1; k++) {
        at = edges[k].start === at ? edges[k].end : edges[k].start;
        passed.push(at);
      }
      const rels = side === 'right' ? walked : walked.reverse();
      const mids = side === 'right' ? passed : passed.reverse();
      const nodes = p.nodes.slice();
      nodes[to] = end;
      const segs = p.segs.slice();
      segs[i] = { rels, mids };
      const row = { ...p.row };
      if (target.variable) row[target.variable] = new NodeRef(end);
      if (r.variable) row[r.variable] = r.range ? rels : rels[0];
      let used = p.used;
      if (keepUsed) {
        used = new Set(p.used);
        for (const x of rels) used.add(x.id);
      }
      out.push({ row, nodes, segs, used });
    }
    if (r.props) {
      await ctx.ensureRows(out.map((p) => p.row));
      await ctx.ensureEdgeProps(out.flatMap((p) => p.segs[i]!.rels.map((x) => x.id)));
      out = out.filter((p) => p.segs[i]!.rels.every((x) => relPropsMatch(r, x, p.row, ctx)));
    }
    if (out.length === 0) return;
    const filtered = await filterReady(out, where, ctx, walkEstimate);
    // Every batch binds the same variables, so leaves the same conjuncts pending.
    pending = filtered.pending;
    if (emit !== undefined) {
      if (filtered.partials.length > 0) await emit(filtered.partials, filtered.pending);
      return;
    }
    for (const x of filtered.partials) kept.push(x);
    ctx.checkRows(kept.length);
  };
  // Far-end sets and the columns the query holds already may decide matches from the first on.
  let far: ReadonlySet<number> | null = where.length > 0 ? farEndsHeld(target, where, ctx) ?? null : null;
  let farDecided = far !== null;
  if (!farDecided && where.length > 0 && walkEstimate >= ctx.plan.sqlNarrowAt && ctx.source.storeHeld()) {
    // With the node store held, the far-end set is a scan in memory: made before the walk, so every match is
    // first tested in the set (cheaper than the prefilter's columns: `n.name STARTS WITH "DNSADMINS@"` over 1.3M memberships).
    farDecided = true;
    far = await farEndsOf(target, where, ctx);
  }
  if (where.length > 0 && partials.length > 0) {
    const held = await prefilterOf(where, sampleAfter(partials[0].row, partials[0].nodes[from]!), 0, ctx, false, stepKinds);
    if (held !== null) setPre(held);
  }
  // One step in one direction: the node's edges as the engine lists them (the order its trail enumeration gives them).
  const oneStep = r.range === null && hop.direction !== 'both';
  // With `enough` (the last step of a LIMIT pushdown): kept rows are final, in order; stop once there are enough.
  const done = () => enough !== undefined && kept.length >= enough;
  for (let k = 0; k < partials.length && !done(); k++) {
    const p = partials[k];
    const start = p.nodes[from]!;
    const already = boundEnd(p);
    if (oneStep) {
      // Edge slots (no Edge object until a match is kept): ids and ends read off the snapshot.
      const g = ctx.view.graph;
      const outbound = hop.direction === 'outbound';
      const slots = ctx.view.edgeSlotsOf(start, hop.direction, hop.kinds);
      const startPos = g.position(start);
      // The far end's label test by snapshot position (no id lookup) when it is none or one stored kind.
      const label = target.labels === null ? null : target.labels.t === 'label' && !target.labels.name.startsWith('Tag_') ? g.kinds.get(target.labels.name) : undefined;
      for (let j = 0; j < slots.length; j++) {
        const slot = slots[j];
        const id = g.edgeIds[slot];
        if (p.used.size > 0 && p.used.has(id)) continue;
        ctx.charge(1);
        const end = g.nodeIds[outbound ? g.edgeDst[slot] : g.edgeSrc[slot]];
        if (already !== undefined && already !== end) continue;
        if (only !== undefined && !only.has(id)) continue;
        if (far !== null && !far.has(end)) continue;
        const endPos = outbound ? g.edgeDst[slot] : g.edgeSrc[slot];
        if (label === undefined ? !nodeMatchesStatic(target, end, ctx) : label !== null && (label < 0 || !g.hasKindId(endPos, label))) continue;
        if (pairs.length > 0 && !pairPasses(pairs, startPos, endPos)) {
          ctx.plan.prefilterDropped++;
          continue;
        }
        if (pre && !passesPre(p, end, preRel ? new RelRef(id, g.nodeIds[g.edgeSrc[slot]], g.nodeIds[g.edgeDst[slot]], g.kinds.name(g.edgeKind[slot])) : undefined)) continue;
        found.push({ p, start, end, edges: [ctx.view.edgeAtSlot(slot)] });
        if ((enough !== undefined || emit !== undefined) && found.length >= STEP_FLUSH) {
          await flush();
          if (done()) break;
        }
      }
      if (found.length >= STEP_FLUSH) await flush();
      if (k % BREATHE_EVERY === BREATHE_EVERY - 1) await ctx.breathe();
      continue;
    }
    // Trails as edge slots: Edge objects are made only for the trails kept.
    const g = ctx.view.graph;
    ctx.view.expandSlots([start], { ...hop, exclude: p.used }, (_, end, slots) => {
      ctx.charge(Math.max(1, slots.length));
      if (already !== undefined && already !== end) return;
      if (only !== undefined && !only.has(g.edgeIds[slots[0]])) return;
      if (far !== null && !far.has(end)) return;
      if (!nodeMatchesStatic(target, end, ctx)) return;
      if (pre && !passesPre(p, end, preRel ? relValue(slots.map((x) => ctx.view.edgeAtSlot(x))) : undefined)) return;
      found.push({ p, start, end, edges: slots.map((x) => ctx.view.edgeAtSlot(x)) });
    });
    if (found.length >= STEP_FLUSH) await flush();
    if (k % BREATHE_EVERY === BREATHE_EVERY - 1) await ctx.breathe();
  }
  await flush();
  // Stable: per length, partials in input order and each one's trails in the engine's (edge) order
  // (filtering first keeps that order: the rows are those of sorting everything, then filtering).
  if (r.range !== null) kept.sort((a, b) => a.segs[i]!.rels.length - b.segs[i]!.rels.length);
  return { partials: kept, pending };
}

function relPropsMatch(r: RelPattern, rel: RelRef, row: Row, ctx: ExecContext): boolean {
  const actual = (ctx.edgeProps.get(rel.id)?.properties ?? {}) as Record<string, Value>;
  return propsMatch(evaluate(r.props!, row, ctx), actual, r.props!, ctx);
}

export function pathOf(p: Partial): PathValue {
  const nodes: NodeRef[] = [new NodeRef(p.nodes[0]!)];
  const rels: RelRef[] = [];
  p.segs.forEach((s, i) => {
    if (!s) return;
    s.mids.forEach((m, j) => {
      rels.push(s.rels[j]);
      nodes.push(new NodeRef(m));
    });
    rels.push(s.rels[s.rels.length - 1]);
    nodes.push(new NodeRef(p.nodes[i + 1]!));
  });
  // A zero-length segment (`*0..` matching no relationship) repeats its node: keep one.
  const cleaned: NodeRef[] = [nodes[0]];
  const cleanedRels: RelRef[] = [];
  for (let i = 0; i < rels.length; i++) {
    if (rels[i] === undefined) continue;
    cleanedRels.push(rels[i]);
    cleaned.push(nodes[i + 1]);
  }
  return new PathValue(cleaned, cleanedRels);
}
