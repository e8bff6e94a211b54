import type SQLite from 'better-sqlite3';
import pg from 'pg';
import { sql, type Kysely } from 'kysely';

/**
 * Data versions: a counter per table, bumped whenever a committed write may have changed it, so
 * that caches (response cache, authenticated principals) can tell in O(tables) whether what they
 * hold is still what the database would answer. Where a write comes from:
 * - this process, through Kysely or the bulk paths: the driver wrappers below read each statement's
 *   SQL and bump the tables it writes (after COMMIT on PostgreSQL; on SQLite, whose statements run
 *   synchronously on one connection, when the statement is prepared and again at COMMIT/ROLLBACK);
 * - another process on the same SQLite file (`scent users disable` while the server runs, the
 *   ingest writer's own connection): `PRAGMA data_version` changes → everything is bumped. HTTP
 *   requests probe it at most once per FOREIGN_PROBE_MS (a probe is a read transaction: 3 system
 *   calls, 7–8 µs, a quarter of a cached answer's cost), so such a commit is seen by requests that
 *   start ≥ 1 ms after it, as another instance's commits are seen on PostgreSQL after a notice
 *   (the ingest writer's connection, in this process, probes right after its commit: seen at once);
 * - another instance on the same PostgreSQL: statement-level triggers NOTIFY `scent_changes` with
 *   the table (migration 0009 + ensureChangeTriggers); a LISTEN connection bumps it here. While that
 *   connection is down, nothing may be cached (`usable()` is false); when it is back, all is bumped.
 * A snapshot is taken BEFORE the reads whose result is cached; a write that lands in between makes
 * the entry stale at once (one extra miss), never the other way round.
 */
/** How stale another SQLite process's commits may be for an HTTP request (see DataVersions.refresh). */
export const FOREIGN_PROBE_MS = 1;

export class DataVersions {
  private readonly tables = new Map<string, number>();
  /** Bumped when the scope of a change is unknown (DDL, another process, reconnect). */
  private epoch = 0;
  private checkForeign: () => void = () => {};
  private probedAt = -Infinity;
  private live = true;
  private stop: (() => Promise<void>) | null = null;

  /**
   * Takes in commits made by other SQLite connections (one probe) unless it probed less than
   * `withinMs` ago. Called at the start of each HTTP request with FOREIGN_PROBE_MS
   * (src/http/prefer.ts), so that request's cache lookups see every commit that finished that long
   * before it began; code outside requests that relies on snapshots calls it with 0 (every commit).
   */
  refresh(withinMs = 0): void {
    const now = performance.now();
    if (now - this.probedAt < withinMs) return;
    this.probedAt = now;
    this.checkForeign();
  }

  /** Whether caching is possible now (false while PostgreSQL change notifications are not received). */
  usable(): boolean {
    return this.live;
  }

  /** The versions of `tables` now, as one comparable string (prefixed by the epoch). */
  snapshot(tables: readonly string[]): string {
    let s = String(this.epoch);
    for (const t of tables) s += ':' + (this.tables.get(t) ?? 0);
    return s;
  }

  bump(table: string): void {
    if (this.cascadesUnknown) return this.bumpAll();
    this.tables.set(table, (this.tables.get(table) ?? 0) + 1);
    for (const child of this.cascades.get(table) ?? []) this.tables.set(child, (this.tables.get(child) ?? 0) + 1);
  }

  /**
   * Tables a write to a table may change through foreign-key actions (ON DELETE / UPDATE CASCADE,
   * SET NULL, SET DEFAULT), transitively: a statement's SQL names only the table it writes.
   */
  private cascades = new Map<string, string[]>();
  /** Until the schema's foreign keys are known, any write counts as a change of everything. */
  private cascadesUnknown = true;

  setForeignKeyActions(references: ReadonlyArray<{ parent: string; child: string }>): void {
    this.cascadesUnknown = false;
    const direct = new Map<string, Set<string>>();
    for (const { parent, child } of references) {
      if (!direct.has(parent)) direct.set(parent, new Set());
      direct.get(parent)!.add(child);
    }
    this.cascades.clear();
    for (const parent of direct.keys()) {
      const reached = new Set<string>();
      const stack = [...direct.get(parent)!];
      while (stack.length) {
        const t = stack.pop()!;
        if (reached.has(t)) continue;
        reached.add(t);
        stack.push(...(direct.get(t) ?? []));
      }
      reached.delete(parent);
      this.cascades.set(parent, [...reached]);
    }
  }

  bumpAll(): void {
    this.epoch++;
  }

  /** SQLite: a cheap per-check probe for commits made by other connections. */
  watchSqlite(raw: SQLite.Database): void {
    const probe = raw.prepare('PRAGMA data_version').pluck();
    let seen = probe.get() as number;
    this.checkForeign = () => {
      const now = probe.get() as number;
      if (now !== seen) {
        seen = now;
        this.epoch++;
      }
    };
  }

