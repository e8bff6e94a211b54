import type { Db } from '../../db/create-db.ts';
import { nowMicros, parseRfc3339 } from '../../db/time.ts';
import { badRequest, notFound } from '../../http/errors.ts';
import { findClient } from '../clients/clients.repository.ts';
import { storedSwitches } from '../events/events.repository.ts';
import { COUNT_NAMES } from './jobs.schema.ts';
import { bumpJobsVersion, claimJob, findJob, insertJob, toWireJobs } from './jobs.repository.ts';
import { CANCELABLE, END_STATES, JobStatus } from './job-status.ts';
import type { EndJobBody, NewJobBody } from './jobs.body.ts';

const ALL = { ous: true, domains: true };

async function wireJob(db: Db, id: number) {
  const row = await findJob(db.kysely, id);
  if (!row) throw notFound();
  return (await toWireJobs(db.kysely, [row], ALL))[0];
}

/** A one-off job for a client, due at `execution_time` (default: now). */
export async function createJob(db: Db, clientId: string, body: NewJobBody) {
  const now = nowMicros();
  let executionTime = now;
  if (body.execution_time !== undefined) {
    const parsed = parseRfc3339(body.execution_time);
    if (!parsed) throw badRequest(`invalid RFC-3339 datetime format: ${body.execution_time}`);
    executionTime = parsed.micros;
  }
  const id = await db.kysely.transaction().execute(async (trx) => {
    if (!(await findClient(trx, clientId))) throw notFound();
    return insertJob(trx, {
      client_id: clientId, event_id: null, event_title: '', execution_time: executionTime,
      start_time: null, end_time: null, last_ingest: null, status: JobStatus.ready, status_message: '',
      log_path: null, domain_controller: body.domain_controller ?? '',
      ous: JSON.stringify(body.ous ?? []), domains: JSON.stringify(body.domains ?? []),
      ...storedSwitches(body), created_at: now, updated_at: now, deleted_at: null,
    });
  });
  return wireJob(db, id);
}

export const getJob = wireJob;

/** Ready or running → canceled. */
export async function cancelJob(db: Db, id: number) {
  await db.kysely.transaction().execute(async (trx) => {
    const job = await findJob(trx, id);
    if (!job) throw notFound();
    if (!CANCELABLE.includes(job.status)) throw badRequest('job must be ready or running to be canceled');
    const now = nowMicros();
    await trx.updateTable('client_jobs').set({ status: JobStatus.canceled, end_time: now, updated_at: now })
      .where('id', '=', id).where('status', 'in', [...CANCELABLE]).execute();
    await trx.updateTable('clients').set({ current_job_id: null }).where('id', '=', job.client_id).where('current_job_id', '=', id).execute();
    await bumpJobsVersion(trx, job.client_id);
  });
  return wireJob(db, id);
}

/**
 * The client claims a ready, due job of its own. The client row's current_job_id is taken with a
 * compare-and-set and the job moves ready → running with a conditional update, in one transaction:
 * of two concurrent claims at most one succeeds.
 */
export async function startJob(db: Db, clientId: string, jobId: number) {
  const now = nowMicros();
  await db.kysely.transaction().execute(async (trx) => {
    const job = await findJob(trx, jobId);
    if (!job || job.client_id !== clientId) throw notFound();
    const took = await trx.updateTable('clients').set({ current_job_id: jobId })
      .where('id', '=', clientId).where('current_job_id', 'is', null).executeTakeFirst();
    if (took.numUpdatedRows !== 1n) throw badRequest('client already has a running job');
    if (!(await claimJob(trx, clientId, jobId, now))) throw badRequest('job is not ready to start');
    await bumpJobsVersion(trx, clientId);
  });
  return wireJob(db, jobId);
}

export async function currentJob(db: Db, clientId: string) {
  const client = await findClient(db.kysely, clientId);
  if (!client || client.current_job_id === null) throw notFound();
  return wireJob(db, client.current_job_id);
}

/** The client reports the end of its running job: status, message and per-domain results. */
export async function endJob(db: Db, clientId: string, body: EndJobBody) {
  const status = body.status ?? JobStatus.complete;
  if (!END_STATES.includes(status)) throw badRequest('status must be 2 (complete), 5 (failed) or 8 (partially complete)');
  const now = nowMicros();
  const jobId = await db.kysely.transaction().execute(async (trx) => {
    const client = await findClient(trx, clientId);
    if (!client || client.current_job_id === null) throw badRequest('client has no running job');
    const id = client.current_job_id;
    await trx.updateTable('client_jobs')
      .set({ status, status_message: body.message ?? '', end_time: now, updated_at: now, ...(body.log_path !== undefined ? { log_path: body.log_path } : {}), ...(body.log !== undefined ? { log: body.log } : {}) })
      .where('id', '=', id).execute();
    const results = body.domain_results ?? [];
    if (results.length) {
      await trx.insertInto('client_job_domain_results').values(results.map((r) => ({
        job_id: id, domain_name: r.domain_name, success: r.success ? 1 : 0, message: r.message ?? '',
        counts: JSON.stringify(Object.fromEntries(COUNT_NAMES.map((n) => [n, r[n] ?? 0]))),
        created_at: now, updated_at: now, deleted_at: null,
      }) as const)).execute();
    }
    await trx.updateTable('clients').set({ current_job_id: null }).where('id', '=', clientId).execute();
    await bumpJobsVersion(trx, clientId);
    return id;
  });
  return wireJob(db, jobId);
}
