import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { toRfc3339 } from '../../db/time.ts';
import { ApiError, Messages } from '../errors.ts';
import { KIND_PREDICATES, parseQuery, type CompiledFilter, type Predicate } from './index.ts';
import { Q } from '../../test/query-fixtures.ts';

const RUNS = { numRuns: 2000 };
const keys = ['sort_by', 'skip', 'limit', ...Q.filters.keys(), ...Q.params.keys()];
const anyText = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.stringMatching(/^(~?eq|neq|gte?|lte?|null|-)?:?[-:.TZ+0-9a-fA-F]{0,40}$/),
);
const anyValue = fc.oneof(anyText, fc.array(anyText, { maxLength: 5 }));
const anyKey = fc.oneof(fc.constantFrom(...keys), fc.string({ maxLength: 12 }));

/** The set of texts the parser may answer with. */
function isContractMessage(m: string): boolean {
  return (
    m.startsWith(`${Messages.badFilter}: `) ||
    m === Messages.emptySort ||
    m.startsWith(Messages.columnNotFilterable('')) ||
    m.startsWith(Messages.notSortable('')) ||
    m.startsWith('the specified filter predicate is not supported for this column: ') ||
    /^query parameter ".*" is malformed$/s.test(m)
  );
}

function parsesOrRejects(raw: Record<string, unknown>): void {
  try {
    parseQuery(Q, raw);
  } catch (err) {
    assert.ok(err instanceof ApiError, `not an ApiError: ${String(err)}`);
    assert.equal(err.status, 400);
    assert.equal(err.messages.length, 1);
    assert.ok(isContractMessage(err.messages[0]), err.messages[0]);
  }
}

test('random query strings never crash the parser: a result or an ApiError 400 with a contract text', () => {
  fc.assert(
    fc.property(fc.dictionary(anyKey, anyValue, { maxKeys: 6 }), (raw) => parsesOrRejects(raw)),
    RUNS,
  );
  fc.assert(
    fc.property(fc.constantFrom(...keys), anyValue, (key, value) => parsesOrRejects({ [key]: value })),
    RUNS,
  );
});

test('integers round-trip through every integer predicate', () => {
  fc.assert(
    fc.property(fc.maxSafeInteger(), fc.constantFrom(...KIND_PREDICATES.integer), (n, p) => {
      const f = parseQuery(Q, { n: `${p}:${n}` }).filters[0];
      assert.deepEqual([f.predicate, f.values], [p, [n]]);
    }),
    RUNS,
  );
  fc.assert(
    fc.property(fc.bigInt({ min: 2n ** 53n, max: 2n ** 80n }), fc.boolean(), (n, negative) => {
      const text = `${negative ? '-' : ''}${n}`;
      assert.throws(() => parseQuery(Q, { n: text }), ApiError);
    }),
  );
});

// Every stored timestamp is a safe integer of micros (years 1684..2255).
const MIN_MICROS = Number.MIN_SAFE_INTEGER;
const MAX_MICROS = Number.MAX_SAFE_INTEGER;

