import type { Config } from '../../config.ts';
import type { Db } from '../../db/create-db.ts';
import { isUniqueViolation } from '../../db/errors.ts';
import { toRfc3339 } from '../../db/time.ts';
import { issueSession, revokeSessions } from '../../auth/sessions.ts';
import { badRequest, conflict, notFound } from '../../http/errors.ts';
import {
  clientNameTaken, deleteClient, findClient, flushCheckins, insertClient, updateClient,
} from './clients.repository.ts';
import { toWireClient, type CreateClientBody, type UpdateClientBody } from './clients.schema.ts';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/database.ts';
import type { ClientRow } from '../jobs/collection.tables.ts';
import { FINISHED_STATES } from '../jobs/job-status.ts';
import { jobsSelect, toWireJobs } from '../jobs/jobs.repository.ts';
import { toWireEvents, type HydrateFlags } from '../events/events.service.ts';

export const NAME_TAKEN = 'client name must be unique';
/** Lifetime of a client credential (collectors run unattended). */
export const CLIENT_TOKEN_TTL_SECONDS = 365 * 24 * 3600;

function cleanName(name: string): string {
  const trimmed = name.trim();
  if (!trimmed) throw badRequest('name must not be empty');
  return trimmed;
}

async function uniquely<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (isUniqueViolation(err)) throw conflict(NAME_TAKEN);
    throw err;
  }
}

const ALL: HydrateFlags = { ous: true, domains: true };

/**
 * Rows → BloodHound's client objects: each client's events, its running job and its number of
 * finished jobs, in three queries for the whole page (plus the target lookups of events and jobs).
 */
export async function wireClients(db: Kysely<Database>, rows: ClientRow[], flags: HydrateFlags = ALL) {
  if (rows.length === 0) return [];
  const ids = rows.map((r) => r.id);
  const events = await db.selectFrom('client_events').selectAll().where('client_id', 'in', ids).orderBy('id').execute();
  const wiredEvents = await toWireEvents(db, events, flags);
  const eventsOf = new Map<string, unknown[]>();
  events.forEach((e, i) => eventsOf.set(e.client_id, [...(eventsOf.get(e.client_id) ?? []), wiredEvents[i]]));
  const current = rows.map((r) => r.current_job_id).filter((id): id is number => id !== null);
  const jobs = current.length ? await toWireJobs(db, await jobsSelect(db).where('client_jobs.id', 'in', current).execute(), flags) : [];
  const jobById = new Map(jobs.map((j) => [j.id, j]));
  const counts = await db.selectFrom('client_jobs').select(['client_id', (eb) => eb.fn.countAll<number>().as('n')])
    .where('client_id', 'in', ids).where('status', 'in', [...FINISHED_STATES]).groupBy('client_id').execute();
  const countOf = new Map(counts.map((c) => [c.client_id, Number(c.n)]));
  return rows.map((r) => toWireClient(r, {
    events: eventsOf.get(r.id) ?? [],
    currentJob: (r.current_job_id !== null && jobById.get(r.current_job_id)) || null,
    completedJobs: countOf.get(r.id) ?? 0,
  }));
}

const wireOne = async (db: Kysely<Database>, row: ClientRow) => (await wireClients(db, [row]))[0];

export async function createClient(db: Db, body: CreateClientBody) {
  const name = cleanName(body.name);
  return uniquely(() =>
    db.kysely.transaction().execute(async (trx) => {
      if (await clientNameTaken(trx, name)) throw conflict(NAME_TAKEN);
      return wireOne(trx, await insertClient(trx, { name, type: body.type, domainController: body.domain_controller }));
    }),
  );
}

export async function getClient(db: Db, id: string) {
  await flushCheckins(db.kysely);
  const row = await findClient(db.kysely, id);
  if (!row) throw notFound();
  return wireOne(db.kysely, row);
}

export async function editClient(db: Db, id: string, body: UpdateClientBody) {
  const name = cleanName(body.name);
  return uniquely(() =>
    db.kysely.transaction().execute(async (trx) => {
      if (!(await findClient(trx, id))) throw notFound();
      if (await clientNameTaken(trx, name, id)) throw conflict(NAME_TAKEN);
      return wireOne(trx, (await updateClient(trx, id, { name, domainController: body.domain_controller }))!);
    }),
  );
}

/** Deletes the client, its events and jobs, and ends its sessions, in one transaction. */
export async function removeClient(db: Db, id: string) {
  return db.kysely.transaction().execute(async (trx) => {
    const row = await findClient(trx, id);
    if (!row) throw notFound();
    const wire = await wireOne(trx, row);
    await revokeSessions(trx, { clientId: id });
    await deleteClient(trx, id);
    return wire;
  });
}

/**
 * Issues the client's credential. `replace` (the API's PUT) first revokes every earlier token of the
 * client; the CLI adds one without revoking.
 */
export async function issueClientToken(db: Db, config: Config, id: string, opts: { replace: boolean; ttlSeconds?: number }) {
  if (!(await findClient(db.kysely, id))) throw notFound();
  if (opts.replace) await revokeSessions(db.kysely, { clientId: id });
  const issued = await issueSession(db, config, { clientId: id }, opts.ttlSeconds ?? CLIENT_TOKEN_TTL_SECONDS, 'client-token');
  return { client_id: id, token: issued.token, expires_at: toRfc3339(issued.expiresAt) };
}
