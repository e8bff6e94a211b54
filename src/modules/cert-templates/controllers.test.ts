import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, errorOf, type TestApp } from '../../test/harness.ts';
import { upsertEdges, upsertNodes } from '../../graph/store.repository.ts';

/*
 * TPL-1 (CertTemplate) ← GenericAll ─ GA (Group) ← MemberOf ─ UA1, UA2, GN (Group) ← MemberOf ─ UN1
 *                                       GA ─MemberOf→ GN (a cycle)
 *                      ← Enroll ─ UD;  ← Owns ─ UA1 (also a member: counted once)
 *                      ← WriteDacl ─ S-PH (a placeholder: only an edge names it)
 *                      ← ForceChangePassword ─ UX, ← HasSession ─ UX (not control edges)
 */
let t: TestApp;
let reader: string;
before(async () => {
  t = await createTestApp();
  reader = (await t.login('Read-Only')).token;
  // Properties as ingest writes them (objectid among them).
  const u = (objectid: string, name: string, kind = 'User') => ({ objectid, kinds: [kind, 'Base'], name, properties: { name, objectid } });
  await upsertNodes(t.db.kysely, [
    { objectid: 'TPL-1', kinds: ['CertTemplate', 'Base'], name: 'ESC1@CORP.LOCAL', properties: { name: 'ESC1@CORP.LOCAL', objectid: 'TPL-1', enrolleesuppliessubject: true } },
    u('GA', 'ADMINS@CORP.LOCAL', 'Group'), u('GN', 'NESTED@CORP.LOCAL', 'Group'),
    u('UA1', 'ALICE@CORP.LOCAL'), u('UA2', 'ZED@CORP.LOCAL'), u('UN1', 'BOB@CORP.LOCAL'), u('UD', 'BOB@CORP.LOCAL'),
    u('UX', 'XAVIER@CORP.LOCAL'),
  ]);
  const e = (start: string, kind: string, end = 'TPL-1') => ({ start: { objectid: start }, end: { objectid: end }, kind });
  await upsertEdges(t.db.kysely, [
    e('GA', 'GenericAll'), e('UD', 'Enroll'), e('UA1', 'Owns'), e('S-PH', 'WriteDacl'),
    e('UX', 'ForceChangePassword'), e('UX', 'HasSession'),
    e('UA1', 'MemberOf', 'GA'), e('UA2', 'MemberOf', 'GA'), e('GN', 'MemberOf', 'GA'),
    e('UN1', 'MemberOf', 'GN'), e('GA', 'MemberOf', 'GN'),
  ]);
});
after(() => t.close());

const controllers = (query: Record<string, string | string[]> = {}, id = 'TPL-1', token = reader) =>
  t.request({ method: 'GET', url: `/api/v2/certtemplates/${id}/controllers`, token, query });
const ids = (res: { json(): { data: Array<{ objectID: string }> } }) => res.json().data.map((c) => c.objectID);

test('controllers happy path: direct holders + transitive members, distinct, default order name then objectid', async () => {
  const res = await controllers({ limit: '0' });
  assert.equal(res.statusCode, 200);
  const body = res.json();
  assert.deepEqual([body.count, body.skip, body.limit], [7, 0, 0]);
  assert.deepEqual(ids(res), ['GA', 'UA1', 'UD', 'UN1', 'GN', 'S-PH', 'UA2']);
  assert.deepEqual(body.data[0], { objectID: 'GA', name: 'ADMINS@CORP.LOCAL', label: 'Group', kinds: ['Group', 'Base'] });
  assert.deepEqual(body.data[5], { objectID: 'S-PH', name: 'S-PH', label: 'Base', kinds: ['Base'] });
});

test('controllers paging: defaults 0/10, skip/limit, skip past the end', async () => {
  const first = (await controllers()).json();
  assert.deepEqual([first.count, first.skip, first.limit, first.data.length], [7, 0, 10, 7]);
  assert.deepEqual(ids(await controllers({ skip: '2', limit: '3' })), ['UD', 'UN1', 'GN']);
  const past = (await controllers({ skip: '50' })).json();
  assert.deepEqual([past.count, past.data], [7, []]);
});

test('controllers sort: label, -name, objectid', async () => {
  assert.deepEqual(ids(await controllers({ sort_by: 'label' })), ['S-PH', 'GA', 'GN', 'UA1', 'UA2', 'UN1', 'UD']);
  assert.deepEqual(ids(await controllers({ sort_by: '-name' })), ['UA2', 'S-PH', 'GN', 'UN1', 'UD', 'UA1', 'GA']);
  assert.deepEqual(ids(await controllers({ sort_by: 'objectid' })), ['GA', 'GN', 'S-PH', 'UA1', 'UA2', 'UD', 'UN1']);
  assert.deepEqual(ids(await controllers({ sort_by: ['label', '-objectid'] })), ['S-PH', 'GN', 'GA', 'UN1', 'UD', 'UA2', 'UA1']);
});

