import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ApiError, Messages } from '../errors.ts';
import { parseQuery, type FilterValue, type Predicate } from './index.ts';
import { Q, throws400 } from '../../test/query-fixtures.ts';

const one = (name: string, value: string | string[]) => parseQuery(Q, { [name]: value }).filters;
const single = (name: string, value: string) => {
  const filters = one(name, value);
  assert.equal(filters.length, 1);
  return { predicate: filters[0].predicate, value: filters[0].values[0] };
};
const ok = (name: string, value: string, predicate: Predicate, expected: FilterValue) =>
  assert.deepEqual(single(name, value), { predicate, value: expected }, `${name}=${value}`);
/** A malformed value: the contract's text, then the parameter's name and value (the why is tested below). */
const bad = (name: string, value: string) =>
  assert.throws(() => one(name, value), (err: unknown) => {
    assert.ok(err instanceof ApiError && err.status === 400, `${name}=${value}: ${String(err)}`);
    assert.equal(err.messages.length, 1);
    assert.ok(err.messages[0].startsWith(`${Messages.badFilterIn(name, '=')}${value.slice(0, 20)}`), `${name}=${value}: ${err.messages[0]}`);
    return true;
  });

test('string: eq (bare and explicit), ~eq, neq; operand any text without a colon', () => {
  ok('name', 'alice', 'eq', 'alice');
  ok('name', 'eq:alice', 'eq', 'alice');
  ok('name', '~eq:Al', '~eq', 'Al');
  ok('name', 'neq:bob', 'neq', 'bob');
  ok('name', '', 'eq', '');
  ok('name', 'eq:', 'eq', '');
  ok('name', '~eq:%_\\ É', '~eq', '%_\\ É');
  ok('name', "' OR 1=1 --", 'eq', "' OR 1=1 --");
  ok('name', 'null', 'eq', 'null'); // not nullable: just text
  const f = one('name', 'x')[0];
  assert.deepEqual({ name: f.name, column: f.column, kind: f.kind }, { name: 'name', column: 't.name', kind: 'string' });
});

test('string: colons, unknown and foreign predicates are malformed', () => {
  for (const v of ['eq:a:b', 'a:b', ':', 'foo:bar', 'EQ:x', 'Eq:x', '~EQ:x', 'gt:x', 'gte:x', 'lt:x', 'lte:x', '~eq:a:b']) bad('name', v);
});

test('string: predicate valid for the kind but not for the column', () => {
  throws400(() => one('object_id', '~eq:abc'), Messages.predicateNotSupported('object_id', '~eq'));
  // the predicate is judged before the operand
  throws400(() => one('object_id', '~eq:a:b'), Messages.predicateNotSupported('object_id', '~eq'));
  bad('object_id', 'gt:1');
  ok('object_id', 'neq:S-1-5', 'neq', 'S-1-5');
});

test('string: null on a nullable column', () => {
  ok('note', 'eq:null', 'eq', null);
  ok('note', 'null', 'eq', null);
  ok('note', 'neq:null', 'neq', null);
  ok('note', '~eq:null', '~eq', 'null'); // substring, not a null test
  ok('note', 'NULL', 'eq', 'NULL');
});

test('boolean: the ten spellings, eq and neq', () => {
  for (const t of ['t', 'T', 'TRUE', 'true', 'True']) {
    ok('enabled', t, 'eq', true);
    ok('enabled', `neq:${t}`, 'neq', true);
  }
  for (const f of ['f', 'F', 'FALSE', 'false', 'False']) {
    ok('enabled', `eq:${f}`, 'eq', false);
    ok('enabled', `neq:${f}`, 'neq', false);
  }
  for (const v of ['tRUE', 'yes', '1', '0', '', 'null', 'gt:true', '~eq:true', 'lt:f', 'eq:tr', 'true:']) bad('enabled', v);
  ok('flag', 'eq:null', 'eq', null);
  ok('flag', 'neq:null', 'neq', null);
});

test('uuid: 8-4-4-4-12 hex, lower-cased, eq and neq', () => {
  const u = '0A1B2C3D-4E5F-6789-ABCD-EF0123456789';
  ok('client_id', u, 'eq', u.toLowerCase());
  ok('client_id', `neq:${u}`, 'neq', u.toLowerCase());
  ok('client_id', 'null', 'eq', null);
  for (const v of [
    `~eq:${u}`, `gt:${u}`, '0a1b2c3d4e5f6789abcdef0123456789', `{${u}}`, `${u}0`, u.slice(1),
    '0a1b2c3d-4e5f-6789-abcd-ef012345678g', '', 'eq:', ` ${u}`,
  ]) bad('client_id', v);
});

