import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestDb, DIALECT, type TestDb } from '../../test/harness.ts';
import { findNodeByObjectId, toNode } from '../store.repository.ts';
import { ingestFiles } from './ingest.service.ts';
import { JsonStreamScanner } from './json-stream.ts';
import { zipFiles } from '../../http/zip.ts';
import { readdirSync } from 'node:fs';
import { sql } from 'kysely';
import { createTestDb as freshDb } from '../../test/harness.ts';
import { FIXTURES } from '../../test/fixture-path.ts';

let db: TestDb;
let dir: string;
const file = (name: string, content: string | Buffer) => {
  const path = join(dir, name);
  writeFileSync(path, content);
  return { path };
};
const counts = async () => {
  const n = await db.kysely.selectFrom('nodes').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  const e = await db.kysely.selectFrom('edges').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  return { nodes: Number(n.n), edges: Number(e.n) };
};
const user = (sid: string, extra: object = {}) => ({
  ObjectIdentifier: sid, Properties: { name: `${sid}@X.LOCAL`, domainsid: 'S-1-5-21-9' }, Aces: [
    { PrincipalSID: 'S-1-5-21-9-512', PrincipalType: 'Group', RightName: 'GenericAll', IsInherited: false }], ...extra,
});

before(async () => {
  db = await createTestDb();
  dir = mkdtempSync(join(tmpdir(), 'scent-ingest-'));
});
after(async () => {
  await db.close();
  rmSync(dir, { recursive: true, force: true });
});

test('the JSON scanner yields the same events whatever the chunking', () => {
  const doc = Buffer.from('\ufeff{"data":[{"a":"x\\"]}\\\\","b":[1,{"c":2}]}, 3 , "s", null],"meta":{"type":"users"},"graph":{"nodes":[{"id":"1"}],"edges":[]},"x":12}');
  const run = (size: number) => {
    const s = new JsonStreamScanner(['data', 'graph.nodes', 'graph.edges']);
    const events = [];
    for (let i = 0; i < doc.length; i += size) events.push(...s.push(doc.subarray(i, i + size)));
    s.end();
    return events;
  };
  const whole = run(doc.length);
  assert.deepEqual(whole.map((e) => e.path), ['data', 'data', 'data', 'data', 'meta', 'graph.nodes', 'x']);
  assert.deepEqual(whole[0].value, { a: 'x"]}\\', b: [1, { c: 2 }] });
  for (const size of [1, 2, 3, 7, 64]) assert.deepEqual(run(size), whole, `chunks of ${size}`);
  const truncated = new JsonStreamScanner(['data']);
  truncated.push(doc.subarray(0, doc.length - 5));
  assert.throws(() => truncated.end(), /unexpected end/);
  assert.throws(() => new JsonStreamScanner(['data']).push(Buffer.from('[1,2]')), /not a JSON object/);
});

test(`ingest on ${DIALECT}: meta after data, a BOM, and a type from the object shape`, async () => {
  const body = `\ufeff{"data":[${JSON.stringify(user('S-1-5-21-9-1001', { PrimaryGroupSID: 'S-1-5-21-9-513', SPNTargets: [] }))}],"meta":{"type":"users","count":1,"version":6}}`;
  const [outcome] = await ingestFiles(db, [file('export.json', body)]);
  assert.equal(outcome.error, undefined);
  assert.equal(outcome.result!.type, 'users');
  const node = toNode((await findNodeByObjectId(db.kysely, 'S-1-5-21-9-1001'))!);
  assert.deepEqual(node.kinds, ['User', 'Base']);
  const noMeta = `{"data":[${JSON.stringify(user('S-1-5-21-9-1002', { PrimaryGroupSID: 'S-1-5-21-9-513' }))}]}`;
  const [second] = await ingestFiles(db, [file('nometa.json', noMeta)]);
  assert.equal(second.result?.type, 'users');
  // a meta block that arrives later still decides (the elements waited for it)
  const [late] = await ingestFiles(db, [file('late.json', `{"data":[${JSON.stringify(user('S-1-5-21-9-1003'))}],"meta":{"type":"groups"}}`)]);
  assert.equal(late.result?.type, 'groups');
  assert.equal((await findNodeByObjectId(db.kysely, 'S-1-5-21-9-1003'))!.kind, 'Group');
  // a file named by its type is read at once; a later meta must agree
  const [named] = await ingestFiles(db, [file('x_users.json', `{"data":[${JSON.stringify(user('S-1-5-21-9-1004'))}],"meta":{"type":"users"}}`)]);
  assert.equal(named.result?.type, 'users');
  const [clash] = await ingestFiles(db, [file('y_users.json', `{"data":[${JSON.stringify(user('S-1-5-21-9-1005'))}],"meta":{"type":"groups"}}`)]);
  assert.equal(clash.error, 'the file mixes users and groups data');
  assert.equal(await findNodeByObjectId(db.kysely, 'S-1-5-21-9-1005'), undefined);
});

