/**
 * Hand-checked answers: for the bloodhound-graphify collector sets, the exact nodes, edges and
 * literals of 36 queries per set (25 from the Query Library, 11 of our own), as answers.expected.json
 * records them. The expected answers were computed from BloodHound's own ingested graph of each set
 * (`ingested.json`) by a separate, hand-written evaluation of each query, not by this engine. For the
 * SharpHound v6 set, 13 more queries whose answers were read from the raw collector files (users'
 * flags, group Members and PrimaryGroupSID, sessions, the CA's EnabledCertTemplates, GPO links; see
 * FACTS.md; one of them also asked of the graphify sets): 48 distinct queries in all.
 * Queries that depend on analysis (Tier Zero, derived edges) are left to library.test.ts.
 */
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { LIBRARY } from '../../cypher/library.test-helpers.ts';
import { FIXTURES, SHARED_FIXTURES } from '../../test/fixture-path.ts';
import { ingestFiles } from '../../graph/ingest/ingest.service.ts';
import { createTestApp } from '../../test/harness.ts';

interface Case {
  id: string;
  library?: string;
  query?: string;
  nodes?: string[];
  edges?: Array<[string, string, string]>;
  literals?: Array<{ key: string; value: unknown }>;
}
const EXPECTED: Record<string, Case[]> = JSON.parse(readFileSync(new URL('./answers.expected.json', import.meta.url), 'utf8'));

for (const [set, cases] of Object.entries(EXPECTED)) {
  test(`hand-checked answers on ${set === 'sharphound-v6' ? set : `bloodhound-graphify ${set}`} (${cases.length} queries)`, async () => {
    const t = await createTestApp();
    try {
      const dir = set === 'sharphound-v6' ? FIXTURES : join(SHARED_FIXTURES, 'bloodhound-graphify', set, 'raw') + '/';
      const files = readdirSync(dir).filter((f) => f.endsWith('.json') && !f.startsWith('expected')).sort();
      await ingestFiles(t.db, files.map((f) => ({ path: dir + f })));
      const token = (await t.login('Read-Only')).token;
      for (const c of cases) {
        const query = c.query ?? LIBRARY.find((q) => q.name === c.library && q.platforms.includes('Active Directory'))!.query;
        const res = await t.request({ method: 'POST', url: '/api/v2/graphs/cypher', token, body: { query } });
        const empty = (c.nodes?.length ?? 0) === 0 && (c.edges?.length ?? 0) === 0 && (c.literals?.length ?? 0) === 0;
        if (empty) {
          assert.equal(res.statusCode, 404, `${c.id}: ${res.body.slice(0, 300)}`);
          continue;
        }
        assert.equal(res.statusCode, 200, `${c.id}: ${res.body.slice(0, 300)}`);
        const data = res.json().data as { nodes: Record<string, { objectId: string }>; edges: Array<{ source: string; kind: string; target: string }>; literals?: unknown[] };
        if (c.literals) {
          assert.deepEqual(data.literals, c.literals, c.id);
          continue;
        }
        const oid = (id: string) => data.nodes[id].objectId;
        assert.deepEqual(Object.values(data.nodes).map((n) => n.objectId).sort(), c.nodes, `${c.id}: nodes`);
        const edges = data.edges.map((e) => [oid(e.source), e.kind, oid(e.target)]).sort((a, b) => a.join().localeCompare(b.join()));
        const want = [...(c.edges ?? [])].sort((a, b) => a.join().localeCompare(b.join()));
        assert.deepEqual(edges, want, `${c.id}: edges`);
      }
    } finally {
      await t.close();
    }
  });
}
