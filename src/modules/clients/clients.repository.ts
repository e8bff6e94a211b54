import { randomUUID } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import type { Database } from '../../db/database.ts';
import { nowMicros } from '../../db/time.ts';
import { prepared } from '../../db/prepared.ts';
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
 * Check-ins (last_checkin, ip_address) are written behind: kept in memory and written in one
 * transaction at most FLUSH_MS later (and when the app closes, and before clients are read), so a
 * poll costs no write of its own. With several instances the latest check-in wins.
 */
const pending = new WeakMap<Q, Map<string, { at: number; ip: string; version: string }>>();
const timers = new WeakMap<Q, NodeJS.Timeout>();
const FLUSH_MS = 1000;
/** The version last written per client, so a check-in rewrites it only when it changed. */
const versions = new WeakMap<Q, Map<string, string>>();

/** The collector's version from its User-Agent (`sharphound/v2.5.7 ...` → `v2.5.7`); '' when it names none. */
export function versionOf(userAgent: string | undefined): string {
  const m = /^[A-Za-z][\w.-]*\/([^\s/]{1,64})/.exec(userAgent ?? '');
  return m ? m[1] : '';
}

export function recordCheckin(db: Q, clientId: string, ip: string, userAgent?: string): void {
  let map = pending.get(db);
  if (!map) pending.set(db, (map = new Map()));
  map.set(clientId, { at: nowMicros(), ip, version: versionOf(userAgent) || (map.get(clientId)?.version ?? '') });
  if (!timers.has(db)) {
    timers.set(db, setTimeout(() => {
      flushCheckins(db).catch(() => {}); // the database may be closing; the next check-in retries
    }, FLUSH_MS).unref());
  }
}

/**
 * A check-in's write (the narrow presence columns only: src/db/data-versions.ts NARROW_COLUMNS), built once per
 * transaction rather than once per client (a flush at 1,000 clients wrote 1,000 of them, each built and compiled).
 */
const presenceUpdate = prepared((k) => k.updateTable('clients').set({ last_checkin: 0, ip_address: '' })
  .where('id', '=', '')
  .where((eb) => eb.or([eb('last_checkin', 'is', null), eb('last_checkin', '<', 0)])));

export async function flushCheckins(db: Q): Promise<void> {
  clearTimeout(timers.get(db));
  timers.delete(db);
  const map = pending.get(db);
  if (!map || map.size === 0) return;
  pending.delete(db);
  const knownVersions = versions.get(db) ?? new Map<string, string>();
  if (knownVersions.size > 100_000) knownVersions.clear();
  versions.set(db, knownVersions);
  await db.transaction().execute(async (trx) => {
    for (const [id, { at, ip, version }] of map) {
      // The version is written only when it changes (a check-in alone writes the narrow presence columns).
      if (version && knownVersions.get(id) !== version) {
        await trx.updateTable('clients').set({ version }).where('id', '=', id).where('version', '<>', version).execute();
        knownVersions.set(id, version);
      }
      await presenceUpdate(trx, [at, ip, id, at]);
    }
  });
}
