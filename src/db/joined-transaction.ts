import type { Kysely, Transaction } from 'kysely';
import type { Db } from './create-db.ts';
import type { Database } from './database.ts';

/**
 * A Db whose `kysely` is an open transaction in which nested `transaction().execute(fn)` calls JOIN
 * the outer transaction (fn runs on it; no BEGIN, no savepoint). So service code written as
 * `db.kysely.transaction().execute(...)` runs unchanged inside a wider unit of work (an audited
 * change: src/audit/audit.ts), and everything commits or rolls back together. Inside, use only this
 * Db: the root handle would wait for the connection the transaction holds (SQLite has one), and a
 * database error fails the whole unit (PostgreSQL aborts the transaction), so do not catch one and
 * carry on.
 */
const ROOT = Symbol('root db');

export function joinTransaction(root: Db, trx: Transaction<Database>): Db {
  const joined = {
    setIsolationLevel: () => joined,
    setAccessMode: () => joined,
    execute: <R>(fn: (t: Kysely<Database>) => Promise<R>) => fn(kysely),
  };
  const kysely = new Proxy(trx, {
    get(target, prop) {
      if (prop === 'transaction') return () => joined;
      const value = Reflect.get(target, prop, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  }) as Kysely<Database>;
  return Object.assign({ ...rootOf(root), kysely }, { [ROOT]: rootOf(root) });
}

/** The Db a joined one was made from (itself otherwise): for caches keyed by the database handle. */
export function rootOf(db: Db): Db {
  return (db as Db & { [ROOT]?: Db })[ROOT] ?? db;
}
