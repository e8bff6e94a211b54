import type { Expr, Projection } from './ast.ts';
import type { ExecContext } from './context.ts';
import { evaluate, type Aggregates } from './eval.ts';
import { isAggregate } from './functions.ts';
import { groupKey, NodeRef, orderCompare, type Row, type Value } from './values.ts';
import { children, hasAggregate } from './walk.ts';

export interface Projected {
  projected: Row;
  /** What ORDER BY may also read: the row before projection (none after aggregation). */
  scope: Row;
  aggregates?: Aggregates;
}

/** Projects rows; when an item aggregates, rows are grouped by the values of the other items. */
export function aggregateRows(proj: Projection, rows: Row[], ctx: ExecContext): Projected[] {
  if (!aggregates(proj)) {
    const names = proj.items.map((i) => i.alias ?? i.text);
    return rows.map((row) => {
      const projected = starOf(proj, row);
      proj.items.forEach((item, i) => (projected[names[i]] = evaluate(item.expr, row, ctx)));
      return { projected, scope: row };
    });
  }
  const grouping = new Grouping(proj, ctx);
  grouping.add(rows);
  return grouping.finish();
}

/** Whether a projection aggregates (groups its rows). */
export function aggregates(proj: Projection): boolean {
  return proj.items.some((i) => hasAggregate(i.expr)) || proj.orderBy.some((o) => hasAggregate(o.expr));
}

function starOf(proj: Projection, row: Row): Row {
  const out: Row = {};
  if (proj.star) for (const k of Object.keys(row)) if (!k.startsWith('\u0000')) out[k] = row[k];
  return out;
}

/** One aggregate call's running state in one group: the values so far (distinct ones for DISTINCT) and the rows seen. */
interface Running {
  values: Value[];
  seen: Set<string> | null;
  rows: number;
}

/**
 * An aggregating projection fed its rows in batches (a MATCH may stream its matches into it: rows
 * never pile up, only the groups): the groups and every aggregate's values, in the order the rows
 * come, so the groups and values are those of taking all rows at once.
 */
export class Grouping {
  private names!: string[];
  private keyItems!: Array<{ item: Projection['items'][number]; i: number }>;
  private calls!: Expr[];
  private readonly groups = new Map<string, { first: Row; key: Value[]; running: Running[] }>();

  private init(): void {
    const proj = this.proj;
    this.names = proj.items.map((i) => i.alias ?? i.text);
    this.keyItems = proj.items.map((item, i) => ({ item, i })).filter(({ item }) => !hasAggregate(item.expr));
    const calls = new Set<Expr>();
    const find = (e: Expr) => {
      if (e.t === 'countstar' || (e.t === 'call' && isAggregate(e.name))) return void calls.add(e);
      children(e).forEach(find);
    };
    proj.items.forEach((i) => find(i.expr));
    proj.orderBy.forEach((o) => find(o.expr));
    this.calls = [...calls];
  }

  /** Groups finished early (closeOn), in order, and kept by the filter given to settle. */
  private readonly finished: Projected[] = [];
  private closing: Projected[] = [];
  private lastAnchor: number | undefined;

  /**
   * `closeOn`: a variable that is one of the grouping keys and whose node changes only between
   * groups of rows (the anchor of a streamed match: all matches of one anchor node come together),
   * so every group open when it changes is complete and is finished at once.
   */
  constructor(private readonly proj: Projection, private readonly ctx: ExecContext, private readonly closeOn: string | null = null) {
    this.init();
  }

  /** Whether a variable is one of a projection's grouping keys as it is (`WITH n, count(m)`). */
  static keyedBy(proj: Projection, variable: string): boolean {
    return proj.items.some((i) => !hasAggregate(i.expr) && i.expr.t === 'var' && i.expr.name === variable);
  }

  get size(): number {
    return this.groups.size + this.closing.length + this.finished.length;
  }

