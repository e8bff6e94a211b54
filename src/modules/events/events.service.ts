import type { Kysely } from 'kysely';
import type { Database } from '../../db/database.ts';
import type { Db } from '../../db/create-db.ts';
import type { DataVersions } from '../../db/data-versions.ts';
import { nowMicros } from '../../db/time.ts';
import { prepared } from '../../db/prepared.ts';
import { badRequest, notFound } from '../../http/errors.ts';
import { findClient } from '../clients/clients.repository.ts';
import type { ClientEventRow } from '../jobs/collection.tables.ts';
import { bumpJobsVersion, targetIds } from '../jobs/jobs.repository.ts';
import { knownObjectIds, resolveObjectIds } from '../jobs/targets.repository.ts';
import { deleteEvent, findEvent, insertEvent, storedSwitches, updateEvent } from './events.repository.ts';
import { nextOccurrence, normaliseRule } from './rrule.ts';
import { scheduleEvent } from './scheduler.ts';
import { toWireEvent, type EventBody } from './events.schema.ts';

export const CLIENT_INVALID = 'client id is invalid';

export interface HydrateFlags {
  ous: boolean;
  domains: boolean;
}

/** `versions`: reuse references resolved by earlier requests (src/modules/jobs/targets.repository.ts). */
export async function toWireEvents(db: Kysely<Database>, rows: ClientEventRow[], flags: HydrateFlags, versions?: DataVersions) {
  const ids = targetIds(rows, flags.ous, flags.domains);
  const resolved = ids.size ? await resolveObjectIds(db, ids, versions) : new Map();
  return rows.map((r) => toWireEvent(r, { ...flags, resolved }));
}

/**
 * Stored columns of an event body; the next run is the rule's first occurrence from the current second on
 * (a rule without DTSTART starts at that second, so its first run is now, not a period later).
 */
function fromBody(body: EventBody, now: number) {
  const rrule = normaliseRule(body.rrule, now);
  const second = Math.floor(now / 1_000_000) * 1_000_000;
  return {
    client_id: body.client_id.toLowerCase(),
    title: body.title ?? '',
    rrule,
    ous: JSON.stringify(body.ous ?? []),
    domains: JSON.stringify(body.domains ?? []),
    next_run_at: nextOccurrence(rrule, second, true),
    ...storedSwitches(body),
  };
}

export async function createEvent(db: Db, body: EventBody, flags: HydrateFlags) {
  const now = nowMicros();
  const values = fromBody(body, now);
  const row = await db.kysely.transaction().execute(async (trx) => {
    if (!(await findClient(trx, values.client_id))) throw badRequest(CLIENT_INVALID);
    return insertEvent(trx, { ...values, created_at: now, updated_at: now, deleted_at: null });
  });
  await scheduleIfDue(db, row.id, row.next_run_at);
  return (await toWireEvents(db.kysely, [row], flags))[0];
}

/** An event whose first run is due gets its job at once, not at the scheduler's next pass. */
async function scheduleIfDue(db: Db, id: number, nextRunAt: number | null) {
  const now = nowMicros();
  if (nextRunAt !== null && nextRunAt <= now) await scheduleEvent(db, id, now);
}

/** findEvent, built and compiled once (GET /events/{id} is read often). */
const eventById = prepared((k) => k.selectFrom('client_events').selectAll().where('id', '=', 0));

/**
 * Every event by id, read in one statement and kept while client_events is unchanged (src/db/data-versions.ts), for
 * tables of at most EVENTS_KEPT events (a deployment has a few hundred; the bench 25,000); larger ones are read by id.
 */
const EVENTS_KEPT = 100_000;
const EVENT_TABLES = ['client_events'] as const;
const eventsKept = new WeakMap<Db, { stamp: string; rows: Promise<Map<number, ClientEventRow> | null>; read?: Map<number, ClientEventRow> | null }>();

async function keptEvents(db: Db): Promise<Map<number, ClientEventRow> | null> {
  if (!db.versions.usable()) return null;
  const stamp = db.versions.snapshot(EVENT_TABLES); // before the read
  let held = eventsKept.get(db);
  if (!held || held.stamp !== stamp) {
    const rows = db.kysely.selectFrom('client_events').selectAll().limit(EVENTS_KEPT + 1).execute()
      .then((all) => (all.length > EVENTS_KEPT ? null : new Map(all.map((r) => [Number(r.id), r]))), () => null);
    const entry: { stamp: string; rows: typeof rows; read?: Map<number, ClientEventRow> | null } = { stamp, rows };
    void rows.then((read) => (entry.read = read));
    eventsKept.set(db, (held = entry));
  }
  const rows = await held.rows;
  // A write since the snapshot: the database answers (the next request reads the table again).
  return rows && db.versions.usable() && db.versions.snapshot(EVENT_TABLES) === held.stamp ? rows : null;
}

/**
 * getEvent's answer when everything it needs is kept (the events, and what their OUs / domains resolve to): no
 * statement, no promise. Undefined when something is not kept (getEvent reads it); throws as getEvent would.
 */
export function keptEvent(db: Db, id: number, flags: HydrateFlags): ReturnType<typeof toWireEvent> | undefined {
  const held = eventsKept.get(db);
  if (!held?.read || !db.versions.usable() || db.versions.snapshot(EVENT_TABLES) !== held.stamp) return undefined;
  const row = held.read.get(id);
  if (!row) throw notFound();
  const ids = targetIds([row], flags.ous, flags.domains);
  const resolved = ids.size ? knownObjectIds(ids, db.versions) : new Map();
  return resolved && toWireEvent(row, { ...flags, resolved });
}

export async function getEvent(db: Db, id: number, flags: HydrateFlags) {
  const kept = await keptEvents(db);
  const row = kept ? kept.get(id) : (await eventById(db.kysely, [id]))[0];
  if (!row) throw notFound();
  return (await toWireEvents(db.kysely, [row], flags, db.versions))[0];
}

/** Full replace; the schedule restarts from now (occurrences already turned into jobs stay). */
export async function replaceEvent(db: Db, id: number, body: EventBody, flags: HydrateFlags) {
  const now = nowMicros();
  const values = fromBody(body, now);
  const row = await db.kysely.transaction().execute(async (trx) => {
    if (!(await findEvent(trx, id))) throw notFound();
    if (!(await findClient(trx, values.client_id))) throw badRequest(CLIENT_INVALID);
    return updateEvent(trx, id, { ...values, updated_at: now });
  });
  await scheduleIfDue(db, id, row!.next_run_at);
  return (await toWireEvents(db.kysely, [row!], flags))[0];
}

/** Deletes the event; jobs it produced stay (their event_id becomes null). */
export async function removeEvent(db: Db, id: number) {
  const row = await db.kysely.transaction().execute(async (trx) => {
    const found = await findEvent(trx, id);
    if (!found || !(await deleteEvent(trx, id))) throw notFound();
    await bumpJobsVersion(trx, found.client_id);
    return found;
  });
  return (await toWireEvents(db.kysely, [row], { ous: true, domains: true }))[0];
}
