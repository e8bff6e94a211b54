import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestApp, createTestDb, DIALECT, errorOf, type TestApp } from '../../test/harness.ts';
import { upsertEdges, upsertNodes } from '../store.repository.ts';
import { ingestFiles } from '../ingest/ingest.service.ts';
import { assertGraphParity, exportGraph, type OpenGraphDoc } from '../parity.test-helpers.ts';

let t: TestApp;
let dir: string;
before(async () => {
  t = await createTestApp();
  dir = mkdtempSync(join(tmpdir(), 'scent-export-'));
  const k = t.db.kysely;
  const ids = await upsertNodes(k, [
    { objectid: 'S-1-5-21-1', kinds: ['Domain', 'Base'], name: 'CORP.LOCAL', environmentId: 'S-1-5-21-1', properties: { name: 'CORP.LOCAL', domainsid: 'S-1-5-21-1', objectid: 'S-1-5-21-1' }, sourceKind: 'Base' },
    { objectid: 'S-1-5-21-1-512', kinds: ['Group', 'Base'], name: 'DOMAIN ADMINS@CORP.LOCAL', environmentId: 'S-1-5-21-1', properties: { name: 'DOMAIN ADMINS@CORP.LOCAL', domainsid: 'S-1-5-21-1', admincount: true, objectid: 'S-1-5-21-1-512' }, sourceKind: 'Base' },
    { objectid: 'S-1-5-21-1-1105', kinds: ['User', 'Base'], name: 'ALICE@CORP.LOCAL', environmentId: 'S-1-5-21-1', properties: { name: 'ALICE@CORP.LOCAL', domainsid: 'S-1-5-21-1', serviceprincipalnames: ['a/b', 'c/d'], objectid: 'S-1-5-21-1-1105' }, sourceKind: 'Base' },
    { objectid: 'AAAA-1', kinds: ['AZUser', 'AZBase'], name: 'ANN', environmentId: 'T-1', properties: { tenantid: 'T-1', userprincipalname: 'ann@x', objectid: 'AAAA-1' }, sourceKind: 'AZBase' },
  ]);
  await upsertEdges(k, [
    { start: { objectid: 'S-1-5-21-1-1105' }, end: { objectid: 'S-1-5-21-1-512' }, kind: 'MemberOf', properties: { isacl: false, isprimarygroup: false } },
    { start: { objectid: 'S-1-5-21-1-512' }, end: { objectid: 'S-1-5-21-1' }, kind: 'GenericAll', properties: { isacl: true, isinherited: false } },
    { start: { objectid: 'S-1-5-21-1-9999', kinds: ['User', 'Base'] }, end: { objectid: 'S-1-5-21-1-512' }, kind: 'MemberOf' },
  ]);
  const tags = await k.selectFrom('asset_group_tags').select(['id', 'name']).execute();
  const tag = (name: string) => tags.find((x) => x.name === name)!.id;
  const member = (tagId: number, objectid: string, ord: number) => ({
    tag_id: tagId, node_id: ids.get(objectid)!, source: 1, objectid, name: objectid, primary_kind: 'Group', environment_id: 'S-1-5-21-1', ord,
  });
  await k.insertInto('asset_group_tag_members').values([
    member(tag('Tier Zero'), 'S-1-5-21-1-512', 0), member(tag('Tier Zero'), 'S-1-5-21-1', 1), member(tag('Owned'), 'S-1-5-21-1-1105', 0),
  ]).execute();
});
after(async () => {
  await t.close();
  rmSync(dir, { recursive: true, force: true });
});

const byId = (doc: OpenGraphDoc, id: string) => doc.graph.nodes.find((n) => n.id === id)!;

