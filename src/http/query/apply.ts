/**
 * The one applier: turns a ParsedQuery into Kysely WHERE / ORDER BY / LIMIT / OFFSET over the
 * declaration's whitelisted columns. Operands only ever travel as bound parameters; column names
 * come from the compiled declaration (trusted code), never from the request.
 */
import { sql, type Expression, type OrderByModifiersCallbackExpression, type RawBuilder, type SqlBool } from 'kysely';
import type { ParsedInstant } from '../../db/time.ts';
import { enumMatches, type CompiledFilter, type CompiledQuery, type Predicate } from './declaration.ts';
import type { FilterValue, ParsedQuery } from './parse.ts';

/** Anything with Kysely's `where(expression)`: select, update and delete query builders. */
export interface Filterable<Self> {
  where(expression: Expression<SqlBool>): Self;
}

/** Anything with Kysely's `orderBy(expression, modifiers)`. */
export interface Sortable<Self> {
  orderBy(expression: Expression<unknown>, modifiers: OrderByModifiersCallbackExpression): Self;
}

/** Anything with Kysely's `limit` and `offset` (select query builders). */
export interface Pageable<Self> {
  limit(limit: number): Self;
  offset(offset: number): Self;
}

type Cond = RawBuilder<SqlBool>;
const TRUE: Cond = sql<SqlBool>`1 = 1`;
const FALSE: Cond = sql<SqlBool>`1 = 0`;

/** ANDs the parsed filters onto the query builder. */
export function applyFilters<QB extends Filterable<QB>>(qb: QB, q: CompiledQuery, parsed: ParsedQuery): QB {
  return filterConditions(q, parsed).reduce((acc, cond) => acc.where(cond), qb);
}

/**
 * The filters as a list of conditions to be ANDed: per column one OR group of its eq and ~eq values,
 * then one condition per neq / gt / gte / lt / lte value.
 */
export function filterConditions(q: CompiledQuery, parsed: ParsedQuery): Expression<SqlBool>[] {
  const groups = new Map<string, { any: Cond[]; all: Cond[] }>();
  for (const pf of parsed.filters) {
    const f = q.filters.get(pf.name);
    if (!f || f.kind !== pf.kind) throw new Error(`filter ${pf.name} is not declared for this query`);
    let group = groups.get(f.name);
    if (!group) groups.set(f.name, (group = { any: [], all: [] }));
    const target = pf.predicate === 'eq' || pf.predicate === '~eq' ? group.any : group.all;
    for (const value of pf.values) target.push(condition(f, pf.predicate, value));
  }
  const out: Cond[] = [];
  for (const { any, all } of groups.values()) {
    if (any.length === 1) out.push(any[0]);
    else if (any.length > 1) out.push(sql<SqlBool>`(${sql.join(any, sql` or `)})`);
    out.push(...all);
  }
  return out;
}

function condition(f: CompiledFilter, predicate: Predicate, value: FilterValue): Cond {
  const col = sql.ref(f.column);
  if (value === null) return predicate === 'neq' ? sql<SqlBool>`${col} is not null` : sql<SqlBool>`${col} is null`;
  switch (f.kind) {
    case 'timestamp':
      return instant(f, col, predicate, value as ParsedInstant);
    case 'boolean':
      return compare(f, col, predicate, value ? 1 : 0);
    case 'string':
      if (predicate === '~eq') return f.enumEntries ? enumContains(f, col, String(value)) : contains(col, String(value));
      // No stored text can hold NUL (PostgreSQL refuses it), so such an operand equals nothing.
      if (typeof value === 'string' && value.includes('\u0000')) return predicate === 'eq' ? FALSE : notEqualAny(f, col);
      return compare(f, col, predicate, value as string | number);
    default:
      return compare(f, col, predicate, value as string | number);
  }
}

