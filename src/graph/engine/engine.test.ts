import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { createTestDb, DIALECT, type TestDb } from '../../test/harness.ts';
import { upsertEdges, upsertNodes } from '../store.repository.ts';
import { graphEngine, type GraphView } from './index.ts';

/*
 *   D (Domain) ─Contains→ OU ─Contains→ U1, C1, G2
 *   U1 ─MemberOf→ G1 (primary group edge {isprimarygroup: true})   U2 ─MemberOf→ G2 ─MemberOf→ G1
 *   G1 ─MemberOf→ G3 ─MemberOf→ G1 (a cycle)
 *   Paths U1 → T (Tier Zero group): U1 ─AdminTo→ C1 ─HasSession→ A1 ─MemberOf→ T
 *                                    U1 ─AdminTo→ C2 ─HasSession→ A2 ─MemberOf→ T   (two of length 3)
 *                                    U1 ─GenericAll→ X ─ForceChangePassword→ Y ─AddMember→ Z ─MemberOf→ T (length 4)
 */
let db: TestDb;
let ids: Map<string, number>;
const id = (oid: string) => ids.get(oid)!;
const oids = (list: Iterable<number>) => [...list].map((n) => [...ids].find(([, v]) => v === n)?.[0] ?? `#${n}`).sort();

before(async () => {
  db = await createTestDb();
  const n = (objectid: string, kind: string, env = 'S-1') => ({ objectid, kinds: [kind, 'Base'], name: `${objectid}@X`, environmentId: env, properties: { name: `${objectid}@X` }, sourceKind: 'Base' });
  ids = await upsertNodes(db.kysely, [
    n('D', 'Domain'), n('OU', 'OU'), n('U1', 'User'), n('U2', 'User'), n('C1', 'Computer'), n('C2', 'Computer', 'S-2'),
    n('G1', 'Group'), n('G2', 'Group'), n('G3', 'Group'), n('T', 'Group'), n('A1', 'User'), n('A2', 'User'),
    n('X', 'User'), n('Y', 'User'), n('Z', 'Group'),
  ]);
  const e = (start: string, kind: string, end: string, properties?: Record<string, unknown>) => ({ start: { objectid: start }, end: { objectid: end }, kind, properties });
  await upsertEdges(db.kysely, [
    e('D', 'Contains', 'OU'), e('OU', 'Contains', 'U1'), e('OU', 'Contains', 'C1'), e('OU', 'Contains', 'G2'),
    e('U1', 'MemberOf', 'G1', { isprimarygroup: true }), e('U2', 'MemberOf', 'G2'), e('G2', 'MemberOf', 'G1'),
    e('G1', 'MemberOf', 'G3'), e('G3', 'MemberOf', 'G1'),
    e('U1', 'AdminTo', 'C1'), e('C1', 'HasSession', 'A1'), e('A1', 'MemberOf', 'T'),
    e('U1', 'AdminTo', 'C2'), e('C2', 'HasSession', 'A2'), e('A2', 'MemberOf', 'T'),
    e('U1', 'GenericAll', 'X'), e('X', 'ForceChangePassword', 'Y'), e('Y', 'AddMember', 'Z'), e('Z', 'MemberOf', 'T'),
  ]);
  ids = new Map((await db.kysely.selectFrom('nodes').select(['objectid', 'id']).execute()).map((r) => [r.objectid, Number(r.id)]));
});
after(() => db.close());

const view = (): Promise<GraphView> => graphEngine(db).view();

