import type { Expr, Query } from './ast.ts';
import { checkQuery, type CheckOptions } from './check.ts';
import { CypherError } from './errors.ts';
import { hasMacro } from './macros.ts';
import { MAX_QUERY_LENGTH, parseCypher } from './parser.ts';
import { instantiate, liftLiterals, shapeOf, type Shape } from './shapes.ts';
import { children } from './walk.ts';
import { BoundedCache } from '../http/bounded-cache.ts';

export interface PreparedQuery {
  text: string;
  query: Query;
  hasMutation: boolean;
  columns: string[];
}

/** Deepest expression nesting accepted: everything after parsing walks trees recursively. */
export const MAX_DEPTH = 400;

/**
 * Prepared queries by exact text and check options, so a repeated query (the UI's pre-built and saved
 * queries, selectors, bhcli) skips parse and check. Bounded by an estimate of the bytes held (oldest
 * out first; a huge text is not kept). Only successes are kept. What is kept is deeply frozen: every
 * execution reads the same AST and none may change it.
 *
 * Below it, parsed shapes (shapes.ts): texts that differ only in plain string literals (the same
 * question about another user) share one parse; each is then checked on its own.
 */
export class PreparedCache {
  private readonly kept: BoundedCache<PreparedQuery>;
  private readonly shapes: BoundedCache<Shape | 'unsound'>;
  /** Preparations that reused a parsed shape (tests check the path is taken). */
  shapeHits = 0;

  constructor(maxBytes: number) {
    // An AST takes some tens of bytes per character of its text.
    this.kept = new BoundedCache(maxBytes, (p) => 64 * p.text.length + 1024);
    this.shapes = new BoundedCache(maxBytes, (s) => (s === 'unsound' ? 64 : 64 * s.length + 1024));
  }

  prepare(text: string, options: CheckOptions = { mutations: false }): PreparedQuery {
    const key = `${options.mutations ? 'm' : 'r'}:${text}`;
    const hit = this.kept.get(key);
    if (hit !== undefined) return hit;
    const prepared = deepFreeze(this.prepareByShape(text, options));
    this.kept.set(key, prepared);
    return prepared;
  }

  /** Parses through the shape of the text when it has one (else in full); checks the concrete tree. */
  private prepareByShape(text: string, options: CheckOptions): PreparedQuery {
    if (text.length > MAX_QUERY_LENGTH) return prepareUncached(text, options);
    const lifted = liftLiterals(text);
    if (lifted === null) return prepareUncached(text, options);
    let shape = this.shapes.get(lifted.shape);
    if (shape === undefined) {
      let parsed: Query;
      try {
        parsed = parseCypher(lifted.shape);
      } catch {
        // The concrete text's own parse reports the error where it is.
        return prepareUncached(text, options);
      }
      shape = shapeOf(lifted, deepFreeze(parsed)) ?? 'unsound';
      this.shapes.set(lifted.shape, shape);
    } else if (shape !== 'unsound') {
      this.shapeHits++;
    }
    if (shape === 'unsound') return prepareUncached(text, options);
    return prepareParsed(text, instantiate(shape, lifted.literals), options);
  }

  get size(): number {
    return this.kept.size;
  }
}

const cache = new PreparedCache(16 * 1024 * 1024);

/** Parses and checks a query (cached by text and options); throws CypherError (a 400 on the route) naming what is wrong and where. */
export function prepareCypher(text: string, options: CheckOptions = { mutations: false }): PreparedQuery {
  return cache.prepare(text, options);
}

/** Parses and checks a query, every time. */
export function prepareUncached(text: string, options: CheckOptions = { mutations: false }): PreparedQuery {
  return prepareParsed(text, parseCypher(text), options);
}

/** Checks a parsed query (the tree parseCypher(text) gives). */
function prepareParsed(text: string, query: Query, options: CheckOptions): PreparedQuery {
  if (depth(query) > MAX_DEPTH) throw new CypherError(`query is nested too deeply (more than ${MAX_DEPTH} levels)`);
  const { hasMutation, columns } = checkQuery(text, query, options);
  // As BloodHound: a mutating query may not use AD_ATTACK_PATHS & co. anywhere (MATCH included).
  if (hasMutation && usesShortcut(query)) throw new CypherError('relationship type shortcuts are not supported in graph mutations');
  return { text, query, hasMutation, columns };
}

/** Freezes a value and everything reachable from it (without recursion: ASTs may be deep). */
function deepFreeze<T>(value: T): T {
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (v === null || typeof v !== 'object' || Object.isFrozen(v)) continue;
    Object.freeze(v);
    for (const x of Object.values(v)) stack.push(x);
  }
  return value;
}

/** Whether any relationship pattern of the query (in any clause or expression) names a shortcut. */
function usesShortcut(query: Query): boolean {
  const stack: unknown[] = [query];
  while (stack.length > 0) {
    const v = stack.pop();
    if (Array.isArray(v)) stack.push(...v);
    else if (v && typeof v === 'object') {
      const o = v as Record<string, unknown>;
      if (Array.isArray(o.types) && 'direction' in o && hasMacro(o.types as string[])) return true;
      stack.push(...Object.values(o));
    }
  }
  return false;
}

/** The deepest expression nesting of a query, found without recursion. */
function depth(query: Query): number {
  const stack: Array<[Expr, number]> = [];
  for (const part of query.parts) {
    for (const clause of part.clauses) {
      for (const value of Object.values(clause)) collect(value, stack);
    }
  }
  let max = 0;
  while (stack.length > 0) {
    const [e, d] = stack.pop()!;
    if (d > max) max = d;
    if (max > MAX_DEPTH) return max;
    for (const c of children(e)) stack.push([c, d + 1]);
  }
  return max;
}

/** Pushes every expression found (one level down) in a clause's fields. */
function collect(value: unknown, stack: Array<[Expr, number]>): void {
  if (Array.isArray(value)) {
    for (const v of value) collect(v, stack);
  } else if (value && typeof value === 'object') {
    if ('t' in value && typeof (value as Expr).t === 'string' && 'at' in value) {
      stack.push([value as Expr, 1]);
    } else {
      for (const v of Object.values(value)) collect(v, stack);
    }
  }
}
