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
import { domainRef, knownObjectIds, ouRef, resolveObjectIds } from '../jobs/targets.repository.ts';
import { parseIds } from '../jobs/jobs.schema.ts';
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
 * With the rows go their answers' texts (EventText), made at an event's first kept request: a write to the table
 * replaces the whole entry, so no text outlives the row it was made from.
 */
const EVENTS_KEPT = 100_000;
const EVENT_TABLES = ['client_events'] as const;
interface KeptEvents {
  stamp: string;
  rows: Promise<Map<number, ClientEventRow> | null>;
  read?: Map<number, ClientEventRow> | null;
  texts: Map<number, EventText>;
}
const eventsKept = new WeakMap<Db, KeptEvents>();

async function keptEvents(db: Db): Promise<Map<number, ClientEventRow> | null> {
  if (!db.versions.usable()) return null;
  const stamp = db.versions.snapshot(EVENT_TABLES); // before the read
  let held = eventsKept.get(db);
  if (!held || held.stamp !== stamp) {
    const rows = db.kysely.selectFrom('client_events').selectAll().limit(EVENTS_KEPT + 1).execute()
      .then((all) => (all.length > EVENTS_KEPT ? null : new Map(all.map((r) => [Number(r.id), r]))), () => null);
    const entry: KeptEvents = { stamp, rows, texts: new Map() };
    void rows.then((read) => (entry.read = read));
    eventsKept.set(db, (held = entry));
  }
  const rows = await held.rows;
  // A write since the snapshot: the database answers (the next request reads the table again).
  return rows && db.versions.usable() && db.versions.snapshot(EVENT_TABLES) === held.stamp ? rows : null;
}

/**
 * GET /events/{id}'s answer, `{"data":<event>}`, in pieces that do not depend on the hydration flags: JSON.stringify
 * of the wire form (the same bytes as the route's serializer: the schema's field order, strings escaped alike; the
 * tests compare both), split around the targets.
 */
interface EventText {
  /** Up to and with `"ous":`. */
  head: string;
  /** From `,"created_at":` to the end. */
  tail: string;
  ous: readonly string[];
  domains: readonly string[];
  /** The targets as plain objectids (hydrate_ous / hydrate_domains false). */
  plainOus: string;
  plainDomains: string;
}
const NOT_HYDRATED = { ous: false, domains: false, resolved: new Map() } as const;
const TARGETS = '"ous":[],"domains":[]';

function eventText(row: ClientEventRow): EventText {
  const wire = toWireEvent(row, NOT_HYDRATED);
  const plainOus = JSON.stringify(wire.ous);
  const plainDomains = JSON.stringify(wire.domains);
  // Inside a JSON string every quote is escaped: TARGETS can only be the two fields themselves.
  const text = JSON.stringify({ data: { ...wire, ous: [], domains: [] } });
  const at = text.indexOf(TARGETS);
  return {
    head: text.slice(0, at + '"ous":'.length),
    tail: text.slice(at + TARGETS.length),
    ous: parseIds(row.ous),
    domains: parseIds(row.domains),
    plainOus,
    plainDomains,
  };
}

/**
 * Hydrated references as JSON (ouRef / domainRef of what the objectid resolves to), per objectid as written in the
 * event, while `nodes` is unchanged (the snapshot the references were resolved at; knownObjectIds' own rule); at most
 * REF_TEXTS_KEPT of each kind.
 */
const refTextsKept = new WeakMap<DataVersions, { nodes: string; ou: Map<string, string>; domain: Map<string, string> }>();
const NODES = ['nodes'] as const;
const REF_TEXTS_KEPT = 100_000;

/** The hydrated targets as a JSON array, or undefined when one objectid is not resolved yet (getEvent resolves it). */
function refsText(ids: readonly string[], kind: 'ou' | 'domain', versions: DataVersions): string | undefined {
  if (ids.length === 0) return '[]';
  const nodes = versions.snapshot(NODES);
  let kept = refTextsKept.get(versions);
  if (!kept || kept.nodes !== nodes) refTextsKept.set(versions, (kept = { nodes, ou: new Map(), domain: new Map() }));
  const texts = kept[kind];
  let out = '[';
  for (let i = 0; i < ids.length; i++) {
    const id = ids[i];
    let text = texts.get(id);
    if (text === undefined) {
      const resolved = knownObjectIds([id], versions);
      if (resolved === undefined) return undefined;
      text = JSON.stringify(kind === 'ou' ? ouRef(resolved, id) : domainRef(resolved, id));
      if (texts.size >= REF_TEXTS_KEPT) texts.clear();
      texts.set(id, text);
    }
    out += i === 0 ? text : ',' + text;
  }
  return out + ']';
}

/**
 * getEvent's answer as JSON text (`{"data":…}`) when everything it needs is kept (the events, and what their OUs /
 * domains resolve to): no statement, no promise, no wire object. Undefined when something is not kept (getEvent
 * reads it); throws as getEvent would.
 */
export function keptEventText(db: Db, id: number, flags: HydrateFlags): string | undefined {
  const held = eventsKept.get(db);
  const { versions } = db;
  if (!held?.read || !versions.usable() || versions.snapshot(EVENT_TABLES) !== held.stamp) return undefined;
  let text = held.texts.get(id);
  if (text === undefined) {
    const row = held.read.get(id);
    if (!row) throw notFound();
    held.texts.set(id, (text = eventText(row)));
  }
  const ous = flags.ous ? refsText(text.ous, 'ou', versions) : text.plainOus;
  if (ous === undefined) return undefined;
  const domains = flags.domains ? refsText(text.domains, 'domain', versions) : text.plainDomains;
  if (domains === undefined) return undefined;
  return text.head + ous + ',"domains":' + domains + text.tail;
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
