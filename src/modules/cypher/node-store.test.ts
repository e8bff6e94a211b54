/**
 * The node store (src/cypher/node-store.ts): every value it keeps is the value the node's details give
 * Cypher (the stored properties parsed, `name` from its column when the properties lack it), every key
 * is counted, a key with too many distinct strings or with maps is counted only, columns over the same
 * nodes share their ids, and the objectid tail hashes are those of objectidTails' own pass.
 */
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { test } from 'node:test';
import { MAX_KEY_STRINGS, nodeStore } from '../../cypher/node-store.ts';
import { tailHash } from '../../cypher/property-columns.ts';
import { ingestFiles } from '../../graph/ingest/ingest.service.ts';
import { FIXTURES } from '../../test/fixture-path.ts';
import { createTestApp } from '../../test/harness.ts';

test('the node store holds the values the details hold, counts every key and shares ids', async () => {
  const t = await createTestApp();
  try {
    const outcomes = await ingestFiles(t.db, readdirSync(FIXTURES).filter((f) => f.endsWith('.json') && !f.startsWith('expected')).sort().map((f) => ({ path: FIXTURES + f })));
    assert.deepEqual(outcomes.filter((o) => o.error), []);
    // A key with more distinct strings than a column keeps, a map-valued key, a list key and a null value.
    const extra = await t.db.kysely.selectFrom('nodes').select(['id', 'objectid', 'name', 'properties']).orderBy('id').execute();
    assert.ok(extra.length >= 20, `${extra.length} nodes`);
    for (const [i, r] of extra.entries()) {
      const p = JSON.parse(r.properties) as Record<string, unknown>;
      p.scentdistinct = `value ${i}`;
      if (i % 3 === 0) p.scentmap = { a: i };
      p.scentlist = i % 2 === 0 ? [] : ['x', i, true, null];
      p.scentnull = null;
      if (i === 0) delete p.name;
      if (i === 1) p.scentmany = Array.from({ length: MAX_KEY_STRINGS + 1 }, (_, j) => `s${j}`);
      await t.db.kysely.updateTable('nodes').set({ properties: JSON.stringify(p) }).where('id', '=', r.id).execute();
    }
    const store = await nodeStore(t.db);
    assert.ok(store !== null);
    const nodes = await t.db.kysely.selectFrom('nodes').select(['id', 'objectid', 'name', 'properties']).orderBy('id').execute();
    const counts = new Map<string, number>();
    for (const n of nodes) {
      const p = JSON.parse(n.properties) as Record<string, unknown>;
      for (const [k, v] of Object.entries(p)) if (v !== null) counts.set(k, (counts.get(k) ?? 0) + 1);
    }
    assert.deepEqual(new Map([...store.holders].sort()), new Map([...counts].sort()));
    assert.ok(!store.columns.has('scentmap') && !store.columns.has('scentnull') && store.columns.has('scentlist') && store.columns.has('enabled'));
    assert.ok(store.columns.has('scentdistinct') && !store.columns.has('scentmany') && store.holders.get('scentmany') === 1);
    assert.ok(!store.columns.has('name') && !store.columns.has('objectid'));
    // Every kept value is the property's, at exactly the nodes holding it.
    for (const [key, column] of store.columns) {
      const expected = nodes.flatMap((n) => {
        const v = (JSON.parse(n.properties) as Record<string, unknown>)[key];
        return v === null || v === undefined ? [] : [[n.id, v]];
      });
      assert.deepEqual([...column.ids].map((id, i) => [id, column.values[i]]), expected, key);
    }
    // name as Cypher reads it (the property, else the column), and the objectid tail hashes.
    const names = nodes.flatMap((n) => {
      const p = JSON.parse(n.properties) as Record<string, unknown>;
      const v = p.name !== undefined ? p.name : n.name;
      return v === null || v === undefined ? [] : [[n.id, v]];
    });
    assert.deepEqual([...store.name.ids].map((id, i) => [id, store.name.values[i]]), names);
    assert.deepEqual([...store.tails.ids], nodes.map((n) => n.id));
    assert.deepEqual([...store.tails.hashes], nodes.map((n) => tailHash(n.objectid)));
    // Columns over the same nodes share one ids array.
    const holders = [...store.columns.values()];
    const distinctIds = new Set(holders.map((c) => c.ids));
    assert.ok(distinctIds.size < holders.length, `${distinctIds.size} ids arrays for ${holders.length} columns`);
    // A write: the next store is read again and sees it.
    const first = nodes[1];
    await t.db.kysely.updateTable('nodes').set({ properties: JSON.stringify({ ...JSON.parse(first.properties), scentlater: 5 }) }).where('id', '=', first.id).execute();
    const again = await nodeStore(t.db);
    assert.ok(again !== null && again !== store);
    assert.deepEqual([...again.columns.get('scentlater')!.ids], [first.id]);
  } finally {
    await t.close();
  }
});