test(`engine on ${DIALECT}: node kinds, environments, nodes by kind (secondary kinds too)`, async () => {
  const v = await view();
  assert.equal(v.nodeCount, 15);
  assert.equal(v.edgeCount, 19);
  assert.deepEqual(v.kinds(id('U1')), ['User', 'Base']);
  assert.equal(v.primaryKind(id('G1')), 'Group');
  assert.ok(v.hasKind(id('G1'), 'Base'));
  assert.ok(!v.hasKind(id('G1'), 'User'));
  assert.equal(v.environment(id('C2')), 'S-2');
  assert.deepEqual(oids(v.nodesWithKind('Computer')), ['C1', 'C2']);
  assert.equal(v.nodesWithKind('Base').length, 15);
  assert.deepEqual(oids(v.nodesWithKind('Computer', 'S-1')), ['C1']);
  assert.deepEqual(v.nodesWithKind('NoSuchKind'), []);
  assert.deepEqual(v.kinds(999_999), []);
});

test(`engine on ${DIALECT}: neighbours by kind and direction, membership expansion with primary groups and cycles`, async () => {
  const v = await view();
  assert.deepEqual(v.edgesOf(id('G1'), 'inbound', ['MemberOf']).map((e) => e.start).sort(), [id('U1'), id('G2'), id('G3')].sort());
  assert.deepEqual(v.edgesOf(id('U1'), 'outbound').map((e) => e.kind).sort(), ['AdminTo', 'AdminTo', 'GenericAll', 'MemberOf']);
  assert.deepEqual(v.edgesOf(id('U1'), 'both', ['Contains']).map((e) => e.start), [id('OU')]);
  assert.deepEqual(oids(v.members(id('G1'))), ['G2', 'G3', 'U1', 'U2']);
  assert.deepEqual(oids(v.memberships(id('U2'))), ['G1', 'G2', 'G3']);
  assert.deepEqual(oids(v.contents(id('D'))), ['C1', 'G2', 'OU', 'U1']);
  const e = v.edgesBetween(id('U1'), id('G1'))[0];
  assert.deepEqual(v.edge(e.id), e);
  const [record] = await v.edgeDetails([e.id]);
  assert.deepEqual(record.properties, { isprimarygroup: true });
});

test(`engine on ${DIALECT}: all shortest paths (two of equal length), kind filters, no path`, async () => {
  const v = await view();
  const all = v.shortestPaths([id('U1')], [id('T')]);
  assert.equal(all?.length, 3);
  const pairs = (edges: Array<{ start: number; kind: string; end: number }>) => edges.map((e) => `${oids([e.start])[0]}-${e.kind}->${oids([e.end])[0]}`).sort();
  assert.deepEqual(pairs(all!.edges), [
    'A1-MemberOf->T', 'A2-MemberOf->T', 'C1-HasSession->A1', 'C2-HasSession->A2', 'U1-AdminTo->C1', 'U1-AdminTo->C2',
  ]);
  const acl = v.shortestPaths([id('U1')], [id('T')], ['GenericAll', 'ForceChangePassword', 'AddMember', 'MemberOf']);
  assert.deepEqual(pairs(acl!.edges), ['U1-GenericAll->X', 'X-ForceChangePassword->Y', 'Y-AddMember->Z', 'Z-MemberOf->T']);
  assert.equal(v.shortestPaths([id('T')], [id('U1')]), null, 'edges are directed');
  assert.equal(v.shortestPaths([id('U1')], [id('T')], ['MemberOf']), null);
  assert.equal(v.shortestPaths([id('U1')], [id('T')], undefined, 2), null, 'depth bound');
});

test(`engine on ${DIALECT}: variable-length expansion (edge-unique paths) and reachability`, async () => {
  const v = await view();
  const paths: string[] = [];
  v.expand([id('U2')], { direction: 'outbound', kinds: ['MemberOf'], minDepth: 1, maxDepth: 5 }, (p) => {
    paths.push(p.edges.map((e) => oids([e.end])[0]).join('>'));
  });
  // U2>G2>G1>G3>G1 repeats a node but no edge: Cypher allows it; the next step would reuse G1→G3.
  assert.deepEqual(paths.sort(), ['G2', 'G2>G1', 'G2>G1>G3', 'G2>G1>G3>G1']);
  assert.throws(() => v.expand([id('U2')], { direction: 'outbound', kinds: ['MemberOf'], maxDepth: 5 }, () => {}, 3), /graph result limit of 3/);
  const reach = v.reachable([id('U2')], { direction: 'outbound', kinds: ['MemberOf'], minDepth: 2, maxDepth: 9 });
  assert.deepEqual(oids(reach.keys()), ['G1', 'G3']);
  assert.equal(reach.get(id('G3')), 3);
});