test('integer: all six predicates, optional minus, safe range', () => {
  for (const p of ['eq', 'neq', 'gt', 'gte', 'lt', 'lte'] as const) ok('n', `${p}:-42`, p, -42);
  ok('n', '7', 'eq', 7);
  ok('n', '007', 'eq', 7);
  ok('n', '-0', 'eq', 0);
  ok('n', '9007199254740991', 'eq', Number.MAX_SAFE_INTEGER);
  ok('n', '-9007199254740991', 'eq', -Number.MAX_SAFE_INTEGER);
  ok('n', '0000000000000000000000042', 'eq', 42);
  for (const v of ['9007199254740992', '-9007199254740992', '1.5', '1e3', '+1', '', ' 1', '1 ', '0x10', '--1', '-', '~eq:1', 'null', 'NaN', 'Infinity', '١']) {
    bad('n', v);
  }
});

test('timestamp: all six predicates, bare operand with colons, offsets compare as instants', () => {
  const micros = Date.UTC(2024, 0, 2, 3, 4, 5) * 1000;
  for (const p of ['eq', 'neq', 'gt', 'gte', 'lt', 'lte'] as const) {
    ok('created_at', `${p}:2024-01-02T03:04:05Z`, p, { micros, fractional: false });
  }
  ok('created_at', '2024-01-02T03:04:05Z', 'eq', { micros, fractional: false });
  ok('created_at', 'gt:2024-01-02T05:04:05+02:00', 'gt', { micros, fractional: false });
  ok('created_at', 'gt:2024-01-01T22:34:05-04:30', 'gt', { micros, fractional: false });
  ok('created_at', 'gte:2024-01-02T03:04:05.1Z', 'gte', { micros: micros + 100_000, fractional: false });
  ok('created_at', 'lt:2024-01-02T03:04:05.000001Z', 'lt', { micros: micros + 1, fractional: false });
  ok('created_at', 'lt:2024-01-02T03:04:05.000001000Z', 'lt', { micros: micros + 1, fractional: false });
  ok('created_at', 'gt:2024-01-02T03:04:05.0000005Z', 'gt', { micros, fractional: true });
  ok('created_at', 'gt:2024-01-02T03:04:05.999999999Z', 'gt', { micros: micros + 999_999, fractional: true });
  ok('created_at', 'lte:1969-12-31T23:59:59.9999995Z', 'lte', { micros: -1, fractional: true });
  ok('deleted_at', 'eq:null', 'eq', null);
  ok('deleted_at', 'neq:null', 'neq', null);
  for (const v of [
    '2024-01-02', '2024-01-02 03:04:05Z', '2024-01-02T03:04:05', '2024-01-02T03:04:05.Z', '2024-01-02T03:04:05.1234567890Z',
    '2024-13-02T03:04:05Z', '2024-02-30T03:04:05Z', '2024-01-02T24:04:05Z', '2024-01-02T03:04:05+0200', '~eq:2024-01-02T03:04:05Z',
    'gt:', 'null', '1704164645', 'foo:2024-01-02T03:04:05Z',
  ]) bad('created_at', v);
  bad('created_at', 'eq:null'); // not nullable
});

test('timestamp: instants beyond the safe micro range compare beyond every stored value', () => {
  ok('created_at', 'lt:9999-12-31T23:59:59Z', 'lt', { micros: Number.MAX_SAFE_INTEGER, fractional: true });
  ok('created_at', 'gt:0001-01-01T00:00:00Z', 'gt', { micros: Number.MIN_SAFE_INTEGER - 1, fractional: true });
});

test('enum column: a name in any case or one of its integers; ~eq keeps the text', () => {
  ok('status', 'complete', 'eq', 2);
  ok('status', 'eq:COMPLETE', 'eq', 2);
  ok('status', 'neq:Running', 'neq', 1);
  ok('status', 'partially complete', 'eq', 4);
  ok('status', '3', 'eq', 3);
  ok('status', '~eq:COMP', '~eq', 'COMP');
  for (const v of ['done', '9', '-1', 'eq:a:b', 'gt:1', '']) bad('status', v);
});

test('grouping: values of one column gathered per predicate in order of appearance', () => {
  const parsed = parseQuery(Q, {
    name: ['a', '~eq:b', 'neq:c', 'eq:d', 'neq:e'],
    n: ['gte:1', 'lt:10'],
  });
  assert.deepEqual(
    parsed.filters.map((f) => [f.name, f.predicate, f.values]),
    [
      ['name', 'eq', ['a', 'd']],
      ['name', '~eq', ['b']],
      ['name', 'neq', ['c', 'e']],
      ['n', 'gte', [1]],
      ['n', 'lt', [10]],
    ],
  );
});