test('timestamps round-trip: wire format, any offset, sub-microsecond digits', () => {
  fc.assert(
    fc.property(fc.integer({ min: MIN_MICROS, max: MAX_MICROS }), (micros) => {
      const f = parseQuery(Q, { created_at: `gte:${toRfc3339(micros)}` }).filters[0];
      assert.deepEqual(f.values, [{ micros, fractional: false }]);
    }),
    RUNS,
  );
  fc.assert(
    fc.property(
      fc.integer({ min: 0, max: Date.UTC(2200, 0, 1) * 1000 }),
      fc.integer({ min: -23 * 60 - 59, max: 23 * 60 + 59 }),
      fc.integer({ min: 0, max: 999 }),
      (micros, offset, nanos) => {
        // Render the same instant in another offset, with three extra (nanosecond) digits.
        const local = new Date(Math.floor(micros / 1000) + offset * 60_000).toISOString().slice(0, 19);
        const sub = String((micros % 1_000_000) * 1000 + nanos).padStart(9, '0');
        const sign = offset < 0 ? '-' : '+';
        const abs = Math.abs(offset);
        const hhmm = `${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
        const f = parseQuery(Q, { created_at: `lt:${local}.${sub}${sign}${hhmm}` }).filters[0];
        assert.deepEqual(f.values, [{ micros, fractional: nanos !== 0 }]);
      },
    ),
    RUNS,
  );
});

test('uuids round-trip lower-cased; mangled ones are rejected', () => {
  fc.assert(
    fc.property(fc.uuid(), fc.boolean(), fc.constantFrom<Predicate>('eq', 'neq'), (u, upper, p) => {
      const f = parseQuery(Q, { client_id: `${p}:${upper ? u.toUpperCase() : u}` }).filters[0];
      assert.deepEqual([f.predicate, f.values], [p, [u.toLowerCase()]]);
      assert.throws(() => parseQuery(Q, { client_id: u.replace(/-/g, '') }), ApiError);
      assert.throws(() => parseQuery(Q, { client_id: `${u}0` }), ApiError);
    }),
    RUNS,
  );
});

test('string operands without a colon are kept exactly; with one they are rejected', () => {
  fc.assert(
    fc.property(fc.string({ unit: 'binary', maxLength: 60 }), fc.constantFrom('', 'eq:', '~eq:', 'neq:'), (s, prefix) => {
      const text = `${prefix}${s}`;
      if (s.includes(':')) {
        assert.throws(() => parseQuery(Q, { name: text }), (e: unknown) => e instanceof ApiError && e.messages[0].startsWith(Messages.badFilterIn('name', '=')));
        return;
      }
      const f = parseQuery(Q, { name: text }).filters[0];
      assert.deepEqual([f.predicate, f.values], [prefix === '' ? 'eq' : prefix.slice(0, -1), [s]]);
    }),
    RUNS,
  );
});

/** A generator of valid filter expressions for any declared column. */
function validExpression(f: CompiledFilter): fc.Arbitrary<string> {
  const operand: Record<CompiledFilter['kind'], fc.Arbitrary<string>> = {
    string: f.enumEntries
      ? fc.constantFrom(...Object.keys(f.enum!), ...Object.values(f.enum!).map(String))
      : fc.string({ maxLength: 20 }).filter((s) => !s.includes(':')),
    boolean: fc.constantFrom('t', 'T', 'TRUE', 'true', 'True', 'f', 'F', 'FALSE', 'false', 'False'),
    uuid: fc.uuid(),
    integer: fc.maxSafeInteger().map(String),
    timestamp: fc.maxSafeInteger().map(toRfc3339),
  };
  return fc.tuple(fc.constantFrom(...f.allowed, ''), operand[f.kind]).map(([p, o]) => (p === '' ? o : `${p}:${o}`));
}

test('generated valid filter expressions always parse, all together, with sort and paging', () => {
  const filters = [...Q.filters.values()];
  const sortable = [...Q.sortable.keys()];
  const arb = fc.record({
    exprs: fc.tuple(...filters.map((f) => fc.array(validExpression(f), { maxLength: 3 }))),
    sort: fc.uniqueArray(fc.constantFrom(...sortable), { maxLength: 4 }),
    desc: fc.array(fc.boolean(), { minLength: 4, maxLength: 4 }),
    skip: fc.integer({ min: 0, max: 2147483647 }),
    limit: fc.integer({ min: 0, max: 2147483647 }),
  });
  fc.assert(
    fc.property(arb, ({ exprs, sort, desc, skip, limit }) => {
      const raw: Record<string, unknown> = { skip: String(skip), limit: String(limit) };
      filters.forEach((f, i) => { if (exprs[i].length > 0) raw[f.name] = exprs[i]; });
      if (sort.length > 0) raw.sort_by = sort.map((s, i) => (desc[i] ? `-${s}` : s));
      const parsed = parseQuery(Q, raw);
      const total = exprs.reduce((n, e) => n + e.length, 0);
      assert.equal(parsed.filters.reduce((n, f) => n + f.values.length, 0), total);
      assert.deepEqual(parsed.sort.map((s) => [s.name, s.descending]), sort.length ? sort.map((s, i) => [s, desc[i]]) : [['created_at', true]]);
      assert.deepEqual([parsed.skip, parsed.limit], [skip, limit]);
    }),
    RUNS,
  );
});