test(`engine on ${DIALECT}: expansion skips excluded edges; both directions walk a node's edges once each`, async () => {
  const v = await view();
  const ends = (starts: number[], hop: Parameters<GraphView['expand']>[1]) => {
    const out: string[] = [];
    v.expand(starts, hop, (p) => void out.push(p.edges.map((e) => oids([e.end])[0]).join('>')));
    return out.sort();
  };
  const g2g1 = v.edgesBetween(id('G2'), id('G1'))[0].id;
  assert.deepEqual(ends([id('U2')], { direction: 'outbound', kinds: ['MemberOf'], maxDepth: 5, exclude: new Set([g2g1]) }), ['G2']);
  // G1's MemberOf edges either way: U1→G1, G2→G1, G3→G1 in, G1→G3 out: four one-step trails.
  assert.equal(ends([id('G1')], { direction: 'both', kinds: ['MemberOf'] }).length, 4);
});

test(`engine on ${DIALECT}: breadth-first levels for Cypher's shortestPath: first parent or every parent, stop at a target`, async () => {
  const v = await view();
  const one = v.shortestTree(id('U1'), { direction: 'outbound', kinds: undefined }, false);
  assert.deepEqual(oids(one.reached), oids(['G1', 'C1', 'C2', 'X', 'G3', 'A1', 'A2', 'Y', 'T', 'Z'].map(id)));
  assert.equal(one.parents(id('T')).length, 1);
  const all = v.shortestTree(id('U1'), { direction: 'outbound', kinds: undefined }, true);
  assert.deepEqual(oids(all.parents(id('T')).map((p) => p.from)), ['A1', 'A2'], 'both length-3 paths; Z (length 4) is not a parent');
  assert.deepEqual(oids(all.parents(id('A1')).map((p) => p.from)), ['C1']);
  const bounded = v.shortestTree(id('U1'), { direction: 'outbound', kinds: undefined, maxDepth: 2 }, true);
  assert.ok(!bounded.reached.includes(id('T')));
  const stopped = v.shortestTree(id('U1'), { direction: 'outbound', kinds: undefined }, false, [id('C1')]);
  assert.deepEqual(oids(stopped.reached), ['C1', 'C2', 'G1', 'X'], 'the level that reaches C1 is the last');
  const both = v.shortestTree(id('U1'), { direction: 'outbound', kinds: undefined }, false, [id('C1'), id('A1')]);
  assert.deepEqual(oids(both.reached), ['A1', 'A2', 'C1', 'C2', 'G1', 'G3', 'X', 'Y'], 'on until the level that reaches the last of them');
  const back = v.shortestTree(id('T'), { direction: 'inbound', kinds: ['MemberOf'] }, true);
  assert.deepEqual(oids(back.reached), ['A1', 'A2', 'Z']);
  assert.ok(all.work > 0);
});

test(`engine on ${DIALECT}: walks collect reached nodes, terminals, and the edges towards chosen targets`, async () => {
  const v = await view();
  // Local-admin style: inbound AdminTo|MemberOf, not past a User/Computer after the root.
  const w = v.walk({
    roots: [id('C1')], direction: 'inbound', kinds: ['AdminTo', 'MemberOf'],
    expand: (n, depth) => depth === 0 || !v.hasAnyKind(n, ['User', 'Computer']),
  });
  assert.deepEqual(oids(w.reached), ['C1', 'U1']);
  assert.deepEqual(oids(w.terminals), ['U1']);
  const m = v.walk({ roots: [id('G1')], direction: 'inbound', kinds: ['MemberOf'] });
  // G3's only member is G1, the root: the step back onto the walk's path is not taken, so G3 ends a path.
  assert.deepEqual(oids(m.terminals), ['G3', 'U1', 'U2']);
  assert.equal(m.depth(id('U2')), 2);
  const towards = m.edgesTowards([id('U2')]).map((e) => `${oids([e.start])[0]}>${oids([e.end])[0]}`).sort();
  assert.deepEqual(towards, ['G2>G1', 'U2>G2']);
});