test(`ingest on ${DIALECT}: a failing file leaves nothing half-written while the others land`, async () => {
  const before = await counts();
  const good = file('a_users.json', JSON.stringify({ meta: { type: 'users' }, data: [user('S-1-5-21-9-2001')] }));
  const many = Array.from({ length: 3000 }, (_, i) => user(`S-1-5-21-9-${5000 + i}`));
  const broken = file('b_users.json', JSON.stringify({ meta: { type: 'users' }, data: many }).slice(0, -40));
  const outcomes = await ingestFiles(db, [broken, good, { path: join(dir, 'missing.json') }], { batchSize: 100 });
  assert.match(outcomes[0].error!, /unexpected end of JSON input|invalid JSON/);
  assert.equal(outcomes[1].error, undefined);
  assert.equal(outcomes[2].error, 'file not found');
  assert.equal(await findNodeByObjectId(db.kysely, 'S-1-5-21-9-5000'), undefined, 'earlier batches of the broken file were rolled back');
  assert.ok(await findNodeByObjectId(db.kysely, 'S-1-5-21-9-2001'));
  const after = await counts();
  assert.equal(after.nodes, before.nodes + 1 + (before.nodes ? 0 : 1));
});

test(`ingest on ${DIALECT}: ids of a failed file are forgotten by the files after it`, async () => {
  // The object id cache is shared by the files of one run: ids the broken file inserted were rolled back.
  const many = Array.from({ length: 500 }, (_, i) => user(`S-1-5-21-9-${7000 + i}`));
  const broken = file('c_users.json', JSON.stringify({ meta: { type: 'users' }, data: many }).slice(0, -40));
  const group = {
    ObjectIdentifier: 'S-1-5-21-9-7900', Properties: { name: 'G7900@X.LOCAL', domainsid: 'S-1-5-21-9' },
    Members: [{ ObjectIdentifier: 'S-1-5-21-9-7000', ObjectType: 'User' }, { ObjectIdentifier: 'S-1-5-21-9-7499', ObjectType: 'User' }],
  };
  const good = file('c_groups.json', JSON.stringify({ meta: { type: 'groups' }, data: [group] }));
  const outcomes = await ingestFiles(db, [broken, good], { batchSize: 50 });
  assert.ok(outcomes[0].error);
  assert.equal(outcomes[1].error, undefined);
  const members = await db.kysely.selectFrom('edges as e').innerJoin('nodes as s', 's.id', 'e.start_id').innerJoin('nodes as t', 't.id', 'e.end_id')
    .select(['s.objectid as member', 's.is_placeholder']).where('t.objectid', '=', 'S-1-5-21-9-7900').where('e.kind', '=', 'MemberOf')
    .orderBy('s.objectid').execute();
  assert.deepEqual(members.map((m) => [m.member, Number(m.is_placeholder)]), [['S-1-5-21-9-7000', 1], ['S-1-5-21-9-7499', 1]]);
});

test(`ingest on ${DIALECT}: a zip of files, one transaction each`, async () => {
  const zip = zipFiles([
    { name: 'x_groups.json', data: JSON.stringify({ meta: { type: 'groups' }, data: [{ ObjectIdentifier: 'S-1-5-21-9-3000', Properties: { name: 'G@X' }, Members: [{ ObjectIdentifier: 'S-1-5-21-9-3001', ObjectType: 'User' }], Aces: [] }] }) },
    { name: 'bad.json', data: '{"meta":{"type":"nonsense"},"data":[]}' },
  ]);
  const outcomes = await ingestFiles(db, [{ path: file('upload.zip', zip).path, name: 'upload.zip' }]);
  assert.deepEqual(outcomes.map((o) => [o.name, o.error]), [
    ['upload.zip/x_groups.json', undefined], ['upload.zip/bad.json', 'unsupported meta.type: "nonsense"'],
  ]);
  const member = (await findNodeByObjectId(db.kysely, 'S-1-5-21-9-3001'))!;
  assert.equal(member.is_placeholder, 1);
  assert.equal(member.kind, 'User');
});

