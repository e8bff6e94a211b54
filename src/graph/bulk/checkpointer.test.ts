/**
 * On a SQLite file the documents' commits leave the WAL's copy into the database to the checkpoint
 * thread (checkpointer.ts): after an ingest it has copied every committed frame, and the data is
 * there for a new connection.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { createDb } from '../../db/create-db.ts';
import { migrateToLatest } from '../../db/migrate.ts';
import { DIALECT } from '../../test/harness.ts';
import { ingestFiles } from '../ingest/ingest.service.ts';
import { settleCheckpoints } from './checkpointer.ts';

const dir = mkdtempSync(join(tmpdir(), 'scent-checkpoint-'));
after(() => rmSync(dir, { recursive: true, force: true }));

test('a SQLite file: the ingest\'s commits are checkpointed on the checkpoint thread', { skip: DIALECT !== 'sqlite' }, async () => {
  const path = join(dir, 'graph.sqlite');
  const db = createDb(`sqlite:${path}`);
  try {
    await migrateToLatest(db);
    const nodes = Array.from({ length: 3000 }, (_, i) => ({ id: `N${i}`, kinds: ['Person'], properties: { name: `NODE${i}`, pad: 'x'.repeat(200) } }));
    const edges = nodes.slice(1).map((n, i) => ({ kind: 'Knows', start: { value: n.id }, end: { value: nodes[i].id } }));
    const doc = join(dir, 'doc.json');
    writeFileSync(doc, JSON.stringify({ graph: { nodes, edges } }));
    const [outcome] = await ingestFiles(db, [{ path: doc }]);
    assert.equal(outcome.error, undefined);
    const result = await settleCheckpoints();
    assert.equal(result?.path, path, 'the thread checkpointed this database');
    assert.equal(result?.error, undefined);
    assert.ok(result!.log! > 0, 'the commit left its frames in the WAL');
    assert.equal(result!.checkpointed, result!.log, 'every frame copied');

    const reader = new SQLite(path, { readonly: true });
    try {
      assert.equal(reader.prepare('select count(*) from nodes').pluck().get(), 3000);
      assert.equal(reader.prepare('select count(*) from edges').pluck().get(), 2999);
    } finally {
      reader.close();
    }
  } finally {
    await db.close();
  }
});
