import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, errorOf, type TestApp } from '../../test/harness.ts';
import { buildEntityGraph, D1, D2 } from '../../test/entity-graph.ts';

let t: TestApp;
let reader: string;
let ids: Map<string, number>;
before(async () => {
  t = await createTestApp();
  reader = (await t.login('Read-Only')).token;
  ids = await buildEntityGraph(t.db);
});
after(() => t.close());

const get = (url: string, query: Record<string, string | string[]> = {}, token = reader) =>
  t.request({ method: 'GET', url: `/api/v2/${url}`, token, query });
const listOf = async (url: string, query: Record<string, string> = {}) => {
  const res = await get(url, { limit: '0', ...query });
  assert.equal(res.statusCode, 200, `${url}: ${res.body}`);
  return res.json() as { count: number; skip: number; limit: number; data: Array<{ objectID: string; name: string; label: string; kinds: string[] }> };
};

/** Every related list on the hand-built graph (src/test/entity-graph.ts), with its hand-derived members, and its count key. */
const EXPECTED: Array<[string, string | null, string[]]> = [
  ['users/U1/sessions', 'sessions', ['C1']],
  ['users/U1/memberships', 'groupMembership', ['DU']], // primary group only
  ['users/U1/admin-rights', 'adminRights', []],
  ['users/U1/controllables', 'controllables', ['CN1', 'U2', 'U3']], // direct, and through Domain Users (primary group)
  ['users/U1/controllers', 'controllers', []],
  ['users/U2/admin-rights', 'adminRights', ['C2']],
  ['users/U2/rdp-rights', 'rdpRights', ['C1']],
  ['users/U2/dcom-rights', 'dcomRights', []],
  ['users/U2/ps-remote-rights', 'psRemoteRights', []],
  ['users/U2/sql-admin-rights', 'sqlAdmin', ['C1']],
  ['users/U2/constrained-delegation-rights', 'constrainedDelegation', []],
  ['users/U2/controllers', 'controllers', ['U1']],
  ['users/U3/memberships', 'groupMembership', ['G1', 'G2']],
  ['users/U3/admin-rights', 'adminRights', ['C1']],
  ['users/U3/controllers', 'controllers', ['DU', 'U1', 'U2']], // Domain Users' primary-group members control U3
  ['users/U3/controllables', 'controllables', ['AIA', 'C2', D1]], // DCSync, GetChanges, GetChangesAll are control edges too
  ['users/U3/sessions', 'sessions', ['C2']],
  ['groups/DU/members', 'members', ['U1', 'U2']], // primary-group membership
  ['groups/DU/sessions', 'sessions', ['C1']],
  ['groups/DU/controllables', 'controllables', ['U3']],
  ['groups/G1/members', 'members', ['FG', 'FU', 'G2', 'U3']],
  ['groups/G1/sessions', 'sessions', ['C2']],
  ['groups/G1/memberships', 'membership', []],
  ['groups/G1/admin-rights', 'adminRights', ['C1']],
  ['groups/G1/rdp-rights', 'rdpRights', []],
  ['groups/G1/dcom-rights', 'dcomRights', []],
  ['groups/G1/ps-remote-rights', 'psRemoteRights', []],
  ['groups/G1/controllables', 'controllables', ['C2']],
  ['groups/G1/controllers', 'controllers', []],
  ['groups/G2/memberships', 'membership', ['G1']],
  ['groups/G2/controllables', 'controllables', ['AIA', 'C2']],
  ['computers/C1/sessions', 'sessions', ['U1']],
  ['computers/C1/admin-users', 'adminUsers', ['FG', 'FU', 'U3']],
  ['computers/C1/rdp-users', 'rdpUsers', ['U2']],
  ['computers/C1/dcom-users', 'dcomUsers', []],
  ['computers/C1/ps-remote-users', 'psRemoteUsers', []],
  ['computers/C1/sql-admins', 'sqlAdminUsers', ['U2']],
  ['computers/C1/constrained-users', 'constrainedUsers', ['C2']],
  ['computers/C1/group-membership', 'groupMembership', []],
  ['computers/C1/admin-rights', 'adminRights', []],
  ['computers/C1/rdp-rights', 'rdpRights', []],
  ['computers/C1/dcom-rights', 'dcomRights', []],
  ['computers/C1/ps-remote-rights', 'psRemoteRights', []],
  ['computers/C1/constrained-delegation-rights', 'constrainedPrivs', []],
  ['computers/C1/controllables', 'controllables', []],
  ['computers/C1/controllers', 'controllers', []],
  ['computers/C2/sessions', 'sessions', ['U3']],
  ['computers/C2/admin-users', 'adminUsers', ['FU', 'U2']],
  ['computers/C2/constrained-delegation-rights', 'constrainedPrivs', ['C1']],
  ['computers/C2/controllers', 'controllers', ['FG', 'FU', 'G1', 'G2', 'U3']],
  [`domains/${D1}/users`, 'users', ['U1', 'U2', 'U3', 'U4']],
  [`domains/${D1}/groups`, 'groups', ['DU', 'G1', 'G2']],
  [`domains/${D1}/computers`, 'computers', ['C1', 'C2']],
  [`domains/${D1}/ous`, 'ous', ['OU1', 'OU2', 'OU3']],
  [`domains/${D1}/gpos`, 'gpos', ['GPA', 'GPB', 'GPC']],
  [`domains/${D1}/foreign-users`, 'foreignUsers', ['FU']],
  [`domains/${D1}/foreign-groups`, 'foreignGroups', ['FG']],
  // FU holds AdminTo itself; G1 holds it, and the walk back from G1 over groups and foreign principals ends at G2, FU, FG.
  [`domains/${D1}/foreign-admins`, 'foreignAdmins', ['FG', 'FU', 'G2']],
  [`domains/${D1}/foreign-gpo-controllers`, 'foreignGPOControllers', []],
  [`domains/${D1}/inbound-trusts`, 'inboundTrusts', []],
  [`domains/${D1}/outbound-trusts`, 'outboundTrusts', [D2, 'S-1-5-21-3']],
  [`domains/${D2}/inbound-trusts`, 'inboundTrusts', [D1]],
  [`domains/${D1}/controllers`, 'controllers', ['U3']],
  [`domains/${D1}/dc-syncers`, 'dcsyncers', ['U3']],
  [`domains/${D1}/linked-gpos`, 'linkedgpos', ['GPA']],
  [`domains/${D1}/adcs-escalations`, 'adcs-escalations', ['U1']], // ADCSESC13 is not among the escalation kinds
  ['ous/OU1/gpos', 'gpos', ['GPA', 'GPB']],
  ['ous/OU1/users', 'users', ['U1', 'U2', 'U4']],
  ['ous/OU1/groups', 'groups', []],
  ['ous/OU1/computers', 'computers', ['C1', 'C2']],
  ['ous/OU2/gpos', 'gpos', ['GPA', 'GPB', 'GPC']],
  ['ous/OU3/gpos', 'gpos', ['GPB']], // OU2 blocks inheritance above OU3: only the enforced link applies
  ['gpos/GPA/ous', 'ous', [D1, 'OU1', 'OU2']],
  ['gpos/GPA/users', 'users', ['U1', 'U2']],
  ['gpos/GPA/computers', 'computers', ['C1', 'C2']],
  ['gpos/GPA/tier-zero', 'tierzero', ['C1']],
  ['gpos/GPA/controllers', 'controllers', []],
  ['gpos/GPB/users', 'users', ['U1', 'U2', 'U4']], // enforced: inheritance blocking does not stop it
  ['gpos/GPB/ous', 'ous', ['OU1', 'OU2', 'OU3']],
  ['gpos/GPC/users', 'users', ['U2']],
  ['containers/CN1/controllers', 'controllers', ['U1']],
  ['aiacas/AIA/controllers', 'controllers', ['G2', 'U3']],
  ['aiacas/AIA/pki-hierarchy', 'pki-hierarchy', ['C1', 'ECA1']],
  ['rootcas/RCA/controllers', 'controllers', []],
  ['rootcas/RCA/pki-hierarchy', 'pki-hierarchy', ['C1', 'ECA1']],
  ['enterprisecas/ECA1/controllers', 'controllers', []],
  ['enterprisecas/ECA1/pki-hierarchy', 'pki-hierarchy', ['AIA', 'C1', D1, 'NTA', 'RCA']],
  ['enterprisecas/ECA1/published-templates', 'published-templates', ['CT1']],
  ['ntauthstores/NTA/controllers', 'controllers', []],
  ['ntauthstores/NTA/trusted-cas', 'trusted-cas', ['ECA1']],
  ['certtemplates/CT1/published-to-cas', null, ['ECA1']],
  ['issuancepolicies/IP1/controllers', 'controllers', []],
  ['issuancepolicies/IP1/linkedtemplates', 'linkedTemplates', ['CT1']],
  ['base/U1/controllables', 'controllables', ['CN1', 'U2', 'U3']],
  ['base/U2/controllers', null, ['U1']],
];

