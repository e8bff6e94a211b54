/**
 * A small PKI for the ESC rule tests: domain D with an enterprise CA hosted by an enabled computer (1000),
 * chained properly to D (the CA's certificate is the root's, RootCAFor D, in the NTAuth store of D), and
 * templates published to it. A property set to `undefined` is left out of the node.
 */
import { computer, D, domain, type E, type N } from './rules.test-helpers.ts';

type Props = Record<string, unknown>;

export const ECA = 'ECA00000-0000-0000-0000-000000000001';
const ROOT = 'ROOT0000-0000-0000-0000-000000000001';
const STORE = 'NTA00000-0000-0000-0000-000000000001';
export const EKU_CLIENT_AUTH = '1.3.6.1.5.5.7.3.2';
export const EKU_CERT_REQUEST_AGENT = '1.3.6.1.4.1.311.20.2.1';

/** A template valid for every ESC as far as its flags go (no manager approval, schema 1, client auth). */
export const TEMPLATE: Props = {
  requiresmanagerapproval: false, authenticationenabled: true, enrolleesuppliessubject: false, schemaversion: 1, authorizedsignatures: 0,
  nosecurityextension: false, effectiveekus: [EKU_CLIENT_AUTH], subjectaltrequiredns: false, subjectaltrequiredomaindns: false,
  subjectaltrequireupn: false, subjectaltrequirespn: false,
};

export const tpl = (n: number) => `TPL00000-0000-0000-0000-00000000000${n}`;
export const template = (n: number, props: Props = {}): N => [tpl(n), ['CertTemplate', 'Base'], { name: `T${n}@CORP.LOCAL`, domainsid: D, ...TEMPLATE, ...props }];

/** The PKI nodes and edges, the CA with `ca` properties and templates published to it. */
export function pki(ca: Props, templates: N[]): [N[], E[]] {
  return [[
    domain(), computer('1000', { enabled: true }),
    [ECA, ['EnterpriseCA', 'Base'], { name: 'CA@CORP.LOCAL', domainsid: D, certthumbprint: 'AB', certchain: ['AB'], ...ca }],
    [ROOT, ['RootCA', 'Base'], { name: 'ROOT@CORP.LOCAL', domainsid: D, certthumbprint: 'AB' }],
    [STORE, ['NTAuthStore', 'Base'], { name: 'NTAUTH@CORP.LOCAL', domainsid: D, certthumbprints: ['AB'] }],
    ...templates,
  ], [
    [ROOT, 'RootCAFor', D], [STORE, 'NTAuthStoreFor', D], [`${D}-1000`, 'HostsCAService', ECA],
    ...templates.map(([id]): E => [id, 'PublishedTo', ECA]),
  ]];
}

/** `principals` hold `kind` on each of `targets`. */
export const rights = (kind: string, principals: string[], ...targets: string[]): E[] => principals.flatMap((p) => targets.map((t): E => [p, kind, t]));
