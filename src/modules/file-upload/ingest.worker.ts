/**
 * The ingest worker: takes upload jobs that were ended (status ingesting) off the request path.
 * A job is claimed with one UPDATE ... WHERE id = (SELECT ... FOR UPDATE SKIP LOCKED) on PostgreSQL,
 * so several servers sharing a database never take the same job; SQLite has one writer and one
 * in-process worker. A worker refreshes its claim every HEARTBEAT while it works; a claim whose
 * heartbeat stopped (the server was killed) is not resumed but marked failed with a message, and so
 * is, on SQLite, any claim left by an earlier process at start-up (one SQLite file has one server).
 * Each file is ingested in its own transaction, so an interrupted job leaves no half-written file;
 * uploading the files again merges to the same graph as a clean run.
 */
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import type { FastifyInstance } from 'fastify';
import type { Db } from '../../db/create-db.ts';
import { nowMicros } from '../../db/time.ts';
import { ingestFiles, type FileOutcome } from '../../graph/ingest/ingest.service.ts';
import { analyzeGraph } from '../data-quality/analysis.service.ts';
import { JobStatus } from '../jobs/job-status.ts';
import { deleteChunks, listFiles, readChunks, updateJob } from './file-upload.repository.ts';
import type { FileUploadFileRow, FileUploadJobRow } from './file-upload.tables.ts';

const HEARTBEAT_MS = 5_000;
const STALE_CLAIM = 6 * HEARTBEAT_MS * 1000; // microseconds
export const WORKER_ID = randomUUID();
export const INTERRUPTED_MESSAGE = 'ingest interrupted: the server stopped while ingesting this upload; upload the files again';

