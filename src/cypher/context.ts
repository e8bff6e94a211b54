import { throwIfPastDeadline } from '../db/deadline.ts';
import type { Expr } from './ast.ts';
import { CypherError, errorAt } from './errors.ts';
import type { GraphView } from '../graph/engine/index.ts';
import type { EdgeData, GraphSource, NodeData } from './graph-source.ts';
import { valueAt, type Column } from './property-columns.ts';
import type { EdgeColumn } from './relationship-columns.ts';
import { NodeRef, PathValue, RelRef, type Row, type Value } from './values.ts';

/** Bounds of one execution: a query exceeding one answers 400 naming it, never exhausts the process. */
export interface Limits {
  /** Most rows any clause may produce. */
  maxRows: number;
  /** Most units of work (rows produced, edges expanded, paths extended). */
  maxCost: number;
}

export const DEFAULT_LIMITS: Limits = { maxRows: 200_000, maxCost: 20_000_000 };

/**
 * The state of one query execution: the graph source, the node / edge details read so far (every
 * node that enters a row is loaded before expressions see it), tag membership for `Tag_*` labels,
 * the work done against the limits, and the request deadline.
 */
export class ExecContext {
  readonly nodes = new Map<number, NodeData>();
  readonly edgeProps = new Map<number, { properties: Record<string, unknown>; lastSeen: number }>();
  /** The graph engine's view this query reads (set before the first clause runs). */
  view!: GraphView;
  private readonly patternKeys = new WeakMap<Expr, string>();
  private cost = 0;
  private nextCheck = CHECK_EVERY;
  /** Whether expressions read relationship properties (then matched relationships' properties are loaded). */
  wantEdgeProps = false;
  /** Planner choices that may be turned off (tests compare the rows with and without them), and how often each was taken. */
  readonly plan = { edgeAnchors: true, presence: true, edgePushdown: true, matchOnce: true, streamAggregation: true, prefilter: true, farEnds: true, sqlNarrowAt: 5_000, wideAt: null as number | null, prefilterTaken: 0, prefilterDropped: 0, wideTaken: 0, storeTaken: 0, pairTests: true, pairTestsTaken: 0, edgeColumnsTaken: 0, farEndsTaken: 0, edgeAnchorsTaken: 0, streamAggregationTaken: 0, groupsClosedEarly: 0, presenceTaken: 0, edgePushdownTaken: 0, matchOnceTaken: 0, sqlNarrowTaken: 0 };

  constructor(
    readonly source: GraphSource,
    readonly text: string,
    readonly limits: Limits = DEFAULT_LIMITS,
    readonly now: number = Date.now(),
  ) {}

  fail(at: number, message: string): never {
    throw errorAt(this.text, at, message);
  }

  /** Counts work; past the bound the query is refused; every few thousand units the deadline is checked. */
  charge(units: number): void {
    this.cost += units;
    if (this.cost > this.limits.maxCost) {
      throw new CypherError(`query is too expensive: it would examine more than ${this.limits.maxCost} graph elements; narrow it (labels, properties, LIMIT, bounded lengths)`);
    }
    if (this.cost >= this.nextCheck) {
      this.nextCheck = this.cost + CHECK_EVERY;
      throwIfPastDeadline();
    }
  }

  checkRows(count: number): void {
    if (count > this.limits.maxRows) {
      throw new CypherError(`query result is too large: more than ${this.limits.maxRows} rows; add a LIMIT or narrow the query`);
    }
  }

  /** Lets timers (the request deadline) run between steps, then checks the deadline. */
  async breathe(): Promise<void> {
    await new Promise<void>((resolve) => setImmediate(resolve));
    throwIfPastDeadline();
  }

  async ensureNodes(ids: Iterable<number>): Promise<void> {
    const missing: number[] = [];
    for (const id of ids) if (!this.nodes.has(id)) missing.push(id);
    if (missing.length === 0) return;
    const unique = [...new Set(missing)];
    this.charge(unique.length);
    await this.breathe();
    for (const n of await this.source.loadNodes(unique)) this.nodes.set(n.id, withColumns(n));
  }