test('every related list of every entity type answers its hand-derived members, and the info answer counts them', async () => {
  const counts = new Map<string, Record<string, unknown>>();
  for (const [url, countKey, want] of EXPECTED) {
    const body = await listOf(url);
    assert.deepEqual(body.data.map((d) => d.objectID).sort(), [...want].sort(), url);
    assert.equal(body.count, want.length, url);
    if (!countKey) continue;
    const entity = url.split('/').slice(0, 2).join('/');
    if (!counts.has(entity)) counts.set(entity, (await get(entity)).json().data);
    assert.equal(counts.get(entity)![countKey], want.length, `${entity} ${countKey}`);
  }
});

test('info answers: properties, kinds (tags included), the counts of every related list; counts=false', async () => {
  const res = await get('users/U2');
  assert.equal(res.statusCode, 200);
  assert.equal(res.headers['content-type'], 'application/json');
  assert.deepEqual(res.json(), {
    data: {
      kind: 'User', kinds: ['User', 'Base'], props: { name: 'U2@TEST', domainsid: D1, objectid: 'U2' },
      sessions: 0, groupMembership: 1, adminRights: 1, rdpRights: 1, dcomRights: 0, psRemoteRights: 0, sqlAdmin: 1,
      constrainedDelegation: 0, controllables: 1, controllers: 1, gpos: 3, // GPA (domain), GPB (enforced), GPC (OU2)
    },
  });
  assert.equal((await get('users/U4')).json().data.gpos, 1, 'OU2 blocks the domain link for U4 in OU3; the enforced GPB stays');
  assert.deepEqual((await get('computers/C1', { counts: 'false' })).json(), {
    data: { kind: 'Computer', kinds: ['Computer', 'Base', 'Tag_Tier_Zero'], props: { name: 'C1@TEST', domainsid: D1, objectid: 'C1', isTierZero: true } },
  });
  assert.deepEqual(Object.keys((await get(`domains/${D1}`)).json().data).sort(), [
    'adcs-escalations', 'computers', 'controllers', 'dcsyncers', 'foreignAdmins', 'foreignGPOControllers', 'foreignGroups', 'foreignUsers',
    'gpos', 'groups', 'inboundTrusts', 'kind', 'kinds', 'linkedgpos', 'ous', 'outboundTrusts', 'props', 'users',
  ]);
  assert.equal((await get('base/U1')).json().data.controllables, 3);
});

