import { AsyncLocalStorage } from 'node:async_hooks';
import type SQLite from 'better-sqlite3';
import pg from 'pg';
import { DeadlineError } from '../http/errors.ts';

/**
 * The request deadline (CONTRACT §4) reaches the database through an AsyncLocalStorage scope, so
 * repositories stay plain functions: every statement run inside a request sees that request's signal.
 * - SQLite runs statements synchronously; a statement starts only while the deadline has not passed.
 * - PostgreSQL statements that are running when the deadline passes are cancelled server-side
 *   (pg_cancel_backend on the connection's backend pid).
 */
export interface RequestScope {
  signal: AbortSignal;
  /** Epoch milliseconds after which no new statement may start (Infinity = no deadline). */
  deadlineAt: number;
}

export const requestScope = new AsyncLocalStorage<RequestScope>();

export function currentSignal(): AbortSignal | undefined {
  return requestScope.getStore()?.signal;
}

/**
 * Checked before every statement. The clock is read as well as the signal: synchronous SQLite work
 * resolves through microtasks only, so the deadline timer may not have had a chance to fire yet.
 */
export function throwIfPastDeadline(): void {
  const scope = requestScope.getStore();
  if (scope && (scope.signal.aborted || Date.now() >= scope.deadlineAt)) throw new DeadlineError();
}

const STATEMENT_CACHE_SIZE = 500;

/**
 * Wraps better-sqlite3 so that each statement checks the deadline before it starts, and caches
 * prepared statements by their SQL text (Kysely prepares on every execution).
 */
export function sqliteDeadlineCheck(raw: SQLite.Database): SQLite.Database {
  const cache = new Map<string, SQLite.Statement>();
  const prepare = (source: string): SQLite.Statement => {
    throwIfPastDeadline();
    const hit = cache.get(source);
    if (hit && !hit.busy) return hit;
    const stmt = raw.prepare(source);
    if (!hit) {
      if (cache.size >= STATEMENT_CACHE_SIZE) cache.delete(cache.keys().next().value as string);
      cache.set(source, stmt);
    }
    return stmt;
  };
  return new Proxy(raw, {
    get(target, prop, receiver) {
      if (prop === 'prepare') return prepare;
      const value = Reflect.get(target, prop, receiver);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

type PoolClient = pg.PoolClient & { processID?: number };

/** A pg.Pool whose clients cancel their running statement when the request deadline passes. */
export function deadlineGuardedPool(pool: pg.Pool, url: string) {
  let cancelPool: pg.Pool | undefined;
  const cancel = (pid: number) => {
    cancelPool ??= new pg.Pool({ connectionString: url, max: 2, connectionTimeoutMillis: 3000 });
    cancelPool.on('error', () => {});
    cancelPool.query('select pg_cancel_backend($1)', [pid]).catch(() => {});
  };
  const wrapClient = (client: PoolClient) => {
    const query = client.query.bind(client) as (...args: unknown[]) => Promise<unknown>;
    const guarded = async (...args: unknown[]) => {
      const signal = currentSignal();
      if (!signal) return query(...args);
      if (signal.aborted) throw new DeadlineError();
      const onAbort = () => client.processID && cancel(client.processID);
      signal.addEventListener('abort', onAbort, { once: true });
      try {
        return await query(...args);
      } catch (err) {
        if ((err as { code?: string }).code === '57014' && signal.aborted) throw new DeadlineError();
        throw err;
      } finally {
        signal.removeEventListener('abort', onAbort);
      }
    };
    return new Proxy(client, {
      get(target, prop, receiver) {
        if (prop === 'query') return guarded;
        const value = Reflect.get(target, prop, receiver);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
  };
  return {
    async connect() {
      const client = (await pool.connect()) as PoolClient;
      // A connection that dies mid-query also emits 'error' on its client; the query's own rejection
      // carries the failure to the request (503), so the event must not crash the process.
      if (client.listenerCount('error') === 0) client.on('error', () => {});
      return wrapClient(client);
    },
    async end() {
      await pool.end();
      await cancelPool?.end();
    },
  };
}