test('unknown parameters are not filterable columns', () => {
  throws400(() => parseQuery(Q, { nope: 'x' }), Messages.columnNotFilterable('nope'));
  throws400(() => parseQuery(Q, { Name: 'x' }), Messages.columnNotFilterable('Name'));
  throws400(() => parseQuery(Q, { 'name[]': 'x' }), Messages.columnNotFilterable('name[]'));
  for (const key of ['constructor', 'toString', '__proto__', 'hasOwnProperty']) {
    const raw = Object.create(null) as Record<string, unknown>;
    raw[key] = 'x';
    throws400(() => parseQuery(Q, raw), Messages.columnNotFilterable(key));
  }
  // the first offending parameter, in query-string order, is reported
  throws400(() => parseQuery(Q, { name: 'a:b', nope: 'x' }), Messages.badFilterIn('name', '=a:b (a string operand may not contain a colon)'));
  throws400(() => parseQuery(Q, { nope: 'x', name: 'a:b' }), Messages.columnNotFilterable('nope'));
});

test('abuse: more than 100 values for one parameter', () => {
  const values = Array.from({ length: 100 }, (_, i) => `v${i}`);
  assert.equal(parseQuery(Q, { name: values }).filters[0].values.length, 100);
  throws400(() => parseQuery(Q, { name: [...values, 'x'] }), Messages.badFilterIn('name', ' (more than 100 values)'));
  throws400(() => parseQuery(Q, { sort_by: Array(101).fill('name') }), Messages.badFilterIn('sort_by', ' (more than 100 values)'));
  throws400(() => parseQuery(Q, { environments: Array(101).fill('e') }), Messages.badFilterIn('environments', ' (more than 100 values)'));
});

test('raw values: arrays, coerced scalars, absent values; objects are malformed', () => {
  assert.deepEqual(parseQuery(Q, { n: 5 as unknown as string }).filters[0].values, [5]);
  assert.deepEqual(parseQuery(Q, { enabled: true as unknown as string }).filters[0].values, [true]);
  assert.deepEqual(parseQuery(Q, { name: undefined, n: [] }).filters, []);
  throws400(() => parseQuery(Q, { name: { a: 'b' } }), Messages.badFilterIn('name', ' (not a text value)'));
  throws400(() => parseQuery(Q, { name: [['x']] }), Messages.badFilterIn('name', ' (not a text value)'));
});

test('a malformed filter value: the message names the parameter, its value and why', () => {
  const why = (name: string, value: string, detail: string) =>
    throws400(() => one(name, value), `there are errors in the query parameter filters specified: ${name}=${value} (${detail})`);
  why('name', 'foo:bar', 'a string operand may not contain a colon');
  why('name', 'gt:a', 'gt does not apply to a string column');
  why('enabled', 'yes', 'expected true or false');
  why('client_id', 'nope', 'expected a UUID such as 0e0d0c0b-0a09-0807-0605-040302010000');
  why('n', '1.5', 'expected an integer');
  why('created_at', 'gt:yesterday', 'expected an RFC-3339 date-time such as 2024-01-02T03:04:05Z');
  why('status', 'done', 'expected one of: ready (0), running (1), complete (2), canceled (3), partially complete (4)');
  why('deleted_at', 'gt:null', 'null goes with eq or neq only');
  const long = 'x'.repeat(100);
  throws400(() => one('n', long), `there are errors in the query parameter filters specified: n=${'x'.repeat(80)}… (expected an integer)`);
});

test('a time whose offset "+" arrived as a space (unencoded in the URL): the message says to encode it', () => {
  // `?created_at=gt:2024-01-02T05:04:05+02:00` typed into a shell reaches the server with a space.
  throws400(
    () => one('created_at', 'gt:2024-01-02T05:04:05 02:00'),
    'there are errors in the query parameter filters specified: created_at=gt:2024-01-02T05:04:05 02:00 ' +
      '(a "+" in a query string is read as a space: send the offset encoded, 2024-01-02T05:04:05%2B02:00)',
  );
  throws400(
    () => parseQuery(Q, { start: '2024-01-02T05:04:05.5 02:00' }),
    'query parameter "start" is malformed (a "+" in a query string is read as a space: send the offset encoded, 2024-01-02T05:04:05.5%2B02:00)',
  );
  throws400(() => parseQuery(Q, { start: 'soon' }), 'query parameter "start" is malformed');
});
