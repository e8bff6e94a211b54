/**
 * The query engine's filters and sort (apply.ts) over rows held in process, for the cases whose meaning does not
 * depend on the database: numbers, 0/1 booleans, timestamps (integer micros), exact string equality, enum names.
 * Anything whose result depends on the database's text rules (`~eq` on free text: lower(); ordering by text: the
 * collation, unless the caller holds each row's rank in the database's order, TextRanks; `gt`/`lt` on text) answers
 * null: the database must answer. Same conditions as filterConditions, same
 * order as applySort (NULLs last ascending and first descending, then the tie-breaker ascending).
 *
 * Rows are keyed by the column names without their table (`client_jobs.status` → `status`).
 */
import { enumMatches, type CompiledFilter, type CompiledQuery, type Predicate } from './declaration.ts';
import type { FilterValue, ParsedQuery } from './parse.ts';
import type { ParsedInstant } from '../../db/time.ts';

type Row = Record<string, unknown>;
type Test = (row: Row) => boolean;

const key = (column: string) => column.slice(column.lastIndexOf('.') + 1);

/**
 * Text columns whose order the database gave: per column key, the row field holding each row's
 * `dense_rank() over (order by <column>)` as the database computed it over these rows (its collation: equal values
 * share a rank, NULLs aside), so a sort by that column can be made here.
 */
export type TextRanks = Readonly<Record<string, string>>;

/** The rows the query selects, in its order; null when the database must answer. */
export function evaluateQuery<R extends Row>(rows: readonly R[], q: CompiledQuery, parsed: ParsedQuery, ranks: TextRanks = {}): R[] | null {
  const tests = filterTests(q, parsed, rows);
  if (!tests) return null;
  const out = tests.length ? rows.filter((r) => tests.every((t) => t(r))) : [...rows];
  return sortRows(out, q, parsed, ranks);
}

function filterTests(q: CompiledQuery, parsed: ParsedQuery, rows: readonly Row[]): Test[] | null {
  const groups = new Map<string, { any: Test[]; all: Test[] }>();
  for (const pf of parsed.filters) {
    const f = q.filters.get(pf.name);
    if (!f || f.kind !== pf.kind) return null;
    const name = key(f.column);
    if (rows.length && !(name in rows[0])) return null;
    let group = groups.get(f.name);
    if (!group) groups.set(f.name, (group = { any: [], all: [] }));
    const target = pf.predicate === 'eq' || pf.predicate === '~eq' ? group.any : group.all;
    for (const value of pf.values) {
      const t = condition(f, name, pf.predicate, value);
      if (!t) return null;
      target.push(t);
    }
  }
  const out: Test[] = [];
  for (const { any, all } of groups.values()) {
    if (any.length === 1) out.push(any[0]);
    else if (any.length > 1) out.push((r) => any.some((t) => t(r)));
    out.push(...all);
  }
  return out;
}

const NONE: Test = () => false;

function condition(f: CompiledFilter, name: string, predicate: Predicate, value: FilterValue): Test | null {
  if (value === null) return predicate === 'neq' ? (r) => r[name] != null : (r) => r[name] == null;
  switch (f.kind) {
    case 'timestamp': {
      const t = value as ParsedInstant;
      const floor = t.micros;
      const ceil = t.fractional ? t.micros + 1 : t.micros;
      switch (predicate) {
        case 'eq': return t.fractional ? NONE : compare(f, name, 'eq', floor);
        case 'neq': return t.fractional ? notEqualAny(f, name) : compare(f, name, 'neq', floor);
        case 'gt': return compare(f, name, 'gt', floor);
        case 'gte': return compare(f, name, 'gte', ceil);
        case 'lt': return compare(f, name, 'lt', ceil);
        case 'lte': return compare(f, name, 'lte', floor);
        default: return null;
      }
    }
    case 'boolean':
      return compare(f, name, predicate, value ? 1 : 0);
    case 'string':
      if (predicate === '~eq') {
        if (!f.enumEntries) return null; // lower() and LIKE: the database's
        const values = new Set(enumMatches(f, String(value)));
        return (r) => r[name] != null && values.has(Number(r[name]));
      }
      if (typeof value === 'string') {
        if (value.includes('\u0000')) return predicate === 'eq' ? NONE : notEqualAny(f, name);
        if (predicate !== 'eq' && predicate !== 'neq') return null; // text order: the collation's
      }
      return compare(f, name, predicate, value as string | number);
    case 'integer':
      return compare(f, name, predicate, value as number);
    case 'uuid':
      return predicate === 'eq' || predicate === 'neq' ? compare(f, name, predicate, value as string) : null;
    default:
      return null;
  }
}

/** SQL's comparison: NULL compares as unknown (false), but for neq on a nullable column (IS DISTINCT FROM). */
function compare(f: CompiledFilter, name: string, predicate: Predicate, v: string | number): Test | null {
  if (typeof v === 'string') {
    const text = (r: Row) => (r[name] == null ? null : String(r[name]));
    if (predicate === 'eq') return (r) => text(r) === v;
    if (predicate === 'neq') return (r) => { const x = text(r); return x === null ? f.nullable === true : x !== v; };
    return null;
  }
  const num = (r: Row) => (r[name] == null ? null : Number(r[name]));
  switch (predicate) {
    case 'eq': return (r) => num(r) === v;
    case 'neq': return (r) => { const x = num(r); return x === null ? f.nullable === true : x !== v; };
    case 'gt': return (r) => { const x = num(r); return x !== null && x > v; };
    case 'gte': return (r) => { const x = num(r); return x !== null && x >= v; };
    case 'lt': return (r) => { const x = num(r); return x !== null && x < v; };
    case 'lte': return (r) => { const x = num(r); return x !== null && x <= v; };
    default: return null;
  }
}

function notEqualAny(f: CompiledFilter, name: string): Test {
  return f.nullable ? () => true : (r) => r[name] != null;
}

/**
 * applySort's order, for columns holding only numbers (and NULLs), and text columns with ranks from the database
 * (TextRanks); null when a sort column holds anything else.
 */
function sortRows<R extends Row>(rows: R[], q: CompiledQuery, parsed: ParsedQuery, ranks: TextRanks): R[] | null {
  const terms: Array<{ name: string; descending: boolean; rank?: string }> = [];
  const used = new Set<string>();
  for (const term of parsed.sort) {
    const column = q.sortable.get(term.name);
    if (column === undefined) return null;
    if (used.has(column)) continue;
    used.add(column);
    terms.push({ name: key(column), descending: term.descending });
  }
  if (q.tieBreaker !== undefined && !used.has(q.tieBreaker)) terms.push({ name: key(q.tieBreaker), descending: false });
  for (const t of terms) {
    if (rows.every((r) => r[t.name] === null || typeof r[t.name] === 'number')) continue;
    const rank = ranks[t.name];
    if (rank === undefined || !rows.every((r) => r[t.name] === null || (typeof r[t.name] === 'string' && typeof r[rank] === 'number'))) return null;
    t.rank = rank;
  }
  return rows.sort((a, b) => {
    for (const { name, descending, rank } of terms) {
      // A ranked text column: its rank in the database's order (NULL stays NULL).
      const x = (rank === undefined || a[name] === null ? a[name] : a[rank]) as number | null;
      const y = (rank === undefined || b[name] === null ? b[name] : b[rank]) as number | null;
      if (x === y) continue;
      // NULLs last ascending, first descending (PostgreSQL's default, spelled out on SQLite).
      if (x === null) return descending ? -1 : 1;
      if (y === null) return descending ? 1 : -1;
      return descending ? y - x : x - y;
    }
    return 0;
  });
}
