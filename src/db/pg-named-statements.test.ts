/**
 * PostgreSQL named statements (src/db/pg-named-statements.ts): parsed once per connection, correct
 * results, and a statement whose result columns change under it (DDL while running) still answers.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { createDb, type Db } from './create-db.ts';
import { DIALECT, createEmptyTestDb, type TestDb } from '../test/harness.ts';

const skip = DIALECT !== 'postgres' && 'PostgreSQL only';
let holder: TestDb;
let db: Db; // one connection: the statements it has prepared are the ones pg_prepared_statements lists

before(async () => {
  if (skip) return;
  holder = await createEmptyTestDb(); // owns the schema (dropped on close)
  db = createDb(holder.url, { poolSize: 1 });
  await sql`create table probe (id bigint primary key, name text not null)`.execute(db.kysely);
  await db.kysely.insertInto('probe' as never).values([{ id: 1, name: 'one' }, { id: 2, name: 'two' }] as never).execute();
});
after(async () => {
  if (skip) return;
  await db.close();
  await holder.close();
});

const prepared = async (like: string) =>
  (await sql<{ statement: string }>`select statement from pg_prepared_statements where statement like ${like}`.execute(db.kysely)).rows;

test('named statements: a repeated statement is parsed once per connection and answers each time', { skip }, async () => {
  const byId = (id: number) => db.kysely.selectFrom('probe' as never).select(['name' as never]).where('id' as never, '=', id as never).executeTakeFirst();
  assert.deepEqual(await byId(1), { name: 'one' });
  assert.deepEqual(await byId(2), { name: 'two' });
  assert.deepEqual(await byId(3), undefined);
  const rows = await prepared('%from "probe"%');
  assert.equal(rows.length, 1, JSON.stringify(rows));
  // Transaction control and DDL stay unnamed.
  await db.kysely.transaction().execute(async (trx) => {
    await trx.updateTable('probe' as never).set({ name: 'uno' } as never).where('id' as never, '=', 1 as never).execute();
  });
  assert.deepEqual(await byId(1), { name: 'uno' });
  assert.deepEqual(await prepared('begin%'), []);
  assert.deepEqual(await prepared('create%'), []);
});

test('named statements: a statement whose result columns change under it still answers', { skip }, async () => {
  const all = () => db.kysely.selectFrom('probe' as never).selectAll().orderBy('id' as never).execute();
  assert.deepEqual((await all()).map((r) => Object.keys(r as object).sort()), [['id', 'name'], ['id', 'name']]);
  await sql`alter table probe add column extra text default 'x'`.execute(db.kysely);
  const rows = await all(); // "cached plan must not change result type": sent unnamed again
  assert.deepEqual(rows.map((r) => (r as { extra: string }).extra), ['x', 'x']);
  assert.deepEqual((await all()).length, 2);
});
