/**
 * Consistent reads of the graph tables for the engine, written once as a *plan* (a generator that
 * yields SQL and receives rows) and run inside one read transaction on SQLite or inside one
 * REPEATABLE READ transaction on PostgreSQL. Both go beneath Kysely (Db.bulk): rows come back as
 * arrays, millions of them for a full load.
 *
 * On SQLite a plan runs synchronously on the server's connection (no other statement of that
 * connection can interleave), except a `long` read of a database file outside any transaction of
 * that connection (the full load): it runs on a read-only connection of its own and lets the event
 * loop turn every SLICE rows, so the server goes on answering while millions of rows are read
 * (WAL: writers go on too; their commits come in with the next delta).
 */
import { setImmediate as turn } from 'node:timers/promises';
import SQLite from 'better-sqlite3';
import type { Db } from '../../db/create-db.ts';

export interface Query {
  /** SQL with `?` placeholders. */
  sql: string;
  params: unknown[];
  /** Rows handed to this callback one at a time instead of returned (large reads). */
  each?: (row: unknown[]) => void;
  /** PostgreSQL pages `each` reads by their first column (ascending id), this many rows a statement. */
  pageById?: boolean;
}

export type Plan<T> = Generator<Query, T, unknown[][]>;

const PG_PAGE = 100_000;
/** Rows a long SQLite read hands over between two turns of the event loop (~10–60 ms of reading). */
export const SLICE = 20_000;

export interface RunOptions {
  /** A read of millions of rows: on a SQLite file, its own connection and turns of the event loop. */
  long?: boolean;
  /** Rows between turns (tests). */
  slice?: number;
}

export async function runPlan<T>(db: Db, plan: (dialect: 'sqlite' | 'postgres') => Plan<T>, options: RunOptions = {}): Promise<T> {
  const bulk = db.bulk;
  if (bulk.dialect === 'sqlite') {
    const raw = bulk.database;
    // Inside this connection's own transaction the plan must see its uncommitted writes: run there.
    if (!options.long || bulk.path === null || raw.inTransaction) return runSqlite(raw, plan);
    const conn = new SQLite(bulk.path, { readonly: true });
    try {
      conn.pragma('cache_size = -16384');
      return await runSqlite(conn, plan, options.slice ?? SLICE);
    } finally {
      conn.close();
    }
  }
  const client = await bulk.pool.connect();
  try {
    await client.query('begin isolation level repeatable read read only');
    const it = plan('postgres');
    let step = it.next();
    while (!step.done) {
      const q = step.value;
      const text = numbered(q.sql);
      if (q.each && q.pageById) {
        // `sql` ends with "where id > ? order by id"; pages follow on from the last id read.
        let after = q.params[q.params.length - 1] as number;
        for (;;) {
          const { rows } = await client.query<unknown[]>({ text: `${text} limit ${PG_PAGE}`, values: [...q.params.slice(0, -1), after], rowMode: 'array' });
          for (const row of rows) q.each(row);
          if (rows.length < PG_PAGE) break;
          after = rows[rows.length - 1][0] as number;
        }
        step = it.next([]);
      } else {
        const { rows } = await client.query<unknown[]>({ text, values: q.params, rowMode: 'array' });
        if (q.each) for (const row of rows) q.each(row);
        step = it.next(q.each ? [] : rows);
      }
    }
    await client.query('commit');
    return step.value;
  } catch (err) {
    await client.query('rollback').catch(() => {});
    throw err;
  } finally {
    client.release();
  }
}

/**
 * A plan on a SQLite connection, in a read transaction of its own unless one is open. Without `slice`
 * it runs synchronously (nothing else of the connection interleaves); with it, the event loop turns
 * every `slice` rows (only on a connection nothing else uses).
 */
async function runSqlite<T>(conn: SQLite.Database, plan: (dialect: 'sqlite' | 'postgres') => Plan<T>, slice?: number): Promise<T> {
  const own = !conn.inTransaction;
  if (own) conn.prepare('begin').run();
  try {
    const it = plan('sqlite');
    let step = it.next();
    while (!step.done) {
      const q = step.value;
      const stmt = conn.prepare(q.sql).raw(true);
      if (q.each) {
        let n = 0;
        for (const row of stmt.iterate(...q.params) as IterableIterator<unknown[]>) {
          q.each(row);
          if (slice && ++n % slice === 0) await turn();
        }
        step = it.next([]);
      } else step = it.next(stmt.all(...q.params) as unknown[][]);
    }
    return step.value;
  } finally {
    if (own) conn.prepare('commit').run();
  }
}

/** `?` → `$1`, `$2`, ... (the plans' SQL has no `?` inside literals). */
function numbered(sql: string): string {
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
}

/** `(?, ?, ...)` for n values. */
export function placeholders(n: number): string {
  return `(${new Array(n).fill('?').join(', ')})`;
}

export function chunked<T>(items: readonly T[], size = 500): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}
