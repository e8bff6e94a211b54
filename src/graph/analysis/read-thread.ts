/**
 * Whole-graph reads of the analysis on a thread of their own (SQLite files only): better-sqlite3 runs a
 * statement synchronously, so an aggregate over every edge on the main thread holds it for seconds.
 * On a worker thread, with a read-only connection of its own (small page cache, sorts spilling to
 * disk), it runs beside what the main thread does meanwhile: data quality's aggregates beside tag
 * membership, on the machine's second core. Rows come back in chunks of CHUNK (as arrays of column
 * values, cheaper to pass between threads than objects), in the statement's order, and are handed
 * out as objects. The thread is started on first use and does not keep the
 * process alive while idle.
 */
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';

const CHUNK = 5_000;

const WORKER = `(async () => {
  const { parentPort, workerData } = await import('node:worker_threads');
  const { default: SQLite } = await import(workerData.sqlite);
  parentPort.on('message', ({ id, path, sql, params }) => {
    let conn;
    try {
      conn = new SQLite(path, { readonly: true });
      conn.pragma('cache_size = -2048'); // whole-table passes in index order: a large cache gains nothing
      conn.pragma('temp_store = FILE');
      const stmt = conn.prepare(sql).raw();
      parentPort.postMessage({ id, columns: stmt.columns().map((c) => c.name), rows: [] });
      let rows = [];
      for (const row of stmt.iterate(...params)) {
        rows.push(row);
        if (rows.length === workerData.chunk) {
          parentPort.postMessage({ id, rows });
          rows = [];
        }
      }
      parentPort.postMessage({ id, rows, done: true });
    } catch (err) {
      parentPort.postMessage({ id, error: String((err && err.message) || err) });
    } finally {
      conn?.close();
    }
  });
})();`;

type Reply = { id: number; columns?: string[]; rows?: unknown[][]; done?: boolean; error?: string };

interface Pending {
  chunks: Reply[];
  wake: (() => void) | null;
}

class ReadThread {
  private worker: Worker | null = null;
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();

  /** Rows of `sql` on a read-only connection to the file at `path`. */
  async *rows(path: string, sql: string, params: readonly unknown[]): AsyncGenerator<Record<string, unknown>> {
    const id = this.nextId++;
    const p: Pending = { chunks: [], wake: null };
    this.pending.set(id, p);
    const worker = this.thread();
    worker.ref();
    worker.postMessage({ id, path, sql, params });
    let columns: string[] = [];
    try {
      for (;;) {
        while (!p.chunks.length) await new Promise<void>((resolve) => (p.wake = resolve));
        const reply = p.chunks.shift()!;
        if (reply.error !== undefined) throw new Error(reply.error);
        if (reply.columns) columns = reply.columns;
        for (const values of reply.rows!) {
          const row: Record<string, unknown> = {};
          for (let i = 0; i < columns.length; i++) row[columns[i]] = values[i];
          yield row;
        }
        if (reply.done) return;
      }
    } finally {
      this.pending.delete(id);
      if (!this.pending.size) this.worker?.unref();
    }
  }

  /** Stops the thread (its memory goes with it); the next read starts another. */
  async stop(): Promise<void> {
    const w = this.worker;
    this.worker = null;
    await w?.terminate();
  }

  private thread(): Worker {
    if (this.worker) return this.worker;
    const sqlite = pathToFileURL(createRequire(import.meta.url).resolve('better-sqlite3')).href;
    // Small heaps: the thread holds one chunk of rows at a time (V8's default young generation alone
    // would take tens of MB of the process' memory).
    const worker = new Worker(WORKER, { eval: true, workerData: { sqlite, chunk: CHUNK }, resourceLimits: { maxYoungGenerationSizeMb: 4, maxOldGenerationSizeMb: 64 } });
    worker.on('message', (r: Reply) => {
      const p = this.pending.get(r.id);
      if (!p) return;
      p.chunks.push(r);
      p.wake?.();
      p.wake = null;
    });
    const fail = (message: string) => {
      if (this.worker === worker) this.worker = null;
      for (const [id, p] of this.pending) {
        p.chunks.push({ id, error: message });
        p.wake?.();
        p.wake = null;
      }
    };
    worker.on('error', (err) => fail(err.message));
    worker.on('exit', (code) => {
      if (this.worker === worker) fail(`the analysis read thread stopped (exit code ${code})`);
    });
    this.worker = worker;
    return worker;
  }
}

const thread = new ReadThread();

/** Rows of a read-only statement on the SQLite file at `path`, read on the analysis' read thread. */
export function readRowsOnThread(path: string, sql: string, params: readonly unknown[]): AsyncGenerator<Record<string, unknown>> {
  return thread.rows(path, sql, params);
}

/** Stops the read thread once the reads of an analysis are done, so that its memory is not held meanwhile. */
export function stopReadThread(): Promise<void> {
  return thread.stop();
}
