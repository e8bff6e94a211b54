/**
 * A consistent read of the whole graph that may last as long as a stream: one read-only transaction
 * on a connection of its own, so the server's own connection (SQLite has one) is never held.
 *   PostgreSQL     a pooled client in REPEATABLE READ READ ONLY
 *   SQLite file    a second, read-only connection in one read transaction (WAL: writers go on)
 *   SQLite memory  the one connection, no transaction (each page is read atomically; tests only)
 * Statements are written with `?` placeholders; PostgreSQL gets them numbered.
 */
import SQLite from 'better-sqlite3';
import type pg from 'pg';
import type { Db } from '../../db/create-db.ts';

export interface Snapshot {
  rows<T>(sql: string, params?: unknown[]): Promise<T[]>;
  close(): Promise<void>;
}

const numbered = (sql: string) => {
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
};

export async function openSnapshot(db: Db): Promise<Snapshot> {
  const bulk = db.bulk;
  if (bulk.dialect === 'postgres') return pgSnapshot(await bulk.pool.connect());
  if (bulk.path === null) return sqliteSnapshot(bulk.database, false);
  const conn = new SQLite(bulk.path, { readonly: true });
  conn.pragma('cache_size = -16384');
  return sqliteSnapshot(conn, true);
}

async function pgSnapshot(client: pg.PoolClient): Promise<Snapshot> {
  try {
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
  } catch (err) {
    client.release(err as Error);
    throw err;
  }
  let closed = false;
  return {
    async rows<T>(sql: string, params: unknown[] = []) {
      return (await client.query(numbered(sql), params)).rows as T[];
    },
    async close() {
      if (closed) return;
      closed = true;
      try {
        await client.query('COMMIT');
        client.release();
      } catch (err) {
        client.release(err as Error);
      }
    },
  };
}

function sqliteSnapshot(conn: SQLite.Database, own: boolean): Snapshot {
  const statements = new Map<string, SQLite.Statement>();
  if (own) conn.exec('BEGIN');
  let closed = false;
  return {
    async rows<T>(sql: string, params: unknown[] = []) {
      let stmt = statements.get(sql);
      if (!stmt) statements.set(sql, (stmt = conn.prepare(sql)));
      return stmt.all(...params) as T[];
    },
    async close() {
      if (closed || !own) return;
      closed = true;
      try {
        if (conn.inTransaction) conn.exec('COMMIT');
      } finally {
        conn.close();
      }
    },
  };
}
