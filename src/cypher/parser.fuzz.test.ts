import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { LIBRARY } from './library.test-helpers.ts';
import { CypherError } from './errors.ts';
import { prepareCypher } from './prepare.ts';

const RUNS = Number(process.env.SCENT_FUZZ_RUNS ?? 400);

/** Any input either prepares or fails with a CypherError whose message names a position or a reason. */
function preparesOrRefuses(text: string): void {
  try {
    prepareCypher(text);
  } catch (err) {
    assert.ok(err instanceof CypherError, `not a CypherError for ${JSON.stringify(text.slice(0, 200))}: ${String(err)}`);
    assert.ok(err.message.length > 0 && err.message.length < 2000);
  }
}

const tokens = fc.constantFrom(
  'MATCH', 'OPTIONAL', 'WHERE', 'WITH', 'RETURN', 'UNWIND', 'AS', 'ORDER BY', 'DESC', 'LIMIT', 'SKIP', 'DISTINCT', 'UNION',
  'AND', 'OR', 'XOR', 'NOT', 'IN', 'IS NULL', 'STARTS WITH', 'ENDS WITH', 'CONTAINS', '=~', '=', '<>', '<', '>=', '+', '-',
  '*', '/', '^', '(', ')', '[', ']', '{', '}', ':', ',', '.', '..', '|', '->', '<-', '-[', ']-', '*1..', 'n', 'm', 'p',
  'n.name', ':User', ':Base', '"x"', "'y'", '1', '2.5', 'true', 'null', 'count(*)', 'collect(', 'shortestPath(', 'CASE',
  'WHEN', 'THEN', 'END', 'NONE(', 'x IN', '$p', '`q`', '//c\n', '/*', '*/', '\\', ';', 'CALL', 'CREATE', 'SET', 'DELETE',
);
const tokenSoup = fc.array(tokens, { maxLength: 30 }).map((ts) => ts.join(' '));
/** Library queries with a slice cut out or a token spliced in: near-valid input. */
const mutated = fc.tuple(fc.constantFrom(...LIBRARY.map((q) => q.query)), fc.nat(), fc.nat({ max: 20 }), tokens)
  .map(([q, at, len, tok]) => {
    const i = at % (q.length + 1);
    return q.slice(0, i) + (len % 2 === 0 ? tok : '') + q.slice(Math.min(q.length, i + len));
  });

test('no input crashes the front end: random text, token soup and mutated library queries', () => {
  fc.assert(fc.property(fc.string({ unit: 'binary', maxLength: 200 }), preparesOrRefuses), { numRuns: RUNS });
  fc.assert(fc.property(tokenSoup, preparesOrRefuses), { numRuns: RUNS });
  fc.assert(fc.property(mutated, preparesOrRefuses), { numRuns: RUNS });
});

test('deep nesting is refused or parsed, never a crash, and never slow', () => {
  for (const depth of [50, 500, 20_000]) {
    for (const [open, close] of [['(', ')'], ['[', ']'], ['({a: ', '})'], ['[x IN [x IN ', ', 1]'], ['NOT ', ''], ['-', '']]) {
      const started = performance.now();
      preparesOrRefuses(`RETURN ${open.repeat(depth)}1${close.repeat(depth)}`);
      assert.ok(performance.now() - started < 5000, `${open} x ${depth}`);
    }
  }
});