test('lists: paging (default 10, skip, limit=0), default order node id descending, sort_by name / objectid / label', async () => {
  const page = await get('groups/G1/members', { skip: '1', limit: '2' });
  const body = page.json();
  const byIdDesc = ['FG', 'FU', 'G2', 'U3'].sort((a, b) => ids.get(b)! - ids.get(a)!);
  assert.deepEqual([body.count, body.skip, body.limit], [4, 1, 2]);
  assert.deepEqual(body.data.map((d: { objectID: string }) => d.objectID), byIdDesc.slice(1, 3));
  assert.deepEqual((await get('groups/G1/members')).json().limit, 10);
  assert.deepEqual(body.data[0], { objectID: byIdDesc[1], name: `${byIdDesc[1]}@TEST`, label: byIdDesc[1].startsWith('G') || byIdDesc[1] === 'FG' ? 'Group' : 'User', kinds: [byIdDesc[1] === 'FG' || byIdDesc[1] === 'G2' ? 'Group' : 'User', 'Base'] });
  const order = async (sortBy: string | string[]) => (await listOf('computers/C2/controllers', { sort_by: sortBy as string })).data.map((d) => d.objectID);
  assert.deepEqual(await order('name'), ['FG', 'FU', 'G1', 'G2', 'U3']);
  assert.deepEqual(await order('-objectid'), ['U3', 'G2', 'G1', 'FU', 'FG']);
  assert.deepEqual((await get('computers/C2/controllers', { sort_by: ['label', '-name'], limit: '0' })).json().data.map((d: { objectID: string }) => d.objectID), ['G2', 'G1', 'FG', 'U3', 'FU']);
  assert.deepEqual((await get('groups/G1/members', { skip: '9' })).json().data, []);
  const tierZero = (await listOf('gpos/GPA/tier-zero')).data[0];
  assert.deepEqual(tierZero.kinds, ['Computer', 'Base', 'Tag_Tier_Zero']);
});

