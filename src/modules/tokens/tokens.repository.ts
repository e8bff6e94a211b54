import type { Kysely } from 'kysely';
import type { AuthTokenRow } from '../../auth/tokens.tables.ts';
import type { Database } from '../../db/database.ts';
import { nowMicros } from '../../db/time.ts';

type Q = Kysely<Database>;

export async function insertToken(db: Q, row: AuthTokenRow): Promise<void> {
  await db.insertInto('auth_tokens').values(row).execute();
}

export async function findToken(db: Q, id: string): Promise<AuthTokenRow | undefined> {
  return db.selectFrom('auth_tokens').selectAll().where('id', '=', id).where('deleted_at', 'is', null).executeTakeFirst();
}

/** The listing's base query; the caller narrows it (owner, filters, sort). */
export function listTokensQuery(db: Q) {
  return db.selectFrom('auth_tokens').selectAll().where('deleted_at', 'is', null);
}

export async function deleteToken(db: Q, id: string): Promise<void> {
  await db.deleteFrom('auth_tokens').where('id', '=', id).execute();
}

export async function touchToken(db: Q, id: string): Promise<void> {
  await db.updateTable('auth_tokens').set({ last_access: nowMicros() }).where('id', '=', id).execute();
}

export async function userExists(db: Q, id: string): Promise<boolean> {
  const row = await db.selectFrom('users').select('id').where('id', '=', id).where('deleted_at', 'is', null).executeTakeFirst();
  return row !== undefined;
}
