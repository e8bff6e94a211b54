/**
 * The proof on real data: ingesting the SharpHound v6 fixture set (../shared/fixtures/sharphound-v6)
 * through the ingest pipeline and its analysis pass gives, for every certificate template, exactly
 * the distinct controllers of expected-controllers.json — over HTTP.
 */
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { createTestApp, type TestApp } from '../../test/harness.ts';
import { FIXTURES } from '../../test/fixture-path.ts';
import { ingestFiles } from '../../graph/ingest/ingest.service.ts';
import { analyzeGraph } from '../data-quality/analysis.service.ts';

type Expected = Record<string, Array<{ objectid: string; kind: string; via: string; right: string }>>;
const EXPECTED: Expected = JSON.parse(readFileSync(`${FIXTURES}expected-controllers.json`, 'utf8'));
const FILES = readdirSync(FIXTURES).filter((f) => f.endsWith('.json') && !f.startsWith('expected')).sort();

let t: TestApp;
let reader: string;
before(async () => {
  t = await createTestApp();
  reader = (await t.login('Read-Only')).token;
  const outcomes = await ingestFiles(t.db, FILES.map((f) => ({ path: FIXTURES + f })));
  assert.deepEqual(outcomes.filter((o) => o.error), []);
  await analyzeGraph(t.db);
});
after(() => t.close());

test('every fixture template has exactly the expected distinct controllers (34 templates)', async () => {
  assert.equal(Object.keys(EXPECTED).length, 34);
  for (const [template, records] of Object.entries(EXPECTED)) {
    const res = await t.request({ method: 'GET', url: `/api/v2/certtemplates/${template}/controllers`, token: reader, query: { limit: '0' } });
    assert.equal(res.statusCode, 200, template);
    const body = res.json();
    const want = [...new Set(records.map((r) => r.objectid))].sort();
    const got = body.data.map((c: { objectID: string }) => c.objectID);
    assert.equal(body.count, want.length, template);
    assert.equal(new Set(got).size, got.length, `${template}: distinct`);
    assert.deepEqual([...got].sort(), want, template);
    const kinds = Object.fromEntries(records.map((r) => [r.objectid, r.kind]));
    for (const c of body.data) assert.equal(c.label, kinds[c.objectID], `${template} ${c.objectID} label`);
  }
});

test('the template node reads back with its properties', async () => {
  const res = await t.request({ method: 'GET', url: '/api/v2/certtemplates/DEBC8BEB-40AF-48B5-940F-AAFAFE961B26', token: reader });
  assert.equal(res.statusCode, 200);
  const { data } = res.json();
  assert.equal(data.kind, 'CertTemplate');
  assert.equal(data.props.name, 'ESC1@ESC1.LOCAL');
  assert.equal(data.controllers, 10);
});
