import type { Kysely, Updateable } from 'kysely';
import type { Database } from '../../db/database.ts';
import type { ClientEventRow, ClientEventTable, CollectionSwitches } from '../jobs/collection.tables.ts';
import { SWITCH_NAMES } from '../jobs/collection.tables.ts';

type Q = Kysely<Database>;

/** Body switches (absent = false) → stored 0/1. */
export function storedSwitches(body: Partial<Record<keyof CollectionSwitches, boolean>>): CollectionSwitches {
  return Object.fromEntries(SWITCH_NAMES.map((n) => [n, body[n] === true ? 1 : 0])) as unknown as CollectionSwitches;
}

/** Copies the switches of a stored row (event → job). */
export function copySwitches(row: CollectionSwitches): CollectionSwitches {
  return Object.fromEntries(SWITCH_NAMES.map((n) => [n, row[n]])) as unknown as CollectionSwitches;
}

export async function findEvent(db: Q, id: number): Promise<ClientEventRow | undefined> {
  return db.selectFrom('client_events').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function insertEvent(db: Q, values: Omit<ClientEventTable, 'id'>): Promise<ClientEventRow> {
  return db.insertInto('client_events').values(values).returningAll().executeTakeFirstOrThrow();
}

export async function updateEvent(db: Q, id: number, values: Updateable<ClientEventTable>): Promise<ClientEventRow | undefined> {
  return db.updateTable('client_events').set(values).where('id', '=', id).returningAll().executeTakeFirst();
}

export async function deleteEvent(db: Q, id: number): Promise<boolean> {
  const res = await db.deleteFrom('client_events').where('id', '=', id).executeTakeFirst();
  return res.numDeletedRows === 1n;
}
