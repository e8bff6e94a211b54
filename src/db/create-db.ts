import { Kysely, SqliteDialect, type LogEvent } from 'kysely';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { Database } from './database.ts';
import { deadlineCheckedPrepare, deadlineGuardedPool } from './deadline.ts';
import { ScopedPostgresDialect } from './pg-introspector.ts';
import { DataVersions, trackPgClient, trackSqliteWrites } from './data-versions.ts';

export type DialectName = 'sqlite' | 'postgres';

export interface Db {
  kysely: Kysely<Database>;
  dialect: DialectName;
  /** The URL it was opened with, secrets redacted. */
  description: string;
  /** Per-table change counters for caches (src/db/data-versions.ts). */
  versions: DataVersions;
  /** Cheap reachability probe (for /health and 503 decisions). */
  ping(): Promise<boolean>;
  close(): Promise<void>;
  /**
   * The narrow bulk-write path (graph ingest only, src/graph/bulk/): the driver handle beneath
   * Kysely. Everything else goes through `kysely`.
   */
  bulk: BulkAccess;
}

export type BulkAccess =
  | { dialect: 'sqlite'; database: SQLite.Database; /** null for :memory: */ path: string | null }
  | { dialect: 'postgres'; pool: pg.Pool };

// BIGINT (int8) and NUMERIC counts come back from pg as strings; every one we store fits in 2^53.
pg.types.setTypeParser(20, (v) => Number(v));
pg.types.setTypeParser(1700, (v) => Number(v));

export interface DbOptions {
  /** Pool size for PostgreSQL. */
  poolSize?: number;
  log?: (event: LogEvent) => void;
}

/** Opens `sqlite:PATH`, `sqlite::memory:` or `postgres://...`. */
export function createDb(url: string, options: DbOptions = {}): Db {
  if (url.startsWith('sqlite:')) return openSqlite(url.slice('sqlite:'.length), options);
  if (url.startsWith('postgres://') || url.startsWith('postgresql://')) return openPostgres(url, options);
  throw new Error(`unsupported database URL (expected sqlite:PATH, sqlite::memory: or postgres://...): ${url}`);
}

function openSqlite(path: string, options: DbOptions): Db {
  const memory = path === ':memory:' || path === '';
  if (!memory) mkdirSync(dirname(resolve(path)), { recursive: true });
  const raw = new SQLite(memory ? ':memory:' : path);
  raw.pragma('journal_mode = WAL');
  raw.pragma('synchronous = NORMAL');
  raw.pragma('foreign_keys = ON');
  raw.pragma('busy_timeout = 5000');
  raw.pragma('cache_size = -65536');
  raw.pragma('temp_store = MEMORY');
  // Unicode-aware lower(), so that case-insensitive matching is identical to PostgreSQL's.
  raw.function('lower', { deterministic: true }, (v: unknown) =>
    typeof v === 'string' ? v.toLowerCase() : v,
  );
  const versions = new DataVersions();
  versions.watchSqlite(raw);
  const tracked = trackSqliteWrites(raw, versions, (source) => raw.prepare(source));
  const kysely = new Kysely<Database>({
    dialect: new SqliteDialect({ database: trackSqliteWrites(raw, versions, deadlineCheckedPrepare(raw)) }),
    log: options.log,
  });
  const ping = raw.prepare('select 1');
  return {
    kysely,
    dialect: 'sqlite',
    description: memory ? 'sqlite::memory:' : `sqlite:${path}`,
    versions,
    bulk: { dialect: 'sqlite', database: tracked, path: memory ? null : resolve(path) },
    async ping() {
      try {
        ping.get();
        return true;
      } catch {
        return false;
      }
    },
    async close() {
      await kysely.destroy();
    },
  };
}

function openPostgres(url: string, options: DbOptions): Db {
  const pool = new pg.Pool({
    connectionString: url,
    max: options.poolSize ?? 10,
    connectionTimeoutMillis: 3000,
    idleTimeoutMillis: 30_000,
  });
  // An idle client that loses its server must not crash the process.
  pool.on('error', () => {});
  const versions = new DataVersions();
  versions.listenPostgres(url);
  const kysely = new Kysely<Database>({
    dialect: new ScopedPostgresDialect({ pool: deadlineGuardedPool(pool, url, versions) }),
    log: options.log,
  });
  return {
    kysely,
    dialect: 'postgres',
    description: redact(url),
    versions,
    bulk: { dialect: 'postgres', pool: trackPool(pool, versions) },
    async ping() {
      try {
        await pool.query('select 1');
        return true;
      } catch {
        return false;
      }
    },
    async close() {
      await versions.close();
      await kysely.destroy();
    },
  };
}

function redact(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return 'postgres://***';
  }
}

/** The bulk path's pool, with the writes of its clients (and of pool.query) recorded. */
function trackPool(pool: pg.Pool, versions: DataVersions): pg.Pool {
  const wrap = <T extends object>(target: T, query: (...args: unknown[]) => Promise<unknown>): T => {
    const tracked = trackPgClient(query, versions);
    return new Proxy(target, {
      get(t, prop, receiver) {
        if (prop === 'query') return tracked;
        const value = Reflect.get(t, prop, receiver);
        return typeof value === 'function' ? value.bind(t) : value;
      },
    });
  };
  const connect = async () => {
    const client = await pool.connect();
    return wrap(client, client.query.bind(client) as (...args: unknown[]) => Promise<unknown>);
  };
  const proxy = wrap(pool, pool.query.bind(pool) as (...args: unknown[]) => Promise<unknown>);
  return new Proxy(proxy, {
    get(t, prop, receiver) {
      if (prop === 'connect') return connect;
      return Reflect.get(t, prop, receiver);
    },
  });
}
