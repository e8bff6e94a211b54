import { randomUUID } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import type { Database } from '../../db/database.ts';
import { nowMicros } from '../../db/time.ts';
import type { ClientRow } from '../jobs/collection.tables.ts';

type Q = Kysely<Database>;

export async function insertClient(db: Q, input: { name: string; type: string; domainController?: string }): Promise<ClientRow> {
  const now = nowMicros();
  return db
    .insertInto('clients')
    .values({
      id: randomUUID(), name: input.name, type: input.type, domain_controller: input.domainController ?? '',
      ip_address: '', hostname: '', last_checkin: null, current_job_id: null,
      created_at: now, updated_at: now, deleted_at: null,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function findClient(db: Q, id: string): Promise<ClientRow | undefined> {
  return db.selectFrom('clients').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function updateClient(db: Q, id: string, input: { name: string; domainController?: string }) {
  return db
    .updateTable('clients')
    .set({
      name: input.name,
      ...(input.domainController !== undefined ? { domain_controller: input.domainController } : {}),
      updated_at: nowMicros(),
      // The name is part of every job's wire shape.
      jobs_version: sql`jobs_version + 1`,
    })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
}

export async function deleteClient(db: Q, id: string): Promise<void> {
  await db.deleteFrom('clients').where('id', '=', id).execute();
}

export async function clientNameTaken(db: Q, name: string, exceptId?: string): Promise<boolean> {
  let q = db.selectFrom('clients').select('id').where('name', '=', name);
  if (exceptId) q = q.where('id', '<>', exceptId);
  return (await q.executeTakeFirst()) !== undefined;
}

/**
 * Records the client's check-in time (and address). At most one write per client per second per
 * process, so that a poll storm does not become a write storm; last_checkin is therefore exact to 1 s.
 */
const lastWritten = new Map<string, number>();
const CHECKIN_RESOLUTION = 1_000_000;

export async function recordCheckin(db: Q, clientId: string, ip: string): Promise<void> {
  const now = nowMicros();
  const key = `${clientId}|${ip}`;
  const last = lastWritten.get(key);
  if (last !== undefined && now - last < CHECKIN_RESOLUTION) return;
  if (lastWritten.size > 100_000) lastWritten.clear();
  lastWritten.set(key, now);
  await db.updateTable('clients').set({ last_checkin: now, ip_address: ip }).where('id', '=', clientId).execute();
}
