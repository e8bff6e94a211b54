import { ingestFiles, type FileOutcome } from '../graph/ingest/ingest.service.ts';
import { settleCheckpoints } from '../graph/bulk/checkpointer.ts';
import { analyzeGraph } from '../modules/data-quality/analysis.service.ts';
import { UsageError, type Command } from './command.ts';
import { databaseOption, openDatabase } from './database.ts';

/** `scent import FILE...`: ingest SharpHound / AzureHound / OpenGraph JSON files or zips of them. */
export const importCommand: Command = {
  path: ['import'],
  summary: 'ingest SharpHound, AzureHound or OpenGraph JSON files (or .zip archives of them)',
  usage: 'FILE... [--database URL] [--parallel-parse]',
  positionals: 'FILE...',
  options: {
    ...databaseOption,
    'parallel-parse': { type: 'boolean', description: 'parse documents of 8 MiB and more on a second thread (see README)' },
  },
  async run({ values, positionals }) {
    if (positionals.length === 0) throw new UsageError('expected at least one FILE');
    const { db } = await openDatabase(values, { create: true });
    const tty = process.stderr.isTTY === true;
    const started = performance.now();
    let done = 0;
    let current = '';
    let elements = 0;
    const draw = (fileElements: number) => {
      if (!tty) return;
      const seconds = (performance.now() - started) / 1000;
      const rate = Math.round((elements + fileElements) / Math.max(seconds, 0.001));
      process.stderr.write(`\r\x1b[K[${done} files] ${current} ${fileElements.toLocaleString('en')} objects, ${rate.toLocaleString('en')} objects/s`);
    };
    try {
      const outcomes = await ingestFiles(db, positionals.map((path) => ({ path })), {
        parallel: values['parallel-parse'] ? 'auto' : 'never',
        onFileStart: (name) => {
          current = name;
          draw(0);
        },
        onProgress: (p) => draw(p.elements),
        onFileDone: (o: FileOutcome) => {
          done++;
          elements += o.result?.elements ?? 0;
          if (tty) process.stderr.write('\r\x1b[K');
          process.stdout.write(`${o.error ? 'FAILED' : 'ok'}\t${o.name}\t${line(o)}\n`);
          for (const w of o.result?.warnings ?? []) process.stdout.write(`\twarning\t${w}\n`);
        },
      });
      const seconds = (performance.now() - started) / 1000;
      const failed = outcomes.filter((o) => o.error).length;
      const nodes = outcomes.reduce((n, o) => n + (o.result?.nodes ?? 0), 0);
      const edges = outcomes.reduce((n, o) => n + (o.result?.edges ?? 0), 0);
      const summary = `${outcomes.length - failed}/${outcomes.length} files ingested in ${seconds.toFixed(1)} s: ` +
        `${nodes} nodes, ${edges} edges (${Math.round((nodes + edges) / Math.max(seconds, 0.001))} elements/s); `;
      if (failed === outcomes.length) {
        // Nothing changed the graph: no analysis, and no data-quality record claiming a run.
        process.stdout.write(`${summary}nothing ingested: no analysis, no data-quality record\n`);
        return 1;
      }
      const analysisStart = performance.now();
      const analysis = await analyzeGraph(db);
      // The ingest's last WAL checkpoints run on their own thread meanwhile: the time is counted until they are done.
      await settleCheckpoints();
      const analysisSeconds = (performance.now() - analysisStart) / 1000;
      const derived = Object.values(analysis.postProcessing.edges).reduce((a, b) => a + b, 0);
      process.stdout.write(`${summary}analysis ${analysisSeconds.toFixed(1)} s (post-processing ` +
        `${analysis.postProcessing.seconds.toFixed(1)} s: ${derived} derived edges; data quality ${analysis.dataQualitySeconds.toFixed(1)} s; ` +
        `tag membership ${analysis.tagMembershipSeconds.toFixed(1)} s), data-quality run ${analysis.runId}\n`);
      return failed ? 1 : 0;
    } finally {
      await db.close();
    }
  },
};

function line(o: FileOutcome): string {
  if (o.error) return o.error;
  const r = o.result!;
  const warn = r.warnings.length ? `, ${r.warnings.length} warnings` : '';
  const removed = r.removed ? `, ${r.removed} removed` : '';
  return `${r.type}: ${r.nodes} nodes, ${r.edges} edges, ${r.placeholders} placeholders${removed}${warn}`;
}
