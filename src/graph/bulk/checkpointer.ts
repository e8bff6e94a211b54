/**
 * WAL checkpoints of the ingest's commits, on a thread of their own (SQLite files only).
 *
 * A committed transaction is durable in the WAL; the checkpoint that copies its pages into the
 * database file is upkeep, which SQLite runs inside COMMIT once the WAL passes 1,000 pages. After a
 * large document that is seconds of copying on the writer's thread, while the next document waits.
 * The graph writer's connection therefore does not checkpoint (`wal_autocheckpoint = 0`); after each
 * commit it asks for a PASSIVE checkpoint here, on a second connection in a worker thread, which runs
 * while the next document is parsed and written (a passive checkpoint copies what is committed and
 * never blocks the writer or a reader). Requests that arrive while one runs are merged into one run
 * after it. Nothing about atomicity or durability changes: a crash during a checkpoint leaves the WAL,
 * which the next connection replays.
 *
 * `settleCheckpoints()` waits until every requested checkpoint has run (the import counts that wait in
 * its analysis time); the thread does not keep the process alive.
 */
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';

/**
 * The worker: per request a connection to the database (which must exist: a database removed
 * meanwhile is not created again), `wal_checkpoint(PASSIVE)`, closed again (no connection is held
 * between documents), the result posted back.
 */
const WORKER = `(async () => {
  const { parentPort, workerData } = await import('node:worker_threads');
  const { default: SQLite } = await import(workerData);
  parentPort.on('message', ({ path }) => {
    let result;
    let conn;
    try {
      conn = new SQLite(path, { fileMustExist: true });
      conn.pragma('busy_timeout = 5000');
      const [row] = conn.pragma('wal_checkpoint(PASSIVE)');
      result = { path, log: row.log, checkpointed: row.checkpointed };
    } catch (err) {
      result = { path, error: String(err && err.message || err) };
    } finally {
      try { conn?.close(); } catch {}
    }
    parentPort.postMessage(result);
  });
})();`;

export interface CheckpointResult {
  path: string;
  /** Frames in the WAL and frames copied into the database by this checkpoint (-1 when not in WAL mode). */
  log?: number;
  checkpointed?: number;
  error?: string;
}

class Checkpointer {
  private worker: Worker | null = null;
  /** Paths whose checkpoint runs now, and paths asked for again meanwhile. */
  private readonly running = new Set<string>();
  private readonly again = new Set<string>();
  private idle: Array<() => void> = [];
  last: CheckpointResult | null = null;

  request(path: string): void {
    if (this.running.has(path)) {
      this.again.add(path);
      return;
    }
    this.running.add(path);
    this.thread().postMessage({ path });
    this.worker!.ref(); // a checkpoint in progress keeps the process until it has run
  }

  /** Resolves once no checkpoint is running or asked for. */
  settle(): Promise<void> {
    if (!this.running.size) return Promise.resolve();
    return new Promise((resolve) => this.idle.push(resolve));
  }

  private thread(): Worker {
    if (this.worker) return this.worker;
    const sqlite = pathToFileURL(createRequire(import.meta.url).resolve('better-sqlite3')).href;
    const worker = new Worker(WORKER, { eval: true, workerData: sqlite, resourceLimits: { maxYoungGenerationSizeMb: 2, maxOldGenerationSizeMb: 16 } });
    worker.on('message', (r: CheckpointResult) => this.done(r));
    worker.on('error', () => this.reset());
    worker.on('exit', () => this.reset());
    this.worker = worker;
    return worker;
  }

  private done(r: CheckpointResult): void {
    this.last = r;
    this.running.delete(r.path);
    if (this.again.delete(r.path)) return this.request(r.path);
    if (this.running.size) return;
    this.worker?.unref();
    for (const resolve of this.idle.splice(0)) resolve();
  }

  /** The thread failed or stopped: what it had to do is left to SQLite's next checkpoint. */
  private reset(): void {
    this.worker = null;
    this.running.clear();
    this.again.clear();
    for (const resolve of this.idle.splice(0)) resolve();
  }
}

const checkpointer = new Checkpointer();

/** Asks for a passive checkpoint of the database file at `path` on the checkpoint thread. */
export function checkpointLater(path: string): void {
  checkpointer.request(path);
}

/** Waits until every checkpoint asked for has run; returns the last one's result. */
export async function settleCheckpoints(): Promise<CheckpointResult | null> {
  await checkpointer.settle();
  return checkpointer.last;
}
