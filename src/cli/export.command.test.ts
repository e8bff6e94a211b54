import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDb } from '../db/create-db.ts';
import { migrateToLatest } from '../db/migrate.ts';
import { GRAPHIFY } from '../test/fixture-path.ts';
import { ingestFiles } from '../graph/ingest/ingest.service.ts';
import { analyzeGraph } from '../modules/data-quality/analysis.service.ts';
import { assertGraphParity, exportGraph, readOpenGraph } from '../graph/parity.test-helpers.ts';
import { cliDatabase, scent } from '../test/cli.ts';

test('scent export --output, then scent import of that file elsewhere: the same graph', async () => {
  const [one, two] = [await cliDatabase(), await cliDatabase()];
  const dir = mkdtempSync(join(tmpdir(), 'scent-export-cli-'));
  const env = { SCENT_LOG_LEVEL: 'silent' };
  try {
    const raw = join(GRAPHIFY, 'v6-sessions/raw');
    const source = createDb(one.url);
    try {
      await migrateToLatest(source);
      const outcomes = await ingestFiles(source, readdirSync(raw).map((f) => ({ path: join(raw, f) })));
      assert.deepEqual(outcomes.filter((o) => o.error), []);
      await analyzeGraph(source); // as `scent import` does: the export holds derived edges and Tier Zero tags
    } finally {
      await source.close();
    }
    const file = join(dir, 'graph.json');
    const exported = scent(['export', '--database', one.url, '--output', file], env);
    assert.equal(exported.code, 0, exported.stderr);
    assert.equal(exported.stdout, '');
    const first = readOpenGraph(file);
    assert.ok(first.graph.nodes.length > 100 && first.graph.edges.length > 700);

    const imported = scent(['import', file, '--database', two.url], env);
    assert.equal(imported.code, 0, imported.stderr + imported.stdout);
    const target = createDb(two.url);
    try {
      assertGraphParity(await exportGraph(target), first, 'export of the re-imported export');
    } finally {
      await target.close();
    }
  } finally {
    await one.cleanup();
    await two.cleanup();
    rmSync(dir, { recursive: true, force: true });
  }
});
