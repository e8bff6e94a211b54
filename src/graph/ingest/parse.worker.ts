/**
 * The parse thread of a parallel ingest (see parallel-ingest.ts): scans, parses and converts the
 * chunks the writer thread sends, and posts back flat batches. The thread is reused: each document
 * starts with 'begin'.
 *   in:  { type: 'begin', name, batchSize } | { type: 'chunk', data } | { type: 'end' }
 *   out: { type: 'batch', batch } | { type: 'consumed', elements, bytes } | { type: 'done', ... } | { type: 'error', message, needsDb }
 */
import { parentPort } from 'node:worker_threads';
import { FileRun, NeedsDatabase } from './file-run.ts';
import { toFlat } from './flat-batch.ts';
import { JsonStreamScanner } from './json-stream.ts';

type In = { type: 'begin'; name: string; batchSize: number } | { type: 'chunk'; data: Uint8Array } | { type: 'end' };

const port = parentPort!;
let run: FileRun | undefined;
let scanner: JsonStreamScanner | undefined;
let failed = false;
let chain: Promise<void> = Promise.resolve();

port.on('message', (m: In) => {
  chain = chain.then(() => handle(m)).catch((err: Error) => {
    failed = true;
    port.postMessage({ type: 'error', message: err.message, needsDb: err instanceof NeedsDatabase });
  });
});

async function handle(m: In): Promise<void> {
  if (m.type === 'begin') {
    failed = false;
    run = new FileRun({ write: async (nodes, edges) => port.postMessage({ type: 'batch', batch: toFlat(nodes, edges) }) }, m.name, m.batchSize);
    scanner = new JsonStreamScanner(['data', 'graph.nodes', 'graph.edges']);
    return;
  }
  if (failed || !run || !scanner) return;
  if (m.type === 'chunk') {
    const buf = Buffer.from(m.data.buffer, m.data.byteOffset, m.data.byteLength);
    for (const event of scanner.push(buf)) await run.event(event);
    await run.maybeFlush();
    port.postMessage({ type: 'consumed', elements: run.elements, bytes: scanner.bytes });
    return;
  }
  scanner.end();
  await run.finish({ graph: scanner.entered.has('graph') });
  port.postMessage({ type: 'done', format: run.format, dataType: run.type, elements: run.elements, bytes: scanner.bytes, warnings: run.warnings });
  run = undefined;
  scanner = undefined;
}
