/**
 * One document in, one transaction: stream-scan the JSON, recognise the format, convert elements into
 * nodes/edges and write them in batches. Any error rolls the whole document back.
 *
 * Format and type: `meta.type` decides (SharpHound type or "azure"); `graph.*` means OpenGraph.
 * When elements come before `meta`, up to PENDING_LIMIT of them wait for it; past that (or at the
 * end) the type comes from the file name (…_users.json) or the objects' shape.
 *
 * Large documents are parsed on a second thread (parallel-ingest.ts) while this one writes; small
 * ones, and OpenGraph (whose matchers read the database mid-document), stay on this thread.
 */
import { setImmediate } from 'node:timers/promises';
import type { Db } from '../../db/create-db.ts';
import type { IdCache } from '../bulk/id-cache.ts';
import { withGraphTransaction, type WriteCounts } from '../bulk/writer.ts';
import { FileRun, NeedsDatabase, type FileFormat } from './file-run.ts';
import { JsonStreamScanner } from './json-stream.ts';
import { ingestParallel } from './parallel-ingest.ts';

export type { FileFormat } from './file-run.ts';
export { typeFromFileName } from './file-run.ts';

export interface FileResult extends WriteCounts {
  name: string;
  format: FileFormat | null;
  /** SharpHound data type (users, groups, ...), 'azure' or 'opengraph'. */
  type: string | null;
  elements: number;
  bytes: number;
  warnings: string[];
}

export interface IngestOptions {
  batchSize?: number;
  onProgress?: (p: { elements: number; bytes: number }) => void;
  /**
   * Parse on a second thread while this one writes: 'never' (default), 'auto' (documents of
   * PARALLEL_MIN_BYTES and more) or 'always'. Measured on the shared 2-core machine it did not pay
   * (see README, Ingest performance), so it is opt-in (`scent import --parallel-parse`).
   */
  parallel?: 'auto' | 'always' | 'never';
  /** objectid → id cache shared by the documents of one run (ingest.service.ts); one per document if absent. */
  ids?: IdCache;
}

export const PARALLEL_MIN_BYTES = 8 * 1024 * 1024;
/** Bytes parsed between two looks at the event loop while a batch is being written. */
const SLICE = 64 * 1024;

export type Opener = () => Promise<AsyncIterable<Buffer>>;

/** Ingests one JSON document. Throws (after rollback) when it is invalid. `size` = bytes, if known. */
export async function ingestJson(db: Db, name: string, open: Opener, options: IngestOptions = {}, size?: number): Promise<FileResult> {
  const batchSize = options.batchSize ?? (db.dialect === 'postgres' ? 10_000 : 5_000);
  const mode = options.parallel ?? 'never';
  if (mode === 'always' || (mode === 'auto' && (size ?? 0) >= PARALLEL_MIN_BYTES)) {
    try {
      return await ingestParallel(db, name, open, batchSize, options.onProgress, options.ids);
    } catch (err) {
      if (!(err instanceof NeedsDatabase)) throw err;
    }
  }
  return ingestInProcess(db, name, open, batchSize, options.onProgress, options.ids);
}

async function ingestInProcess(db: Db, name: string, open: Opener, batchSize: number, onProgress: IngestOptions['onProgress'], ids?: IdCache): Promise<FileResult> {
  return withGraphTransaction(db, async (writer) => {
    const run = new FileRun(writer, name, batchSize);
    const scanner = new JsonStreamScanner(['data', 'graph.nodes', 'graph.edges']);
    let lastProgress = 0;
    try {
      for await (const chunk of await open()) {
        for (let at = 0; at < chunk.length; at += SLICE) {
          // While a batch is being written (PostgreSQL), let its driver send the next statement
          // every SLICE bytes of parsing, instead of leaving the server idle until the chunk ends.
          if (at > 0 && run.writing) await setImmediate();
          for (const event of scanner.push(at === 0 && chunk.length <= SLICE ? chunk : chunk.subarray(at, at + SLICE))) await run.event(event);
          await run.maybeFlush();
        }
        if (onProgress && Date.now() - lastProgress > 200) {
          lastProgress = Date.now();
          onProgress({ elements: run.elements, bytes: scanner.bytes });
        }
      }
      scanner.end();
      await run.finish({ graph: scanner.entered.has('graph') });
    } catch (err) {
      // A write still in flight must end before the rollback, or its later statements would run
      // after it, outside the transaction.
      await run.settle();
      throw err;
    }
    onProgress?.({ elements: run.elements, bytes: scanner.bytes });
    return { name, format: run.format, type: run.type, elements: run.elements, bytes: scanner.bytes, warnings: run.warnings, ...writer.counts };
  }, ids);
}
