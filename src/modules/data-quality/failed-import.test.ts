import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDb } from '../../db/create-db.ts';
import { createTestApp, DIALECT, type TestApp } from '../../test/harness.ts';
import { cliDatabase, scent } from '../../test/cli.ts';
import { runIngestOnce } from '../file-upload/ingest.worker.ts';

/**
 * A data-quality record says "an analysis ran on new data". An import in which every file failed changed
 * nothing: it must not add a point to the trends (the newcomer's failed first import showed one).
 */
const UNSUPPORTED = '{"meta":{"type":"nonsense","version":6,"count":0},"data":[]}';
const DOMAINS = new URL('../../../samples/esc1/domains.json', import.meta.url).pathname;

let t: TestApp;
let admin: string;
before(async () => {
  t = await createTestApp({ ingestInterval: 0 });
  admin = (await t.login('Administrator')).token;
});
after(() => t.close());

const records = async () => (await t.request({ method: 'GET', url: '/api/v2/platform/ad/data-quality-stats', token: admin })).json().count as number;

test(`an upload whose every file fails writes no data-quality record; one that ingests writes one (${DIALECT})`, async () => {
  const uploadJob = async (body: string) => {
    const job = (await t.request({ method: 'POST', url: '/api/v2/file-upload/start', token: admin })).json().data.id;
    const res = await t.app.inject({ method: 'POST', url: `/api/v2/file-upload/${job}`, payload: body, headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' } });
    assert.equal(res.statusCode, 202, res.body);
    assert.equal((await t.request({ method: 'POST', url: `/api/v2/file-upload/${job}/end`, token: admin })).statusCode, 200);
    assert.equal(await runIngestOnce(t.db), job);
    return (await t.request({ method: 'GET', url: '/api/v2/file-upload', token: admin, query: { id: String(job) } })).json().data[0];
  };
  const failed = await uploadJob(UNSUPPORTED);
  assert.equal(failed.status, 5, 'failed');
  assert.equal(await records(), 0);
  const ok = await uploadJob(readFileSync(DOMAINS, 'utf8'));
  assert.equal(ok.status, 2, 'complete');
  assert.equal(await records(), 1);
});

test(`scent import whose every file fails: exit 1, says so, and writes no data-quality record (${DIALECT})`, { timeout: 120_000 }, async () => {
  const { url, cleanup } = await cliDatabase();
  const dir = mkdtempSync(join(tmpdir(), 'scent-failed-import-'));
  try {
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, UNSUPPORTED);
    const run = scent(['import', bad, '--database', url], { SCENT_LOG_LEVEL: 'silent' });
    assert.equal(run.code, 1, run.stderr);
    assert.match(run.stdout, new RegExp([
      '^FAILED\tbad\\.json\tunsupported meta\\.type: "nonsense"',
      '0/1 files ingested in \\d+\\.\\d s: 0 nodes, 0 edges \\(0 elements/s\\); nothing ingested: no analysis, no data-quality record',
      '$',
    ].join('\n')));
    const db = createDb(url);
    try {
      const count = async () => Number((await db.kysely.selectFrom('ad_data_quality_aggregations').select((e) => e.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
      assert.equal(await count(), 0);
      const good = scent(['import', DOMAINS, '--database', url], { SCENT_LOG_LEVEL: 'silent' });
      assert.equal(good.code, 0, good.stderr);
      assert.equal(await count(), 1);
    } finally {
      await db.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await cleanup();
  }
});
