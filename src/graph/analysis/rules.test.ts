/**
 * One small hand-built graph per post-processing rule, named as BloodHound names the edge it derives
 * (the fixture-scale proof is parity.test.ts). Each graph holds just what the rule reads.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECT } from '../../test/harness.ts';
import { postProcess } from './post-processing.ts';
import { RULES } from './rules.ts';
import { analysed, check, computer, D, domain, group, pairs, user, type E, type N } from './rules.test-helpers.ts';

test(`post-processing rule table on ${DIALECT}: every derived kind has a rule, in BloodHound's order`, () => {
  assert.deepEqual(RULES.flatMap((r) => r.kinds), [
    'DCSync', 'ProtectAdminGroups', 'SyncLAPSPassword', 'HasTrustKeys', 'ExecuteDCOM', 'CanPSRemote', 'AdminTo', 'CanRDP',
    'TrustedForNTAuth', 'IssuedSignedBy', 'EnterpriseCAFor', 'ExtendedByPolicy', 'EnrollOnBehalfOf', 'GoldenCert', 'ADCSESC1', 'ADCSESC3',
    'ADCSESC4', 'ADCSESC6a', 'ADCSESC6b', 'ADCSESC9a', 'ADCSESC9b', 'ADCSESC10a', 'ADCSESC10b', 'ADCSESC13', 'Owns', 'WriteOwner',
    'CoerceAndRelayNTLMToSMB', 'CoerceAndRelayNTLMToLDAP', 'CoerceAndRelayNTLMToLDAPS', 'CoerceAndRelayNTLMToADCS',
    'SyncedToEntraUser', 'SyncedToADUser',
  ]);
});

test(`DCSync on ${DIALECT}: holders of both rights, a whole group written once (cross product)`, async () => {
  // G1100 holds GetChanges and GetChangesAll: the group, not its member. U1101 holds GetChanges itself and
  // GetChangesAll through G1102. U1103 holds only GetChanges.
  await check([domain(), group('1100'), user('1104'), user('1101'), group('1102'), user('1103')], [
    [`${D}-1104`, 'MemberOf', `${D}-1100`], [`${D}-1100`, 'GetChanges', D], [`${D}-1100`, 'GetChangesAll', D],
    [`${D}-1101`, 'GetChanges', D], [`${D}-1101`, 'MemberOf', `${D}-1102`], [`${D}-1102`, 'GetChangesAll', D], [`${D}-1103`, 'GetChanges', D],
  ], 'DCSync', pairs(['1100', D], ['1101', D]));
});

test(`SyncLAPSPassword on ${DIALECT}: GetChanges + GetChangesInFilteredSet holders → computers with LAPS`, async () => {
  await check([domain(), user('1100'), computer('1200', { haslaps: true }), computer('1201', { haslaps: false })], [
    [`${D}-1100`, 'GetChanges', D], [`${D}-1100`, 'GetChangesInFilteredSet', D],
  ], 'SyncLAPSPassword', pairs(['1100', '1200']));
});

test(`ProtectAdminGroups on ${DIALECT}: AdminSDHolder → protected objects of its domain`, async () => {
  await check([domain({ distinguishedname: 'DC=CORP,DC=LOCAL' }),
    ['AAAA0000-0000-0000-0000-000000000001', ['Container', 'Base'], { name: 'ADMINSDHOLDER@CORP.LOCAL', domainsid: D, distinguishedname: 'CN=ADMINSDHOLDER,CN=SYSTEM,DC=CORP,DC=LOCAL' }],
    user('1100', { adminsdholderprotected: true }), user('1101', { adminsdholderprotected: false })], [],
  'ProtectAdminGroups', pairs(['AAAA0000-0000-0000-0000-000000000001', '1100']));
});

test(`HasTrustKeys on ${DIALECT}: a domain → the trust account <NETBIOS>$ in the domain it trusts`, async () => {
  const other = 'S-1-5-21-2';
  await check([domain({ netbios: 'CORP' }), [other, ['Domain', 'Base'], { name: 'OTHER.LOCAL', domainsid: other }],
    [`${other}-1100`, ['User', 'Base'], { name: 'CORP$@OTHER.LOCAL', domainsid: other, samaccountname: 'CORP$' }],
    [`${other}-1101`, ['User', 'Base'], { name: 'X@OTHER.LOCAL', domainsid: other, samaccountname: 'X' }]],
  [[D, 'CrossForestTrust', other]], 'HasTrustKeys', [`${D} -> ${other}-1100`]);
});

const localGroup = (rid: string): N => [`${D}-1200-${rid}`, ['Group', 'ADLocalGroup', 'Base'], { name: `L${rid}@C1200.CORP.LOCAL` }];
const localGraph = (rid: string, extra: E[] = []): [N[], E[]] => [
  [domain(), computer('1200'), localGroup(rid), user('1100'), group('1101'), user('1102')],
  [[`${D}-1200-${rid}`, 'LocalToComputer', `${D}-1200`], [`${D}-1100`, 'MemberOfLocalGroup', `${D}-1200-${rid}`],
    [`${D}-1101`, 'MemberOfLocalGroup', `${D}-1200-${rid}`], [`${D}-1102`, 'MemberOf', `${D}-1101`], ...extra],
];

for (const [kind, rid] of [['AdminTo', '544'], ['CanPSRemote', '580'], ['ExecuteDCOM', '562'], ['CanRDP', '555']]) {
  test(`${kind} on ${DIALECT}: direct members of the computer's -${rid} local group`, async () => {
    await check(...localGraph(rid), kind, pairs(['1100', '1200'], ['1101', '1200']));
  });
}

test(`CanRDP on ${DIALECT}: with user-rights data, only RemoteInteractiveLogonRight holders inside the RDP group`, async () => {
  const [nodes, edges] = localGraph('555', [[`${D}-1101`, 'RemoteInteractiveLogonRight', `${D}-1200`]]);
  nodes[1] = computer('1200', { hasura: true });
  // G1101 holds the right and is in the RDP group: G1101 (not U1100, who lacks the right)
  await check(nodes, edges, 'CanRDP', pairs(['1101', '1200']));
});

test(`CanRDP on ${DIALECT}: with user-rights data, the group's direct members when the RDP group itself holds the right`, async () => {
  const [nodes, edges] = localGraph('555', [[`${D}-1200-555`, 'RemoteInteractiveLogonRight', `${D}-1200`]]);
  nodes[1] = computer('1200', { hasura: true });
  await check(nodes, edges, 'CanRDP', pairs(['1100', '1200'], ['1101', '1200']));
});

const PKI = {
  eca: 'ECA00000-0000-0000-0000-000000000001', root: 'ROOT0000-0000-0000-0000-000000000001', aia: 'AIA00000-0000-0000-0000-000000000001',
  store: 'NTA00000-0000-0000-0000-000000000001', esc1: 'TPL00000-0000-0000-0000-000000000001', agent: 'TPL00000-0000-0000-0000-000000000002',
  v2: 'TPL00000-0000-0000-0000-000000000003', policy: 'POL00000-0000-0000-0000-000000000001',
};
const pkiNodes = (): N[] => [domain(), computer('1000', { enabled: true }), user('1100'),
  [PKI.eca, ['EnterpriseCA', 'Base'], { name: 'CA@CORP.LOCAL', domainsid: D, certthumbprint: 'AB', certchain: ['AB', 'CD'] }],
  [PKI.root, ['RootCA', 'Base'], { name: 'ROOT@CORP.LOCAL', domainsid: D, certthumbprint: 'AB' }],
  [PKI.aia, ['AIACA', 'Base'], { name: 'AIA@CORP.LOCAL', domainsid: D, certthumbprint: 'CD' }],
  [PKI.store, ['NTAuthStore', 'Base'], { name: 'NTAUTH@CORP.LOCAL', domainsid: D, certthumbprints: ['AB'] }],
  [PKI.esc1, ['CertTemplate', 'Base'], { name: 'ESC1@CORP.LOCAL', domainsid: D, requiresmanagerapproval: false, authenticationenabled: true,
    enrolleesuppliessubject: true, schemaversion: 2, authorizedsignatures: 0, effectiveekus: ['1.3.6.1.5.5.7.3.2'], certificatepolicy: ['1.2.3'] }],
  [PKI.agent, ['CertTemplate', 'Base'], { name: 'AGENT@CORP.LOCAL', domainsid: D, schemaversion: 1, effectiveekus: [] }],
  [PKI.v2, ['CertTemplate', 'Base'], { name: 'V2@CORP.LOCAL', domainsid: D, schemaversion: 2, authorizedsignatures: 1,
    applicationpolicies: ['1.3.6.1.4.1.311.20.2.1'], effectiveekus: ['1.3.6.1.5.5.7.3.2'] }],
  [PKI.policy, ['IssuancePolicy', 'Base'], { name: 'POLICY@CORP.LOCAL', domainsid: D, certtemplateoid: '1.2.3' }],
];
const pkiEdges = (): E[] => [
  [PKI.root, 'RootCAFor', D], [PKI.store, 'NTAuthStoreFor', D], [`${D}-1000`, 'HostsCAService', PKI.eca],
  [PKI.esc1, 'PublishedTo', PKI.eca], [PKI.agent, 'PublishedTo', PKI.eca], [PKI.v2, 'PublishedTo', PKI.eca],
  [`${D}-1100`, 'Enroll', PKI.esc1], [`${D}-1100`, 'Enroll', PKI.eca],
];

test(`TrustedForNTAuth, EnterpriseCAFor, IssuedSignedBy, ExtendedByPolicy on ${DIALECT}: by thumbprint and OID`, async () => {
  const g = await analysed(pkiNodes(), pkiEdges());
  try {
    assert.deepEqual(await g.edges('TrustedForNTAuth'), [`${PKI.eca} -> ${PKI.store}`]);
    assert.deepEqual(await g.edges('EnterpriseCAFor'), [`${PKI.eca} -> ${PKI.root}`]);
    assert.deepEqual(await g.edges('IssuedSignedBy'), [`${PKI.eca} -> ${PKI.aia}`]);
    assert.deepEqual(await g.edges('ExtendedByPolicy'), [`${PKI.esc1} -> ${PKI.policy}`]);
  } finally {
    await g.db.close();
  }
});

test(`GoldenCert on ${DIALECT}: the host of a properly chained enterprise CA → the domain`, async () => {
  await check(pkiNodes(), pkiEdges(), 'GoldenCert', pairs(['1000', D]));
  const unchained = pkiEdges().filter(([, kind]) => kind !== 'NTAuthStoreFor'); // no NTAuth store for the domain: no chain
  await check(pkiNodes(), unchained, 'GoldenCert', []);
});

test(`ADCSESC1 on ${DIALECT}: enrollers of an ESC1 template and of its CA → the domain`, async () => {
  await check(pkiNodes(), pkiEdges(), 'ADCSESC1', pairs(['1100', D]));
});

test(`EnrollOnBehalfOf on ${DIALECT}: an agent template → schema-1 templates, and → schema-2 templates that require an agent signature`, async () => {
  // AGENT (schema 1, no EKU) reaches every published schema-1 template (itself included, as BloodHound does);
  // ESC1 has the client-auth EKU only: it is no agent. V2 needs one agent signature, but no template has the agent EKU.
  await check(pkiNodes(), pkiEdges(), 'EnrollOnBehalfOf', [`${PKI.agent} -> ${PKI.agent}`]);
  const agentNodes = pkiNodes().map((n): N => (n[0] === PKI.esc1 ? [n[0], n[1], { ...n[2], effectiveekus: ['1.3.6.1.4.1.311.20.2.1'] }] : n));
  await check(agentNodes, pkiEdges(), 'EnrollOnBehalfOf', [`${PKI.agent} -> ${PKI.agent}`, `${PKI.esc1} -> ${PKI.agent}`, `${PKI.esc1} -> ${PKI.v2}`]);
});

test(`Owns and WriteOwner on ${DIALECT}: from OwnsRaw / WriteOwnerRaw, with their ACE properties`, async () => {
  const g = await analysed([domain(), user('1100'), group('1101')], [
    [`${D}-1100`, 'OwnsRaw', `${D}-1101`, { isacl: true, isinherited: true, inheritancehash: 'h1' }],
    [`${D}-1100`, 'WriteOwnerRaw', `${D}-1101`, { isacl: true, isinherited: false }],
  ]);
  try {
    assert.deepEqual(await g.edges('Owns'), pairs(['1100', '1101']));
    assert.deepEqual(await g.edges('WriteOwner'), pairs(['1100', '1101']));
    const props = await g.db.kysely.selectFrom('edges').select(['kind', 'properties']).where('kind', 'in', ['Owns', 'WriteOwner']).orderBy('kind').execute();
    assert.deepEqual(props.map((p) => [p.kind, JSON.parse(p.properties)]), [
      ['Owns', { isacl: true, isinherited: true, inheritancehash: 'h1' }],
      ['WriteOwner', { isacl: true, isinherited: false, inheritancehash: '' }],
    ]);
  } finally {
    await g.db.close();
  }
});

test(`Owns and WriteOwner on ${DIALECT}: BlockOwnerImplicitRights keeps computer ownership only for Domain/Enterprise Admins`, async () => {
  const heuristics = `${'0'.repeat(28)}1`;
  const nodes = [domain({ dsheuristics: heuristics }), user('1100'), group('512'), computer('1200'), user('1101')];
  const edges: E[] = [[`${D}-1100`, 'OwnsRaw', `${D}-1200`], [`${D}-512`, 'OwnsRaw', `${D}-1200`], [`${D}-1100`, 'OwnsRaw', `${D}-1101`],
    [`${D}-1100`, 'WriteOwnerRaw', `${D}-1200`], [`${D}-1100`, 'WriteOwnerRaw', `${D}-1101`]];
  await check(nodes, edges, 'Owns', pairs(['512', '1200'], ['1100', '1101']));
  await check(nodes, edges, 'WriteOwner', pairs(['1100', '1101']));
});

test(`LinkWellKnownNodes and ClaimSpecialIdentity on ${DIALECT}: well-known groups created and linked per collected domain`, async () => {
  const g = await analysed([domain(), group('513'), user('501', { enabled: true })], []);
  try {
    assert.deepEqual(await g.edges('MemberOf'), [
      `${D}-501 -> CORP.LOCAL-S-1-1-0`, `${D}-513 -> CORP.LOCAL-S-1-5-11`, `${D}-515 -> CORP.LOCAL-S-1-5-11`, 'CORP.LOCAL-S-1-5-11 -> CORP.LOCAL-S-1-1-0',
    ].sort());
    assert.deepEqual(await g.edges('ClaimSpecialIdentity'), [
      'CORP.LOCAL-S-1-18-1', 'CORP.LOCAL-S-1-18-4', 'CORP.LOCAL-S-1-18-5', 'CORP.LOCAL-S-1-5-15', 'CORP.LOCAL-S-1-5-2',
      'CORP.LOCAL-S-1-5-64-10', 'CORP.LOCAL-S-1-5-64-14', 'CORP.LOCAL-S-1-5-65-1', `${D}-501`,
    ].map((t) => `CORP.LOCAL-S-1-1-0 -> ${t}`).sort());
    const network = await g.db.kysely.selectFrom('nodes').select(['kinds', 'name', 'properties']).where('objectid', '=', 'CORP.LOCAL-S-1-5-2').executeTakeFirstOrThrow();
    assert.deepEqual([JSON.parse(network.kinds), network.name, JSON.parse(network.properties)],
      [['Group', 'Base'], 'NETWORK@CORP.LOCAL', { name: 'NETWORK@CORP.LOCAL', domainsid: D, domain: 'CORP.LOCAL' }]);
  } finally {
    await g.db.close();
  }
});

test(`FixWellKnownNodeTypes and DomainAssociations on ${DIALECT}: a bare -512 becomes a Group, named after its domain`, async () => {
  const g = await analysed([domain()], [[`${D}-512`, 'GenericAll', D]]);
  try {
    const row = await g.db.kysely.selectFrom('nodes').select(['kinds', 'name', 'environment_id', 'properties']).where('objectid', '=', `${D}-512`).executeTakeFirstOrThrow();
    assert.deepEqual(JSON.parse(row.kinds), ['Group', 'Base']);
    assert.equal(row.name, `(CORP.LOCAL) ${D}-512`);
    assert.equal(row.environment_id, D);
    assert.equal(JSON.parse(row.properties).domainsid, D);
  } finally {
    await g.db.close();
  }
});

test(`post-processing on ${DIALECT}: idempotent, and a derived edge whose reason is gone is deleted`, async () => {
  const [nodes, edges] = localGraph('544');
  const g = await analysed(nodes, edges, async (db) => {
    await postProcess(db);
    const second = await postProcess(db);
    assert.equal(second.edges.AdminTo, 2);
  });
  try {
    assert.deepEqual(await g.edges('AdminTo'), pairs(['1100', '1200'], ['1101', '1200']));
    await g.db.kysely.deleteFrom('edges').where('kind', '=', 'MemberOfLocalGroup').execute();
    const third = await postProcess(g.db);
    assert.equal(third.deleted, 2);
    assert.deepEqual(await g.edges('AdminTo'), []);
  } finally {
    await g.db.close();
  }
});
