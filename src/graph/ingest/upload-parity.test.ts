/**
 * The upload flow reaches the graph `scent import` reaches: BloodHound's graphify collector files,
 * uploaded (in another order, part of them in a zip) and ingested by the worker, against the same
 * files given to `scent import` in its own process. Both include what runs after the ingest. An
 * OpenGraph file with an edge to no node rides along: both report its warning with its text.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDb } from '../../db/create-db.ts';
import { runIngestOnce } from '../../modules/file-upload/ingest.worker.ts';
import { cliDatabase, scent } from '../../test/cli.ts';
import { createTestApp, DIALECT } from '../../test/harness.ts';
import { assertGraphParity, exportGraph } from '../parity.test-helpers.ts';
import { GRAPHIFY } from '../../test/fixture-path.ts';
import { zipFiles } from '../../http/zip.ts';

for (const set of ['v6-sessions', 'v6-adcs']) {
  test(`upload flow = scent import on ${DIALECT}: ${set}`, async () => {
    const raw = join(GRAPHIFY, set, 'raw');
    const extra = mkdtempSync(join(tmpdir(), 'scent-upload-parity-'));
    writeFileSync(join(extra, 'extra.json'), JSON.stringify({ graph: { edges: [{ kind: 'Knows', start: { value: 'x-1' }, end: { value: 'x-2' } }] } }));
    const byName = (a: string, b: string) => (a.split('/').pop()! < b.split('/').pop()! ? 1 : -1);
    const paths = [...readdirSync(raw).map((f) => join(raw, f)), join(extra, 'extra.json')].sort(byName);
    const files = paths.map((p) => p.split('/').pop()!);
    const cli = await cliDatabase();
    const t = await createTestApp({ ingestInterval: 0 });
    try {
      const imported = scent(['import', ...paths, '--database', cli.url], { SCENT_LOG_LEVEL: 'silent' });
      assert.equal(imported.code, 0, imported.stderr + imported.stdout);
      const warning = 'graph.edges[0]: no node has the id "X-1"; it was created without properties';
      assert.ok(imported.stdout.includes(`\twarning\t${warning}\n`), imported.stdout);

      const token = (await t.login('Upload-Only')).token;
      const post = (url: string, payload?: Buffer, type?: string, name?: string) => t.app.inject({
        method: 'POST', url, payload,
        headers: { authorization: `Bearer ${token}`, ...(type ? { 'content-type': type } : {}), ...(name ? { 'x-file-upload-name': name } : {}) },
      });
      const job = (await post('/api/v2/file-upload/start')).json().data;
      // extra.json always rides in the zip: its warnings then name it by its entry name
      const zipped = [...files.slice(0, 2), 'extra.json'];
      const plain = files.filter((f) => !zipped.includes(f));
      const read = (f: string) => readFileSync(paths.find((p) => p.endsWith(`/${f}`))!);
      for (const f of plain) assert.equal((await post(`/api/v2/file-upload/${job.id}`, read(f), 'application/json', f)).statusCode, 202);
      const zip = zipFiles(zipped.map((f) => ({ name: f, data: read(f) })));
      assert.equal((await post(`/api/v2/file-upload/${job.id}`, zip, 'application/zip', 'part.zip')).statusCode, 202);
      assert.equal((await post(`/api/v2/file-upload/${job.id}/end`)).statusCode, 200);
      assert.equal(await runIngestOnce(t.db), job.id);
      const done = await t.db.kysely.selectFrom('file_upload_jobs').select(['status', 'status_message']).where('id', '=', job.id).executeTakeFirstOrThrow();
      assert.equal(done.status, 2, done.status_message);
      assert.match(done.status_message, /; 2 warnings \(listed with each file in completed-tasks\); analysis \d+\.\d s$/);
      const tasks = (await t.app.inject({ method: 'GET', url: `/api/v2/file-upload/${job.id}/completed-tasks`, headers: { authorization: `Bearer ${(await t.login('Administrator')).token}` } })).json().data;
      // each warning names the file it came from (here the zip's entry: <zip>/<entry>)
      const zipTask = tasks.find((task: { file_name: string }) => task.file_name.endsWith('.zip'));
      const texts = tasks.flatMap((task: { warnings: string[] }) => task.warnings);
      const from = `${zipTask.file_name}/extra.json`;
      assert.deepEqual(texts, [`${from}: ${warning}`, `${from}: ${warning.replace('X-1', 'X-2')}`]);

      const other = createDb(cli.url);
      try {
        assertGraphParity(await exportGraph(t.db), await exportGraph(other), `${set}: upload flow against scent import`);
      } finally {
        await other.close();
      }
    } finally {
      await t.close();
      await cli.cleanup();
      rmSync(extra, { recursive: true, force: true });
    }
  });
}
