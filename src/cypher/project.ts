import type { Expr, Projection } from './ast.ts';
import type { ExecContext } from './context.ts';
import { evaluate, type Aggregates } from './eval.ts';
import { isAggregate } from './functions.ts';
import { groupKey, orderCompare, type Row, type Value } from './values.ts';
import { children, hasAggregate } from './walk.ts';

export interface Projected {
  projected: Row;
  /** What ORDER BY may also read: the row before projection (none after aggregation). */
  scope: Row;
  aggregates?: Aggregates;
}

/** Projects rows; when an item aggregates, rows are grouped by the values of the other items. */
export function aggregateRows(proj: Projection, rows: Row[], ctx: ExecContext): Projected[] {
  const names = proj.items.map((i) => i.alias ?? i.text);
  const star = (row: Row): Row => {
    const out: Row = {};
    if (proj.star) for (const k of Object.keys(row)) if (!k.startsWith('\u0000')) out[k] = row[k];
    return out;
  };
  const aggregating = proj.items.some((i) => hasAggregate(i.expr)) || proj.orderBy.some((o) => hasAggregate(o.expr));
  if (!aggregating) {
    return rows.map((row) => {
      const projected = star(row);
      proj.items.forEach((item, i) => (projected[names[i]] = evaluate(item.expr, row, ctx)));
      return { projected, scope: row };
    });
  }
  const keyItems = proj.items.map((item, i) => ({ item, i })).filter(({ item }) => !hasAggregate(item.expr));
  const calls = new Set<Expr>();
  const find = (e: Expr) => {
    if (e.t === 'countstar' || (e.t === 'call' && isAggregate(e.name))) return void calls.add(e);
    children(e).forEach(find);
  };
  proj.items.forEach((i) => find(i.expr));
  proj.orderBy.forEach((o) => find(o.expr));
  const groups = new Map<string, { first: Row; key: Value[]; rows: Row[] }>();
  for (const row of rows) {
    const key = keyItems.map(({ item }) => evaluate(item.expr, row, ctx));
    const k = proj.star ? `${groupKey(Object.values(star(row)))}|${key.map(groupKey).join('|')}` : key.map(groupKey).join('|');
    let g = groups.get(k);
    if (!g) groups.set(k, (g = { first: row, key, rows: [] }));
    g.rows.push(row);
  }
  // Aggregating with no grouping key over no rows still yields one row (count(*) = 0).
  if (groups.size === 0 && keyItems.length === 0 && !proj.star) groups.set('', { first: {}, key: [], rows: [] });
  const out: Projected[] = [];
  for (const g of groups.values()) {
    const aggregates: Aggregates = new Map();
    for (const call of calls) aggregates.set(call, aggregate(call, g.rows, ctx));
    const projected = star(g.first);
    keyItems.forEach(({ i }, j) => (projected[names[i]] = g.key[j]));
    proj.items.forEach((item, i) => {
      if (hasAggregate(item.expr)) projected[names[i]] = evaluate(item.expr, g.first, ctx, aggregates);
    });
    out.push({ projected, scope: {}, aggregates });
  }
  return out;
}

function aggregate(call: Expr, rows: Row[], ctx: ExecContext): Value {
  if (call.t === 'countstar') return rows.length;
  if (call.t !== 'call') return null;
  const values: Value[] = [];
  const seen = new Set<string>();
  for (const row of rows) {
    const v = evaluate(call.args[0], row, ctx);
    if (v === null) continue;
    if (call.distinct) {
      const k = groupKey(v);
      if (seen.has(k)) continue;
      seen.add(k);
    }
    values.push(v);
  }
  ctx.charge(rows.length);
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

