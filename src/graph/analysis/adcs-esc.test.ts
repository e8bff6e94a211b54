/**
 * ADCSESC3, ADCSESC4 and ADCSESC13 on hand-built PKIs (adcs-esc.test-helpers.ts): the edge when every
 * condition holds, and each condition that, when false, removes it.
 */
import { test } from 'node:test';
import { DIALECT } from '../../test/harness.ts';
import { ECA, EKU_CERT_REQUEST_AGENT, pki, rights, template, tpl } from './adcs-esc.test-helpers.ts';
import { check, computer, D, group, pairs, user, type E, type N } from './rules.test-helpers.ts';

type Props = Record<string, unknown>;
const U = `${D}-1100`;
const C = `${D}-1200`;

/**
 * T1 is an enrollment agent template (Certificate Request Agent EKU, no authentication: never a target
 * itself), so T1 –EnrollOnBehalfOf→ T2; U1100 and C1200 enroll in both and through the CA.
 */
function esc3(o: { ca?: Props; agent?: Props; target?: Props; t2Enrollers?: string[]; edges?: E[] } = {}): [N[], E[]] {
  const [nodes, edges] = pki({ enrollmentagentrestrictionscollected: true, hasenrollmentagentrestrictions: false, ...o.ca },
    [template(1, { authenticationenabled: false, effectiveekus: [EKU_CERT_REQUEST_AGENT], ...o.agent }), template(2, o.target)]);
  return [[...nodes, user('1100'), computer('1200')],
    [...edges, ...rights('Enroll', [U, C], tpl(1), ECA), ...rights('Enroll', o.t2Enrollers ?? [U, C], tpl(2)), ...(o.edges ?? [])]];
}

const esc3Cases: Array<[string, Parameters<typeof esc3>[0], string[]]> = [
  ['enrollers of the agent template, the target template and the CA → the domain', {}, pairs(['1100', D], ['1200', D])],
  ['not without enrolling in the target template', { t2Enrollers: [C] }, pairs(['1200', D])],
  ['not when the target template requires manager approval', { target: { requiresmanagerapproval: true } }, []],
  ['not when the target template has no authentication', { target: { authenticationenabled: false } }, []],
  ['not when the agent template requires manager approval', { agent: { requiresmanagerapproval: true } }, []],
  ['not when the agent template (schema 2) requires an authorized signature', { agent: { schemaversion: 2, authorizedsignatures: 1 } }, []],
  ['users only when the agent template allows a user subject', { agent: { subjectaltrequiredns: undefined } }, pairs(['1200', D])],
  ['not when the CA does not say whether agent restrictions were collected', { ca: { enrollmentagentrestrictionscollected: undefined } }, []],
  ['with agent restrictions, only delegated enrollment agents of the target template', {
    ca: { hasenrollmentagentrestrictions: true }, edges: [[U, 'DelegatedEnrollmentAgent', tpl(2)]],
  }, pairs(['1100', D])],
  ['with agent restrictions and no delegated agent, none', { ca: { hasenrollmentagentrestrictions: true } }, []],
];
for (const [name, o, expected] of esc3Cases) test(`ADCSESC3 on ${DIALECT}: ${name}`, () => check(...esc3(o), 'ADCSESC3', expected));

/** U1100 enrolls through the CA and holds `edges` on T1 (a valid template unless `t1` says otherwise). */
function esc4(kinds: string[], t1: Props = {}, caEnroller = true): [N[], E[]] {
  const [nodes, edges] = pki({}, [template(1, t1)]);
  return [[...nodes, user('1100')], [...edges, ...(caEnroller ? rights('Enroll', [U], ECA) : []), ...kinds.map((k): E => [U, k, tpl(1)])]];
}

