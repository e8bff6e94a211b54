import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Messages } from '../errors.ts';
import { defineQuery, parseQuery, querystringSchema, type QueryDeclaration } from './index.ts';
import { Q, throws400 } from '../../test/query-fixtures.ts';

const sortOf = (sort_by: string | string[]) =>
  parseQuery(Q, { sort_by }).sort.map((s) => `${s.descending ? '-' : ''}${s.name}=${s.column}`);

test('sort_by: one column per value, repeatable, leading hyphen descends', () => {
  assert.deepEqual(sortOf('name'), ['name=t.name']);
  assert.deepEqual(sortOf('-n'), ['-n=t.n']);
  assert.deepEqual(sortOf(['-created_at', 'name', 'id']), ['-created_at=t.created_at', 'name=t.name', 'id=t.id']);
  assert.deepEqual(sortOf(['name', '-name', 'n']), ['name=t.name', 'n=t.n']); // a repeated column adds nothing
});

test('sort_by: default sort when absent', () => {
  assert.deepEqual(parseQuery(Q, {}).sort, [{ name: 'created_at', column: 't.created_at', descending: true }]);
  assert.deepEqual(parseQuery(defineQuery({ sortable: { a: 'a' } }), {}).sort, []);
});

test('sort_by: empty, unknown, comma lists', () => {
  throws400(() => sortOf(''), Messages.emptySort);
  throws400(() => sortOf('-'), Messages.emptySort);
  throws400(() => sortOf(['name', '']), Messages.emptySort);
  throws400(() => sortOf('nope'), Messages.notSortable('nope'));
  throws400(() => sortOf('-nope'), Messages.notSortable('nope'));
  throws400(() => sortOf('--name'), Messages.notSortable('-name'));
  throws400(() => sortOf('name,n'), Messages.notSortable('name,n'));
  throws400(() => sortOf('Name'), Messages.notSortable('Name'));
  throws400(() => sortOf(' name'), Messages.notSortable(' name'));
  throws400(() => sortOf('+name'), Messages.notSortable('+name'));
  throws400(() => sortOf('enabled'), Messages.notSortable('enabled')); // filterable is not sortable
  throws400(() => parseQuery(defineQuery({}), { sort_by: 'x' }), Messages.notSortable('x'));
});

test('paging: defaults, digits only, int32 bound, no repeats', () => {
  assert.deepEqual(pick(parseQuery(Q, {})), { skip: 0, limit: 50 });
  assert.deepEqual(pick(parseQuery(Q, { skip: '10', limit: '0' })), { skip: 10, limit: 0 });
  assert.deepEqual(pick(parseQuery(Q, { skip: '0007', limit: '2147483647' })), { skip: 7, limit: 2147483647 });
  for (const key of ['skip', 'limit']) {
    for (const v of ['', '-1', '+1', '1.0', '1e2', ' 1', 'abc', '2147483648', '99999999999999999999', 'null']) {
      throws400(() => parseQuery(Q, { [key]: v }), Messages.malformedParam(key));
    }
    throws400(() => parseQuery(Q, { [key]: ['1', '2'] }), Messages.malformedParam(key));
    throws400(() => parseQuery(Q, { [key]: ['1', '1'] }), Messages.malformedParam(key));
  }
});

test('paging: without a paging declaration skip and limit are unknown, and the message says the list is not paged', () => {
  const noPaging = defineQuery({ filters: { a: { kind: 'string', column: 'a' } } });
  throws400(() => parseQuery(noPaging, { skip: '1' }), 'the specified column cannot be filtered: skip (this list is not paged: it takes no skip or limit)');
  throws400(() => parseQuery(noPaging, { limit: '1' }), 'the specified column cannot be filtered: limit (this list is not paged: it takes no skip or limit)');
  assert.deepEqual(pick(parseQuery(noPaging, {})), { skip: 0, limit: 0 });
});

test('params: defaults applied', () => {
  assert.deepEqual(parseQuery(Q, {}).params, { hydrate: true, depth: 1, type: 'list', environments: [] });
});

test('params: boolean spellings', () => {
  for (const t of ['t', 'T', 'TRUE', 'true', 'True']) assert.equal(parseQuery(Q, { hydrate: t }).params.hydrate, true);
  for (const f of ['f', 'F', 'FALSE', 'false', 'False']) assert.equal(parseQuery(Q, { hydrate: f }).params.hydrate, false);
  for (const v of ['', 'yes', '1', 'eq:true', 'tRUE']) throws400(() => parseQuery(Q, { hydrate: v }), Messages.malformedParam('hydrate'));
  throws400(() => parseQuery(Q, { hydrate: ['true', 'true'] }), Messages.malformedParam('hydrate'));
});

test('params: integer within min/max', () => {
  assert.equal(parseQuery(Q, { depth: '-5' }).params.depth, -5);
  assert.equal(parseQuery(Q, { depth: '10' }).params.depth, 10);
  for (const v of ['-6', '11', '1.5', '', 'x', '+1', '99999999999999999999']) {
    throws400(() => parseQuery(Q, { depth: v }), Messages.malformedParam('depth'));
  }
});