function compare(f: CompiledFilter, col: Expression<unknown>, predicate: Predicate, v: string | number): Cond {
  switch (predicate) {
    case 'eq':
      return sql<SqlBool>`${col} = ${v}`;
    case 'neq':
      // On a nullable column NULL is "not equal" too (IS DISTINCT FROM semantics, portable spelling).
      return f.nullable ? sql<SqlBool>`(${col} <> ${v} or ${col} is null)` : sql<SqlBool>`${col} <> ${v}`;
    case 'gt':
      return sql<SqlBool>`${col} > ${v}`;
    case 'gte':
      return sql<SqlBool>`${col} >= ${v}`;
    case 'lt':
      return sql<SqlBool>`${col} < ${v}`;
    case 'lte':
      return sql<SqlBool>`${col} <= ${v}`;
    default:
      throw new Error(`predicate ${predicate} cannot be compared`);
  }
}

/** neq against a value no row can hold: every row whose value is known (or every row, when nullable). */
function notEqualAny(f: CompiledFilter, col: Expression<unknown>): Cond {
  return f.nullable ? TRUE : sql<SqlBool>`${col} is not null`;
}

/**
 * Stored micros are integers; the operand is floor + (fractional ? a sub-microsecond part : 0).
 * floor/ceil make each comparison equal to the comparison with the exact instant.
 */
function instant(f: CompiledFilter, col: Expression<unknown>, predicate: Predicate, t: ParsedInstant): Cond {
  const floor = t.micros;
  const ceil = t.fractional ? t.micros + 1 : t.micros;
  switch (predicate) {
    case 'eq':
      return t.fractional ? FALSE : compare(f, col, 'eq', floor);
    case 'neq':
      return t.fractional ? notEqualAny(f, col) : compare(f, col, 'neq', floor);
    case 'gt':
      return compare(f, col, 'gt', floor);
    case 'gte':
      return compare(f, col, 'gte', ceil);
    case 'lt':
      return compare(f, col, 'lt', ceil);
    case 'lte':
      return compare(f, col, 'lte', floor);
    default:
      throw new Error(`predicate ${predicate} is not a timestamp predicate`);
  }
}

/** Case-insensitive substring match, `%` `_` `\` literal; lower() is unicode-aware on both databases. */
function contains(col: Expression<unknown>, operand: string): Cond {
  if (operand.includes('\u0000')) return FALSE;
  const escaped = operand.replace(/[\\%_]/g, '\\$&');
  return sql<SqlBool>`lower(${col}) like ('%' || lower(cast(${escaped} as text)) || '%') escape '\\'`;
}

function enumContains(f: CompiledFilter, col: Expression<unknown>, operand: string): Cond {
  const values = enumMatches(f, operand);
  return values.length === 0 ? FALSE : sql<SqlBool>`${col} in (${sql.join(values)})`;
}

/**
 * ORDER BY the parsed sort (or the declaration's default), NULLs last ascending and first descending
 * on both databases (PostgreSQL's default), then the tie-breaker ascending unless already sorted on.
 */
export function applySort<QB extends Sortable<QB>>(qb: QB, q: CompiledQuery, parsed: ParsedQuery): QB {
  let out = qb;
  const used = new Set<string>();
  for (const term of parsed.sort) {
    const column = q.sortable.get(term.name);
    if (column === undefined) throw new Error(`sort column ${term.name} is not declared for this query`);
    if (used.has(column)) continue;
    used.add(column);
    out = out.orderBy(sql.ref(column), (ob) => (term.descending ? ob.desc().nullsFirst() : ob.asc().nullsLast()));
  }
  if (q.tieBreaker !== undefined && !used.has(q.tieBreaker)) out = out.orderBy(sql.ref(q.tieBreaker), (ob) => ob.asc());
  return out;
}

/** LIMIT / OFFSET; limit 0 means no upper bound. */
export function applyPaging<QB extends Pageable<QB>>(qb: QB, parsed: Pick<ParsedQuery, 'skip' | 'limit'>): QB {
  let out = qb;
  // SQLite cannot OFFSET without a LIMIT, so "no bound" with a skip is the largest exact number.
  if (parsed.limit > 0) out = out.limit(parsed.limit);
  else if (parsed.skip > 0) out = out.limit(Number.MAX_SAFE_INTEGER);
  if (parsed.skip > 0) out = out.offset(parsed.skip);
  return out;
}
