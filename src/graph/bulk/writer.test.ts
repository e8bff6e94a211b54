/**
 * What the bulk writers keep for the end of a document's transaction (sqlite-writer.ts: the edge
 * stage, the name search's upkeep; pg-writer.ts likewise) must leave the graph and the name search
 * exactly as writing row by row did: after inserts, renames and removals, after a document that fails,
 * and for writes that do not go through the writer (the search triggers are back after each document).
 * On SQLite both a file (the writer's own connection) and an in-memory database (Kysely's connection).
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { createDb, type Db } from '../../db/create-db.ts';
import { migrateToLatest } from '../../db/migrate.ts';
import { createTestDb, DIALECT } from '../../test/harness.ts';
import { searchNodes } from '../../modules/search/search.repository.ts';
import { upsertNodes } from '../store.repository.ts';
import { ingestFiles } from '../ingest/ingest.service.ts';

const dir = mkdtempSync(join(tmpdir(), 'scent-writer-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const databases: Array<[string, () => Promise<Db>]> = DIALECT === 'postgres'
  ? [['postgres', createTestDb]]
  : [
    ['a SQLite file', async () => {
      const db = createDb(`sqlite:${join(dir, `graph-${Math.random().toString(36).slice(2)}.sqlite`)}`);
      await migrateToLatest(db);
      return db;
    }],
    ['an in-memory SQLite database', createTestDb],
  ];

let n = 0;
const file = (content: string) => {
  const path = join(dir, `doc-${n++}.json`);
  writeFileSync(path, content);
  return { path };
};
const openGraph = (nodes: object[], edges: object[] = []) => file(JSON.stringify({ graph: { nodes, edges } }));
/** The search's answer; on SQLite also what its FTS index holds for the text (no entry left behind by a rename or removal). */
const names = async (db: Db, q: string) => {
  const found = (await searchNodes(db, q, null, 50)).map((r) => r.objectid).sort();
  if (db.dialect === 'sqlite') {
    const indexed = await sql<{ objectid: string | null }>`select n.objectid from nodes_search s left join nodes n on n.id = s.rowid
      where nodes_search match ${`"${q}"`} order by n.objectid`.execute(db.kysely);
    assert.deepEqual(indexed.rows.map((r) => r.objectid), found, `FTS entries for ${q}`);
  }
  return found;
};
const edges = async (db: Db) => (await db.kysely.selectFrom('edges as e').innerJoin('nodes as s', 's.id', 'e.start_id').innerJoin('nodes as t', 't.id', 'e.end_id')
  .select(['s.objectid as start', 'e.kind', 't.objectid as end', 'e.properties']).orderBy('s.objectid').orderBy('e.kind').orderBy('t.objectid').execute())
  .map((r) => `${r.start} ${r.kind} ${r.end} ${r.properties}`);

/** The graph tables' indexes and triggers, as the schema states them (the writers drop and create some inside a document's transaction). */
const schema = async (db: Db) => (db.dialect === 'sqlite'
  ? (await sql<{ d: string }>`select type || ' ' || name || ' ' || coalesce(sql, '') as d from sqlite_master where tbl_name in ('nodes', 'edges') order by 1`.execute(db.kysely)).rows
  : (await sql<{ d: string }>`select indexdef as d from pg_indexes where schemaname = current_schema() and tablename in ('nodes', 'edges') order by 1`.execute(db.kysely)).rows)
  .map((r) => r.d);

for (const [label, open] of databases) {
  test(`bulk writer on ${label}: the name search and the edges after inserts, renames, removals and a failed document`, async () => {
    const db = await open();
    const shape = await schema(db);
    try {
      // A document that names G only as an edge end (a placeholder, no name), and repeats an edge: the last one wins.
      const [first] = await ingestFiles(db, [openGraph(
        [{ id: 'U1', kinds: ['Person'], properties: { name: 'ALPHAONE' } }, { id: 'U2', kinds: ['Person'], properties: { name: 'BRAVOTWO' } }],
        [
          { kind: 'Knows', start: { value: 'G' }, end: { value: 'U1' }, properties: { n: 1 } },
          { kind: 'Knows', start: { value: 'U2' }, end: { value: 'U1' }, properties: { n: 2 } },
          { kind: 'Knows', start: { value: 'G' }, end: { value: 'U1' }, properties: { n: 3 } },
        ],
      )]);
      assert.equal(first.error, undefined);
      assert.deepEqual(await names(db, 'ALPHAON'), ['U1']);
      assert.deepEqual(await names(db, 'LPHAON'), ['U1'], 'substring (trigram) search');
      assert.deepEqual(await edges(db), ['G Knows U1 {"n":3}', 'U2 Knows U1 {"n":2}']);
      assert.deepEqual(await schema(db), shape, 'indexes and triggers as before');

      // A later document: the placeholder gets a name, U1 is renamed, U2 is removed (with its edge).
      const [second] = await ingestFiles(db, [openGraph(
        [{ id: 'G', kinds: ['Team'], properties: { name: 'GOLFTEAM' } }, { id: 'U1', kinds: ['Person'], properties: { name: 'CHARLIEONE' } }],
        [{ kind: 'Knows', start: { value: 'G' }, end: { value: 'U1' }, properties: { n: 4 } }],
      )]);
      assert.equal(second.error, undefined);
      const [removal] = await ingestFiles(db, [file(JSON.stringify({ meta: { type: 'deleted', version: 6 }, data: ['U2'] }))]);
      assert.equal(removal.result?.removed, 1);
      assert.deepEqual(await names(db, 'ALPHAON'), []);
      assert.deepEqual(await names(db, 'LPHAON'), []);
      assert.deepEqual(await names(db, 'HARLIEON'), ['U1']);
      assert.deepEqual(await names(db, 'OLFTEA'), ['G']);
      assert.deepEqual(await names(db, 'RAVOTW'), []);
      assert.deepEqual(await edges(db), ['G Knows U1 {"n":4}']);
      assert.deepEqual(await schema(db), shape);

      // A document that fails half-way leaves nothing: neither its nodes, nor their names, nor its edges.
      const broken = JSON.stringify({ graph: { nodes: [{ id: 'D1', kinds: ['Person'], properties: { name: 'DELTAFOUR' } }, { id: 'U1', kinds: ['Person'], properties: { name: 'RENAMEDAGAIN' } }], edges: [{ kind: 'Knows', start: { value: 'D1' }, end: { value: 'G' } }] } });
      const [failed] = await ingestFiles(db, [file(broken.slice(0, -3))]);
      assert.ok(failed.error);
      assert.deepEqual(await names(db, 'DELTAFO'), []);
      assert.deepEqual(await names(db, 'ENAMEDAGAI'), []);
      assert.deepEqual(await names(db, 'HARLIEON'), ['U1']);
      assert.deepEqual(await edges(db), ['G Knows U1 {"n":4}']);
      assert.deepEqual(await schema(db), shape);

      // Writes outside the bulk writer are indexed as before (the search's upkeep is back after each document).
      await upsertNodes(db.kysely, [{ objectid: 'E1', kinds: ['Person'], name: 'ECHOFIVE', properties: { name: 'ECHOFIVE' } }]);
      await upsertNodes(db.kysely, [{ objectid: 'U1', kinds: ['Person'], name: 'FOXTROTONE', properties: { name: 'FOXTROTONE' } }]);
      assert.deepEqual(await names(db, 'CHOFIV'), ['E1']);
      assert.deepEqual(await names(db, 'OXTROTON'), ['U1']);
      assert.deepEqual(await names(db, 'HARLIEON'), []);
    } finally {
      await db.close();
    }
  });
}
