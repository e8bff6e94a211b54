import type pg from 'pg';
import { classify } from './data-versions.ts';

/**
 * PostgreSQL: statements this process sends again and again (Kysely compiles the same SQL text for
 * the same query shape) go as named statements, so each connection parses and plans them once
 * instead of on every execution (node-postgres then sends only Bind/Execute). PostgreSQL keeps
 * choosing between a generic and a per-execution plan itself (plan_cache_mode `auto`).
 *
 * Only reads and plain writes are named (no DDL, no transaction control, nothing `classify` cannot
 * scope); at most MAX_PER_CONNECTION per connection and MAX_NAMES distinct texts per process (Kysely's
 * `in (...)` lists make texts of every length), the rest stay unnamed. A statement whose result columns changed under it (DDL while the
 * server runs: "cached plan must not change result type") is sent unnamed again at once, and from
 * then on on that connection.
 */
const MAX_PER_CONNECTION = 1000;
const MAX_NAMES = 5_000;
const names = new Map<string, string | null>();
let counter = 0;

interface Named {
  prepared: Set<string>;
  broken: Set<string>;
}
const perConnection = new WeakMap<object, Named>();

function nameOf(text: string): string | null {
  let name = names.get(text);
  if (name !== undefined) return name;
  if (names.size >= MAX_NAMES) return null; // a process that makes this many texts: the rest stay unnamed
  const { writes, tx } = classify(text);
  const head = /^\s*(\w+)/.exec(text)?.[1]?.toLowerCase();
  const nameable = tx === null && writes !== 'all' && (head === 'select' || head === 'insert' || head === 'update' || head === 'delete' || head === 'with');
  name = nameable ? `scent_${(counter++).toString(36)}` : null;
  names.set(text, name);
  return name;
}

type Query = (...args: unknown[]) => Promise<unknown>;

/** Wraps a pool client's `query` (text + values calls only; anything else passes through). */
export function namedStatements(client: pg.PoolClient, query: Query): Query {
  let named = perConnection.get(client);
  if (!named) perConnection.set(client, (named = { prepared: new Set(), broken: new Set() }));
  const { prepared, broken } = named;
  return (...args: unknown[]) => {
    const [text, values] = args;
    if (typeof text !== 'string' || args.length > 2) return query(...args);
    const name = nameOf(text);
    if (name === null || broken.has(name) || (!prepared.has(name) && prepared.size >= MAX_PER_CONNECTION)) return query(...args);
    prepared.add(name);
    return query({ name, text, values }).catch((err: { code?: string }) => {
      if (err?.code !== '0A000') throw err;
      broken.add(name);
      return query(text, values);
    });
  };
}