/** Marks failed the ingesting jobs whose claimer is gone; returns how many. */
export async function failInterruptedJobs(db: Db, options: { atStartup?: boolean; workerId?: string } = {}): Promise<number> {
  const now = nowMicros();
  const result = await db.kysely
    .updateTable('file_upload_jobs')
    .set({ status: JobStatus.failed, end_time: now, updated_at: now, status_message: INTERRUPTED_MESSAGE, claimed_by: null })
    .where('status', 'in', [JobStatus.ingesting, JobStatus.analyzing])
    .where('claimed_by', 'is not', null)
    .where((eb) =>
      options.atStartup && db.dialect === 'sqlite'
        ? eb('claimed_by', '!=', options.workerId ?? WORKER_ID)
        : eb('claimed_at', '<', now - STALE_CLAIM),
    )
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

export const isZip = (file: Pick<FileUploadFileRow, 'content_type'>) => file.content_type !== 'application/json';

/** Claims the oldest ended job not being worked on; undefined when there is none. */
export async function claimJob(db: Db, workerId: string = WORKER_ID): Promise<FileUploadJobRow | undefined> {
  const now = nowMicros();
  const lock = db.dialect === 'postgres' ? sql`for update skip locked` : sql``;
  const result = await sql<FileUploadJobRow>`
    update file_upload_jobs set claimed_by = ${workerId}, claimed_at = ${now}, updated_at = ${now}
    where id = (select id from file_upload_jobs
                where status = ${JobStatus.ingesting} and claimed_by is null
                order by id limit 1 ${lock})
    returning *`.execute(db.kysely);
  return result.rows[0];
}

/** One pass: claims and processes at most one job. Returns its id, or null when there was none. */
export async function runIngestOnce(db: Db, workerId: string = WORKER_ID): Promise<number | null> {
  await failInterruptedJobs(db);
  const job = await claimJob(db, workerId);
  if (!job) return null;
  const heartbeat = setInterval(() => {
    db.kysely.updateTable('file_upload_jobs').set({ claimed_at: nowMicros() }).where('id', '=', job.id)
      .where('claimed_by', '=', workerId).execute().catch(() => {});
  }, HEARTBEAT_MS).unref();
  try {
    await processJob(db, job);
  } catch (err) {
    await updateJob(db.kysely, job.id, { status: JobStatus.failed, end_time: nowMicros(), status_message: 'ingest failed: internal error' })
      .catch(() => {});
    throw err;
  } finally {
    clearInterval(heartbeat);
  }
  return job.id;
}

async function processJob(db: Db, job: FileUploadJobRow): Promise<void> {
  const files = await listFiles(db.kysely, job.id);
  let failedFiles = 0;
  let failedDocs = 0;
  let docs = 0;
  let warned = 0;
  const messages: string[] = [];
  for (const file of files) {
    const outcomes = await ingestStored(db, file);
    const errors = outcomes.filter((o) => o.error).map((o) => ({ file_name: o.name, error: o.error! }));
    const warnings = outcomes.flatMap((o) => (o.result?.warnings ?? []).map((w) => `${o.name}: ${w}`));
    warned += warnings.length;
    docs += outcomes.length;
    failedDocs += errors.length;
    if (errors.length) failedFiles++;
    for (const e of errors) messages.push(`${e.file_name}: ${e.error}`);
    const totals = { nodes: 0, edges: 0, documents: outcomes.length };
    for (const o of outcomes) {
      totals.nodes += o.result?.nodes ?? 0;
      totals.edges += o.result?.edges ?? 0;
    }
    await db.kysely.updateTable('file_upload_files').set({
      status: errors.length ? JobStatus.failed : JobStatus.complete, errors: JSON.stringify(errors),
      warnings: JSON.stringify(warnings.slice(0, 100)), result: JSON.stringify(totals), updated_at: nowMicros(),
    }).where('id', '=', file.id).execute();
  }
  await deleteChunks(db.kysely, job.id);
  await updateJob(db.kysely, job.id, { status: JobStatus.analyzing, failed_files: failedFiles });
  // A job that ingested nothing changed nothing: no analysis, no data-quality record (CONTRACT §6).
  const analysis = docs > failedDocs ? await analyzeGraph(db) : null;
  const status = docs === 0 || failedDocs === docs ? JobStatus.failed : failedDocs ? JobStatus.partiallycomplete : JobStatus.complete;
  const now = nowMicros();
  await updateJob(db.kysely, job.id, {
    status, end_time: now, last_ingest: now,
    status_message: (messages.length ? messages.join('; ') : `ingested ${docs} file${docs === 1 ? '' : 's'}`
      + (warned ? `; ${warned} warning${warned === 1 ? '' : 's'} (listed with each file in completed-tasks)` : '')
      + (analysis ? `; analysis ${analysis.postProcessing.seconds.toFixed(1)} s` : '')).slice(0, 4000),
  });
}

/** A stored upload → its ingest outcomes (a zip is spooled to a temporary file: yauzl reads at random). */
async function ingestStored(db: Db, file: FileUploadFileRow): Promise<FileOutcome[]> {
  if (!isZip(file)) {
    return ingestFiles(db, [{ name: file.file_name, size: Number(file.size), open: async () => readChunks(db, file.id) }]);
  }
  const dir = await mkdtemp(join(tmpdir(), 'scent-upload-'));
  try {
    const path = join(dir, 'upload.zip');
    await pipeline(Readable.from(readChunks(db, file.id)), createWriteStream(path));
    return await ingestFiles(db, [{ path, name: file.file_name }]);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Runs the worker every `intervalSeconds` while the app is up (0 = this instance takes no jobs). */
export function registerIngestWorker(app: FastifyInstance, db: Db, intervalSeconds: number): void {
  if (intervalSeconds <= 0) return;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> = Promise.resolve();
  let stopped = false;
  const tick = () => {
    running = (async () => {
      // drain: keep taking jobs while there are some
      while (!stopped && (await runIngestOnce(db)) !== null);
    })()
      .catch((err) => app.log.error({ err }, 'ingest worker pass failed'))
      .finally(() => {
        if (!stopped) timer = setTimeout(tick, intervalSeconds * 1000).unref();
      });
  };
  app.addHook('onReady', async () => {
    // Never a reason not to start: an unreachable database is answered with 503s, not a failed boot.
    try {
      const failed = await failInterruptedJobs(db, { atStartup: true });
      if (failed) app.log.warn({ jobs: failed }, 'marked interrupted upload jobs as failed');
    } catch (err) {
      app.log.error({ err }, 'could not check for interrupted upload jobs');
    }
    timer = setTimeout(tick, 0).unref();
  });
  app.addHook('onClose', async () => {
    stopped = true;
    clearTimeout(timer);
    await running;
  });
}