  /**
   * PostgreSQL: listen for the triggers' notifications of the current schema. Until the listener is
   * connected (and whenever it drops) `usable()` is false; it reconnects every second.
   */
  listenPostgres(url: string): void {
    this.live = false;
    let client: pg.Client | null = null;
    let closed = false;
    let retry: NodeJS.Timeout | null = null;
    const down = () => {
      this.live = false;
      client?.removeAllListeners('notification');
      client?.end().catch(() => {});
      client = null;
      if (!closed && !retry) retry = setTimeout(connect, 1000).unref();
    };
    const connect = async () => {
      retry = null;
      const c = new pg.Client({ connectionString: url, keepAlive: true, connectionTimeoutMillis: 3000 });
      c.on('error', down);
      c.on('end', down);
      try {
        await c.connect();
        const { rows } = await c.query<{ s: string }>('select current_schema() as s');
        const prefix = `${rows[0].s}.`;
        c.on('notification', (n) => {
          if (n.payload?.startsWith(prefix)) this.bump(n.payload.slice(prefix.length));
        });
        await c.query('LISTEN scent_changes');
        if (closed) return void c.end().catch(() => {});
        client = c;
        this.epoch++; // whatever happened while not listening
        this.live = true;
      } catch {
        c.removeAllListeners('end');
        c.end().catch(() => {});
        if (!closed && !retry) retry = setTimeout(connect, 1000).unref();
      }
    };
    void connect();
    this.stop = async () => {
      closed = true;
      if (retry) clearTimeout(retry);
      const c = client;
      client = null;
      this.live = false;
      c?.removeAllListeners('end');
      await c?.end().catch(() => {});
    };
  }

  async close(): Promise<void> {
    await this.stop?.();
  }
}

/**
 * Columns written so often, and read by so few answers, that an UPDATE setting only them counts as a
 * write to `<table>:<name>` instead of `<table>`: collection clients' check-ins (written behind, about
 * once a second) must not retire every cached `jobs/available` answer, which shows the client's name
 * but not its last check-in. Readers of those columns list the pseudo-table. PostgreSQL's triggers
 * follow the same split (ensureChangeTriggers in src/db/migrate.ts).
 */
export const NARROW_COLUMNS: Record<string, { name: string; columns: readonly string[] }> = {
  clients: { name: 'presence', columns: ['last_checkin', 'ip_address'] },
};

/** What a statement writes: nothing, a list of tables, or 'all' (unknown scope: DDL, COPY, ...). */
export type Writes = null | string[] | 'all';
export type TxControl = 'begin' | 'commit' | 'rollback' | null;

const classified = new Map<string, { writes: Writes; tx: TxControl }>();
const READ = /^\s*(select|pragma|explain|show|values|savepoint|release|set|listen|unlisten)\b/i;
const WRITE_TARGET = /\b(?:insert\s+(?:or\s+\w+\s+)?into|replace\s+into|update(?:\s+or\s+\w+)?|delete\s+from|copy)\s+(?:only\s+)?(?:"?\w+"?\.)?"?(\w+)"?/gi;

/** Classifies one SQL text (memoised: the same texts recur). */
export function classify(sqlText: string): { writes: Writes; tx: TxControl } {
  let c = classified.get(sqlText);
  if (c) return c;
  const head = /^\s*(\w+)/.exec(sqlText)?.[1]?.toLowerCase() ?? '';
  let tx: TxControl = null;
  let writes: Writes = null;
  if (head === 'begin' || head === 'start') tx = 'begin';
  else if (head === 'commit' || head === 'end') tx = 'commit';
  else if (head === 'rollback' || head === 'abort') tx = /\bto\b/i.test(sqlText) ? null : 'rollback';
  else if (READ.test(sqlText) && !/\b(insert|update|delete)\b/i.test(sqlText)) writes = null;
  else if (head === 'select' || head === 'with' || head === 'insert' || head === 'update' || head === 'delete' || head === 'replace' || head === 'copy') {
    const tables = new Set<string>();
    for (const m of sqlText.matchAll(WRITE_TARGET)) tables.add(m[1].toLowerCase());
    // `select ... for update` and `on conflict do update set` also match `update`; only real targets count.
    tables.delete('set');
    tables.delete('of');
    tables.delete('nowait');
    tables.delete('skip');
    writes = tables.size ? [...tables].map((t) => narrowed(sqlText, head, t)) : head === 'select' || head === 'with' ? null : 'all';
  } else writes = 'all';
  c = { writes, tx };
  if (classified.size < 5000) classified.set(sqlText, c);
  return c;
}

