import peggy from 'peggy';
import type { Expr, Query } from './ast.ts';
import { CypherError, errorAt } from './errors.ts';
import { GRAMMAR } from './grammar.ts';

/**
 * Cypher text → syntax tree (ast.ts). The parser is generated from grammar.ts once per process, on
 * first use. It memoises rule results (peggy `cache`), so no input takes more than linear time.
 */
let parser: peggy.Parser | undefined;

function generated(): peggy.Parser {
  parser ??= peggy.generate(GRAMMAR, { cache: true });
  return parser;
}

/** Longest query text accepted (BloodHound has none beyond the 10 MiB body; this bounds parse memory). */
export const MAX_QUERY_LENGTH = 256 * 1024;

class Refusal {
  constructor(readonly message: string, readonly offset: number) {}
}

export function parseCypher(text: string): Query {
  if (text.trim().length === 0) throw new CypherError('invalid input');
  if (text.length > MAX_QUERY_LENGTH) {
    throw new CypherError(`query is too long: ${text.length} characters (at most ${MAX_QUERY_LENGTH})`);
  }
  try {
    return generated().parse(text, ACTIONS) as Query;
  } catch (err) {
    if (err instanceof Refusal) throw errorAt(text, err.offset, err.message);
    if (err instanceof RangeError) throw new CypherError('query is nested too deeply');
    if (isPeggyError(err)) throw errorAt(text, err.location.start.offset, syntaxMessage(text, err));
    throw err;
  }
}

type BracketTail =
  | { kind: 'list'; items: Expr[] }
  | { kind: 'comprehension'; where: Expr | null; map: Expr | null };

/** `[...]`: a list literal, a list comprehension or a pattern comprehension, decided by what follows the first expression. */
function bracket(first: Expr, tail: BracketTail, at: number): Expr {
  const isIn = first.t === 'strop' && first.op === 'IN' && first.left.t === 'var';
  if (tail.kind === 'list') {
    if (tail.items.length === 0 && isIn) return { t: 'listcomp', at, variable: varName(first.left), list: first.right, where: null, map: null };
    return { t: 'list', at, items: [first, ...tail.items] };
  }
  if (isIn) return { t: 'listcomp', at, variable: varName(first.left), list: first.right, where: tail.where, map: tail.map };
  if (tail.map !== null) {
    if (first.t === 'pattern') return { t: 'patcomp', at, pattern: first.pattern, where: tail.where, map: tail.map };
    if (first.t === 'cmp' && first.ops.length === 1 && first.ops[0] === '=' && first.args[0].t === 'var' && first.args[1].t === 'pattern') {
      return { t: 'patcomp', at, pattern: { ...first.args[1].pattern, pathVariable: first.args[0].name }, where: tail.where, map: tail.map };
    }
  }
  throw new Refusal("a list comprehension needs 'variable IN list' (a pattern comprehension a pattern and '|') before WHERE or '|'", at);
}

function varName(e: Expr): string {
  return e.t === 'var' ? e.name : '';
}

/** Helpers the grammar's actions call (as `options.*`). */
export const ACTIONS = {
  refuse(message: string, offset: number): never {
    throw new Refusal(message, offset);
  },
  bracket,
  integer(digits: string, radix: number, offset: number): number {
    const value = Number.parseInt(digits, radix);
    if (!Number.isSafeInteger(value)) throw new Refusal(`integer is too large: ${digits}`, offset);
    return value;
  },
};

function isPeggyError(err: unknown): err is peggy.parser.SyntaxError {
  return err instanceof Error && err.name === 'SyntaxError' && 'location' in err && 'expected' in err;
}

const HIDDEN = new Set(['whitespace']);
const MAX_LISTED = 12;

/** ANTLR-like wording: `mismatched input 'X' expecting {A, B, ...}` / `... at end of query`. */
function syntaxMessage(text: string, err: peggy.parser.SyntaxError): string {
  const offset = err.location.start.offset;
  const seen = new Set<string>();
  for (const e of err.expected ?? []) {
    const label = describe(e);
    if (label !== null && !HIDDEN.has(label)) seen.add(label);
  }
  const expected = [...seen].sort();
  const listed = expected.length > MAX_LISTED ? [...expected.slice(0, MAX_LISTED), '...'] : expected;
  const expecting = listed.length === 0 ? '' : ` expecting {${listed.join(', ')}}`;
  if (offset >= text.length) return `unexpected end of query${expecting}`;
  return `mismatched input '${tokenAt(text, offset)}'${expecting}`;
}

function describe(e: peggy.parser.Expectation): string | null {
  switch (e.type) {
    case 'literal':
      return `'${e.ignoreCase ? e.text.toUpperCase() : e.text}'`;
    case 'other':
      return e.description;
    case 'end':
      return 'end of query';
    default:
      return null;
  }
}

/** The word or symbol that starts at `offset` (at most 40 characters). */
function tokenAt(text: string, offset: number): string {
  const rest = text.slice(offset, offset + 40);
  const m = /^([A-Za-z0-9_]+|\s|.)/s.exec(rest);
  const token = m ? m[1] : rest;
  return token.replace(/\n/g, '\\n').replace(/\r/g, '\\r').replace(/\t/g, '\\t');
}