test('type=graph: BloodHound\'s flat graph map of the walked paths; lists without a graph form refuse it', async () => {
  const res = await get('groups/G1/members', { type: 'graph' });
  assert.equal(res.statusCode, 200);
  const graph = res.json();
  const oid = (id: string) => [...ids].find(([, v]) => String(v) === id)![0];
  const edges = Object.entries(graph).filter(([k]) => k.startsWith('rel_')).map(([, v]) => v as { id1: string; id2: string; label: { text: string } });
  assert.deepEqual(edges.map((e) => `${oid(e.id1)}-${e.label.text}->${oid(e.id2)}`).sort(), ['FG-MemberOf->G1', 'FU-MemberOf->G1', 'G2-MemberOf->G1', 'U3-MemberOf->G2']);
  const nodes = Object.keys(graph).filter((k) => !k.startsWith('rel_')).map(oid).sort();
  assert.deepEqual(nodes, ['FG', 'FU', 'G1', 'G2', 'U3']);
  const g1 = graph[String(ids.get('G1'))];
  assert.deepEqual(g1, {
    color: '#DBE617', data: { domainsid: D1, isTierZero: true, kinds: ['Group', 'Base', 'Tag_Tier_Zero'], level: 0, name: 'G1@TEST', nodetype: 'Group' },
    border: { color: 'black' }, fontIcon: { text: 'fas fa-users' },
    label: { backgroundColor: 'rgba(255,255,255,0.9)', center: true, fontSize: 14, text: 'G1@TEST' }, size: 1,
  });
  const primary = Object.values(graph).find((v) => (v as { data?: { isprimarygroup?: boolean } }).data?.isprimarygroup);
  assert.equal(primary, undefined, 'no primary-group edge on this list');
  const du = (await get('groups/DU/members', { type: 'graph' })).json();
  const link = Object.entries(du).find(([k]) => k.startsWith('rel_'))![1];
  assert.deepEqual(link, { color: '3a5464', data: { isprimarygroup: true }, end2: { arrow: true }, id1: (link as { id1: string }).id1, id2: String(ids.get('DU')), label: { text: 'MemberOf' } });
  assert.deepEqual((await get('users/U4/sessions', { type: 'graph' })).json(), {});
  assert.deepEqual(errorOf(await get(`domains/${D1}/users`, { type: 'graph' })), { status: 400, messages: ['query parameter "type" is malformed'] });
});