  add(rows: readonly Row[]): void {
    const { proj, ctx } = this;
    for (const row of rows) {
      if (this.closeOn !== null) {
        const anchor = row[this.closeOn];
        const id = anchor instanceof NodeRef ? anchor.id : undefined;
        if (id !== this.lastAnchor) {
          this.close();
          this.lastAnchor = id;
        }
      }
      const key = this.keyItems.map(({ item }) => evaluate(item.expr, row, ctx));
      const k = proj.star ? `${groupKey(Object.values(starOf(proj, row)))}|${key.map(groupKey).join('|')}` : key.map(groupKey).join('|');
      let g = this.groups.get(k);
      if (!g) this.groups.set(k, (g = { first: row, key, running: this.calls.map((c) => ({ values: [], seen: c.t === 'call' && c.distinct ? new Set() : null, rows: 0 })) }));
      for (let j = 0; j < this.calls.length; j++) {
        const call = this.calls[j];
        const run = g.running[j];
        run.rows++;
        if (call.t !== 'call') continue;
        const v = evaluate(call.args[0], row, ctx);
        if (v === null) continue;
        if (run.seen !== null) {
          const vk = groupKey(v);
          if (run.seen.has(vk)) continue;
          run.seen.add(vk);
        }
        run.values.push(v);
      }
    }
    ctx.charge(rows.length * this.calls.filter((c) => c.t === 'call').length);
  }

  /** The groups finished early are filtered by `keep` (a WITH's WHERE), only those kept are held. */
  async settle(keep: (groups: Projected[]) => Promise<Projected[]>): Promise<void> {
    if (this.closing.length === 0) return;
    const closing = this.closing;
    this.closing = [];
    for (const g of await keep(closing)) this.finished.push(g);
  }

  /** The open groups finished (in the order they were opened). */
  private close(): void {
    if (this.groups.size === 0) return;
    for (const g of this.project()) this.closing.push(g);
    this.ctx.plan.groupsClosedEarly += this.groups.size;
    this.groups.clear();
  }

  finish(): Projected[] {
    const { proj } = this;
    // Aggregating with no grouping key over no rows still yields one row (count(*) = 0).
    if (this.size === 0 && this.keyItems.length === 0 && !proj.star) this.groups.set('', { first: {}, key: [], running: this.calls.map(() => ({ values: [], seen: null, rows: 0 })) });
    return [...this.finished, ...this.closing, ...this.project()];
  }

  private project(): Projected[] {
    const { proj, ctx, names } = this;
    const out: Projected[] = [];
    for (const g of this.groups.values()) {
      const aggregates: Aggregates = new Map();
      this.calls.forEach((call, j) => aggregates.set(call, aggregate(call, g.running[j], ctx)));
      const projected = starOf(proj, g.first);
      this.keyItems.forEach(({ i }, j) => (projected[names[i]] = g.key[j]));
      proj.items.forEach((item, i) => {
        if (hasAggregate(item.expr)) projected[names[i]] = evaluate(item.expr, g.first, ctx, aggregates);
      });
      out.push({ projected, scope: {}, aggregates });
    }
    return out;
  }
}

function aggregate(call: Expr, run: Running, ctx: ExecContext): Value {
  if (call.t === 'countstar') return run.rows;
  if (call.t !== 'call') return null;
  const values = run.values;
  switch (call.name.toLowerCase()) {
    case 'count': return values.length;
    case 'collect': return values;
    case 'sum': return values.reduce<number>((a, v) => a + numberOf(v, call, ctx), 0);
    case 'avg': return values.length === 0 ? null : values.reduce<number>((a, v) => a + numberOf(v, call, ctx), 0) / values.length;
    case 'min': return values.reduce<Value>((a, v) => (a === null || orderCompare(v, a) < 0 ? v : a), null);
    default: return values.reduce<Value>((a, v) => (a === null || orderCompare(v, a) > 0 ? v : a), null);
  }
}

function numberOf(v: Value, call: Expr, ctx: ExecContext): number {
  if (typeof v !== 'number') return ctx.fail(call.at, 'type mismatch: sum() and avg() need numbers');
  return v;
}

