/**
 * The applier against a model: hostile operands and generated filters give exactly the rows a plain
 * JavaScript evaluation of the contract's semantics gives, and the table survives.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import fc from 'fast-check';
import { sql } from 'kysely';
import { toRfc3339 } from '../../db/time.ts';
import { ApiError, Messages } from '../errors.ts';
import { parseQuery } from './index.ts';
import { Q, throws400 } from '../../test/query-fixtures.ts';
import { BASE, DIALECT, openTestDb, ROWS, seed, type Row, type TestDb } from '../../test/query-db.ts';
import { matchingIds } from '../../test/query-db.ts';

let t: TestDb;
before(async () => {
  t = await openTestDb();
  await seed(t.k);
});
after(async () => t?.close());

const ids = (raw: Record<string, string | string[]>) => matchingIds(t, raw);

type TextColumn = 'name' | 'note';
type TextPredicate = 'eq' | '~eq' | 'neq';

/** The contract's string semantics in JavaScript (note is nullable, name is not). */
function textModel(column: TextColumn, predicate: TextPredicate, v: string): number[] {
  const nullable = column === 'note';
  return ROWS.filter((r) => {
    const s = r[column];
    if (nullable && v === 'null' && predicate !== '~eq') return predicate === 'eq' ? s === null : s !== null;
    if (predicate === 'eq') return s === v;
    if (predicate === '~eq') return s !== null && s.toLowerCase().includes(v.toLowerCase());
    return s === null ? nullable : s !== v;
  }).map((r) => r.id);
}

const HOSTILE = [
  "' OR 1=1 --",
  "' OR '1'='1",
  '"; drop table t; --',
  "'); drop table t; --",
  "') or ('1'='1",
  "%' or '1'='1",
  "\\' or 1=1 --",
  '$1',
  '?',
  '/*',
  '*/ or 1=1',
  '\u0000',
  'a\u0000b',
  '\u0000%',
  '["x","y"]',
  '[1,2,3]',
  'x'.repeat(10_240),
  '%'.repeat(10_240),
  '\\'.repeat(5_000),
  'É'.repeat(5_000),
  '\n\t\r',
  '😀 e\u0301',
];

test(`${DIALECT}: hostile operands give the model's rows and the table survives`, async () => {
  for (const v of HOSTILE) {
    for (const column of ['name', 'note'] as const) {
      for (const predicate of ['eq', '~eq', 'neq'] as const) {
        const expected = textModel(column, predicate, v);
        assert.deepEqual(await ids({ [column]: `${predicate}:${v}` }), expected, `${column}=${predicate}:${JSON.stringify(v).slice(0, 40)}`);
      }
    }
  }
  assert.deepEqual(await ids({ note: "' OR 1=1 --" }), [10]);
  assert.deepEqual(await ids({ name: '["x","y"]' }), [10]);
  const { rows } = await sql<{ c: number }>`select count(*) as c from t`.execute(t.k);
  assert.equal(Number(rows[0].c), ROWS.length);
});

test('hostile text in names, sort and JSON with colons is refused before any SQL', () => {
  throws400(() => parseQuery(Q, { name: '{"a":1}' }), Messages.badFilterIn('name', '={"a":1} (a string operand may not contain a colon)'));
  throws400(() => parseQuery(Q, { 'name; drop table t': 'x' }), Messages.columnNotFilterable('name; drop table t'));
  throws400(() => parseQuery(Q, { sort_by: 'name; drop table t' }), Messages.notSortable('name; drop table t'));
  throws400(() => parseQuery(Q, { sort_by: 'name desc' }), Messages.notSortable('name desc'));
  throws400(() => parseQuery(Q, { limit: '1; drop table t' }), Messages.malformedParam('limit'));
  throws400(() => parseQuery(Q, { n: '1 OR 1=1' }), Messages.badFilterIn('n', '=1 OR 1=1 (expected an integer)'));
});

const tricky = fc.string({
  unit: fc.constantFrom('a', 'A', 'b', 'B', 'l', 'o', '_', '%', '\\', 'É', 'é', ' ', "'", '"', '[', 'x', 'n', 'u'),
  maxLength: 4,
});

test(`${DIALECT}: generated string filters match the model`, async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.constantFrom<TextColumn>('name', 'note'),
      fc.constantFrom<TextPredicate>('eq', '~eq', 'neq'),
      fc.oneof(tricky, fc.constantFrom(...ROWS.map((r) => r.name)), fc.constant('null')),
      async (column, predicate, v) => {
        assert.deepEqual(await ids({ [column]: `${predicate}:${v}` }), textModel(column, predicate, v));
      },
    ),
    { numRuns: 300 },
  );
});

type Cmp = 'eq' | 'neq' | 'gt' | 'gte' | 'lt' | 'lte';
function cmp(p: Cmp, a: bigint, b: bigint): boolean {
  return { eq: a === b, neq: a !== b, gt: a > b, gte: a >= b, lt: a < b, lte: a <= b }[p];
}

test(`${DIALECT}: generated timestamp filters compare exact instants (nanosecond operands)`, async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.constantFrom<'created_at' | 'deleted_at'>('created_at', 'deleted_at'),
      fc.constantFrom<Cmp>('eq', 'neq', 'gt', 'gte', 'lt', 'lte'),
      fc.integer({ min: -2, max: 202 }),
      fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 999 })),
      async (column, predicate, k, nanos) => {
        const operand = `${toRfc3339(BASE + k).slice(0, -1)}${String(nanos).padStart(3, '0')}Z`;
        // exact instants in nanoseconds relative to BASE
        const at = BigInt(k) * 1000n + BigInt(nanos);
        const expected = ROWS.filter((r: Row) => {
          const s = r[column];
          if (s === null) return predicate === 'neq';
          return cmp(predicate, BigInt(s - BASE) * 1000n, at);
        }).map((r) => r.id);
        assert.deepEqual(await ids({ [column]: `${predicate}:${operand}` }), expected, `${column}=${predicate}:${operand}`);
      },
    ),
    { numRuns: 300 },
  );
});

test(`${DIALECT}: generated integer filters match the model`, async () => {
  const interesting = [...new Set(ROWS.map((r) => r.n))].flatMap((n) => [n - 1, n, n + 1]).filter(Number.isSafeInteger);
  await fc.assert(
    fc.asyncProperty(
      fc.constantFrom<Cmp>('eq', 'neq', 'gt', 'gte', 'lt', 'lte'),
      fc.oneof(fc.constantFrom(...interesting), fc.maxSafeInteger()),
      async (predicate, n) => {
        const expected = ROWS.filter((r) => cmp(predicate, BigInt(r.n), BigInt(n))).map((r) => r.id);
        assert.deepEqual(await ids({ n: `${predicate}:${n}` }), expected);
      },
    ),
    { numRuns: 300 },
  );
});

test('parser errors are ApiErrors, never driver errors', () => {
  assert.throws(() => parseQuery(Q, { created_at: "gt:2024-01-01T00:00:00Z' or 1=1" }), ApiError);
});