test(`engine on ${DIALECT}: tag membership shows as Tag_* kinds`, async () => {
  await db.kysely.insertInto('asset_group_tag_members').values({
    tag_id: 1, node_id: id('T'), source: 1, objectid: 'T', name: 'T@X', primary_kind: 'Group', environment_id: 'S-1', ord: 0,
  }).execute();
  const v = await view();
  assert.deepEqual(v.kinds(id('T')), ['Group', 'Base', 'Tag_Tier_Zero']);
  assert.ok(v.isTierZero(id('T')) && !v.isOwned(id('T')));
  assert.deepEqual(oids(v.nodesWithKind('Tag_Tier_Zero')), ['T']);
  const [t] = await v.nodes([id('T')], { properties: true });
  assert.deepEqual([t.objectid, t.name, t.primaryKind, t.isTierZero, t.properties], ['T', 'T@X', 'Group', true, { name: 'T@X' }]);
  assert.ok(v.allKinds().includes('Tag_Owned'));
  await db.kysely.deleteFrom('asset_group_tag_members').execute();
  assert.ok(!(await view()).isTierZero(id('T')));
});

test(`engine on ${DIALECT}: current after inserts, edge and node deletes, kind and environment changes`, async () => {
  const engine = graphEngine(db);
  const before = await engine.view();
  const computers = before.nodesWithKind('Computer');
  assert.deepEqual(before.nodesWithKind('Computer', 'S-9'), []);
  await upsertEdges(db.kysely, [{ start: { objectid: 'U2' }, end: { objectid: 'NEW' , kinds: ['Computer', 'Base'] }, kind: 'AdminTo' }]);
  let v = await engine.view();
  const fresh = Number((await db.kysely.selectFrom('nodes').select('id').where('objectid', '=', 'NEW').executeTakeFirstOrThrow()).id);
  assert.equal(v.nodeCount, before.nodeCount + 1);
  assert.deepEqual(v.edgesOf(id('U2'), 'outbound', ['AdminTo']).map((e) => e.end), [fresh]);
  assert.deepEqual(v.kinds(fresh), ['Computer', 'Base']);
  assert.deepEqual(v.nodesWithKind('Computer'), [...computers, fresh], 'kind lists follow the graph');
  assert.deepEqual(before.nodesWithKind('Computer'), computers);
  assert.equal(before.edgesOf(id('U2'), 'outbound', ['AdminTo']).length, 0, 'an older view is a stable snapshot');

  await db.kysely.deleteFrom('edges').where('start_id', '=', id('A1')).where('kind', '=', 'MemberOf').execute();
  v = await engine.view();
  assert.equal(v.shortestPaths([id('U1')], [id('T')])!.edges.length, 3, 'one of the two paths is gone');

  await upsertNodes(db.kysely, [{ objectid: 'X', kinds: ['Computer', 'Base'], environmentId: 'S-9', sourceKind: 'Base' }]);
  v = await engine.view();
  assert.deepEqual(v.kinds(id('X')), ['Computer', 'Base', 'User'], 'kinds accumulate (as in BloodHound); the new primary kind first');
  assert.equal(v.environment(id('X')), 'S-9');
  assert.deepEqual(v.nodesWithKind('Computer', 'S-9'), [id('X')]);
  assert.ok(v.nodesWithKind('Computer').includes(id('X')));

  await db.kysely.deleteFrom('edges').where((eb) => eb.or([eb('start_id', '=', fresh), eb('end_id', '=', fresh)])).execute();
  await db.kysely.deleteFrom('nodes').where('id', '=', fresh).execute();
  v = await engine.view();
  assert.ok(!v.has(fresh));
  assert.equal(v.edgesOf(id('U2'), 'outbound', ['AdminTo']).length, 0);
  // Everything the engine holds equals a fresh load of the same database.
  const fullLoad = await graphEngine(Object.create(db) as TestDb).view();
  assert.deepEqual(summary(v), summary(fullLoad));
});

