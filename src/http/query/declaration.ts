/**
 * Per-endpoint declarations of filterable columns, sortable columns, paging and other query
 * parameters (CONTRACT.md §3). `defineQuery` checks a declaration once, at start-up, and compiles it
 * into lookup tables; everything here is trusted code, never user input.
 */

export type FilterKind = 'string' | 'boolean' | 'uuid' | 'integer' | 'timestamp';
export type Predicate = 'eq' | '~eq' | 'neq' | 'gt' | 'gte' | 'lt' | 'lte';

export interface FilterColumn {
  kind: FilterKind;
  /** SQL reference, e.g. 'users.principal_name' (trusted, from code). */
  column: string;
  /** Narrower than the kind's set; default = all predicates of the kind. */
  predicates?: Predicate[];
  /** Allows eq:null / neq:null → IS NULL / IS NOT NULL. */
  nullable?: boolean;
  /**
   * Only for kind 'string' over an integer column: the operand is a name (any case) or one of the
   * integers; ~eq matches within the names → IN (...).
   */
  enum?: Record<string, number>;
}

export type ParamSpec =
  | { type: 'boolean'; default: boolean; description?: string }
  | { type: 'integer'; default?: number; min?: number; max?: number; description?: string }
  | { type: 'string'; default?: string; enum?: string[]; description?: string }
  | { type: 'string[]'; description?: string }
  | { type: 'timestamp'; description?: string };

export interface QueryDeclaration {
  /** Wire name → column. */
  filters?: Record<string, FilterColumn>;
  /** Wire name → SQL column. */
  sortable?: Record<string, string>;
  /** Wire names. */
  defaultSort?: Array<{ column: string; descending?: boolean }>;
  /** SQL column of the primary key, appended last to every ORDER BY. */
  tieBreaker?: string;
  /** Absent → skip/limit are unknown parameters (400). */
  paging?: { defaultLimit: number };
  /** Other documented parameters of the endpoint. */
  params?: Record<string, ParamSpec>;
}

export interface CompiledFilter extends Readonly<FilterColumn> {
  readonly name: string;
  /** The predicates this column accepts (the kind's set narrowed by `predicates`). */
  readonly allowed: ReadonlySet<Predicate>;
  /** Enum entries as [lower-cased name, value], when `enum` is declared. */
  readonly enumEntries?: ReadonlyArray<readonly [string, number]>;
}

export interface SortTerm {
  /** Wire name. */
  readonly name: string;
  /** SQL column. */
  readonly column: string;
  readonly descending: boolean;
}

export interface CompiledQuery {
  readonly declaration: Readonly<QueryDeclaration>;
  readonly filters: ReadonlyMap<string, CompiledFilter>;
  readonly sortable: ReadonlyMap<string, string>;
  readonly defaultSort: ReadonlyArray<SortTerm>;
  readonly tieBreaker?: string;
  readonly paging?: { readonly defaultLimit: number };
  readonly params: ReadonlyMap<string, ParamSpec>;
}

export const KIND_PREDICATES: Readonly<Record<FilterKind, readonly Predicate[]>> = {
  string: ['eq', '~eq', 'neq'],
  boolean: ['eq', 'neq'],
  uuid: ['eq', 'neq'],
  integer: ['eq', 'neq', 'gt', 'gte', 'lt', 'lte'],
  timestamp: ['eq', 'neq', 'gt', 'gte', 'lt', 'lte'],
};

export const ALL_PREDICATES: ReadonlySet<string> = new Set<Predicate>(['eq', '~eq', 'neq', 'gt', 'gte', 'lt', 'lte']);

/** Largest skip / limit accepted (int32). */
export const MAX_PAGING = 2147483647;
/** More values than this for one parameter is abuse. */
export const MAX_VALUES = 100;

export const SORT_PARAM = 'sort_by';
export const SKIP_PARAM = 'skip';
export const LIMIT_PARAM = 'limit';

const NAME = /^[A-Za-z_][A-Za-z0-9_.-]*$/;
const COLUMN = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*){0,2}$/;
const PARAM_TYPES = new Set(['boolean', 'integer', 'string', 'string[]', 'timestamp']);

function fail(why: string): never {
  throw new Error(`invalid query declaration: ${why}`);
}

function checkName(name: string, what: string): void {
  if (!NAME.test(name) || name === '__proto__') fail(`${what} name ${JSON.stringify(name)}`);
}

function checkColumn(column: unknown, what: string): string {
  if (typeof column !== 'string' || !COLUMN.test(column)) fail(`${what} column ${JSON.stringify(column)}`);
  return column;
}