test(`ingest on ${DIALECT}: AzureHound entities and relationships`, async () => {
  const tenant = '6c12b0b0-b2cc-4a73-8252-0b94bfca2145';
  const doc = { meta: { type: 'azure', version: 5, count: 4 }, data: [
    { kind: 'AZTenant', data: { tenantId: tenant, displayName: 'Contoso' } },
    { kind: 'AZUser', data: { id: 'aaaaaaaa-0000-0000-0000-000000000001', displayName: 'Ann', userPrincipalName: 'ann@contoso.com', tenantId: tenant } },
    { kind: 'AZGroup', data: { id: 'bbbbbbbb-0000-0000-0000-000000000001', displayName: 'Admins', tenantId: tenant, securityEnabled: true } },
    { kind: 'AZGroupMember', data: { groupId: 'bbbbbbbb-0000-0000-0000-000000000001', members: [
      { groupId: 'bbbbbbbb-0000-0000-0000-000000000001', member: { '@odata.type': '#microsoft.graph.user', id: 'aaaaaaaa-0000-0000-0000-000000000001' } }] } },
  ] };
  const [outcome] = await ingestFiles(db, [file('azurehound.json', JSON.stringify(doc))]);
  assert.equal(outcome.error, undefined);
  const ann = toNode((await findNodeByObjectId(db.kysely, 'AAAAAAAA-0000-0000-0000-000000000001'))!);
  assert.deepEqual(ann.kinds, ['AZUser', 'AZBase']);
  assert.equal(ann.environmentId, tenant.toUpperCase());
  assert.equal(ann.name, 'ANN');
  assert.equal(outcome.result!.edges, 3, 'two AZContains from the tenant, one AZMemberOf');
});

test(`ingest on ${DIALECT}: OpenGraph nodes and edges matched by id, name and property (ids and names upper-cased, as BloodHound); validation fails the file`, async () => {
  // Before BloodHound parity OpenGraph ids and names were kept as given.
  const doc = { metadata: { source_kind: 'HR' }, graph: {
    nodes: [
      { id: 'p-1', kinds: ['Person'], properties: { name: 'Ann', email: 'ann@x', level: 3 } },
      { id: 'p-2', kinds: ['Person'], properties: { name: 'Bob', email: 'bob@x' } },
    ],
    edges: [
      { kind: 'Manages', start: { value: 'p-1' }, end: { value: 'P-2' } },
      { kind: 'Knows', start: { match_by: 'name', value: 'bob' }, end: { match_by: 'property', property_matchers: [{ key: 'email', operator: 'equals', value: 'ann@x' }] } },
      { kind: 'Knows', start: { match_by: 'name', value: 'Nobody' }, end: { value: 'p-1' } },
    ] } };
  const [ok] = await ingestFiles(db, [file('og.json', JSON.stringify(doc))]);
  assert.equal(ok.error, undefined);
  assert.equal(ok.result!.edges, 2);
  assert.deepEqual(ok.result!.warnings, ['graph.edges[2]: start matches no single node; edge skipped']);
  const ann = toNode((await findNodeByObjectId(db.kysely, 'P-1'))!);
  assert.deepEqual([ann.kinds, ann.name, ann.properties], [['Person', 'HR'], 'ANN', { name: 'ANN', email: 'ann@x', level: 3, objectid: 'P-1' }]);
  const bad = { graph: { nodes: [{ id: 'q', kinds: ['A', 'B', 'C', 'D'] }], edges: [] } };
  const [failed] = await ingestFiles(db, [file('og-bad.json', JSON.stringify(bad))]);
  assert.equal(failed.error, 'graph.nodes[0]: kinds must hold 1 to 3 kinds');
  const badEdge = { graph: { nodes: [], edges: [{ kind: 'Has Space', start: { value: 'a' }, end: { value: 'b' } }] } };
  const [failedEdge] = await ingestFiles(db, [file('og-bad2.json', JSON.stringify(badEdge))]);
  assert.equal(failedEdge.error, 'graph.edges[0]: kind must match ^[A-Za-z0-9_]+$');
  assert.equal(await findNodeByObjectId(db.kysely, 'Q'), undefined);
});

