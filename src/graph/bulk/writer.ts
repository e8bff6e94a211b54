/**
 * The bulk-write path of the graph ingest (documented in ../README.md, "Writers"). One file = one
 * transaction; inside it a GraphWriter takes batches of nodes and edges and applies the same merge
 * rules as store.repository.ts (../merge.ts), with the driver beneath Kysely for speed:
 * - SQLite: prepared statements run synchronously inside BEGIN IMMEDIATE ... COMMIT, on a second
 *   connection to the same file (readers are not blocked; other writers wait for the commit).
 *   An in-memory database has one connection: the transaction then holds Kysely's connection.
 * - PostgreSQL: one pooled client, multi-row statements over unnest($1::text[], ...), and a
 *   transaction-scoped advisory lock so that writers on several servers take turns.
 */
import SQLite from 'better-sqlite3';
import type { Db } from '../../db/create-db.ts';
import type { EdgeInput, NodeInput } from '../merge.ts';
import type { FlatBatch } from '../ingest/flat-batch.ts';
import { checkpointLater } from './checkpointer.ts';
import { IdCache } from './id-cache.ts';
import { PgGraphWriter } from './pg-writer.ts';
import { SqliteGraphWriter } from './sqlite-writer.ts';

export interface WriteCounts {
  nodes: number;
  edges: number;
  placeholders: number;
  /** Nodes removed (with their edges) by a `deleted` file. */
  removed: number;
}

export interface GraphWriter {
  /** Nodes first (so edges of the same batch find them), then edges. */
  write(nodes: NodeInput[], edges: EdgeInput[]): Promise<void>;
  /** The same, from the parse worker's flat format (../ingest/flat-batch.ts). */
  writeFlat(batch: FlatBatch): Promise<void>;
  /** When set, the object ids of the placeholders the writer creates are appended (OpenGraph warnings). */
  tracked: string[] | null;
  /** Those of `objectids` that are still placeholders. */
  placeholdersAmong(objectids: string[]): Promise<string[]>;
  /** Removes the nodes of these object ids and every edge from or to them; returns how many were found. */
  remove(objectids: string[]): Promise<number>;
  /** Object ids of the nodes a name / property match selects (at most `limit`; scans, not indexed). */
  match(match: NodeMatch, limit: number): Promise<string[]>;
  readonly counts: WriteCounts;
  /** Writes what the writer keeps for the end of the transaction; called once, before COMMIT. */
  finish(): Promise<void>;
}

export interface NodeMatch {
  name?: string;
  kind?: string;
  properties?: Array<[string, string | number | boolean]>;
}

/**
 * Advisory lock taken by every Scent graph writer on a PostgreSQL database, per schema: the graph
 * of one schema has one writer at a time, while graphs in other schemas of the same database (test
 * runs, benchmarks, other tenants) do not wait for each other.
 */
export const PG_LOCK_KEY = 0x5c3e7;

/**
 * Runs `fn` in one graph transaction: everything it wrote commits together, or nothing does.
 * `ids` may be shared by the transactions of one ingest run: it is cleared when this one fails.
 */
export async function withGraphTransaction<T>(db: Db, fn: (writer: GraphWriter) => Promise<T>, ids = new IdCache()): Promise<T> {
  try {
    return await graphTransaction(db, fn, ids);
  } catch (err) {
    ids.clear();
    throw err;
  }
}

async function graphTransaction<T>(db: Db, fn: (writer: GraphWriter) => Promise<T>, ids: IdCache): Promise<T> {
  const bulk = db.bulk;
  if (bulk.dialect === 'postgres') {
    const client = await bulk.pool.connect();
    try {
      await client.query('BEGIN');
      await client.query('SELECT pg_advisory_xact_lock($1, hashtext(current_schema()))', [PG_LOCK_KEY]);
      const writer = new PgGraphWriter(client, ids);
      const result = await fn(writer);
      await writer.finish();
      await client.query('COMMIT');
      return result;
    } catch (err) {
      await client.query('ROLLBACK').catch(() => {});
      throw err;
    } finally {
      client.release();
    }
  }
  if (bulk.path === null) {
    // One in-memory connection: hold Kysely's connection so no other statement joins the transaction.
    return db.kysely.connection().execute(() => sqliteTransaction(bulk.database, fn, ids));
  }
  const conn = new SQLite(bulk.path);
  try {
    conn.pragma('journal_mode = WAL');
    conn.pragma('synchronous = NORMAL');
    conn.pragma('busy_timeout = 60000');
    conn.pragma('cache_size = -65536');
    conn.pragma('temp_store = FILE'); // the edge stage (sqlite-writer.ts) goes to disk, not to memory
    // The commit does not copy the WAL into the database: a thread of its own does, while the
    // next document is read (checkpointer.ts).
    conn.pragma('wal_autocheckpoint = 0');
    const result = await sqliteTransaction(conn, fn, ids);
    checkpointLater(bulk.path);
    return result;
  } finally {
    conn.close();
    // Committed on a connection of its own: probe now, so that the next request sees it at once
    // rather than within FOREIGN_PROBE_MS (src/db/data-versions.ts).
    db.versions.refresh();
  }
}

async function sqliteTransaction<T>(conn: SQLite.Database, fn: (writer: GraphWriter) => Promise<T>, ids: IdCache): Promise<T> {
  conn.exec('BEGIN IMMEDIATE');
  try {
    const writer = new SqliteGraphWriter(conn, ids);
    const result = await fn(writer);
    await writer.finish();
    conn.exec('COMMIT');
    return result;
  } catch (err) {
    if (conn.inTransaction) conn.exec('ROLLBACK');
    throw err;
  }
}
