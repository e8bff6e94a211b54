import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createEmptyTestDb, DIALECT, type TestDb } from '../../test/harness.ts';
import { intArray, nonNullTextArray, textArray } from './pg-arrays.ts';

const TEXTS = ['plain', '', 'NULL', 'a "quoted" word', 'back\\slash\\', '{"k":"v \\"x\\"","n":[1,2]}', 'comma, {brace}', 'tab\tnewline\n', 'é ✓ 🦊'];

let db: TestDb;
before(async () => {
  db = await createEmptyTestDb();
});
after(async () => {
  await db.close();
});

test('array literals: shape', () => {
  assert.equal(intArray([1, 22, 333]), '{1,22,333}');
  assert.equal(intArray(new Float64Array([7, 8])), '{7,8}');
  assert.equal(intArray([]), '{}');
  assert.equal(textArray(['a', null, 'b"c']), '{"a",NULL,"b\\"c"}');
  assert.equal(nonNullTextArray([]), '{}');
  assert.equal(nonNullTextArray(['a', 'b\\"c']), '{"a","b\\\\\\"c"}');
});

test(`array literals on ${DIALECT}: PostgreSQL reads back exactly the values`, { skip: DIALECT !== 'postgres' && 'PostgreSQL only' }, async () => {
  const bulk = db.bulk;
  if (bulk.dialect !== 'postgres') return;
  const read = async (literal: string, type: string) =>
    (await bulk.pool.query<{ a: unknown[] }>(`select $1::${type}[] as a`, [literal])).rows[0].a;
  assert.deepEqual(await read(textArray([...TEXTS, null]), 'text'), [...TEXTS, null]);
  assert.deepEqual(await read(nonNullTextArray(TEXTS), 'text'), TEXTS);
  assert.deepEqual((await read(intArray([1, 9007199254740991]), 'bigint')).map(String), ['1', '9007199254740991']);
});
