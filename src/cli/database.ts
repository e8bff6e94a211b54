import { loadConfig, type Config } from '../config.ts';
import { createDb, type Db } from '../db/create-db.ts';
import { migrateToLatest } from '../db/migrate.ts';
import { configFlags, type OptionSpec } from './command.ts';

/** The --database option shared by every command that opens the database. */
export const databaseOption = {
  database: { type: 'string', description: 'sqlite:PATH | sqlite::memory: | postgres://... (env SCENT_DATABASE_URL)' },
} satisfies Record<string, OptionSpec>;

/** Loads the config from flags + environment, opens the database and migrates it. */
export async function openDatabase(values: Record<string, unknown>): Promise<{ config: Config; db: Db }> {
  const config = loadConfig(configFlags(values));
  const db = createDb(config.databaseUrl);
  try {
    await migrateToLatest(db);
  } catch (err) {
    await db.close();
    throw err;
  }
  return { config, db };
}