/** `<table>:<name>` for an UPDATE of that table that sets only its narrow columns (see NARROW_COLUMNS). */
function narrowed(sqlText: string, head: string, table: string): string {
  const narrow = NARROW_COLUMNS[table];
  if (!narrow || head !== 'update') return table;
  const set = /\bset\s+([\s\S]*?)(?:\swhere\s|\sreturning\s|\sfrom\s|$)/i.exec(sqlText)?.[1];
  if (!set) return table;
  const columns = [...set.matchAll(/"?(\w+)"?\s*=/g)].map((m) => m[1].toLowerCase());
  return columns.length && columns.every((c) => narrow.columns.includes(c)) ? `${table}:${narrow.name}` : table;
}

function apply(versions: DataVersions, writes: Writes): void {
  if (writes === 'all') versions.bumpAll();
  else if (writes) for (const t of writes) versions.bump(t);
}

/**
 * Wraps a better-sqlite3 handle: writes are recorded when prepared (statements run synchronously
 * right after, on this one connection) and, for transactions, again at COMMIT/ROLLBACK; `exec`
 * (scripts, bulk transactions) bumps everything.
 */
export function trackSqliteWrites(raw: SQLite.Database, versions: DataVersions, prepare: (source: string) => SQLite.Statement): SQLite.Database {
  let pending: Writes[] = [];
  const tracked = (source: string): SQLite.Statement => {
    const { writes, tx } = classify(source);
    if (writes) {
      apply(versions, writes);
      if (raw.inTransaction) pending.push(writes);
    } else if (tx === 'commit' || tx === 'rollback') {
      for (const w of pending) apply(versions, w);
      pending = [];
    }
    return prepare(source);
  };
  const exec = (source: string) => {
    const result = raw.exec(source);
    versions.bumpAll();
    return result;
  };
  return new Proxy(raw, {
    get(target, prop, receiver) {
      if (prop === 'prepare') return tracked;
      if (prop === 'exec') return exec;
      const value = Reflect.get(target, prop, receiver);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

type Query = (...args: unknown[]) => Promise<unknown>;

/**
 * Wraps a pg client's `query`: writes outside a transaction are recorded when they complete; inside
 * one, when its COMMIT completes (a ROLLBACK forgets them). A failed COMMIT still records them.
 */
export function trackPgClient(query: Query, versions: DataVersions): Query {
  let inTx = false;
  let pending: Writes[] = [];
  return async (...args: unknown[]) => {
    const first = args[0];
    const text = typeof first === 'string' ? first : (first as { text?: string } | null)?.text;
    if (typeof text !== 'string') {
      // A submittable (COPY stream, cursor): scope unknown.
      try {
        return await query(...args);
      } finally {
        if (inTx) pending.push('all');
        else versions.bumpAll();
      }
    }
    const { writes, tx } = classify(text);
    try {
      return await query(...args);
    } finally {
      if (tx === 'begin') {
        inTx = true;
        pending = [];
      } else if (tx === 'commit' || tx === 'rollback') {
        if (tx === 'commit') for (const w of pending) apply(versions, w);
        inTx = false;
        pending = [];
      } else if (writes) {
        if (inTx) pending.push(writes);
        else apply(versions, writes);
      }
    }
  };
}

/**
 * Reads the schema's foreign keys with a row-changing action into `versions` (see
 * setForeignKeyActions). Called once the schema is migrated (buildApp); until it succeeds every write
 * counts as a change of everything.
 */
export async function learnForeignKeyActions(versions: DataVersions, db: Kysely<any>, dialect: 'sqlite' | 'postgres'): Promise<void> {
  try {
    versions.setForeignKeyActions(await foreignKeyActions(db, dialect));
  } catch {
    // Database unreachable at start-up: every write keeps counting as a change of everything.
  }
}

async function foreignKeyActions(db: Kysely<any>, dialect: 'sqlite' | 'postgres') {
  const references: Array<{ parent: string; child: string }> = [];
  if (dialect === 'postgres') {
    const { rows } = await sql<{ parent: string; child: string; del: string; upd: string }>`
      select p.relname as parent, c.relname as child, k.confdeltype as del, k.confupdtype as upd
      from pg_constraint k join pg_class c on c.oid = k.conrelid join pg_class p on p.oid = k.confrelid
      where k.contype = 'f' and k.connamespace = current_schema()::regnamespace`.execute(db);
    for (const r of rows) if ('cnd'.includes(r.del) || 'cnd'.includes(r.upd)) references.push({ parent: r.parent, child: r.child });
  } else {
    const { rows: tables } = await sql<{ name: string }>`select name from sqlite_master where type = 'table'`.execute(db);
    for (const { name } of tables) {
      const { rows } = await sql<{ table: string; on_update: string; on_delete: string }>`select * from pragma_foreign_key_list(${name})`.execute(db);
      const acts = (a: string) => /^(CASCADE|SET NULL|SET DEFAULT)$/i.test(a);
      for (const r of rows) if (acts(r.on_delete) || acts(r.on_update)) references.push({ parent: r.table, child: name });
    }
  }
  return references;
}