test(`ingest on ${DIALECT}: OpenGraph without metadata, with nodes only or nothing; warnings for edges to no node and mismatched objectids`, async () => {
  const [nodesOnly] = await ingestFiles(db, [file('og-nodes.json', JSON.stringify({ graph: { nodes: [{ id: 'n-1', kinds: ['Thing'] }, { id: 'n-2', kinds: ['Thing'], properties: { size: 2 } }] } }))]);
  assert.deepEqual([nodesOnly.error, nodesOnly.result!.type, nodesOnly.result!.nodes], [undefined, 'opengraph', 2]);
  const [empty] = await ingestFiles(db, [file('og-empty.json', '{"graph":{"nodes":[]}}')]);
  assert.deepEqual([empty.error, empty.result!.type, empty.result!.nodes], [undefined, 'opengraph', 0]);
  const doc = { graph: {
    edges: [
      { kind: 'Uses', start: { value: 'n-2' }, end: { value: 'ghost-1' } },
      { kind: 'Uses', start: { value: 'ghost-2', kind: 'Thing' }, end: { value: 'late' } },
    ],
    nodes: [{ id: 'late', kinds: ['Thing'], properties: { size: 1 } }, { id: 'odd', kinds: ['Thing'], properties: { objectid: 'other' } }],
  } };
  const [warned] = await ingestFiles(db, [file('og-dangling.json', JSON.stringify(doc))]);
  assert.equal(warned.error, undefined);
  assert.deepEqual(warned.result!.warnings, [
    'graph.nodes[1]: its objectid property "other" is not its id "odd"; node skipped',
    'graph.edges[0]: no node has the id "GHOST-1"; it was created without properties',
    'graph.edges[1]: no node has the id "GHOST-2"; it was created without properties',
  ]);
  const ghost = (await findNodeByObjectId(db.kysely, 'GHOST-1'))!;
  assert.deepEqual([ghost.is_placeholder, ghost.kind, ghost.kinds], [1, '', '[]'], 'an end that names no kind gives its node none');
  assert.deepEqual(JSON.parse((await findNodeByObjectId(db.kysely, 'GHOST-2'))!.kinds), ['Thing']);
  assert.equal(await findNodeByObjectId(db.kysely, 'ODD'), undefined);
});

test(`ingest on ${DIALECT}: a deleted file removes the objects it lists, with their edges`, async () => {
  const g = { ObjectIdentifier: 'S-1-5-21-9-8000', Properties: { name: 'G8000@X' }, Members: [
    { ObjectIdentifier: 'S-1-5-21-9-8001', ObjectType: 'User' }, { ObjectIdentifier: 'S-1-5-21-9-8002', ObjectType: 'User' }] };
  await ingestFiles(db, [file('d_groups.json', JSON.stringify({ meta: { type: 'groups' }, data: [g] }))]);
  const before = await counts();
  for (const parallel of ['never', 'always'] as const) {
    const victim = parallel === 'never' ? 's-1-5-21-9-8001' : { ObjectIdentifier: 'S-1-5-21-9-8002' };
    const [done] = await ingestFiles(db, [file(`x_${parallel}_deleted.json`, JSON.stringify({ meta: { type: 'deleted', version: 6 }, data: [victim, 'S-1-5-21-9-NONE'] }))], { parallel });
    assert.deepEqual([done.error, done.result!.type, done.result!.removed], [undefined, 'deleted', 1]);
  }
  assert.deepEqual(await counts(), { nodes: before.nodes - 2, edges: before.edges - 2 });
  assert.equal(await findNodeByObjectId(db.kysely, 'S-1-5-21-9-8001'), undefined);
  // named again later: a new node
  await ingestFiles(db, [file('d2_groups.json', JSON.stringify({ meta: { type: 'groups' }, data: [g] }))]);
  assert.equal((await findNodeByObjectId(db.kysely, 'S-1-5-21-9-8001'))!.is_placeholder, 1);
  const [loose] = await ingestFiles(db, [file('loose-deleted.json', JSON.stringify({ data: ['S-1-5-21-9-8001'] }))]);
  assert.deepEqual([loose.result?.type, loose.result?.removed], ['deleted', 1], 'recognised by its entries (object ids)');
});