/** Validates a declaration once (throws at start-up on nonsense) and compiles it. */
export function defineQuery(decl: QueryDeclaration): CompiledQuery {
  const reserved = new Set([SORT_PARAM, ...(decl.paging ? [SKIP_PARAM, LIMIT_PARAM] : [])]);
  const taken = (name: string, what: string) => {
    if (reserved.has(name)) fail(`${what} ${name} uses a reserved name`);
    reserved.add(name);
  };

  const filters = new Map<string, CompiledFilter>();
  for (const [name, f] of Object.entries(decl.filters ?? {})) {
    checkName(name, 'filter');
    taken(name, 'filter');
    filters.set(name, compileFilter(name, f));
  }

  const params = new Map<string, ParamSpec>();
  for (const [name, p] of Object.entries(decl.params ?? {})) {
    checkName(name, 'param');
    taken(name, 'param');
    checkParam(name, p);
    params.set(name, Object.freeze({ ...p }));
  }

  const sortable = new Map<string, string>();
  for (const [name, column] of Object.entries(decl.sortable ?? {})) {
    checkName(name, 'sortable');
    sortable.set(name, checkColumn(column, `sortable ${name}`));
  }

  const defaultSort = (decl.defaultSort ?? []).map((s): SortTerm => {
    const column = sortable.get(s.column);
    if (column === undefined) fail(`defaultSort names ${s.column}, which is not sortable`);
    return Object.freeze({ name: s.column, column, descending: s.descending === true });
  });

  const tieBreaker = decl.tieBreaker === undefined ? undefined : checkColumn(decl.tieBreaker, 'tieBreaker');

  let paging: { defaultLimit: number } | undefined;
  if (decl.paging) {
    const d = decl.paging.defaultLimit;
    if (!Number.isInteger(d) || d < 0 || d > MAX_PAGING) fail(`paging.defaultLimit ${d}`);
    paging = Object.freeze({ defaultLimit: d });
  }

  return Object.freeze({
    declaration: Object.freeze({ ...decl }),
    filters,
    sortable,
    defaultSort: Object.freeze(defaultSort),
    tieBreaker,
    paging,
    params,
  });
}

function compileFilter(name: string, f: FilterColumn): CompiledFilter {
  const kindSet = KIND_PREDICATES[f.kind];
  if (!kindSet) fail(`filter ${name} has unknown kind ${JSON.stringify(f.kind)}`);
  checkColumn(f.column, `filter ${name}`);
  const predicates = f.predicates ?? kindSet;
  if (predicates.length === 0) fail(`filter ${name} allows no predicate`);
  for (const p of predicates) {
    if (!kindSet.includes(p)) fail(`filter ${name}: predicate ${p} is not valid for kind ${f.kind}`);
  }
  let enumEntries: Array<readonly [string, number]> | undefined;
  if (f.enum !== undefined) {
    if (f.kind !== 'string') fail(`filter ${name}: enum is only for kind string`);
    enumEntries = [];
    const seen = new Set<string>();
    for (const [label, value] of Object.entries(f.enum)) {
      const lower = label.toLowerCase();
      if (label === '' || label.includes(':') || seen.has(lower)) fail(`filter ${name}: enum name ${JSON.stringify(label)}`);
      if (!Number.isSafeInteger(value)) fail(`filter ${name}: enum value ${value}`);
      seen.add(lower);
      enumEntries.push(Object.freeze([lower, value] as const));
    }
    if (enumEntries.length === 0) fail(`filter ${name}: empty enum`);
  }
  return Object.freeze({
    ...f,
    name,
    predicates: [...predicates],
    allowed: new Set(predicates),
    enumEntries: enumEntries && Object.freeze(enumEntries),
  });
}

function checkParam(name: string, p: ParamSpec): void {
  if (!p || !PARAM_TYPES.has(p.type)) fail(`param ${name} has unknown type`);
  switch (p.type) {
    case 'boolean':
      if (typeof p.default !== 'boolean') fail(`param ${name} needs a boolean default`);
      return;
    case 'integer': {
      for (const v of [p.default, p.min, p.max]) {
        if (v !== undefined && !Number.isSafeInteger(v)) fail(`param ${name}: ${v} is not a safe integer`);
      }
      const min = p.min ?? Number.MIN_SAFE_INTEGER;
      const max = p.max ?? Number.MAX_SAFE_INTEGER;
      if (min > max) fail(`param ${name}: min > max`);
      if (p.default !== undefined && (p.default < min || p.default > max)) fail(`param ${name}: default out of range`);
      return;
    }
    case 'string':
      if (p.enum !== undefined && p.enum.length === 0) fail(`param ${name}: empty enum`);
      if (p.default !== undefined && p.enum !== undefined && !p.enum.includes(p.default)) {
        fail(`param ${name}: default is not in its enum`);
      }
      return;
    default:
      return;
  }
}

/** The enum values whose names contain `operand` (case-insensitive), for ~eq over an enum column. */
export function enumMatches(f: CompiledFilter, operand: string): number[] {
  const needle = operand.toLowerCase();
  return (f.enumEntries ?? []).filter(([label]) => label.includes(needle)).map(([, v]) => v);
}
