/**
 * CoerceAndRelayNTLMToSMB / ToLDAP / ToLDAPS / ToADCS on hand-built graphs: the edge when every condition
 * holds, each condition that, when false, removes it, and the `ntlm_post_processing` flag.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECT } from '../../test/harness.ts';
import { ECA, pki, rights, template, tpl } from './adcs-esc.test-helpers.ts';
import { postProcess } from './post-processing.ts';
import { analysed, check, computer, D, domain, group, user, type E, type N } from './rules.test-helpers.ts';

type Props = Record<string, unknown>;
const AU = 'CORP.LOCAL-S-1-5-11';
const to = (rid: string) => [`${AU} -> ${D}-${rid}`];
const UNPROTECTED = { restrictoutboundntlm: false };
const ADMINS = `${D}-1200-544`;

/** C1200 (with `target`) has a local Administrators group; C1201 (with `attacker`) is in it, or `admin` edges say who is. */
function smb(o: { target?: Props; attacker?: Props; admin?: E[]; nodes?: N[] } = {}): [N[], E[]] {
  return [[domain(), computer('1200', { smbsigning: false, ...o.target }), computer('1201', { ...UNPROTECTED, ...o.attacker }),
    [ADMINS, ['Group', 'ADLocalGroup', 'Base'], { name: 'ADMINISTRATORS@C1200.CORP.LOCAL' }], ...(o.nodes ?? [])],
  [[ADMINS, 'LocalToComputer', `${D}-1200`], ...(o.admin ?? [[`${D}-1201`, 'MemberOfLocalGroup', ADMINS]])]];
}

const smbCases: Array<[string, Parameters<typeof smb>[0], string[]]> = [
  ['a computer without SMB signing that an unprotected computer administers', {}, to('1200')],
  ['not with SMB signing', { target: { smbsigning: true } }, []],
  ['not when SMB signing was not collected', { target: { smbsigning: undefined } }, []],
  ['not when the admin restricts outbound NTLM', { attacker: { restrictoutboundntlm: true } }, []],
  ['not when the admin says nothing about outbound NTLM', { attacker: { restrictoutboundntlm: undefined } }, []],
  ['an admin through a group', { nodes: [group('1300')], admin: [[`${D}-1300`, 'MemberOfLocalGroup', ADMINS], [`${D}-1201`, 'MemberOf', `${D}-1300`]] }, to('1200')],
  ['not the computer administering itself', { target: UNPROTECTED, admin: [[`${D}-1200`, 'MemberOfLocalGroup', ADMINS]] }, []],
  ['not an admin in Protected Users', { nodes: [group('525')], admin: [[`${D}-1201`, 'MemberOfLocalGroup', ADMINS], [`${D}-1201`, 'MemberOf', `${D}-525`]] }, []],
];
for (const [name, o, expected] of smbCases) test(`CoerceAndRelayNTLMToSMB on ${DIALECT}: ${name}`, () => check(...smb(o), 'CoerceAndRelayNTLMToSMB', expected));

test(`CoerceAndRelayNTLMToSMB on ${DIALECT}: Protected Users does not protect in a domain at functional level 2012 or older`, async () => {
  const [nodes, edges] = smb({ nodes: [group('525')], admin: [[`${D}-1201`, 'MemberOfLocalGroup', ADMINS], [`${D}-1201`, 'MemberOf', `${D}-525`]] });
  await check([domain({ functionallevel: '2012' }), ...nodes.slice(1)], edges, 'CoerceAndRelayNTLMToSMB', to('1200'));
});

test(`CoerceAndRelayNTLMToSMB on ${DIALECT}: none while the ntlm_post_processing flag is off`, async () => {
  const g = await analysed(...smb(), async (db) => {
    await db.kysely.updateTable('feature_flags').set({ enabled: 0 }).where('key', '=', 'ntlm_post_processing').execute();
    await postProcess(db);
  });
  try {
    assert.deepEqual(await g.edges('CoerceAndRelayNTLMToSMB'), []);
  } finally {
    await g.db.close();
  }
});

const DC = { isdc: true, ldapavailable: true, ldapsigning: false, ldapsavailable: true, ldapsepa: false };

/** C1202 (with `target`) runs WebClient; DC C1000 (with `dc`) serves LDAP and LDAPS. */
const ldap = (target: Props = {}, dc: Props = {}): [N[], E[]] =>
  [[domain(), computer('1000', { ...DC, ...dc }), computer('1202', { webclientrunning: true, ...UNPROTECTED, ...target })], []];

const ldapCases: Array<[string, [Props?, Props?], string[], string[]]> = [
  ['an unprotected WebClient computer, a DC without LDAP signing / LDAPS channel binding', [], to('1202'), to('1202')],
  ['not LDAP when the DC signs, LDAPS still', [{}, { ldapsigning: true }], [], to('1202')],
  ['not LDAPS when the DC enforces channel binding, LDAP still', [{}, { ldapsepa: true }], to('1202'), []],
  ['not without WebClient', [{ webclientrunning: false }], [], []],
  ['not when the computer restricts outbound NTLM', [{ restrictoutboundntlm: true }], [], []],
  ['not the DC relaying to itself', [{ ...DC, webclientrunning: true }, { isdc: false }], [], []],
];
for (const [name, args, toLdap, toLdaps] of ldapCases) {
  test(`CoerceAndRelayNTLMToLDAP / LDAPS on ${DIALECT}: ${name}`, async () => {
    const g = await analysed(...ldap(...args));
    try {
      assert.deepEqual([await g.edges('CoerceAndRelayNTLMToLDAP'), await g.edges('CoerceAndRelayNTLMToLDAPS')], [toLdap, toLdaps]);
    } finally {
      await g.db.close();
    }
  });
}

/** A CA with a relayable web enrollment endpoint, template T1; C1201 (unprotected) and U1100 enroll in both. */
function adcs(ca: Props = {}, t1: Props = {}, enrollers = [`${D}-1201`, `${D}-1100`]): [N[], E[]] {
  const [nodes, edges] = pki({ hasvulnerableendpoint: true, ...ca }, [template(1, t1)]);
  return [[...nodes, computer('1201', UNPROTECTED), user('1100')], [...edges, ...rights('Enroll', enrollers, tpl(1), ECA)]];
}

const adcsCases: Array<[string, Parameters<typeof adcs>, string[]]> = [
  ['an unprotected computer enrolling in an authentication template through a CA with a relayable endpoint', [], to('1201')],
  ['not through a CA without a relayable endpoint', [{ hasvulnerableendpoint: false }], []],
  ['not with manager approval', [{}, { requiresmanagerapproval: true }], []],
  ['not a schema-2 template requiring a signature', [{}, { schemaversion: 2, authorizedsignatures: 1 }], []],
  ['not a template without authentication', [{}, { authenticationenabled: false }], []],
  ['not users, only unprotected computers', [{}, {}, [`${D}-1100`]], []],
];
for (const [name, args, expected] of adcsCases) test(`CoerceAndRelayNTLMToADCS on ${DIALECT}: ${name}`, () => check(...adcs(...args), 'CoerceAndRelayNTLMToADCS', expected));
