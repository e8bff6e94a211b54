import { sql, type Insertable, type Kysely } from 'kysely';
import type { Database } from '../../db/database.ts';
import { nowMicros } from '../../db/time.ts';
import type { ClientJobTable, DomainResultRow } from './collection.tables.ts';
import { parseIds, toWireJob, type Hydration, type JobWithClient } from './jobs.schema.ts';
import { resolveObjectIds } from './targets.repository.ts';
import { applyFilters, applyPaging, applySort, type ParsedQuery } from '../../http/query/index.ts';
import { FINISHED_STATES } from './job-status.ts';
import { finishedQuery } from './jobs.query.ts';

type Q = Kysely<Database>;

/** Every job column but `log` (read only by GET /jobs/{id}/log). */
export const JOB_COLUMNS = [
  'id', 'client_id', 'event_id', 'event_title', 'execution_time', 'start_time', 'end_time', 'last_ingest', 'status',
  'status_message', 'log_path', 'domain_controller', 'ous', 'domains', 'session_collection', 'local_group_collection',
  'ad_structure_collection', 'cert_services_collection', 'ca_registry_collection', 'dc_registry_collection',
  'all_trusted_domains', 'created_at', 'updated_at', 'deleted_at',
] as const satisfies ReadonlyArray<keyof ClientJobTable>;

/** Jobs joined with their client's name; the base of every job listing. */
export function jobsSelect(db: Q) {
  return db
    .selectFrom('client_jobs')
    .innerJoin('clients', 'clients.id', 'client_jobs.client_id')
    .select(JOB_COLUMNS.map((c) => `client_jobs.${c}` as const))
    .select('clients.name as client_name');
}

/** Marks the client's job listings as changed (part of the ETag of GET /jobs/available). */
export async function bumpJobsVersion(db: Q, clientId: string): Promise<void> {
  await db.updateTable('clients').set({ jobs_version: sql`jobs_version + 1` }).where('id', '=', clientId).execute();
}

export async function insertJob(db: Q, values: Insertable<ClientJobTable>): Promise<number> {
  const row = await db.insertInto('client_jobs').values(values).returning('id').executeTakeFirstOrThrow();
  await bumpJobsVersion(db, values.client_id);
  return row.id;
}

export async function findJob(db: Q, id: number): Promise<JobWithClient | undefined> {
  return jobsSelect(db).where('client_jobs.id', '=', id).executeTakeFirst();
}

async function domainResultsOf(db: Q, jobIds: number[]): Promise<Map<number, DomainResultRow[]>> {
  const out = new Map<number, DomainResultRow[]>();
  for (let i = 0; i < jobIds.length; i += 500) {
    const rows = await db
      .selectFrom('client_job_domain_results')
      .selectAll()
      .where('job_id', 'in', jobIds.slice(i, i + 500))
      .orderBy('id')
      .execute();
    for (const r of rows) {
      const list = out.get(r.job_id);
      if (list) list.push(r);
      else out.set(r.job_id, [r]);
    }
  }
  return out;
}

/** The objectids to resolve for these rows under the hydration flags. */
export function targetIds(rows: Array<{ ous: string; domains: string }>, ous: boolean, domains: boolean): Set<string> {
  const ids = new Set<string>();
  for (const r of rows) {
    if (ous) for (const id of parseIds(r.ous)) ids.add(id);
    if (domains) for (const id of parseIds(r.domains)) ids.add(id);
  }
  return ids;
}

/** Rows → wire jobs: one query for domain results (skipped when none can exist), one for the graph. */
export async function toWireJobs(db: Q, rows: JobWithClient[], flags: { ous: boolean; domains: boolean }) {
  const finished = rows.filter((r) => r.end_time !== null).map((r) => r.id);
  const results = finished.length ? await domainResultsOf(db, finished) : new Map<number, DomainResultRow[]>();
  const ids = targetIds(rows, flags.ous, flags.domains);
  const hydration: Hydration = { ...flags, resolved: ids.size ? await resolveObjectIds(db, ids) : new Map() };
  return rows.map((r) => toWireJob(r, results.get(r.id) ?? [], hydration));
}

/** ready → running for this client, only if the job is ready and due (the conditional update is the claim). */
export async function claimJob(db: Q, clientId: string, jobId: number, now = nowMicros()): Promise<boolean> {
  const res = await db
    .updateTable('client_jobs')
    .set({ status: 1, start_time: now, updated_at: now })
    .where('id', '=', jobId)
    .where('client_id', '=', clientId)
    .where('status', '=', 0)
    .where('execution_time', '<=', now)
    .executeTakeFirst();
  return res.numUpdatedRows === 1n;
}

/** One page of finished jobs (of one client when given), with the total before paging. */
export async function finishedJobsPage(db: Q, parsed: ParsedQuery, clientId?: string) {
  let counted = applyFilters(db.selectFrom('client_jobs').where('client_jobs.status', 'in', [...FINISHED_STATES]), finishedQuery, parsed);
  let listed = applyFilters(jobsSelect(db).where('client_jobs.status', 'in', [...FINISHED_STATES]), finishedQuery, parsed);
  if (clientId !== undefined) {
    counted = counted.where('client_jobs.client_id', '=', clientId);
    listed = listed.where('client_jobs.client_id', '=', clientId);
  }
  const { count } = await counted.select((eb) => eb.fn.countAll<number>().as('count')).executeTakeFirstOrThrow();
  const rows = await applyPaging(applySort(listed, finishedQuery, parsed), parsed).execute();
  const flags = { ous: parsed.params.hydrate_ous !== false, domains: parsed.params.hydrate_domains !== false };
  return { count: Number(count), skip: parsed.skip, limit: parsed.limit, data: await toWireJobs(db, rows, flags) };
}

/** The log a job's client sent with its end, '' when none; undefined for an unknown job. */
export async function jobLog(db: Q, id: number): Promise<string | undefined> {
  const row = await db.selectFrom('client_jobs').select('log').where('id', '=', id).executeTakeFirst();
  return row ? row.log ?? '' : undefined;
}
