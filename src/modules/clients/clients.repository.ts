import { randomUUID } from 'node:crypto';
import { CompiledQuery, sql, type Kysely } from 'kysely';
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
  // A client's pending check-in is updated in place: it lives until the flush (up to FLUSH_MS), long enough for a
  // new object per poll to be moved to the old generation, where it is garbage (thousands a second at 1,000 clients).
  const at = nowMicros();
  const version = userAgent === undefined ? '' : versionOf(userAgent);
  const known = map.get(clientId);
  if (known) {
    known.at = at;
    known.ip = ip;
    if (version) known.version = version;
  } else map.set(clientId, { at, ip, version });
  if (!timers.has(db)) {
    timers.set(db, setTimeout(() => {
      flushCheckins(db).catch(() => {}); // the database may be closing; the next check-in retries
    }, FLUSH_MS).unref());
  }
}

/** Check-ins written per statement (3 parameters each: well within SQLite's and PostgreSQL's limits). */
const CHECKIN_BATCH = 250;

/**
 * The check-ins of up to CHECKIN_BATCH clients in one statement (the narrow presence columns only:
 * src/db/data-versions.ts NARROW_COLUMNS), each client's row written only when its check-in is later than the one
 * stored. A flush at 1,000 clients wrote 1,000 statements, each a round through Kysely and the driver; now 4. The
 * text is made once per number of rows.
 */
const presenceTexts = new Map<number, string>();

function presenceUpdate(db: Q, rows: number): string {
  let text = presenceTexts.get(rows);
  if (text === undefined) {
    // VALUES columns are column1..3 on both databases; the casts type PostgreSQL's parameters.
    const values = Array.from({ length: rows }, () => sql`(${''}, cast(${0} as bigint), cast(${''} as text))`);
    text = sql`update clients set last_checkin = v.column2, ip_address = v.column3 from (values ${sql.join(values)}) as v
      where clients.id = v.column1 and (clients.last_checkin is null or clients.last_checkin < v.column2)`.compile(db).sql;
    presenceTexts.set(rows, text);
  }
  return text;
}

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
    let batch: unknown[] = [];
    const write = async () => {
      await trx.executeQuery(CompiledQuery.raw(presenceUpdate(trx, batch.length / 3), batch));
      batch = [];
    };
    for (const [id, { at, ip, version }] of map) {
      // The version is written only when it changes (a check-in alone writes the narrow presence columns).
      if (version && knownVersions.get(id) !== version) {
        await trx.updateTable('clients').set({ version }).where('id', '=', id).where('version', '<>', version).execute();
        knownVersions.set(id, version);
      }
      batch.push(id, at, ip);
      if (batch.length === 3 * CHECKIN_BATCH) await write();
    }
    if (batch.length) await write();
  });
}
