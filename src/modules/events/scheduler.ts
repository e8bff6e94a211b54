/**
 * The scheduler: turns every due occurrence of every event into one ready job.
 *
 * Exactly once, across restarts and across server instances sharing one database:
 * - client_events.next_run_at is the first occurrence not yet turned into a job (it survives restarts;
 *   occurrences missed while no server ran are created on the next tick, MAX_PER_EVENT at a time);
 * - jobs of an occurrence are inserted with ON CONFLICT (event_id, execution_time) DO NOTHING against a
 *   unique index, and next_run_at is advanced with a compare-and-set in the same transaction; an
 *   instance that loses the race rolls back.
 */
import type { FastifyInstance } from 'fastify';
import type { Db } from '../../db/create-db.ts';
import { nowMicros } from '../../db/time.ts';
import { flushCheckins } from '../clients/clients.repository.ts';
import { bumpJobsVersion } from '../jobs/jobs.repository.ts';
import { JobStatus } from '../jobs/job-status.ts';
import { copySwitches, findEvent } from './events.repository.ts';
import { nextOccurrence, occurrencesBetween } from './rrule.ts';

const EVENTS_PER_BATCH = 100;
const MAX_PER_EVENT = 100;
const MAX_BATCHES = 50;

class LostRace extends Error {}

/** One pass over every due event; returns the number of jobs created. Tests call it with a chosen `now`. */
export async function runSchedulerOnce(db: Db, now: number = nowMicros()): Promise<number> {
  let created = 0;
  for (let batch = 0; batch < MAX_BATCHES; batch++) {
    const due = await db.kysely.selectFrom('client_events').select('id')
      .where('next_run_at', 'is not', null).where('next_run_at', '<=', now)
      .orderBy('next_run_at').orderBy('id').limit(EVENTS_PER_BATCH).execute();
    if (due.length === 0) break;
    for (const { id } of due) created += await scheduleEvent(db, id, now);
  }
  return created;
}

/** Turns the due occurrences of one event into jobs (exactly once, see above); returns how many were made. */
export async function scheduleEvent(db: Db, id: number, now: number): Promise<number> {
  try {
    return await db.kysely.transaction().execute(async (trx) => {
      const ev = await findEvent(trx, id);
      if (!ev || ev.next_run_at === null || ev.next_run_at > now) return 0;
      const occurrences = occurrencesBetween(ev.rrule, ev.next_run_at, now, MAX_PER_EVENT);
      let inserted = 0;
      if (occurrences.length) {
        const stamp = nowMicros();
        const rows = await trx.insertInto('client_jobs')
          .values(occurrences.map((at) => ({
            client_id: ev.client_id, event_id: ev.id, event_title: ev.title, execution_time: at,
            start_time: null, end_time: null, last_ingest: null, status: JobStatus.ready, status_message: '',
            log_path: null, domain_controller: '', ous: ev.ous, domains: ev.domains, ...copySwitches(ev),
            created_at: stamp, updated_at: stamp, deleted_at: null,
          })))
          .onConflict((oc) => oc.columns(['event_id', 'execution_time']).doNothing())
          .returning('id')
          .execute();
        inserted = rows.length;
      }
      const next = occurrences.length
        ? nextOccurrence(ev.rrule, occurrences[occurrences.length - 1], false)
        : nextOccurrence(ev.rrule, now, false);
      const moved = await trx.updateTable('client_events').set({ next_run_at: next })
        .where('id', '=', id).where('next_run_at', '=', ev.next_run_at).executeTakeFirst();
      if (moved.numUpdatedRows !== 1n) throw new LostRace();
      if (inserted) await bumpJobsVersion(trx, ev.client_id);
      return inserted;
    });
  } catch (err) {
    if (err instanceof LostRace) return 0;
    throw err;
  }
}

/** Runs the scheduler every `intervalSeconds` while the app is up (0 = never); flushes check-ins on close. */
export function registerScheduler(app: FastifyInstance, db: Db, intervalSeconds: number): void {
  // Buffered client check-ins are written before the database goes away.
  app.addHook('onClose', async () => {
    await flushCheckins(db.kysely).catch((err) => app.log.error({ err }, 'writing client check-ins failed'));
  });
  if (intervalSeconds <= 0) return;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> = Promise.resolve();
  let stopped = false;
  const tick = () => {
    running = runSchedulerOnce(db)
      .catch((err) => app.log.error({ err }, 'scheduler pass failed'))
      .finally(() => {
        if (!stopped) timer = setTimeout(tick, intervalSeconds * 1000).unref();
      });
  };
  app.addHook('onReady', async () => {
    timer = setTimeout(tick, 0).unref();
  });
  app.addHook('onClose', async () => {
    stopped = true;
    clearTimeout(timer);
    await running;
  });
}