test(`GET /api/v2/graphs/export on ${DIALECT}: the whole graph as OpenGraph JSON, tags as BloodHound shows them`, async () => {
  const { token } = await t.login('Read-Only');
  const res = await t.request({ method: 'GET', url: '/api/v2/graphs/export', token });
  assert.equal(res.statusCode, 200);
  assert.equal(res.headers['content-type'], 'application/json');
  const doc = res.json() as OpenGraphDoc;
  assert.deepEqual(Object.keys(doc), ['metadata', 'graph']);
  assert.deepEqual(doc.metadata, { source_kind: '' });
  assert.equal(doc.graph.nodes.length, 5);
  assert.equal(doc.graph.edges.length, 3);
  const da = byId(doc, 'S-1-5-21-1-512');
  assert.deepEqual(da.kinds, ['Group', 'Base', 'Tag_Tier_Zero']);
  const { lastseen, ...rest } = da.properties!;
  assert.match(String(lastseen), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
  assert.deepEqual(rest, { name: 'DOMAIN ADMINS@CORP.LOCAL', domainsid: 'S-1-5-21-1', admincount: true, objectid: 'S-1-5-21-1-512', system_tags: 'admin_tier_0' });
  const alice = byId(doc, 'S-1-5-21-1-1105');
  assert.deepEqual(alice.kinds, ['User', 'Base', 'Tag_Owned']);
  assert.equal(alice.properties!.system_tags, undefined, 'only Tier Zero members get system_tags');
  assert.deepEqual(alice.properties!.serviceprincipalnames, ['a/b', 'c/d']);
  const stub = byId(doc, 'S-1-5-21-1-9999');
  assert.deepEqual(stub.kinds, ['User', 'Base']);
  assert.deepEqual(Object.keys(stub.properties!).sort(), ['lastseen', 'objectid'], 'an object only edges named: its id');
  assert.equal(byId(doc, 'AAAA-1').properties!.name, 'ANN', 'the display name shows as the name property');
  const ga = doc.graph.edges.find((e) => e.kind === 'GenericAll')!;
  assert.deepEqual(ga.start, { match_by: 'id', value: 'S-1-5-21-1-512' });
  assert.deepEqual(ga.end, { match_by: 'id', value: 'S-1-5-21-1' });
  assert.equal(ga.properties!.isacl, true);
  assert.match(String(ga.properties!.lastseen), /Z$/);
});

test(`GET /api/v2/graphs/export on ${DIALECT}: access and parameters`, async () => {
  assert.deepEqual(errorOf(await t.request({ method: 'GET', url: '/api/v2/graphs/export' })), { status: 401, messages: ['authentication is invalid'] });
  const upload = await t.login('Upload-Only');
  assert.deepEqual(errorOf(await t.request({ method: 'GET', url: '/api/v2/graphs/export', token: upload.token })), { status: 403, messages: ['not authorized'] });
  const { token } = await t.login('User');
  const res = await t.request({ method: 'GET', url: '/api/v2/graphs/export?nodes=1', token });
  assert.deepEqual(errorOf(res), { status: 400, messages: ['the specified column cannot be filtered: nodes'] });
});

test(`export → import on ${DIALECT}: the same graph (tag kinds and system_tags are derived, not read back)`, async () => {
  const exported = await exportGraph(t.db);
  const path = join(dir, 'export.json');
  writeFileSync(path, JSON.stringify(exported));
  const db = await createTestDb();
  try {
    const [outcome] = await ingestFiles(db, [{ path }]);
    assert.equal(outcome.error, undefined);
    const back = await exportGraph(db);
    assertGraphParity(back, exported, 'round trip', {
      'tag kinds are derived': (d) => d.what === 'node kinds' && d.expected.some((k) => k.startsWith('Tag_')),
      'system_tags is derived': (d) => d.what === 'node property' && d.key === 'system_tags',
    });
    const rows = async (d: typeof db) => (await d.kysely.selectFrom('nodes')
      .select(['objectid', 'kind', 'kinds', 'name', 'environment_id', 'properties', 'source_kind', 'is_placeholder']).orderBy('objectid').execute())
      .map((r) => ({ ...r, is_placeholder: Number(r.is_placeholder), properties: JSON.parse(r.properties) }));
    const [a, b] = [await rows(t.db), await rows(db)];
    // what the export adds for display is read back as properties
    a.find((r) => r.objectid === 'AAAA-1')!.properties.name = 'ANN';
    assert.deepEqual(b, a, 'kinds, names, environments, source kinds and placeholders survive');
  } finally {
    await db.close();
  }
});
