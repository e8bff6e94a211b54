import { AsyncLocalStorage } from 'node:async_hooks';
import type SQLite from 'better-sqlite3';
import pg from 'pg';
import { DeadlineError } from '../http/errors.ts';
import { trackPgClient, type DataVersions } from './data-versions.ts';
import { namedStatements } from './pg-named-statements.ts';

/**
 * The request deadline (CONTRACT §4) reaches the database through an AsyncLocalStorage scope, so
 * repositories stay plain functions: every statement run inside a request sees that request's deadline.
 * - SQLite runs statements synchronously; a statement starts only while the deadline has not passed.
 * - PostgreSQL statements that are running when the deadline passes are cancelled server-side
 *   (pg_cancel_backend on the connection's backend pid).
 */
/**
 * A request's deadline: an instant after which no statement may start, and an abort that cancels
 * running PostgreSQL statements. (A plain object rather than an AbortController: one is made per
 * request, and most requests never look at it.)
 */
export class Deadline {
  aborted = false;
  private listeners: Array<() => void> | null = null;
  /** Epoch milliseconds after which no new statement may start (Infinity = no deadline). */
  constructor(readonly at: number) {}

  /** Runs `fn` on abort; returns the function that unregisters it. */
  onAbort(fn: () => void): () => void {
    (this.listeners ??= []).push(fn);
    return () => {
      const i = this.listeners?.indexOf(fn) ?? -1;
      if (i >= 0) this.listeners!.splice(i, 1);
    };
  }

  abort(): void {
    if (this.aborted) return;
    this.aborted = true;
    for (const fn of this.listeners ?? []) fn();
    this.listeners = null;
  }
}

export const requestScope = new AsyncLocalStorage<Deadline>();

/**
 * Checked before every statement. The clock is read as well as the flag: synchronous SQLite work
 * resolves through microtasks only, so the deadline timer may not have had a chance to fire yet.
 */
export function throwIfPastDeadline(): void {
  const deadline = requestScope.getStore();
  if (deadline && (deadline.aborted || Date.now() >= deadline.at)) throw new DeadlineError();
}

const STATEMENT_CACHE_SIZE = 500;

/**
 * better-sqlite3's `prepare` with a deadline check before each statement starts, and prepared
 * statements cached by their SQL text (Kysely prepares on every execution).
 */
export function deadlineCheckedPrepare(raw: SQLite.Database): (source: string) => SQLite.Statement {
  const cache = new Map<string, SQLite.Statement>();
  return (source: string): SQLite.Statement => {
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
}

type PoolClient = pg.PoolClient & { processID?: number };

/**
 * A pg.Pool whose clients cancel their running statement when the request deadline passes (and
 * record their writes in `versions`, when given).
 */
export function deadlineGuardedPool(pool: pg.Pool, url: string, versions?: DataVersions) {
  let cancelPool: pg.Pool | undefined;
  const cancel = (pid: number) => {
    cancelPool ??= new pg.Pool({ connectionString: url, max: 2, connectionTimeoutMillis: 3000 });
    cancelPool.on('error', () => {});
    cancelPool.query('select pg_cancel_backend($1)', [pid]).catch(() => {});
  };
  const wrapClient = (client: PoolClient) => {
    const query = namedStatements(client, client.query.bind(client) as (...args: unknown[]) => Promise<unknown>);
    const guarded = async (...args: unknown[]) => {
      const deadline = requestScope.getStore();
      if (!deadline) return query(...args);
      if (deadline.aborted) throw new DeadlineError();
      const remove = deadline.onAbort(() => client.processID && cancel(client.processID));
      try {
        return await query(...args);
      } catch (err) {
        if ((err as { code?: string }).code === '57014' && deadline.aborted) throw new DeadlineError();
        throw err;
      } finally {
        remove();
      }
    };
    const tracked = versions ? trackPgClient(guarded, versions) : guarded;
    return new Proxy(client, {
      get(target, prop, receiver) {
        if (prop === 'query') return tracked;
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
