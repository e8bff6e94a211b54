/**
 * Analysis parity with BloodHound, measured on its own published results
 * (../shared/fixtures/bloodhound-graphify/<set>/): the collector files in `raw/`, ingested and then
 * analysed by Scent (the post-processing, data quality and tag membership that follow every
 * import), give the graph of `analyzed.json` (nodes by objectid with their kinds, Tag_Tier_Zero
 * included, edges as (start, kind, end), properties without lastseen/lastcollected), except for the
 * documented decisions listed here (docs/ingest-and-analysis.md, "Differences from BloodHound's analysis").
 */
import { test } from 'node:test';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import assert from 'node:assert/strict';
import { createTestDb, DIALECT } from '../../test/harness.ts';
import { analyzeGraph } from '../../modules/data-quality/analysis.service.ts';
import { assertGraphParity, exportGraph, readOpenGraph, type Difference } from '../parity.test-helpers.ts';
import { GRAPHIFY } from '../../test/fixture-path.ts';
import { ingestFiles } from '../ingest/ingest.service.ts';

/** Documented differences (docs: ingest-and-analysis, "Differences from BloodHound's analysis"). */
const DOCUMENTED: Record<string, Record<string, (d: Difference) => boolean>> = {
  'v6-sessions': {},
  'v6-adcs': {},
};

for (const set of Object.keys(DOCUMENTED)) {
  test(`analysis parity on ${DIALECT}: ${set}/raw → ${set}/analyzed.json`, async () => {
    const db = await createTestDb();
    try {
      const raw = join(GRAPHIFY, set, 'raw');
      const outcomes = await ingestFiles(db, readdirSync(raw).map((f) => ({ path: join(raw, f) })));
      assert.deepEqual(outcomes.filter((o) => o.error), []);
      await analyzeGraph(db);
      const diff = assertGraphParity(await exportGraph(db), readOpenGraph(join(GRAPHIFY, set, 'analyzed.json')), set, DOCUMENTED[set]);
      process.stdout.write(`# ${set}: nodes ${diff.nodes.equal} equal / ${diff.nodes.differing} differing; edges ${diff.edges.equal} equal / ${diff.edges.differing} differing\n`);
    } finally {
      await db.close();
    }
  });
}