  async ensureEdgeProps(ids: Iterable<number>): Promise<void> {
    const missing = [...new Set([...ids].filter((id) => !this.edgeProps.has(id)))];
    if (missing.length === 0) return;
    this.charge(missing.length);
    for (const [id, p] of await this.source.edgeProperties(missing)) this.edgeProps.set(id, p);
  }

  /** While set, reading details not loaded throws NEEDS_DETAILS (filterReady decides what it can without them first). */
  probing = false;
  /** While probing, node properties of these keys are read from their kept columns (the same values the details hold). */
  readonly probeColumns = new Map<string, Column>();
  /** While probing, relationship properties of these keys are read from their columns, for relationships of the column's kinds. */
  readonly probeEdgeColumns = new Map<string, EdgeColumn>();
  /** Far-end sets scanned for steps (match.ts farEndsOf): the conjuncts, and the nodes that may pass them (null: too many). */
  readonly farEnds: Array<[readonly Expr[], ReadonlySet<number> | null]> = [];
  /** While probing, objectid suffix tests on nodes not read are decided by their objectid tail hashes (eval.ts byObjectidTail), once read. */
  objectidTails: { ids: Float64Array; hashes: Uint16Array } | null = null;

  node(id: number): NodeData {
    const n = this.nodes.get(id);
    if (n === undefined && this.probing) throw NEEDS_DETAILS;
    // Every evaluation site loads its rows' nodes first (ensureRows); a node deleted since the view was taken reads as empty.
    return n ?? { id, objectid: '', name: null, kinds: this.view.kinds(id), properties: {}, lastSeen: 0 };
  }

  /**
   * While probing, a relationship property from its column (probeEdgeColumns), when the relationship's
   * details are not read and its kind is the column's: the value (null when it lacks the key); else undefined.
   */
  edgeColumnValue(rel: RelRef, key: string): Value | undefined {
    const column = this.probeEdgeColumns.get(key);
    if (column === undefined || !column.kinds.has(rel.type) || this.edgeProps.has(rel.id)) return undefined;
    return (valueAt(column, rel.id) as Value | undefined) ?? null;
  }

  /** A node carries a label: a stored kind or a `Tag_*` kind (asset group tag membership), from the engine. */
  hasLabel(id: number, label: string): boolean {
    return this.view.hasKind(id, label);
  }

  /**
   * Loads the details of every node the rows hold (also inside lists, paths and relationships' ends),
   * before expressions read them; `only`: just those the given variables hold (all an expression
   * reading only those variables can reach).
   */
  async ensureRows(rows: readonly Row[], only?: ReadonlySet<string>): Promise<void> {
    const ids = new Set<number>();
    const visit = (v: Value) => {
      if (v === null || typeof v !== 'object') return;
      if (v instanceof NodeRef) ids.add(v.id);
      else if (v instanceof RelRef) ids.add(v.start).add(v.end);
      else if (v instanceof PathValue) for (const n of v.nodes) ids.add(n.id);
      else if (Array.isArray(v)) v.forEach(visit);
      else if (v.constructor === Object) Object.values(v).forEach(visit);
    };
    if (only === undefined) for (const row of rows) for (const v of Object.values(row)) visit(v);
    else for (const row of rows) for (const name of only) if (name in row) visit(row[name]);
    await this.ensureNodes(ids);
  }

  /** The row slot where a pattern expression's value is precomputed. */
  patternKey(e: Expr): string {
    let key = this.patternKeys.get(e);
    if (!key) {
      key = `\u0000pattern${e.at}:${Math.random().toString(36).slice(2)}`;
      this.patternKeys.set(e, key);
    }
    return key;
  }
}

const CHECK_EVERY = 4096;

/** Thrown (while probing) by a read of node or relationship details not loaded yet. */
export const NEEDS_DETAILS: unknown = Object.freeze({ needsDetails: true });

/** Node properties as Cypher sees them: the stored object, with objectid, name and lastseen from their columns when absent. */
function withColumns(n: NodeData): NodeData {
  const p = n.properties;
  if (p.objectid === undefined) p.objectid = n.objectid;
  if (p.name === undefined && n.name !== null) p.name = n.name;
  if (p.lastseen === undefined) p.lastseen = new Date(Math.floor(n.lastSeen / 1000)).toISOString();
  return n;
}

