import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, errorOf, type TestApp } from '../../test/harness.ts';
import { upsertEdges, upsertNodes } from '../../graph/store.repository.ts';

/*
 *   T (tenant) ─AZContains→ SUB ─AZContains→ RG ─AZContains→ VM, KV
 *   AU1 ─AZMemberOf→ AG (role-assignable) ─AZHasRole→ R1;  AU2 ─AZMemberOf→ AG2 (not assignable) ─AZHasRole→ R2;  AU1 ─AZHasRole→ R3
 *   AU1 ─AZOwner→ SUB;  AG ─AZContributor→ KV;  AU2 ─AZGetKeys→ KV;  AU1 ─AZVMAdminLogin→ VM
 *   SP ─AZMGDirectory_ReadWrite_All→ T;  AU2 ─AZRoleApprover→ R1
 */
let t: TestApp;
let reader: string;
before(async () => {
  t = await createTestApp();
  reader = (await t.login('Read-Only')).token;
  const n = (objectid: string, kind: string, props: Record<string, unknown> = {}) => ({
    objectid, kinds: [kind, 'AZBase'], name: `${objectid}@TENANT`, environmentId: 'T', properties: { name: `${objectid}@TENANT`, ...props }, sourceKind: 'AZBase',
  });
  await upsertNodes(t.db.kysely, [
    n('T', 'AZTenant'), n('SUB', 'AZSubscription'), n('RG', 'AZResourceGroup'), n('VM', 'AZVM'), n('KV', 'AZKeyVault'),
    n('AU1', 'AZUser'), n('AU2', 'AZUser'), n('AG', 'AZGroup', { isassignabletorole: true }), n('AG2', 'AZGroup', { isassignabletorole: false }),
    n('R1', 'AZRole'), n('R2', 'AZRole'), n('R3', 'AZRole'), n('SP', 'AZServicePrincipal'),
    { objectid: 'ADUSER', kinds: ['User', 'Base'], name: 'ADUSER', properties: {}, sourceKind: 'Base' },
  ]);
  const e = (s: string, k: string, d: string) => ({ start: { objectid: s }, end: { objectid: d }, kind: k });
  await upsertEdges(t.db.kysely, [
    e('T', 'AZContains', 'SUB'), e('SUB', 'AZContains', 'RG'), e('RG', 'AZContains', 'VM'), e('RG', 'AZContains', 'KV'),
    e('AU1', 'AZMemberOf', 'AG'), e('AG', 'AZHasRole', 'R1'), e('AU2', 'AZMemberOf', 'AG2'), e('AG2', 'AZHasRole', 'R2'), e('AU1', 'AZHasRole', 'R3'),
    e('AU1', 'AZOwner', 'SUB'), e('AG', 'AZContributor', 'KV'), e('AU2', 'AZGetKeys', 'KV'), e('AU1', 'AZVMAdminLogin', 'VM'),
    e('SP', 'AZMGDirectory_ReadWrite_All', 'T'), e('AU2', 'AZRoleApprover', 'R1'),
  ]);
});
after(() => t.close());

const get = (type: string, query: Record<string, string>) => t.request({ method: 'GET', url: `/api/v2/azure/${type}`, token: reader, query });
const info = async (type: string, objectId: string) => {
  const res = await get(type, { object_id: objectId });
  assert.equal(res.statusCode, 200, res.body);
  const { kind, kinds, isTierZero, isOwnedObject, props, ...counts } = res.json().data;
  void kinds; void isTierZero; void isOwnedObject; void props;
  return { kind, ...counts };
};
const related = async (type: string, objectId: string, list: string) => {
  const res = await get(type, { object_id: objectId, related_entity_type: list });
  assert.equal(res.statusCode, 200, res.body);
  return (res.json().data as Array<{ props: { objectid: string } }>).map((d) => d.props.objectid).sort();
};