test('controllers type=graph: BloodHound\'s flat graph map, bare: node entries by node id, rel_<id> edge entries', async () => {
  const res = await controllers({ type: 'graph' });
  assert.equal(res.statusCode, 200);
  assert.equal(res.headers['content-type'], 'application/json');
  const map = res.json() as Record<string, { id1?: string; id2?: string; label: { text: string }; data?: Record<string, unknown> }>;
  assert.equal('data' in map && !('color' in (map.data as object)), false, 'not wrapped in data');
  const nodeIds = new Map<string, string>();
  for (const [key, entry] of Object.entries(map)) {
    if (key.startsWith('rel_')) continue;
    assert.match(key, /^\d+$/);
    // The placeholder S-PH has no properties (only an edge named it): found by its label.
    nodeIds.set(key, (entry.data!.objectid as string | undefined) ?? entry.label.text);
  }
  assert.deepEqual([...nodeIds.values()].sort(), ['GA', 'GN', 'S-PH', 'TPL-1', 'UA1', 'UA2', 'UD', 'UN1']);
  const tpl = [...Object.entries(map)].find(([, e]) => e.data?.objectid === 'TPL-1')![1] as Record<string, unknown>;
  assert.deepEqual(tpl.label, { backgroundColor: 'rgba(255,255,255,0.9)', center: true, fontSize: 14, text: 'ESC1@CORP.LOCAL' });
  assert.deepEqual([tpl.color, tpl.fontIcon, tpl.border, tpl.size], ['#B153F3', { text: 'fas fa-id-card' }, { color: 'black' }, 1]);
  assert.equal((tpl.data as Record<string, unknown>).nodetype, 'CertTemplate');
  assert.equal((tpl.data as Record<string, unknown>).enrolleesuppliessubject, true);
  const edges = Object.entries(map).filter(([k]) => k.startsWith('rel_')).map(([, e]) => `${nodeIds.get(e.id1!)}-${e.label.text}->${nodeIds.get(e.id2!)}`);
  // Every controller reaches the template: its control edge, or the MemberOf edges to a holder.
  for (const edge of ['GA-GenericAll->TPL-1', 'S-PH-WriteDacl->TPL-1', 'UA1-Owns->TPL-1', 'UD-Enroll->TPL-1', 'UA2-MemberOf->GA', 'UN1-MemberOf->GN']) {
    assert.ok(edges.includes(edge), `${edge} in ${edges.join(', ')}`);
  }
  assert.ok(edges.includes('GN-MemberOf->GA'));
  assert.ok(edges.every((e) => !e.includes('undefined')), 'every edge joins two nodes of the map');
  assert.ok(!edges.some((e) => e.includes('ForceChangePassword') || e.includes('HasSession')));
  // type=list stays the default; any other type is a 400.
  assert.deepEqual(errorOf(await controllers({ type: 'tree' })), { status: 400, messages: ['query parameter "type" is malformed'] });
});

test('controllers follow graph changes (the cached set is keyed by the graph state)', async () => {
  assert.equal((await controllers()).json().count, 7);
  await upsertEdges(t.db.kysely, [{ start: { objectid: 'UX' }, end: { objectid: 'TPL-1' }, kind: 'ManageCertificates' }]);
  const after = await controllers({ limit: '0' });
  assert.equal(after.json().count, 8);
  assert.ok(ids(after).includes('UX'));
});

test('controllers bad input: exact 400 messages', async () => {
  const cases: Array<[Record<string, string>, string]> = [
    [{ type: 'count' }, 'query parameter "type" is malformed'],
    [{ sort_by: 'kind' }, 'column format does not support sorting: kind'],
    [{ name: 'x' }, 'the specified column cannot be filtered: name'],
    [{ skip: '-1' }, 'query parameter "skip" is malformed'],
  ];
  for (const [query, message] of cases) assert.deepEqual(errorOf(await controllers(query)), { status: 400, messages: [message] }, message);
});

test('controllers 401, 403, 404 (unknown id, not a CertTemplate); lower-case object ids resolve', async () => {
  assert.deepEqual(errorOf(await controllers({}, 'TPL-1', '')), { status: 401, messages: ['authentication is invalid'] });
  const uploader = (await t.login('Upload-Only')).token;
  assert.deepEqual(errorOf(await controllers({}, 'TPL-1', uploader)), { status: 403, messages: ['not authorized'] });
  assert.deepEqual(errorOf(await controllers({}, 'NOPE')), { status: 404, messages: ['resource not found'] });
  assert.deepEqual(errorOf(await controllers({}, 'UA1')), { status: 404, messages: ['resource not found'] });
  assert.equal((await controllers({}, 'tpl-1')).json().count, 8);
});

test('GET /certtemplates/{object_id}: the node and its controller count', async () => {
  const res = await t.request({ method: 'GET', url: '/api/v2/certtemplates/TPL-1', token: reader });
  assert.deepEqual(res.json(), {
    data: {
      kind: 'CertTemplate', kinds: ['CertTemplate', 'Base'], controllers: 8,
      props: { name: 'ESC1@CORP.LOCAL', enrolleesuppliessubject: true, objectid: 'TPL-1' },
    },
  });
  assert.deepEqual(errorOf(await t.request({ method: 'GET', url: '/api/v2/certtemplates/UA1', token: reader })), { status: 404, messages: ['resource not found'] });
});
