/**
 * A real database for the applier tests: SQLite in memory, or (SCENT_TEST_DIALECT=postgres) a fresh
 * schema on the test PostgreSQL, selected through the connection's search_path and dropped at the end.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import { createDb, type Db, type DialectName } from '../db/create-db.ts';
import { applyFilters, applyPaging, applySort, parseQuery } from '../http/query/index.ts';
import { Q } from './query-fixtures.ts';

const PG_URL = 'postgres://postgres@127.0.0.1:5432/test';

export const DIALECT: DialectName = dialectFromEnv();

function dialectFromEnv(): DialectName {
  const value = process.env.SCENT_TEST_DIALECT ?? 'sqlite';
  if (value !== 'sqlite' && value !== 'postgres') throw new Error(`SCENT_TEST_DIALECT must be sqlite or postgres, not ${value}`);
  return value;
}

export interface TestDb {
  db: Db;
  /** Untyped: the test table is not part of the application's Database. */
  k: Kysely<any>;
  close(): Promise<void>;
}

export async function openTestDb(): Promise<TestDb> {
  if (DIALECT === 'sqlite') {
    const db = createDb('sqlite::memory:');
    return { db, k: db.kysely as unknown as Kysely<any>, close: () => db.close() };
  }
  const schema = `q_${randomBytes(8).toString('hex')}`;
  const admin = createDb(PG_URL);
  await sql`create schema ${sql.id(schema)}`.execute(admin.kysely);
  const db = createDb(`${PG_URL}?options=${encodeURIComponent(`-c search_path=${schema}`)}`);
  const { rows } = await sql<{ s: string }>`select current_schema() as s`.execute(db.kysely);
  assert.equal(rows[0]?.s, schema, 'the search_path option selects the per-run schema');
  return {
    db,
    k: db.kysely as unknown as Kysely<any>,
    async close() {
      await db.close();
      await sql`drop schema ${sql.id(schema)} cascade`.execute(admin.kysely);
      await admin.close();
    },
  };
}

export const BASE = Date.UTC(2024, 0, 1) * 1000;
export const U1 = '0a1b2c3d-4e5f-4789-abcd-ef0123456789';
export const U2 = '11111111-2222-4333-8444-555555555555';
export const U3 = 'ffffffff-ffff-4fff-bfff-ffffffffffff';
const MAX = Number.MAX_SAFE_INTEGER;

export interface Row {
  id: number;
  name: string;
  note: string | null;
  object_id: string;
  enabled: 0 | 1;
  flag: 0 | 1 | null;
  client_id: string | null;
  n: number;
  created_at: number;
  deleted_at: number | null;
  status: number;
}

const row = (...v: [number, string, string | null, 0 | 1, 0 | 1 | null, string | null, number, number, number | null, number]): Row => ({
  id: v[0], name: v[1], note: v[2], object_id: `S-${v[0]}`, enabled: v[3], flag: v[4], client_id: v[5],
  n: v[6], created_at: BASE + v[7], deleted_at: v[8] === null ? null : BASE + v[8], status: v[9],
});

export const ROWS: readonly Row[] = [
  row(1, 'alice', 'Hello World', 1, 1, U1, 10, 5, null, 0),
  row(2, 'Bob', null, 0, null, null, -5, 1, 100, 2),
  row(3, '100%', '50% off', 1, 0, U2, 0, 2, null, 1),
  row(4, 'a_b', 'under_score', 0, 1, U1, 10, 3, 200, 2),
  row(5, 'a\\b', 'back\\slash', 1, null, null, MAX, 4, null, 3),
  row(6, 'Élodie', 'CAFÉ', 0, 0, U3, -MAX, 0, 1, 4),
  row(7, 'élan', 'café', 1, 1, null, 10, 6, null, 0),
  row(8, 'ab', '%', 0, null, null, 3, 7, null, 1),
  row(9, 'null', 'null', 1, 0, U2, 3, 8, 2, 2),
  row(10, '["x","y"]', "' OR 1=1 --", 0, 1, null, 4, 9, null, 3),
];

/** Creates table t and inserts ROWS. */
export async function seed(k: Kysely<any>): Promise<void> {
  await k.schema
    .createTable('t')
    .addColumn('id', 'integer', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('note', 'text')
    .addColumn('object_id', 'text', (c) => c.notNull())
    .addColumn('enabled', 'integer', (c) => c.notNull())
    .addColumn('flag', 'integer')
    .addColumn('client_id', 'text')
    .addColumn('n', 'bigint', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('deleted_at', 'bigint')
    .addColumn('status', 'integer', (c) => c.notNull())
    .execute();
  await k.insertInto('t').values([...ROWS]).execute();
}

/** Ids of the rows of `t` matching a query string against the fixture declaration, in id order. */
export async function matchingIds(db: TestDb, raw: Record<string, string | string[]>): Promise<number[]> {
  const parsed = parseQuery(Q, { sort_by: 'id', limit: '0', ...raw });
  const qb = applyPaging(applySort(applyFilters(db.k.selectFrom('t').select('t.id'), Q, parsed), Q, parsed), parsed);
  return (await qb.execute()).map((r) => Number(r.id));
}