test('Azure info answers: each entity type\'s counts', async () => {
  assert.deepEqual(await info('users', 'AU1'), {
    kind: 'AZUser', group_membership: 1, roles: 2, execution_privileges: 2, outbound_object_control: 2, inbound_object_control: 0,
  });
  assert.equal((await info('users', 'AU2')).roles, 0, 'AG2 is not role-assignable: its role is not inherited');
  assert.deepEqual(await info('tenants', 'T'), {
    kind: 'AZTenant', descendents: { descendent_counts: { AZSubscription: 1, AZResourceGroup: 1, AZVM: 1, AZKeyVault: 1 } }, inbound_object_control: 0,
  });
  assert.deepEqual(await info('key-vaults', 'KV'), {
    kind: 'AZKeyVault', Readers: { KeyReaders: 2, CertificateReaders: 1, SecretReaders: 1, AllReaders: 2 }, inbound_object_control: 5, // AG, AU1; RG, SUB, T over AZContains
  });
  assert.deepEqual(await info('vms', 'VM'), { kind: 'AZVM', inboundExecutionPrivileges: 1, inbound_object_control: 3 });
  assert.deepEqual(await info('roles', 'R1'), { kind: 'AZRole', active_assignments: 1, pim_assignments: 0, approvers: 1 });
  assert.deepEqual(await info('service-principals', 'SP'), {
    kind: 'AZServicePrincipal', roles: 0, inbound_object_control: 0, outbound_object_control: 0,
    'inbound-abusable-app-role-assignments': 0, 'outbound-abusable-app-role-assignments': 1,
  });
  assert.deepEqual(await info('az-base', 'AU1'), { kind: 'AZUser', outbound_object_control: 2 });
  const zero = (await get('users', { object_id: 'AU1', counts: 'false' })).json().data;
  assert.deepEqual([zero.roles, zero.group_membership, zero.props.objectid, zero.kinds], [0, 0, 'AU1', ['AZUser', 'AZBase']]);
});

test('Azure related lists (paged, node id descending) and their graph form', async () => {
  assert.deepEqual(await related('tenants', 'T', 'descendent-virtual-machines'), ['VM']);
  assert.deepEqual(await related('tenants', 'T', 'descendent-subscriptions'), ['SUB']);
  assert.deepEqual(await related('users', 'AU1', 'roles'), ['R1', 'R3']);
  assert.deepEqual(await related('users', 'AU1', 'outbound-control'), ['KV', 'SUB']);
  assert.deepEqual(await related('key-vaults', 'KV', 'inbound-control'), ['AG', 'AU1', 'RG', 'SUB', 'T'], 'containers control what they contain');
  assert.deepEqual(await related('key-vaults', 'KV', 'key-readers'), ['AU1', 'AU2']);
  assert.deepEqual(await related('roles', 'R1', 'active-assignments'), ['AU1']);
  assert.deepEqual(await related('roles', 'R1', 'role-approvers'), ['AU2']);
  assert.deepEqual(await related('groups', 'AG', 'group-members'), ['AU1']);
  assert.deepEqual(await related('users', 'AU1', 'group-membership'), ['AG']);
  assert.deepEqual(await related('vms', 'VM', 'inbound-execution-privileges'), ['AU1']);
  const page = (await get('tenants', { object_id: 'T', related_entity_type: 'descendent-resource-groups', limit: '1' })).json();
  assert.deepEqual([page.count, page.limit, page.skip, page.data.length], [1, 1, 0, 1]);
  assert.equal((await get('tenants', { object_id: 'T', related_entity_type: 'descendent-users' })).json().limit, 100);
  const graph = (await get('tenants', { object_id: 'T', related_entity_type: 'descendent-virtual-machines', type: 'graph' })).json();
  const links = Object.entries(graph).filter(([k]) => k.startsWith('rel_')).map(([, v]) => (v as { label: { text: string } }).label.text);
  assert.deepEqual(links, ['AZContains', 'AZContains', 'AZContains']);
});

test('Azure route errors: exact messages; 404 for unknown types and nodes (Azure nodes only)', async () => {
  const cases: Array<[string, Record<string, string>, number, string]> = [
    ['users', {}, 400, 'query parameter "object_id" is malformed'],
    ['users', { object_id: 'AU1', related_entity_type: 'friends' }, 400, 'query parameter "related_entity_type" is malformed'],
    ['users', { object_id: 'AU1', related_entity_type: 'roles', type: 'count' }, 400, 'query parameter "type" is malformed'],
    ['users', { object_id: 'AU1', counts: 'x' }, 400, 'query parameter "counts" is malformed'],
    ['printers', { object_id: 'AU1' }, 404, 'resource not found'],
    ['users', { object_id: 'NOPE' }, 404, 'resource not found'],
    ['users', { object_id: 'ADUSER' }, 404, 'resource not found'],
  ];
  for (const [type, query, status, message] of cases) assert.deepEqual(errorOf(await get(type, query)), { status, messages: [message] }, `${type} ${JSON.stringify(query)}`);
});
