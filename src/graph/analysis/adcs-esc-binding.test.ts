/**
 * ADCSESC6a/b, ADCSESC9a/b and ADCSESC10a/b on hand-built PKIs (adcs-esc.test-helpers.ts): the edge
 * when every condition holds, and each condition that, when false, removes it. DC1001 –DCFor→ the domain
 * carries the certificate mapping / binding registry values.
 */
import { test } from 'node:test';
import { DIALECT } from '../../test/harness.ts';
import { ECA, pki, rights, template, tpl } from './adcs-esc.test-helpers.ts';
import { check, computer, D, group, pairs, user, type E, type N } from './rules.test-helpers.ts';

type Props = Record<string, unknown>;
const U = `${D}-1100`;
const C = `${D}-1200`;
const D2 = 'S-1-5-21-2';
const DC2 = `${D2}-1001`;
const SAN = { isuserspecifiessanenabledcollected: true, isuserspecifiessanenabled: true };
const UPN_MAPPING = { certificatemappingmethodsraw: 4 };
const WEAK_BINDING = { strongcertificatebindingenforcementraw: 1 };

interface Opts { ca?: Props; t1?: Props; dc?: Props; enrollers?: string[]; edges?: E[]; nodes?: N[] }

/** Template T1 (with `t1`), DC1001 of D (with `dc`); `enrollers` (U1100, C1200) enroll in T1 and through the CA. */
function graph(o: Opts): [N[], E[]] {
  const [nodes, edges] = pki(o.ca ?? {}, [template(1, o.t1)]);
  const enrollers = o.enrollers ?? [U, C];
  return [[...nodes, user('1100'), computer('1200'), computer('1001', o.dc), user('1105'), ...(o.nodes ?? [])],
    [...edges, [`${D}-1001`, 'DCFor', D], ...rights('Enroll', enrollers, tpl(1), ECA), ...(o.edges ?? [])]];
}

function cases(kind: string, base: Opts, list: Array<[string, Opts, string[]]>) {
  for (const [name, o, expected] of list) {
    test(`${kind} on ${DIALECT}: ${name}`, () => check(...graph({
      ...base, ...o, ca: { ...base.ca, ...o.ca }, t1: { ...base.t1, ...o.t1 }, dc: { ...base.dc, ...o.dc },
    }), kind, expected));
  }
}

const forest: Opts = { dc: { certificatemappingmethodsraw: undefined }, nodes: [[D2, ['Domain', 'Base'], { name: 'OTHER.LOCAL', domainsid: D2 }], [DC2, ['Computer', 'Base'], { name: 'DC2.OTHER.LOCAL', domainsid: D2, ...UPN_MAPPING }]] };

cases('ADCSESC6a', { ca: SAN, t1: { nosecurityextension: true } }, [
  ['enrollers of a template without the security extension, through a CA allowing a requester SAN', {}, pairs(['1100', D], ['1200', D])],
  ['not when the CA does not allow a requester SAN', { ca: { isuserspecifiessanenabled: false } }, []],
  ['not when the CA does not say whether its SAN flag was collected', { ca: { isuserspecifiessanenabledcollected: undefined } }, []],
  ['not when the template has the security extension', { t1: { nosecurityextension: false } }, []],
  ['not when the template has no authentication', { t1: { authenticationenabled: false } }, []],
  ['not when the template (schema 2) requires an authorized signature', { t1: { schemaversion: 2, authorizedsignatures: 1 } }, []],
  ['users only when the template allows a user subject', { t1: { subjectaltrequiredns: true } }, pairs(['1200', D])],
  ['not without enrolling through the CA', { enrollers: [], edges: rights('Enroll', [U], tpl(1)) }, []],
]);

cases('ADCSESC6b', { ca: SAN, dc: UPN_MAPPING }, [
  ['enrollers of a Schannel template through a CA allowing a requester SAN, a DC mapping by UPN', {}, pairs(['1100', D], ['1200', D])],
  ['not without UPN mapping (bit 0x4)', { dc: { certificatemappingmethodsraw: 3 } }, []],
  ['not when the mapping registry value does not exist (-1)', { dc: { certificatemappingmethodsraw: -1 } }, []],
  ['a DC of a domain trusting into this one (SameForestTrust, inbound)', { ...forest, edges: [[D2, 'SameForestTrust', D], [DC2, 'DCFor', D2]] }, pairs(['1100', D], ['1200', D])],
  ['not a DC of a domain this one trusts (outbound)', { ...forest, edges: [[D, 'SameForestTrust', D2], [DC2, 'DCFor', D2]] }, []],
  ['not when the template has no Schannel EKU', { t1: { effectiveekus: ['1.3.6.1.5.5.7.3.1'] } }, []],
  ['a template with no EKU at all', { t1: { effectiveekus: [] } }, pairs(['1100', D], ['1200', D])],
  ['not when `schannelauthenticationenabled` says no', { t1: { schannelauthenticationenabled: false } }, []],
  ['not when the CA does not allow a requester SAN', { ca: { isuserspecifiessanenabled: false } }, []],
]);

