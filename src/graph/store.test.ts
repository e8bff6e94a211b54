import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { createTestDb, DIALECT } from '../test/harness.ts';
import {
  countNodesByKind, findNodeByObjectId, inboundEdges, outboundEdges, toNode, upsertEdges, upsertNodes,
} from './store.repository.ts';

const DA = 'S-1-5-21-1-2-3-512';
const ALICE = 'S-1-5-21-1-2-3-1104';
const TEMPLATE = 'DEBC8BEB-40AF-48B5-940F-AAFAFE961B26';

test(`graph store on ${DIALECT}: nodes upsert by objectid, merging properties`, async () => {
  const db = await createTestDb();
  try {
    const ids = await upsertNodes(db.kysely, [
      { objectid: ALICE, kinds: ['User', 'Base'], name: 'ALICE@X.LOCAL', environmentId: 'S-1-5-21-1-2-3',
        properties: { enabled: true, name: 'ALICE@X.LOCAL' }, sourceKind: 'Base' },
      // the same object twice in one batch: merged, not duplicated
      { objectid: ALICE, kinds: ['User', 'Base'], properties: { title: 'boss' }, sourceKind: 'Base' },
    ]);
    assert.equal(ids.size, 1);
    await upsertNodes(db.kysely, [{ objectid: ALICE, kinds: ['User', 'Base'], properties: { enabled: false }, sourceKind: 'Base' }]);
    const rows = await db.kysely.selectFrom('nodes').selectAll().execute();
    assert.equal(rows.length, 1);
    const alice = toNode(rows[0]);
    assert.equal(alice.id, ids.get(ALICE));
    assert.deepEqual(alice.kinds, ['User', 'Base']);
    assert.equal(alice.kind, 'User');
    assert.equal(alice.name, 'ALICE@X.LOCAL');
    assert.equal(alice.environmentId, 'S-1-5-21-1-2-3');
    assert.deepEqual(alice.properties, { enabled: false, name: 'ALICE@X.LOCAL', title: 'boss' });
    assert.equal(alice.isPlaceholder, false);

    // another source adds kinds after the existing ones; the primary kind stays
    await upsertNodes(db.kysely, [{ objectid: ALICE, kinds: ['Person'], sourceKind: 'HR' }]);
    const again = toNode((await findNodeByObjectId(db.kysely, ALICE))!);
    assert.deepEqual(again.kinds, ['User', 'Base', 'Person']);
    assert.equal(again.kind, 'User');
    assert.equal(again.sourceKind, 'Base');
  } finally {
    await db.close();
  }
});

test(`graph store on ${DIALECT}: edges create placeholders that a later description completes`, async () => {
  const db = await createTestDb();
  try {
    await upsertNodes(db.kysely, [{ objectid: TEMPLATE, kinds: ['CertTemplate', 'Base'], name: 'ESC1@X.LOCAL', sourceKind: 'Base' }]);
    const written = await upsertEdges(db.kysely, [
      { start: { objectid: DA, kinds: ['Group', 'Base'] }, end: { objectid: TEMPLATE }, kind: 'Enroll', properties: { isinherited: false } },
      { start: { objectid: DA, kinds: ['Group', 'Base'] }, end: { objectid: TEMPLATE }, kind: 'Enroll', properties: { isinherited: true } },
      { start: { objectid: DA }, end: { objectid: TEMPLATE }, kind: 'WriteDacl' },
      { start: { objectid: ALICE, kinds: ['User', 'Base'] }, end: { objectid: DA }, kind: 'MemberOf' },
    ]);
    assert.equal(written, 3, 'the duplicate Enroll edge is one edge');
    const da = (await findNodeByObjectId(db.kysely, DA))!;
    assert.equal(da.is_placeholder, 1);
    assert.equal(da.kind, 'Group');
    assert.equal(da.name, null);

    // upserting an edge again does not duplicate it
    await upsertEdges(db.kysely, [{ start: { objectid: DA }, end: { objectid: TEMPLATE }, kind: 'Enroll', properties: { isinherited: false } }]);
    const template = (await findNodeByObjectId(db.kysely, TEMPLATE))!;
    const inbound = await inboundEdges(db.kysely, template.id, ['Enroll', 'WriteDacl', 'GenericAll']);
    assert.deepEqual(inbound.map((e) => [e.kind, e.start_id]).sort(), [['Enroll', da.id], ['WriteDacl', da.id]]);
    assert.deepEqual(JSON.parse(inbound.find((e) => e.kind === 'Enroll')!.properties), { isinherited: false });
    assert.deepEqual(await inboundEdges(db.kysely, template.id, []), []);
    const members = await inboundEdges(db.kysely, da.id, ['MemberOf']);
    assert.equal(members.length, 1);
    assert.equal((await outboundEdges(db.kysely, members[0].start_id, ['MemberOf']))[0].end_id, da.id);

    // the group file arrives later: same node, completed, edges intact
    await upsertNodes(db.kysely, [{ objectid: DA, kinds: ['Group', 'Base'], name: 'DOMAIN ADMINS@X.LOCAL',
      environmentId: 'S-1-5-21-1-2-3', properties: { admincount: true }, sourceKind: 'Base' }]);
    const completed = (await findNodeByObjectId(db.kysely, DA))!;
    assert.equal(completed.id, da.id);
    assert.equal(completed.is_placeholder, 0);
    assert.equal(completed.name, 'DOMAIN ADMINS@X.LOCAL');
    const total = await db.kysely.selectFrom('nodes').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    assert.equal(Number(total.n), 3, 'no shadow duplicate of the group');
    assert.deepEqual(Object.fromEntries(await countNodesByKind(db.kysely)), { CertTemplate: 1, Group: 1 });
  } finally {
    await db.close();
  }
});

test(`graph store on ${DIALECT}: objectid is unique and the traversal indexes exist`, async () => {
  const db = await createTestDb();
  try {
    const now = 1;
    const row = { objectid: 'X', kind: 'Base', kinds: '["Base"]', properties: '{}', is_placeholder: 0 as const, last_seen: now };
    await db.kysely.insertInto('nodes').values(row).execute();
    await assert.rejects(db.kysely.insertInto('nodes').values(row).execute());
    const indexes = DIALECT === 'sqlite'
      ? (await sql<{ name: string }>`select name from sqlite_master where type = 'index' and tbl_name in ('nodes', 'edges')`.execute(db.kysely)).rows
      : (await sql<{ name: string }>`select indexname as name from pg_indexes where schemaname = current_schema() and tablename in ('nodes', 'edges')`.execute(db.kysely)).rows;
    const names = indexes.map((r) => r.name);
    for (const n of ['nodes_kind', 'nodes_environment_kind', 'edges_end_kind_start']) assert.ok(names.includes(n), n);
    // SQLite names the indexes of UNIQUE constraints itself (sqlite_autoindex_<table>_N)
    assert.ok(names.some((n) => n.includes(DIALECT === 'sqlite' ? 'autoindex_nodes' : 'nodes_objectid')), 'unique objectid');
    assert.ok(names.some((n) => n.includes(DIALECT === 'sqlite' ? 'autoindex_edges' : 'edges_start_kind_end')), 'unique start/kind/end');
  } finally {
    await db.close();
  }
});
