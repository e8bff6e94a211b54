import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { setImmediate as turn } from 'node:timers/promises';
import { createDb } from '../../db/create-db.ts';
import { migrateToLatest } from '../../db/migrate.ts';
import { DIALECT } from '../../test/harness.ts';
import { upsertEdges } from '../store.repository.ts';
import { graphEngine } from './index.ts';
import { KindLists, KindTable } from './kinds.ts';
import { loadFull } from './load.ts';

const chain = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => ({
  start: { objectid: `N${from + i}`, kinds: ['User', 'Base'] }, end: { objectid: `N${from + i + 1}`, kinds: ['User', 'Base'] }, kind: 'MemberOf',
}));

// The full load's own connection exists for SQLite database files (PostgreSQL reads through the pool, a
// page per round trip, and an in-memory SQLite database has one connection).
test('a full load of a SQLite file reads on a connection of its own, lets the event loop turn between slices, and is one consistent read', { skip: DIALECT !== 'sqlite' && 'SQLite files only' }, async () => {
  const dir = mkdtempSync(`${tmpdir()}/scent-load-`);
  const db = createDb(`sqlite:${dir}/graph.sqlite`);
  try {
    await migrateToLatest(db);
    await upsertEdges(db.kysely, chain(0, 6000));
    const kinds = new KindTable();
    let turns = 0;
    let loading = true;
    const meanwhile = (async () => {
      while (loading) {
        await turn();
        turns++;
        // A write committed on the server's connection while the load reads: not in this load's snapshot.
        if (turns === 1) await upsertEdges(db.kysely, chain(6000, 6001));
      }
    })();
    const loaded = await loadFull(db, kinds, new KindLists(kinds), 500);
    loading = false;
    await meanwhile;
    assert.ok(turns >= 10, `the event loop turned ${turns} times during a load of 12,001 rows in slices of 500`);
    assert.equal(loaded.snapshot.edgeCount, 6000, 'the load saw the database as it was when it began');
    assert.equal(loaded.snapshot.nodeCount, 6001);
    assert.equal(db.bulk.dialect === 'sqlite' && db.bulk.database.inTransaction, false, 'the server\'s connection holds no transaction');
    // The engine: its full load, then the next view brings what was written since.
    const engine = graphEngine(db);
    assert.equal((await engine.view()).edgeCount, 6001);
    await upsertEdges(db.kysely, chain(6001, 6003));
    assert.equal((await engine.view()).edgeCount, 6003);
    assert.deepEqual([engine.stats.fullLoads, engine.stats.deltas], [1, 1]);
  } finally {
    await db.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
