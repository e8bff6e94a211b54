/**
 * The pure half of the query engine: validates a request's query string against a compiled
 * declaration (CONTRACT.md §3). Knows no SQL. Every failure is an ApiError 400 with the contract's text.
 */
import type { ParsedInstant } from '../../db/time.ts';
import { badRequest, Messages, offsetPlusHint } from '../errors.ts';
import {
  ALL_PREDICATES,
  KIND_PREDICATES,
  LIMIT_PARAM,
  MAX_PAGING,
  MAX_VALUES,
  SKIP_PARAM,
  SORT_PARAM,
  type CompiledFilter,
  type CompiledQuery,
  type FilterKind,
  type ParamSpec,
  type Predicate,
  type SortTerm,
} from './declaration.ts';
import {
  parseBooleanOperand,
  parseCountOperand,
  parseInstantOperand,
  parseIntegerOperand,
  parseUuidOperand,
} from './operands.ts';

/**
 * A parsed operand: string (string kind, uuid lower-cased, enum ~eq text), number (integer kind,
 * enum eq/neq), boolean, ParsedInstant (timestamp kind), or null (eq:null / neq:null).
 */
export type FilterValue = string | number | boolean | ParsedInstant | null;

export interface ParsedFilter {
  /** Wire name. */
  name: string;
  /** SQL column. */
  column: string;
  kind: FilterKind;
  predicate: Predicate;
  /** eq and ~eq values are alternatives (OR); values of the other predicates all apply (AND). */
  values: FilterValue[];
}

export interface ParsedQuery {
  filters: ParsedFilter[];
  sort: SortTerm[];
  skip: number;
  limit: number;
  params: Record<string, unknown>;
}

/** raw = Fastify's request.query (values string | string[]). */
export function parseQuery(q: CompiledQuery, raw: Record<string, unknown>): ParsedQuery {
  const filters = new Map<string, ParsedFilter>();
  let sort: SortTerm[] | undefined;
  let skip = 0;
  let limit = q.paging?.defaultLimit ?? 0;
  const params: Record<string, unknown> = {};

  for (const key of Object.keys(raw ?? {})) {
    const values = valuesOf(key, raw[key]);
    if (values.length === 0) continue;
    const filter = q.filters.get(key);
    const param = q.params.get(key);
    const paging = q.paging !== undefined && (key === SKIP_PARAM || key === LIMIT_PARAM);
    if (!filter && !param && !paging && key !== SORT_PARAM) {
      // skip / limit on a list that is not paged: say so, rather than only "cannot be filtered"
      const unpaged = q.paging === undefined && (key === SKIP_PARAM || key === LIMIT_PARAM) ? ' (this list is not paged: it takes no skip or limit)' : '';
      throw badRequest(Messages.columnNotFilterable(key) + unpaged);
    }
    if (values.length > MAX_VALUES) throw badRequest(Messages.badFilterIn(key, ` (more than ${MAX_VALUES} values)`));

    if (key === SORT_PARAM) sort = parseSort(q, values);
    else if (paging) {
      const n = parseCount(key, values);
      if (key === SKIP_PARAM) skip = n;
      else limit = n;
    } else if (filter) {
      for (const text of values) addFilterValue(filters, filter, text);
    } else if (param) params[key] = parseParam(key, param, values);
  }

  for (const [name, spec] of q.params) {
    if (Object.hasOwn(params, name)) continue;
    const fallback = defaultOf(spec);
    if (fallback !== undefined) params[name] = fallback;
  }

  return { filters: [...filters.values()], sort: sort ?? q.defaultSort.map((t) => ({ ...t })), skip, limit, params };
}

/** Normalises one query-string entry to its list of texts; anything else is a malformed filter. */
function valuesOf(key: string, value: unknown): string[] {
  if (value === undefined || value === null) return [];
  if (Array.isArray(value)) return value.flatMap((v) => (v === undefined || v === null ? [] : [scalar(key, v)]));
  return [scalar(key, value)];
}

function scalar(key: string, value: unknown): string {
  if (typeof value === 'string') return value;
  // Tolerates a querystring schema that coerced types before us.
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  throw badRequest(Messages.badFilterIn(key, ' (not a text value)'));
}

/** `name=text (why)`, the text cut at 80 characters. */
function badValue(f: CompiledFilter, text: string, why: string) {
  const shown = text.length > 80 ? `${text.slice(0, 80)}…` : text;
  return badRequest(Messages.badFilterIn(f.name, `=${shown} (${why})`));
}

const OPERANDS: Record<FilterKind, string> = {
  string: 'a string operand may not contain a colon',
  boolean: 'expected true or false',
  uuid: 'expected a UUID such as 0e0d0c0b-0a09-0807-0605-040302010000',
  integer: 'expected an integer',
  timestamp: 'expected an RFC-3339 date-time such as 2024-01-02T03:04:05Z',
};

