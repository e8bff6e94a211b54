import { sql, type Insertable, type Kysely } from 'kysely';
import type { Database } from '../../db/database.ts';
import { nowMicros } from '../../db/time.ts';
import type { ClientJobTable, DomainResultRow } from './collection.tables.ts';
import { parseIds, toWireJob, type Hydration, type JobWithClient } from './jobs.schema.ts';
import { resolveObjectIds } from './targets.repository.ts';

type Q = Kysely<Database>;

/** Jobs joined with their client's name; the base of every job listing. */
export function jobsSelect(db: Q) {
  return db
    .selectFrom('client_jobs')
    .innerJoin('clients', 'clients.id', 'client_jobs.client_id')
    .selectAll('client_jobs')
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