test('bad input: exact 400 messages; 401, 403; unknown or wrong-kind object ids 404; lower-case ids resolve', async () => {
  const cases: Array<[string, Record<string, string>, string]> = [
    ['groups/G1/members', { type: 'count' }, 'query parameter "type" is malformed'],
    ['groups/G1/members', { skip: '-1' }, 'query parameter "skip" is malformed'],
    ['groups/G1/members', { limit: 'x' }, 'query parameter "limit" is malformed'],
    ['groups/G1/members', { sort_by: 'kind' }, 'column format does not support sorting: kind'],
    ['groups/G1/members', { sort_by: '' }, 'empty sort_by parameter supplied'],
    ['groups/G1/members', { name: 'x' }, 'the specified column cannot be filtered: name'],
    ['groups/G1', { counts: 'maybe' }, 'query parameter "counts" is malformed'],
    ['groups/G1%01', {}, 'id is malformed'],
    ['groups/G1%7F/members', {}, 'id is malformed'],
  ];
  for (const [url, query, message] of cases) assert.deepEqual(errorOf(await get(url, query)), { status: 400, messages: [message] }, `${url} ${JSON.stringify(query)}`);
  for (const url of ['groups/NOPE', 'groups/NOPE/members', 'users/G1', 'users/G1/sessions', 'computers/U1/sessions']) {
    assert.deepEqual(errorOf(await get(url)), { status: 404, messages: ['resource not found'] }, url);
  }
  assert.deepEqual(errorOf(await get('groups/G1', {}, '')), { status: 401, messages: ['authentication is invalid'] });
  const uploader = (await t.login('Upload-Only')).token;
  assert.deepEqual(errorOf(await get('groups/G1/members', {}, uploader)), { status: 403, messages: ['not authorized'] });
  assert.equal((await get('groups/g1/members')).json().count, 4);
});

test('the graph result limit: a larger list page or graph answer is a 400 naming the bound', async () => {
  const small = await createTestApp({ graphResultLimit: 3 });
  try {
    await buildEntityGraph(small.db);
    const token = (await small.login('Read-Only')).token;
    const ask = (query: Record<string, string>) => small.request({ method: 'GET', url: '/api/v2/groups/G1/members', token, query });
    const message = 'the answer would exceed the graph result limit of 3 nodes and edges (--graph-result-limit); narrow the request or page through it';
    assert.deepEqual(errorOf(await ask({ limit: '0' })), { status: 400, messages: [message] });
    assert.deepEqual(errorOf(await ask({ type: 'graph' })), { status: 400, messages: [message] });
    assert.equal((await ask({ limit: '3' })).json().data.length, 3);
    assert.equal((await ask({ limit: '0', skip: '2' })).json().data.length, 2);
  } finally {
    await small.close();
  }
});

test('answers follow the graph: an edge added after a first answer shows in the next one', async () => {
  assert.equal((await listOf('groups/G2/members')).count, 1);
  const { upsertEdges } = await import('../../graph/store.repository.ts');
  await upsertEdges(t.db.kysely, [{ start: { objectid: 'U4' }, end: { objectid: 'G2' }, kind: 'MemberOf' }]);
  assert.deepEqual((await listOf('groups/G2/members')).data.map((d) => d.objectID).sort(), ['U3', 'U4']);
  assert.equal((await get('groups/G2')).json().data.members, 2);
  await t.db.kysely.deleteFrom('edges').where('start_id', '=', ids.get('U4')!).where('kind', '=', 'MemberOf').execute();
  assert.equal((await listOf('groups/G2/members')).count, 1);
});
