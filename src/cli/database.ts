import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { sql } from 'kysely';
import { loadConfig, type Config } from '../config.ts';
import { createDb, type Db } from '../db/create-db.ts';
import { migrateToLatest } from '../db/migrate.ts';
import { configFlags, UsageError, type OptionSpec } from './command.ts';

/** The --database option shared by every command that opens the database. */
export const databaseOption = {
  database: { type: 'string', description: 'sqlite:PATH | sqlite::memory: | postgres://... (env SCENT_DATABASE_URL)' },
} satisfies Record<string, OptionSpec>;

const START_FIRST = 'start `scent serve` (or run `scent migrate`) on it first, or point --database / SCENT_DATABASE_URL at the server\'s database';

/**
 * Loads the config from flags + environment, opens the database and migrates it. Only the commands that put
 * something in (`serve`, `migrate`, `import`, `users create`, `clients create`) may start a new database
 * (`create`); the others read what is there (a user to issue a token for, ...), so that a mistyped or forgotten
 * --database is an error rather than a fresh, empty database.
 */
export async function openDatabase(values: Record<string, unknown>, options: { create?: boolean } = {}): Promise<{ config: Config; db: Db }> {
  const config = loadConfig(configFlags(values));
  if (!options.create) refuseUnreachable(config.databaseUrl);
  const db = createDb(config.databaseUrl);
  try {
    if (!options.create && db.dialect === 'postgres' && !(await hasScentSchema(db))) {
      throw new UsageError(`no Scent database at ${db.description}: ${START_FIRST}`);
    }
    await migrateToLatest(db);
  } catch (err) {
    await db.close();
    throw err;
  }
  return { config, db };
}

/** Runs a command's work on the database of its flags (see openDatabase), closing it whatever happens. */
export async function withDatabase<T>(values: Record<string, unknown>, work: (opened: { config: Config; db: Db }) => Promise<T>, options: { create?: boolean } = {}): Promise<T> {
  const opened = await openDatabase(values, options);
  try {
    return await work(opened);
  } finally {
    await opened.db.close();
  }
}

function refuseUnreachable(url: string): void {
  if (url === 'sqlite::memory:' || url === 'sqlite:') {
    throw new UsageError('sqlite::memory: lives inside the process that opened it: no other command can reach a server\'s in-memory database; sign in over HTTP instead (POST /api/v2/login)');
  }
  if (url.startsWith('sqlite:') && !existsSync(url.slice('sqlite:'.length))) {
    throw new UsageError(`no database at ${resolve(url.slice('sqlite:'.length))}: ${START_FIRST}`);
  }
}

async function hasScentSchema(db: Db): Promise<boolean> {
  const { rows } = await sql<{ found: string | null }>`select to_regclass('scent_migrations')::text as found`.execute(db.kysely);
  return rows[0]?.found != null;
}