function operandProblem(f: CompiledFilter, predicate: Predicate, operand: string): string {
  if (f.kind === 'timestamp') {
    const hint = offsetPlusHint(operand);
    if (hint) return hint.slice(2, -1);
  }
  if (f.kind === 'string' && f.enumEntries && predicate !== '~eq' && !operand.includes(':')) {
    return `expected one of: ${f.enumEntries.map(([label, n]) => `${label} (${n})`).join(', ')}`;
  }
  if (f.nullable && operand === 'null') return `null goes with eq or neq only`;
  return OPERANDS[f.kind];
}

function parseSort(q: CompiledQuery, values: string[]): SortTerm[] {
  const terms: SortTerm[] = [];
  for (const value of values) {
    const descending = value.startsWith('-');
    const name = descending ? value.slice(1) : value;
    if (name === '') throw badRequest(Messages.emptySort);
    const column = q.sortable.get(name);
    if (column === undefined) throw badRequest(Messages.notSortable(name));
    if (terms.some((t) => t.name === name)) continue; // a later mention of the same column adds nothing
    terms.push({ name, column, descending });
  }
  return terms;
}

function parseCount(key: string, values: string[]): number {
  const n = values.length === 1 ? parseCountOperand(values[0], MAX_PAGING) : undefined;
  if (n === undefined) throw badRequest(Messages.malformedParam(key));
  return n;
}

function addFilterValue(filters: Map<string, ParsedFilter>, f: CompiledFilter, text: string): void {
  const { predicate, value } = parseFilterValue(f, text);
  const key = `${f.name}\u0000${predicate}`;
  const existing = filters.get(key);
  if (existing) existing.values.push(value);
  else filters.set(key, { name: f.name, column: f.column, kind: f.kind, predicate, values: [value] });
}

/**
 * `[predicate:]operand`, split at the first colon when the text before it is a predicate. Any other
 * text is a bare operand meaning eq (only a timestamp operand may then contain a colon).
 */
export function parseFilterValue(f: CompiledFilter, text: string): { predicate: Predicate; value: FilterValue } {
  let predicate: Predicate = 'eq';
  let operand = text;
  const colon = text.indexOf(':');
  if (colon >= 0) {
    const head = text.slice(0, colon);
    if (ALL_PREDICATES.has(head)) {
      predicate = head as Predicate;
      operand = text.slice(colon + 1);
    }
  }
  if (!KIND_PREDICATES[f.kind].includes(predicate)) throw badValue(f, text, `${predicate} does not apply to a ${f.kind} column`);
  if (!f.allowed.has(predicate)) throw badRequest(Messages.predicateNotSupported(f.name, predicate));
  if (f.nullable && operand === 'null' && (predicate === 'eq' || predicate === 'neq')) return { predicate, value: null };
  const value = parseOperand(f, predicate, operand);
  if (value === undefined) throw badValue(f, text, operandProblem(f, predicate, operand));
  return { predicate, value };
}

function parseOperand(f: CompiledFilter, predicate: Predicate, operand: string): FilterValue | undefined {
  switch (f.kind) {
    case 'string':
      if (operand.includes(':')) return undefined;
      if (!f.enumEntries || predicate === '~eq') return operand;
      return parseEnumOperand(f, operand);
    case 'boolean':
      return parseBooleanOperand(operand);
    case 'uuid':
      return parseUuidOperand(operand);
    case 'integer':
      return parseIntegerOperand(operand);
    case 'timestamp':
      return parseInstantOperand(operand);
  }
}

/** An enum operand is one of the names (any case) or one of the integers. */
function parseEnumOperand(f: CompiledFilter, operand: string): number | undefined {
  const lower = operand.toLowerCase();
  const byName = f.enumEntries!.find(([label]) => label === lower);
  if (byName) return byName[1];
  const n = parseIntegerOperand(operand);
  return n !== undefined && f.enumEntries!.some(([, v]) => v === n) ? n : undefined;
}

function parseParam(key: string, spec: ParamSpec, values: string[]): unknown {
  if (spec.type === 'string[]') return values;
  const value = values.length === 1 ? parseSingleParam(spec, values[0]) : undefined;
  if (value === undefined) {
    const hint = spec.type === 'timestamp' && values.length === 1 ? offsetPlusHint(values[0]) : '';
    throw badRequest(Messages.malformedParam(key) + hint);
  }
  return value;
}

function parseSingleParam(spec: ParamSpec, text: string): unknown {
  switch (spec.type) {
    case 'boolean':
      return parseBooleanOperand(text);
    case 'integer': {
      const n = parseIntegerOperand(text);
      if (n === undefined) return undefined;
      if (spec.min !== undefined && n < spec.min) return undefined;
      if (spec.max !== undefined && n > spec.max) return undefined;
      return n;
    }
    case 'string':
      return spec.enum === undefined || spec.enum.includes(text) ? text : undefined;
    case 'timestamp':
      return parseInstantOperand(text)?.micros;
    default:
      return undefined;
  }
}

function defaultOf(spec: ParamSpec): unknown {
  switch (spec.type) {
    case 'boolean':
    case 'integer':
    case 'string':
      return spec.default;
    case 'string[]':
      return [];
    default:
      return undefined;
  }
}
