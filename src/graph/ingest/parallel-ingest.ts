/**
 * A document on two threads: this one reads the source and writes batches into the graph
 * transaction; a worker thread (parse.worker.ts) scans, parses and converts. At most IN_FLIGHT
 * chunks are with the worker at a time, so memory stays flat whatever the document size.
 */
import { Worker } from 'node:worker_threads';
import type { Db } from '../../db/create-db.ts';
import type { IdCache } from '../bulk/id-cache.ts';
import { withGraphTransaction } from '../bulk/writer.ts';
import { NeedsDatabase, type FileFormat } from './file-run.ts';
import type { FlatBatch } from './flat-batch.ts';
import type { FileResult, IngestOptions, Opener } from './ingest-file.ts';
import { collectIfLarge } from './heap-guard.ts';
import { IngestError } from './sink.ts';

/** From the sources the worker needs tsx's loader (the boot file); the build runs its own output. */
const BOOT = import.meta.url.endsWith('.ts') ? new URL('./parse-worker.boot.mjs', import.meta.url) : new URL('./parse.worker.js', import.meta.url);
const IN_FLIGHT = 3;

type Message =
  | { type: 'batch'; batch: FlatBatch }
  | { type: 'consumed'; elements: number; bytes: number }
  | { type: 'done'; format: FileFormat | null; dataType: string | null; elements: number; bytes: number; warnings: string[] }
  | { type: 'error'; message: string; needsDb?: boolean }
  | { type: 'exit'; code: number };

/** One parse thread per process, started on first use, reused by later documents (one at a time). */
class ParseThread {
  private worker: Worker | undefined;
  private inbox: Message[] = [];
  private wake: (() => void) | null = null;
  private busy: Promise<unknown> = Promise.resolve();

  /** Runs `fn` with exclusive use of the thread. */
  async use<T>(fn: (t: ParseThread) => Promise<T>): Promise<T> {
    const previous = this.busy;
    let release!: () => void;
    this.busy = new Promise<void>((r) => (release = r));
    await previous.catch(() => {});
    try {
      if (!this.worker) this.start();
      this.inbox = [];
      return await fn(this);
    } finally {
      release();
    }
  }

  post(m: unknown): void {
    this.worker!.postMessage(m);
  }

  async next(): Promise<Message> {
    while (!this.inbox.length) await new Promise<void>((resolve) => (this.wake = resolve));
    return this.inbox.shift()!;
  }

  /** After a failure the thread may hold half a document: start a fresh one next time. */
  async discard(): Promise<void> {
    const w = this.worker;
    this.worker = undefined;
    await w?.terminate();
  }

  private start(): void {
    const worker = new Worker(BOOT);
    const deliver = (m: Message) => {
      if (worker !== this.worker) return;
      this.inbox.push(m);
      this.wake?.();
      this.wake = null;
    };
    worker.on('message', deliver);
    worker.on('error', (err) => deliver({ type: 'error', message: err.message }));
    worker.on('exit', (code) => {
      deliver({ type: 'exit', code });
      if (worker === this.worker) this.worker = undefined;
    });
    this.worker = worker;
  }
}

const thread = new ParseThread();

/** Stops the parse thread (ingestFiles calls this when its set of files is done). */
export async function stopParseThread(): Promise<void> {
  await thread.use((t) => t.discard());
}

export async function ingestParallel(
  db: Db, name: string, open: Opener, batchSize: number, onProgress: IngestOptions['onProgress'], ids?: IdCache,
): Promise<FileResult> {
  return thread.use((t) => withGraphTransaction(db, async (writer) => {
    t.post({ type: 'begin', name, batchSize });
    const source = (await open())[Symbol.asyncIterator]();
    let ok = false;
    try {
      let inflight = 0;
      let ended = false;
      for (;;) {
        while (!ended && inflight < IN_FLIGHT) {
          const r = await source.next();
          if (r.done) {
            ended = true;
            t.post({ type: 'end' });
          } else {
            t.post({ type: 'chunk', data: r.value });
            inflight++;
          }
        }
        const m = await t.next();
        if (m.type === 'batch') {
          await writer.writeFlat(m.batch);
          collectIfLarge();
        } else if (m.type === 'consumed') {
          inflight--;
          onProgress?.({ elements: m.elements, bytes: m.bytes });
        } else if (m.type === 'done') {
          ok = true;
          return { name, format: m.format, type: m.dataType, elements: m.elements, bytes: m.bytes, warnings: m.warnings, ...writer.counts };
        } else if (m.type === 'error') {
          throw m.needsDb ? new NeedsDatabase() : new IngestError(m.message);
        } else {
          throw new Error(`the parse worker stopped (exit code ${m.code})`);
        }
      }
    } finally {
      await source.return?.();
      if (!ok) await t.discard();
    }
  }, ids));
}
