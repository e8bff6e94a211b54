/**
 * BloodHound's Query Library on real data: every Active Directory query answers 200 or 404 (never
 * 400, never 5xx) on the SharpHound v6 fixture and on both bloodhound-graphify collector sets, after
 * ingest and analysis, over HTTP.
 */
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { AD_QUERIES } from '../../cypher/library.test-helpers.ts';
import { FIXTURES, SHARED_FIXTURES } from '../../test/fixture-path.ts';
import { ingestFiles } from '../../graph/ingest/ingest.service.ts';
import { createTestApp } from '../../test/harness.ts';
import { analyzeGraph } from '../data-quality/analysis.service.ts';

const SETS: Array<[string, string]> = [
  ['sharphound-v6', FIXTURES],
  ['bloodhound-graphify v6-adcs', join(SHARED_FIXTURES, 'bloodhound-graphify', 'v6-adcs', 'raw') + '/'],
  ['bloodhound-graphify v6-sessions', join(SHARED_FIXTURES, 'bloodhound-graphify', 'v6-sessions', 'raw') + '/'],
];

for (const [name, dir] of SETS) {
  test(`every Active Directory query of the Query Library answers 200 or 404 on ${name}`, async () => {
    const t = await createTestApp();
    try {
      const files = readdirSync(dir).filter((f) => f.endsWith('.json') && !f.startsWith('expected')).sort();
      const outcomes = await ingestFiles(t.db, files.map((f) => ({ path: dir + f })));
      assert.deepEqual(outcomes.filter((o) => o.error), []);
      await analyzeGraph(t.db);
      const token = (await t.login('Read-Only')).token;
      const statuses: Record<number, number> = {};
      for (const q of AD_QUERIES) {
        const res = await t.request({ method: 'POST', url: '/api/v2/graphs/cypher', token, body: { query: q.query } });
        assert.ok(res.statusCode === 200 || res.statusCode === 404, `${q.name}: ${res.statusCode} ${res.body.slice(0, 300)}`);
        statuses[res.statusCode] = (statuses[res.statusCode] ?? 0) + 1;
      }
      assert.ok((statuses[200] ?? 0) >= 20, JSON.stringify(statuses));
    } finally {
      await t.close();
    }
  });
}
