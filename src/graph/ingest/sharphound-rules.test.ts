/**
 * BloodHound's SharpHound ingest rules that the graphify fixture sets do not exercise, one small
 * hand-built document each (the sets themselves: parity.test.ts).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { createTestDb, DIALECT, type TestDb } from '../../test/harness.ts';
import { findNodeByObjectId, toNode } from '../store.repository.ts';
import { ingestFiles } from './ingest.service.ts';

let db: TestDb;
let dir: string;
let n = 0;
before(async () => {
  db = await createTestDb();
  dir = mkdtempSync(join(tmpdir(), 'scent-rules-'));
});
after(async () => {
  await db.close();
  rmSync(dir, { recursive: true, force: true });
});

const D = 'S-1-5-21-7';
async function ingest(type: string, data: object[], parallel: 'never' | 'always' = 'never') {
  const path = join(dir, `${++n}_${type}.json`);
  writeFileSync(path, JSON.stringify({ meta: { type, version: 6, count: data.length }, data }));
  const [outcome] = await ingestFiles(db, [{ path }], { parallel });
  assert.equal(outcome.error, undefined);
  return outcome.result!;
}
const edges = async (target: string) => (await sql<{ s: string; k: string; p: string }>`select s.objectid as s, e.kind as k, e.properties as p
  from edges e join nodes s on s.id = e.start_id join nodes t on t.id = e.end_id where t.objectid = ${target} order by s.objectid, e.kind`
  .execute(db.kysely)).rows.map((r) => ({ s: r.s, k: r.k, p: JSON.parse(r.p) }));
const node = async (id: string) => toNode((await findNodeByObjectId(db.kysely, id))!);
const ace = (sid: string, right: string, inherited = false, type = 'User') => ({ PrincipalSID: sid, PrincipalType: type, RightName: right, IsInherited: inherited, InheritanceHash: inherited ? 'H' : '' });

test(`SharpHound rules on ${DIALECT}: OWNER RIGHTS (S-1-3-4) ACEs limit what the owner and WriteOwner holders get`, async () => {
  const obj = (id: string, aces: object[], props: object = {}) => ({ ObjectIdentifier: id, Properties: { name: `${id}@X`, domainsid: D, ...props }, Aces: aces });
  await ingest('users', [
    // abusable rights granted to OWNER RIGHTS, one inherited: OwnsLimitedRights, WriteOwnerLimitedRights
    obj(`${D}-1`, [ace(`${D}-500`, 'Owns'), ace(`${D}-600`, 'WriteOwner'), ace(`${D}-S-1-3-4`, 'GenericWrite'), ace(`${D}-S-1-3-4`, 'WriteDacl', true)]),
    // only uninherited ones: OwnsLimitedRights and WriteOwnerRaw
    obj(`${D}-2`, [ace(`${D}-500`, 'Owns'), ace(`${D}-600`, 'WriteOwner'), ace(`${D}-S-1-3-4`, 'GenericWrite')]),
    // non-abusable, inherited OWNER RIGHTS grants: neither raw edge
    obj(`${D}-3`, [ace(`${D}-500`, 'Owns'), ace(`${D}-600`, 'WriteOwner')], { doesanyacegrantownerrights: true, doesanyinheritedacegrantownerrights: true }),
    // non-abusable, not inherited: WriteOwnerRaw only; and the object's ACE on itself is dropped
    obj(`${D}-4`, [ace(`${D}-500`, 'Owns'), ace(`${D}-600`, 'WriteOwner'), ace(`${D}-4`, 'GenericAll'), ace(`${D}-9`, 'NotAnAclRight')], { doesanyacegrantownerrights: true }),
  ]);
  assert.deepEqual(await edges(`${D}-1`), [
    { s: `${D}-500`, k: 'OwnsLimitedRights', p: { isacl: true, isinherited: false, privileges: ['GenericWrite', 'WriteDacl'] } },
    { s: `${D}-600`, k: 'WriteOwnerLimitedRights', p: { isacl: true, isinherited: false, inheritancehash: '', privileges: ['WriteDacl'] } },
  ]);
  assert.deepEqual((await edges(`${D}-2`)).map((e) => e.k), ['OwnsLimitedRights', 'WriteOwnerRaw']);
  assert.deepEqual(await edges(`${D}-3`), []);
  assert.deepEqual(await edges(`${D}-4`), [{ s: `${D}-600`, k: 'WriteOwnerRaw', p: { isacl: true, isinherited: false, inheritancehash: '' } }]);
  assert.equal((await node(`${D}-4`)).properties.ownersid, `${D}-500`, 'the owner is named whatever the edges');
});

test(`SharpHound rules on ${DIALECT}: an edge end's kinds are added to its node (BloodHound keeps every kind stated), whichever comes first`, async () => {
  for (const parallel of ['never', 'always'] as const) {
    const g = `${D}-${parallel.toUpperCase()}-G`;
    const c = `${D}-${parallel.toUpperCase()}-C`;
    await ingest('groups', [{ ObjectIdentifier: g, Properties: { name: 'G@X', domainsid: D } }], parallel);
    const computer = (id: string, group: string) => ({
      ObjectIdentifier: id, Properties: { name: `${id}@X`, domainsid: D },
      LocalGroups: [{ ObjectIdentifier: group, Name: 'IGNOREME', Collected: true, Results: [{ ObjectIdentifier: `${D}-U`, ObjectType: 'User' }] }],
    });
    await ingest('computers', [computer(c, g)], parallel);
    assert.deepEqual((await node(g)).kinds, ['Group', 'Base', 'ADLocalGroup'], parallel);
    // the other order: named as a local group first, described as a group later
    const g2 = `${g}2`;
    await ingest('computers', [computer(`${c}2`, g2)], parallel);
    await ingest('groups', [{ ObjectIdentifier: g2, Properties: { name: 'G2@X', domainsid: D } }], parallel);
    assert.deepEqual((await node(g2)).kinds, ['Group', 'Base', 'ADLocalGroup'], parallel);
  }
});

test(`SharpHound rules on ${DIALECT}: computers — collected API results as properties, DCFor for a DC, CoerceToTGT for others`, async () => {
  const base = { Properties: { name: 'x', domainsid: D, ldapenabled: true, unconstraineddelegation: true }, DomainSID: D };
  await ingest('computers', [
    {
      ...base, ObjectIdentifier: `${D}-1000`, IsDC: true,
      SmbInfo: { Collected: true, Result: { SigningEnabled: false } }, IsWebClientRunning: { Collected: true, Result: true },
      NTLMRegistryData: { Collected: true, Result: { RestrictSendingNtlmTraffic: 2, RequireSecuritySignature: 0, NtlmMinClientSec: 536870912 } },
      DCRegistryData: {
        CertificateMappingMethods: { Collected: true, Value: 6 }, StrongCertificateBindingEnforcement: { Collected: true, Value: 1 },
        VulnerableNetlogonSecurityDescriptor: { Collected: false },
      },
      UserRights: [{ Collected: true, Privilege: 'SeRemoteInteractiveLogonRight', Results: [{ ObjectIdentifier: `${D}-513`, ObjectType: 'Group' }] }],
      Sessions: { Collected: false, Results: [{ ComputerSID: `${D}-1000`, UserSID: `${D}-1200` }] },
    },
    { ...base, ObjectIdentifier: `${D}-1001`, IsDC: false },
  ]);
  const { name, domainsid, unconstraineddelegation, objectid, ...props } = (await node(`${D}-1000`)).properties;
  assert.deepEqual([name, domainsid, unconstraineddelegation, objectid], ['X', D, true, `${D}-1000`]);
  assert.deepEqual(props, {
    ldapavailable: true, smbsigning: false, webclientrunning: true, restrictoutboundntlm: true, requiresecuritysignature: false,
    ntlmminclientsec: 536870912, hasura: true, certificatemappingmethodsraw: 6,
    certificatemappingmethods: ['0x02: Many-to-one (issuer certificate)', '0x04: User principal name (UPN/SAN)'],
    strongcertificatebindingenforcementraw: 1, strongcertificatebindingenforcement: 'Compatibility mode',
    vulnerablenetlogonsecuritydescriptorcollected: false,
  });
  assert.deepEqual(await edges(D), [
    { s: `${D}-1000`, k: 'DCFor', p: { isacl: false } },
    { s: `${D}-1001`, k: 'CoerceToTGT', p: { isacl: false } },
  ]);
  assert.deepEqual(await edges(`${D}-1000`), [{ s: `${D}-513`, k: 'RemoteInteractiveLogonRight', p: { isacl: false } }], 'sessions not collected: none');
});

test(`SharpHound rules on ${DIALECT}: domains — typed properties, trust attributes, TGT delegation; GPO status`, async () => {
  const result = await ingest('domains', [{
    ObjectIdentifier: D, Properties: { name: 'seven.local', domainsid: D, machineaccountquota: '10', minpwdlength: 'x', expirepasswordsonsmartcardonlyaccounts: 'true' },
    Trusts: [
      { TargetDomainSid: 'S-1-5-21-8', TargetDomainName: 'eight.local', TrustDirection: 3, TrustType: 'Forest', IsTransitive: true, SidFilteringEnabled: true, TGTDelegationEnabled: true, TrustAttributes: '8' },
    ],
  }]);
  assert.deepEqual(result.warnings, []);
  const props = (await node(D)).properties;
  assert.deepEqual([props.name, props.machineaccountquota, props.minpwdlength, props.expirepasswordsonsmartcardonlyaccounts], ['SEVEN.LOCAL', 10, undefined, true]);
  assert.deepEqual((await edges(D)).filter((e) => e.s === 'S-1-5-21-8'), [
    { s: 'S-1-5-21-8', k: 'AbuseTGTDelegation', p: { isacl: false, trusttype: 'Forest' } },
    { s: 'S-1-5-21-8', k: 'CrossForestTrust', p: { isacl: false, trusttype: 'Forest', transitive: true, trustattributesinbound: 8, tgtdelegation: true } },
  ]);
  assert.deepEqual((await edges('S-1-5-21-8')).map((e) => e.p), [{ isacl: false, spoofsidhistoryblocked: true, trusttype: 'Forest', transitive: true, trustattributesoutbound: 8 }]);
  assert.deepEqual((await node('S-1-5-21-8')).properties, { name: 'EIGHT.LOCAL', domainsid: 'S-1-5-21-8', objectid: 'S-1-5-21-8' });
  await ingest('gpos', [{ ObjectIdentifier: 'GPO-1', Properties: { name: 'p@x', gpostatus: ' 2 ' } }]);
  const gpo = (await node('GPO-1')).properties;
  assert.deepEqual([gpo.gpostatusraw, gpo.gpostatus], ['2', 'Computer Configuration Disabled']);
});

test(`SharpHound rules on ${DIALECT}: a group member named by distinguished name is reported, not linked`, async () => {
  const result = await ingest('groups', [{ ObjectIdentifier: `${D}-2000`, Properties: { name: 'g@x' }, Members: [{ ObjectIdentifier: 'DN=CN=X,DC=SEVEN', ObjectType: 'User' }] }]);
  assert.deepEqual(result.warnings, [`${D}-2000: member DN=CN=X,DC=SEVEN is named by distinguished name only; not linked`]);
  assert.deepEqual(await edges(`${D}-2000`), []);
});

test(`SharpHound rules on ${DIALECT}: enterprise CA web enrollment endpoints and registry flags`, async () => {
  await ingest('enterprisecas', [{
    ObjectIdentifier: 'ECA-1', Properties: { name: 'ca@x', domainsid: D }, HostingComputer: `${D}-1000`,
    HttpEnrollmentEndpoints: [
      { Collected: true, Result: { Url: 'http://ca/certsrv', ADCSWebEnrollmentHTTP: true } },
      { Collected: true, Result: { Url: 'https://ca/certsrv', ADCSWebEnrollmentHTTPS: true, ADCSWebEnrollmentEPA: true } },
    ],
    CARegistryData: { EnrollmentAgentRestrictions: { Collected: true, Restrictions: [] }, RoleSeparationEnabled: { Collected: true, Value: true } },
  }]);
  const p = (await node('ECA-1')).properties;
  assert.deepEqual([p.httpenrollmentendpoints, p.httpsenrollmentendpoints, p.hasvulnerableendpoint, p.hasenrollmentagentrestrictions, p.roleseparationenabled],
    [['http://ca/certsrv'], undefined, true, false, true]);
});

test(`SharpHound rules on ${DIALECT}: a property reported null clears the stored value; computers before format version 5 are not read`, async () => {
  await ingest('users', [{ ObjectIdentifier: `${D}-3000`, Properties: { name: 'u@x', description: 'old', title: 'T' } }]);
  await ingest('users', [{ ObjectIdentifier: `${D}-3000`, Properties: { name: 'u@x', description: null } }]);
  const props = (await node(`${D}-3000`)).properties;
  assert.deepEqual([props.description, props.title], [undefined, 'T']);
  const path = join(dir, 'old_computers.json');
  writeFileSync(path, JSON.stringify({ meta: { type: 'computers', version: 4 }, data: [{ ObjectIdentifier: `${D}-3001`, Properties: { name: 'c' } }] }));
  const [old] = await ingestFiles(db, [{ path }]);
  assert.deepEqual([old.error, old.result!.nodes, old.result!.warnings], [undefined, 0, ['computers data of meta.version 4 is not read (version 5 or later is)']]);
  assert.equal(await findNodeByObjectId(db.kysely, `${D}-3001`), undefined);
});

// Decisions where Scent differs from BloodHound's code (docs: ingest-and-analysis, differences table).
test(`SharpHound decisions on ${DIALECT}: objects marked IsDeleted are not ingested; a CA's own security entries of LocalGroup principals are left out`, async () => {
  await ingest('users', [{ ObjectIdentifier: `${D}-4000`, IsDeleted: true, Properties: { name: 'gone@x' } }]);
  assert.equal(await findNodeByObjectId(db.kysely, `${D}-4000`), undefined);
  await ingest('enterprisecas', [{
    ObjectIdentifier: 'ECA-2', Properties: { name: 'ca2@x' },
    CARegistryData: { CASecurity: { Collected: true, Data: [ace('S-1-5-32-544', 'ManageCA', false, 'LocalGroup'), ace(`${D}-512`, 'ManageCA', false, 'Group')] } },
  }]);
  assert.deepEqual((await edges('ECA-2')).map((e) => `${e.s} ${e.k}`), [`${D}-512 ManageCA`]);
});