test(`engine on ${DIALECT}: a pruned change log or a TRUNCATE makes the next refresh a full load`, async () => {
  const engine = graphEngine(db);
  await engine.view();
  const loads = engine.stats.fullLoads;
  await db.kysely.updateTable('graph_changes_pruned').set({ upto: 1_000_000_000 }).execute();
  await db.kysely.deleteFrom('edges').where('kind', '=', 'Contains').execute();
  const v = await engine.view();
  assert.equal(engine.stats.fullLoads, loads + 1);
  assert.equal(v.edgesOf(id('D'), 'outbound', ['Contains']).length, 0);
  await db.kysely.updateTable('graph_changes_pruned').set({ upto: 0 }).execute();
  if (DIALECT === 'postgres') {
    await sql`truncate edges`.execute(db.kysely);
    assert.equal((await engine.view()).edgeCount, 0);
  }
});

function summary(v: GraphView) {
  const nodes = Array.from(v.nodeIds(), (n) => `${n}:${v.kinds(n).join(',')}:${v.environment(n)}`);
  const edges = Array.from(v.nodeIds(), (n) => v.edgesOf(n, 'outbound').map((e) => `${e.id}:${e.start}-${e.kind}-${e.end}`)).flat().sort();
  return { nodes, edges };
}

test(`engine on ${DIALECT}: a second instance sees the first one's writes within a second`, async () => {
  const { mkdtempSync, rmSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { createDb } = await import('../../db/create-db.ts');
  const { migrateToLatest } = await import('../../db/migrate.ts');
  const dir = DIALECT === 'sqlite' ? mkdtempSync(`${tmpdir()}/scent-engine-`) : '';
  const url = DIALECT === 'sqlite' ? `sqlite:${dir}/two.sqlite` : db.url;
  const first = DIALECT === 'sqlite' ? createDb(url) : db;
  if (DIALECT === 'sqlite') await migrateToLatest(first);
  const second = createDb(url);
  try {
    await upsertEdges(first.kysely, [{ start: { objectid: 'M1', kinds: ['User', 'Base'] }, end: { objectid: 'M2', kinds: ['Group', 'Base'] }, kind: 'MemberOf' }]);
    const engine = graphEngine(second);
    const oid = async (o: string) => Number((await second.kysely.selectFrom('nodes').select('id').where('objectid', '=', o).executeTakeFirstOrThrow()).id);
    const m2 = await oid('M2');
    assert.equal((await engine.view()).members(m2).length, 1);
    const written = Date.now();
    await upsertEdges(first.kysely, [{ start: { objectid: 'M3', kinds: ['User', 'Base'] }, end: { objectid: 'M2' }, kind: 'MemberOf' }]);
    await first.kysely.deleteFrom('edges').where('start_id', '=', await oid('M1')).execute();
    const m3 = await oid('M3');
    for (;;) {
      second.versions.refresh(1); // what every HTTP request does first
      const members = (await engine.view()).members(m2);
      if (members.length === 1 && members[0] === m3) break;
      assert.ok(Date.now() - written < 1000, `not seen within a second: ${members}`);
      await new Promise((r) => setTimeout(r, 10));
    }
  } finally {
    await second.close();
    if (DIALECT === 'sqlite') {
      await first.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }
});