const esc4Cases: Array<[string, string[], Props, string[]]> = [
  ['GenericAll on the template', ['GenericAll'], {}, pairs(['1100', D])],
  ['WriteDacl on the template', ['WriteDacl'], {}, pairs(['1100', D])],
  ['not ownership: Owns is derived after the ADCS rules, as in BloodHound', ['OwnsRaw', 'WriteOwnerRaw'], {}, []],
  ['GenericWrite with Enroll', ['GenericWrite', 'Enroll'], {}, pairs(['1100', D])],
  ['not GenericWrite without Enroll / AllExtendedRights', ['GenericWrite'], {}, []],
  ['WritePKINameFlag with AllExtendedRights, without manager approval', ['WritePKINameFlag', 'AllExtendedRights'], {}, pairs(['1100', D])],
  ['not WritePKINameFlag with manager approval', ['WritePKINameFlag', 'Enroll'], { requiresmanagerapproval: true }, []],
  ['WritePKIEnrollmentFlag with Enroll when the enrollee supplies the subject', ['WritePKIEnrollmentFlag', 'Enroll'], { enrolleesuppliessubject: true }, pairs(['1100', D])],
  ['not WritePKIEnrollmentFlag when the enrollee does not supply the subject', ['WritePKIEnrollmentFlag', 'Enroll'], {}, []],
  ['both flags with Enroll, whatever approval and subject', ['WritePKINameFlag', 'WritePKIEnrollmentFlag', 'Enroll'], { requiresmanagerapproval: true }, pairs(['1100', D])],
  ['not the flags on a template without authentication', ['WritePKINameFlag', 'WritePKIEnrollmentFlag', 'Enroll'], { authenticationenabled: false }, []],
  ['not the flags on a schema-2 template requiring a signature', ['WritePKINameFlag', 'Enroll'], { schemaversion: 2, authorizedsignatures: 1 }, []],
  ['control without authentication still counts', ['GenericAll'], { authenticationenabled: false }, pairs(['1100', D])],
  ['nothing when the template does not say whether the enrollee supplies the subject', ['GenericAll'], { enrolleesuppliessubject: undefined }, []],
];
for (const [name, kinds, t1, expected] of esc4Cases) test(`ADCSESC4 on ${DIALECT}: ${name}`, () => check(...esc4(kinds, t1), 'ADCSESC4', expected));
test(`ADCSESC4 on ${DIALECT}: not without enrolling through the CA`, () => check(...esc4(['GenericAll'], {}, false), 'ADCSESC4', []));

const POLICY = 'POL00000-0000-0000-0000-000000000001';
const D2 = 'S-1-5-21-2';
const OU2 = 'OU000000-0000-0000-0000-000000000002';

/** T1 has issuance policy 1.2.3, linked to group G1300; U1100 and C1200 enroll in T1 and through the CA. */
function esc13(o: { t1?: Props; contained?: E[]; link?: boolean; caByGroup?: boolean } = {}): [N[], E[]] {
  const [nodes, edges] = pki({}, [template(1, { certificatepolicy: ['1.2.3'], ...o.t1 })]);
  const enroll = o.caByGroup
    ? [...rights('Enroll', [U, C], tpl(1)), [`${D}-1400`, 'Enroll', ECA] as E, ...rights('MemberOf', [U, C], `${D}-1400`)]
    : rights('Enroll', [U, C], tpl(1), ECA);
  return [[...nodes, user('1100'), computer('1200'), group('1300'), group('1400'),
    [POLICY, ['IssuancePolicy', 'Base'], { name: 'POLICY@CORP.LOCAL', domainsid: D, certtemplateoid: '1.2.3' }],
    [D2, ['Domain', 'Base'], { name: 'OTHER.LOCAL', domainsid: D2 }], [OU2, ['OU', 'Base'], { name: 'OU@OTHER.LOCAL', domainsid: D2 }]],
  [...edges, ...enroll, ...(o.link === false ? [] : [[POLICY, 'OIDGroupLink', `${D}-1300`] as E]),
    ...(o.contained ?? [[D, 'Contains', `${D}-1300`]])]];
}

const esc13Cases: Array<[string, Parameters<typeof esc13>[0], string[]]> = [
  ['enrollers of the template and the CA → the group its issuance policy links to', {}, pairs(['1100', '1300'], ['1200', '1300'])],
  ['users only when the template allows a user subject', { t1: { subjectaltrequiredomaindns: undefined } }, pairs(['1200', '1300'])],
  ['the template enrollers when a group of theirs enrolls through the CA', { caByGroup: true }, pairs(['1100', '1300'], ['1200', '1300'])],
  ['not without a group link', { link: false }, []],
  ['not when the template has no authentication', { t1: { authenticationenabled: false } }, []],
  ['not when the template requires manager approval', { t1: { requiresmanagerapproval: true } }, []],
  ['not when the group is in no domain of the CA', { contained: [[D2, 'Contains', OU2], [OU2, 'Contains', `${D}-1300`]] }, []],
  ['a group of another domain of the forest', {
    contained: [[D2, 'Contains', OU2], [OU2, 'Contains', `${D}-1300`], [D, 'SameForestTrust', D2]],
  }, pairs(['1100', '1300'], ['1200', '1300'])],
];
for (const [name, o, expected] of esc13Cases) test(`ADCSESC13 on ${DIALECT}: ${name}`, () => check(...esc13(o), 'ADCSESC13', expected));
