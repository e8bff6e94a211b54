/**
 * Ingest parity with BloodHound, measured on its own published results
 * (../shared/fixtures/bloodhound-graphify/<set>/): the collector files in `raw/`, ingested by Scent,
 * give the graph of `ingested.json` (nodes by objectid with their kinds, edges as (start, kind, end),
 * properties without lastseen/lastcollected), except for the documented decisions listed here.
 */
import { test } from 'node:test';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import assert from 'node:assert/strict';
import { createTestDb, DIALECT } from '../../test/harness.ts';
import { assertGraphParity, exportGraph, readOpenGraph, type Difference } from '../parity.test-helpers.ts';
import { GRAPHIFY } from '../../test/fixture-path.ts';
import { ingestFiles } from './ingest.service.ts';

/** Documented differences (docs: ingest-and-analysis, "Differences from BloodHound's ingest"). */
const DOCUMENTED: Record<string, Record<string, (d: Difference) => boolean>> = {
  'v6-sessions': {},
  'v6-adcs': {},
};

for (const set of Object.keys(DOCUMENTED)) {
  test(`ingest parity on ${DIALECT}: ${set}/raw → ${set}/ingested.json`, async () => {
    const db = await createTestDb();
    try {
      const raw = join(GRAPHIFY, set, 'raw');
      const outcomes = await ingestFiles(db, readdirSync(raw).map((f) => ({ path: join(raw, f) })));
      assert.deepEqual(outcomes.filter((o) => o.error), []);
      const diff = assertGraphParity(await exportGraph(db), readOpenGraph(join(GRAPHIFY, set, 'ingested.json')), set, DOCUMENTED[set]);
      process.stdout.write(`# ${set}: nodes ${diff.nodes.equal} equal / ${diff.nodes.differing} differing; edges ${diff.edges.equal} equal / ${diff.edges.differing} differing\n`);
    } finally {
      await db.close();
    }
  });
}