test(`ingest on ${DIALECT}: the parse thread writes exactly what the in-process path writes`, async () => {
  const files = readdirSync(FIXTURES).filter((f) => f.endsWith('.json') && !f.startsWith('expected')).map((f) => ({ path: FIXTURES + f }));
  const snapshot = async (mode: 'never' | 'always') => {
    const d = await freshDb();
    try {
      const outcomes = await ingestFiles(d, files, { parallel: mode, batchSize: 97 });
      assert.deepEqual(outcomes.filter((o) => o.error), []);
      const rows = await sql<{ s: string; k: string; e: string; p: string }>`select s.objectid as s, e.kind as k, t.objectid as e, e.properties as p
        from edges e join nodes s on s.id = e.start_id join nodes t on t.id = e.end_id`.execute(d.kysely);
      const nodes = await sql<{ o: string; k: string; p: string; ph: number }>`select objectid as o, kinds as k, properties as p, is_placeholder as ph from nodes`.execute(d.kysely);
      return { edges: rows.rows.map((r) => JSON.stringify(r)).sort(), nodes: nodes.rows.map((r) => JSON.stringify({ ...r, ph: Number(r.ph) })).sort() };
    } finally {
      await d.close();
    }
  };
  const inProcess = await snapshot('never');
  const threaded = await snapshot('always');
  assert.equal(threaded.edges.length, inProcess.edges.length);
  assert.deepEqual(threaded.nodes, inProcess.nodes);
  assert.deepEqual(threaded.edges, inProcess.edges);
  // OpenGraph with a name matcher needs the database: the parse thread hands it back
  const og = file('og-thread.json', JSON.stringify({ graph: { nodes: [{ id: 'n-1', kinds: ['Thing'], properties: { name: 'One' } }],
    edges: [{ kind: 'Self', start: { match_by: 'name', value: 'One' }, end: { value: 'n-1' } }] } }));
  const [moved] = await ingestFiles(db, [og], { parallel: 'always' });
  assert.equal(moved.error, undefined);
  assert.equal(moved.result!.edges, 1);
});

test(`ingest on ${DIALECT}: a sessions file gives HasSession (computer → user) with logontype`, async () => {
  const doc = { meta: { type: 'sessions', count: 0, version: 6 }, data: [
    { ComputerSID: 's-1-5-21-9-1104', UserSID: 'S-1-5-21-9-2117', LogonType: 2 },
  ] };
  const [ok] = await ingestFiles(db, [file('20240101_sessions.json', JSON.stringify(doc))]);
  assert.equal(ok.error, undefined);
  assert.equal(ok.result!.type, 'sessions');
  const rows = await sql<{ s: string; sk: string; t: string; tk: string; p: string }>`select s.objectid as s, s.kinds as sk, t.objectid as t, t.kinds as tk, e.properties as p
    from edges e join nodes s on s.id = e.start_id join nodes t on t.id = e.end_id where e.kind = 'HasSession' and s.objectid = 'S-1-5-21-9-1104'`.execute(db.kysely);
  assert.deepEqual(rows.rows.map((r) => ({ ...r, p: JSON.parse(r.p) })), [
    { s: 'S-1-5-21-9-1104', sk: '["Computer","Base"]', t: 'S-1-5-21-9-2117', tk: '["User","Base"]', p: { logontype: 2 } },
  ]);
  const [noMeta] = await ingestFiles(db, [file('loose.json', JSON.stringify({ data: doc.data }))]);
  assert.equal(noMeta.result?.type, 'sessions', 'recognised by the entries\' shape');
  const [bad] = await ingestFiles(db, [file('bad_sessions.json', JSON.stringify({ meta: { type: 'sessions' }, data: [{ ComputerSID: 'S-1' }] }))]);
  assert.equal(bad.error, 'a sessions entry needs ComputerSID and UserSID');
});

test(`ingest on ${DIALECT}: OpenGraph metadata.source_kind "" or null means none; Tag_* kinds and derived properties are not read`, async () => {
  for (const [i, metadata] of [{ source_kind: '' }, { source_kind: null }].entries()) {
    const doc = { metadata, graph: { nodes: [{ id: `T-${i}`, kinds: ['Thing', 'Tag_Tier_Zero', 'Tag_Owned', 'Tag_X'], properties: { name: 'T', system_tags: 'admin_tier_0', lastseen: 'x', lastcollected: 'y', size: 1 } }], edges: [] } };
    const [ok] = await ingestFiles(db, [file(`og-meta-${i}.json`, JSON.stringify(doc))]);
    assert.equal(ok.error, undefined);
    const node = toNode((await findNodeByObjectId(db.kysely, `T-${i}`))!);
    assert.deepEqual(node.kinds, ['Thing']);
    assert.equal(node.sourceKind, null);
    assert.deepEqual(node.properties, { name: 'T', size: 1, objectid: `T-${i}` });
  }
  const [bad] = await ingestFiles(db, [file('og-tags-only.json', JSON.stringify({ graph: { nodes: [{ id: 'T-9', kinds: ['Tag_Tier_Zero'] }] } }))]);
  assert.equal(bad.error, 'graph.nodes[0]: kinds must hold 1 to 3 kinds');
});