const takeover9: Opts = { dc: WEAK_BINDING, t1: { nosecurityextension: true, subjectaltrequireupn: true }, enrollers: [U], edges: [[`${D}-1105`, 'GenericWrite', U]] };
cases('ADCSESC9a', takeover9, [
  ['who can write a victim that enrolls (UPN SAN, no security extension) → domains with weak binding', {}, pairs(['1105', D])],
  ['an SPN SAN too', { t1: { subjectaltrequireupn: false, subjectaltrequirespn: true } }, pairs(['1105', D])],
  ['not with strong binding enforced (2)', { dc: { strongcertificatebindingenforcementraw: 2 } }, []],
  ['binding not set (-1) is weak', { dc: { strongcertificatebindingenforcementraw: -1 } }, pairs(['1105', D])],
  ['not without a UPN or SPN SAN', { t1: { subjectaltrequireupn: false } }, []],
  ['not when the SPN flag is missing', { t1: { subjectaltrequirespn: undefined } }, []],
  ['not when the template has the security extension', { t1: { nosecurityextension: false } }, []],
  ['not when the enrollee supplies the subject', { t1: { enrolleesuppliessubject: true } }, []],
  ['not a user victim when the template does not allow a user subject', { t1: { subjectaltrequiredns: undefined } }, []],
  ['a victim enrolling through the CA by group', {
    nodes: [group('1300')], edges: [[`${D}-1105`, 'GenericWrite', U], [U, 'MemberOf', `${D}-1300`], [`${D}-1300`, 'Enroll', ECA], [U, 'Enroll', tpl(1)]], enrollers: [],
  }, pairs(['1105', D])],
  ['Authenticated Users enrolling in the template: every CA enroller is a victim', {
    nodes: [['CORP.LOCAL-S-1-5-11', ['Group', 'Base'], { name: 'AUTHENTICATED USERS@CORP.LOCAL', domainsid: D }]],
    edges: [[`${D}-1105`, 'GenericWrite', U], ['CORP.LOCAL-S-1-5-11', 'Enroll', tpl(1)], [U, 'Enroll', ECA]], enrollers: [],
  }, pairs(['1105', D])],
  ['not without enrolling through the CA', { enrollers: [], edges: [[`${D}-1105`, 'GenericWrite', U], [U, 'Enroll', tpl(1)]] }, []],
]);

cases('ADCSESC9b', { ...takeover9, t1: { nosecurityextension: true, subjectaltrequiredns: true }, enrollers: [U, C], edges: [[`${D}-1105`, 'GenericAll', C], [C, 'GenericWrite', U]] }, [
  ['who can write a computer victim (DNS SAN, no security extension) → domains with weak binding', {}, pairs(['1105', D])],
  ['not without a DNS SAN', { t1: { subjectaltrequiredns: false } }, []],
  ['not with strong binding enforced', { dc: { strongcertificatebindingenforcementraw: 2 } }, []],
]);

const takeover10: Opts = { dc: UPN_MAPPING, t1: { subjectaltrequireupn: true, authenticationenabled: false }, enrollers: [U], edges: [[`${D}-1105`, 'GenericWrite', U]] };
cases('ADCSESC10a', takeover10, [
  ['who can write a victim that enrolls (UPN SAN, Schannel) → domains with UPN mapping', {}, pairs(['1105', D])],
  ['not without UPN mapping', { dc: { certificatemappingmethodsraw: 1 } }, []],
  ['not without a Schannel EKU', { t1: { effectiveekus: ['1.3.6.1.5.5.7.3.4'] } }, []],
  ['not when the enrollee supplies the subject', { t1: { enrolleesuppliessubject: true } }, []],
  ['not without a UPN or SPN SAN', { t1: { subjectaltrequireupn: false } }, []],
]);

cases('ADCSESC10b', { ...takeover10, t1: { subjectaltrequiredns: true }, enrollers: [U, C], edges: [[`${D}-1105`, 'GenericAll', C], [C, 'GenericWrite', U]] }, [
  ['who can write a computer victim (DNS SAN, Schannel) → domains with UPN mapping', {}, pairs(['1105', D])],
  ['not without a DNS SAN', { t1: { subjectaltrequiredns: false } }, []],
  ['not without UPN mapping', { dc: { certificatemappingmethodsraw: -1 } }, []],
]);
