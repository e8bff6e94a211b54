import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { generate } from '../../../bench/sharphound-generate.ts';
import { createTestApp, DIALECT } from '../../test/harness.ts';
import { nowMicros } from '../../db/time.ts';
import { JobStatus } from '../jobs/job-status.ts';
import { INTERRUPTED_MESSAGE, failInterruptedJobs } from './ingest.worker.ts';

/**
 * kill -9 of the server during an ingest: on restart the database is consistent, the interrupted
 * upload job is failed with a message, and importing the files again gives the same graph as a
 * clean run.
 */
const BIN = join(import.meta.dirname, '../../../bin/scent.js');

function scent(args: string[], db: string) {
  const res = spawnSync(process.execPath, [BIN, ...args, '--database', db], { encoding: 'utf8', timeout: 300_000 });
  assert.equal(res.status, 0, res.stderr);
  return res.stdout.trim();
}

async function serve(db: string): Promise<{ base: string; stop: (signal: NodeJS.Signals) => Promise<void> }> {
  const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--database', db, '--log-level', 'silent', '--ingest-interval', '1s']);
  let out = '';
  child.stdout.on('data', (c) => (out += c));
  const base = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no start: ${out}`)), 90_000);
    child.stdout.on('data', () => {
      const m = /serving the BloodHound v2 API at (\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
  });
  return { base, stop: async (signal) => { const done = new Promise((r) => child.once('exit', r)); child.kill(signal); await done; } };
}

function graphOf(path: string): { nodes: string[]; edges: string[] } {
  const db = new SQLite(path, { readonly: true });
  try {
    assert.equal(db.pragma('integrity_check', { simple: true }), 'ok');
    const nodes = db.prepare('select objectid from nodes order by objectid').pluck().all() as string[];
    const edges = db.prepare(`select s.objectid || ' ' || e.kind || ' ' || t.objectid from edges e
      join nodes s on s.id = e.start_id join nodes t on t.id = e.end_id order by 1`).pluck().all() as string[];
    return { nodes, edges };
  } finally {
    db.close();
  }
}

test('kill -9 during an upload ingest (SQLite): consistent, job failed with a message, re-import = clean run', { skip: DIALECT !== 'sqlite' && 'the SQLite server process is the one killed here; PostgreSQL is covered below' }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'scent-kill-'));
  try {
    const { files } = await generate(6000, join(dir, 'data'));
    const db = `sqlite:${join(dir, 'scent.sqlite')}`;
    scent(['users', 'create', '--name', 'up', '--email', 'up@example.test', '--role', 'Administrator'], db);
    const token = scent(['tokens', 'issue', '--user', 'up'], db);
    const auth = { authorization: `Bearer ${token}` };
    const server = await serve(db);
    const start = await (await fetch(`${server.base}/api/v2/file-upload/start`, { method: 'POST', headers: auth })).json();
    const jobId = start.data.id;
    for (const file of files) {
      const res = await fetch(`${server.base}/api/v2/file-upload/${jobId}`, {
        method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: readFileSync(file),
      });
      assert.equal(res.status, 202, await res.text());
    }
    assert.equal((await fetch(`${server.base}/api/v2/file-upload/${jobId}/end`, { method: 'POST', headers: auth })).status, 200);
    // Wait until the worker has claimed the job and written part of it, then kill the process.
    const raw = new SQLite(join(dir, 'scent.sqlite'), { readonly: true });
    for (let i = 0; i < 600; i++) {
      const row = raw.prepare('select claimed_by from file_upload_jobs where id = ?').get(jobId) as { claimed_by: string | null };
      const done = raw.prepare('select count(*) from file_upload_files where job_id = ? and status != 0').pluck().get(jobId) as number;
      if (row.claimed_by && done >= 1) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    raw.close();
    await server.stop('SIGKILL');

    const restarted = await serve(db);
    let job;
    for (let i = 0; i < 100; i++) {
      job = (await (await fetch(`${restarted.base}/api/v2/file-upload?id=eq:${jobId}`, { headers: auth })).json()).data[0];
      if (job.status === JobStatus.failed) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.equal(job.status, JobStatus.failed, JSON.stringify(job));
    assert.equal(job.status_message, INTERRUPTED_MESSAGE);
    await restarted.stop('SIGTERM');

    scent(['import', ...files], db);
    const clean = `sqlite:${join(dir, 'clean.sqlite')}`;
    scent(['import', ...files], clean);
    const recovered = graphOf(join(dir, 'scent.sqlite'));
    const reference = graphOf(join(dir, 'clean.sqlite'));
    assert.ok(reference.nodes.length > 6000 && reference.edges.length > 10000, 'a real graph');
    assert.deepEqual(recovered.nodes, reference.nodes);
    assert.deepEqual(recovered.edges, reference.edges);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a claim whose heartbeat stopped is failed with a message, on both databases', async () => {
  // No ingest worker of its own: its passes fail interrupted claims too, and one running between the
  // inserts and the call below would leave the call nothing to do.
  const t = await createTestApp({ ingestInterval: 0 });
  try {
    const user = (await t.login('Administrator')).userId;
    const now = nowMicros();
    const row = {
      user_id: user, user_email_address: null, status: JobStatus.ingesting, status_message: '', start_time: now, end_time: null,
      last_ingest: null, total_files: 1, failed_files: 0, created_at: now, updated_at: now, deleted_at: null,
    };
    const stale = await t.db.kysely.insertInto('file_upload_jobs').values({ ...row, claimed_by: 'gone', claimed_at: now - 60_000_000 } as never).returning('id').executeTakeFirstOrThrow();
    const live = await t.db.kysely.insertInto('file_upload_jobs').values({ ...row, claimed_by: 'alive', claimed_at: now } as never).returning('id').executeTakeFirstOrThrow();
    assert.equal(await failInterruptedJobs(t.db), 1);
    const jobs = await t.db.kysely.selectFrom('file_upload_jobs').select(['id', 'status', 'status_message']).where('id', 'in', [stale.id, live.id]).orderBy('id').execute();
    assert.deepEqual(jobs, [
      { id: stale.id, status: JobStatus.failed, status_message: INTERRUPTED_MESSAGE },
      { id: live.id, status: JobStatus.ingesting, status_message: '' },
    ]);
  } finally {
    await t.close();
  }
});