test('params: string with enum, string, string[], timestamp', () => {
  assert.equal(parseQuery(Q, { type: 'graph' }).params.type, 'graph');
  for (const v of ['LIST', 'tree', '']) throws400(() => parseQuery(Q, { type: v }), Messages.malformedParam('type'));
  assert.equal(parseQuery(Q, { label: 'a:b:c' }).params.label, 'a:b:c');
  assert.equal(parseQuery(Q, { label: '' }).params.label, '');
  throws400(() => parseQuery(Q, { label: ['a', 'b'] }), Messages.malformedParam('label'));
  assert.deepEqual(parseQuery(Q, { environments: ['a', 'b', 'a'] }).params.environments, ['a', 'b', 'a']);
  assert.deepEqual(parseQuery(Q, { environments: 'x' }).params.environments, ['x']);
  assert.equal(parseQuery(Q, { start: '2024-01-02T03:04:05.123456789+01:00' }).params.start, Date.UTC(2024, 0, 2, 2, 4, 5) * 1000 + 123456);
  assert.equal(Object.hasOwn(parseQuery(Q, {}).params, 'start'), false);
  for (const v of ['2024-01-02', 'yesterday', '']) throws400(() => parseQuery(Q, { start: v }), Messages.malformedParam('start'));
});

test('defineQuery rejects nonsense at start-up', () => {
  const cases: Array<[string, QueryDeclaration]> = [
    ['unknown kind', { filters: { a: { kind: 'date' as 'string', column: 'a' } } }],
    ['predicate outside kind', { filters: { a: { kind: 'boolean', column: 'a', predicates: ['gt'] } } }],
    ['~eq on integer', { filters: { a: { kind: 'integer', column: 'a', predicates: ['~eq'] } } }],
    ['no predicate', { filters: { a: { kind: 'string', column: 'a', predicates: [] } } }],
    ['enum on integer', { filters: { a: { kind: 'integer', column: 'a', enum: { x: 1 } } } }],
    ['empty enum', { filters: { a: { kind: 'string', column: 'a', enum: {} } } }],
    ['enum names clash', { filters: { a: { kind: 'string', column: 'a', enum: { X: 1, x: 2 } } } }],
    ['enum value', { filters: { a: { kind: 'string', column: 'a', enum: { x: 1.5 } } } }],
    ['bad column', { filters: { a: { kind: 'string', column: 'a; drop table t' } } }],
    ['bad sortable column', { sortable: { a: 'lower(a)' } }],
    ['bad name', { filters: { 'a b': { kind: 'string', column: 'a' } } }],
    ['sort_by reserved', { filters: { sort_by: { kind: 'string', column: 'a' } } }],
    ['skip reserved with paging', { paging: { defaultLimit: 1 }, params: { skip: { type: 'integer' } } }],
    ['filter and param clash', { filters: { a: { kind: 'string', column: 'a' } }, params: { a: { type: 'string' } } }],
    ['default sort not sortable', { sortable: { a: 'a' }, defaultSort: [{ column: 'b' }] }],
    ['bad tie breaker', { tieBreaker: '' }],
    ['negative default limit', { paging: { defaultLimit: -1 } }],
    ['boolean without default', { params: { a: { type: 'boolean' } as never } }],
    ['integer default out of range', { params: { a: { type: 'integer', min: 0, max: 5, default: 6 } } }],
    ['min above max', { params: { a: { type: 'integer', min: 5, max: 0 } } }],
    ['string default outside enum', { params: { a: { type: 'string', enum: ['x'], default: 'y' } } }],
    ['unknown param type', { params: { a: { type: 'date' } as never } }],
  ];
  for (const [what, decl] of cases) assert.throws(() => defineQuery(decl), /invalid query declaration/, what);
  // skip and limit are ordinary names without paging
  assert.doesNotThrow(() => defineQuery({ params: { skip: { type: 'integer' } } }));
});

test('querystringSchema describes every accepted parameter', () => {
  const schema = querystringSchema(Q);
  assert.equal(schema.type, 'object');
  assert.deepEqual(Object.keys(schema.properties).sort(), [
    'client_id', 'created_at', 'deleted_at', 'depth', 'enabled', 'environments', 'flag', 'hydrate', 'label', 'limit',
    'n', 'name', 'note', 'object_id', 'skip', 'sort_by', 'start', 'status', 'type',
  ]);
  assert.equal(schema.required, undefined);
  assert.equal(schema.properties.limit.default, 50);
  assert.equal(schema.properties.hydrate.type, 'boolean');
  assert.equal(schema.properties.start.format, 'date-time');
  assert.match(String(schema.properties.object_id.description), /Predicates: eq, neq\./);
  assert.match(String(schema.properties.status.description), /names: Ready, Running/);
  assert.deepEqual(querystringSchema(defineQuery({})).properties.skip, undefined);
  assert.doesNotThrow(() => JSON.stringify(schema));
});

test('querystringSchema: sort_by is a repeatable enum of the sortable columns (no anyOf: the docs page showed array<undefined>); absent when nothing sorts', () => {
  const schema = JSON.parse(JSON.stringify(querystringSchema(Q)));
  assert.deepEqual(schema.properties.sort_by.type, 'array');
  assert.deepEqual(schema.properties.sort_by.items, {
    type: 'string',
    enum: ['name', '-name', 'note', '-note', 'n', '-n', 'created_at', '-created_at', 'deleted_at', '-deleted_at', 'id', '-id'],
  });
  assert.deepEqual(schema.properties.type, { type: 'string', default: 'list', enum: ['list', 'graph'] });
  assert.equal(JSON.stringify(schema).includes('anyOf'), false);
  assert.equal(querystringSchema(defineQuery({ filters: { a: { kind: 'string', column: 'a' } } })).properties.sort_by, undefined);
});

function pick(p: { skip: number; limit: number }) {
  return { skip: p.skip, limit: p.limit };
}
