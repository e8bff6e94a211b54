/**
 * SharpHound enterprise CAs, as BloodHound reads them (ein.ConvertEnterpriseCAToNode,
 * ParseCARegistryProperties, ParseEnterpriseCAMiscData): web enrollment endpoints and registry flags as
 * properties; PublishedTo, HostsCAService, DelegatedEnrollmentAgent (allowed enrollment agent
 * restrictions; "all templates" = every published one); and the CA's ACEs twice, as BloodHound does:
 * all of its AD ACEs, then, when the CA's own security descriptor was collected, that one's entries
 * (without Owns, without local-group principals) with the AD ACEs except ManageCA / ManageCertificates /
 * Enroll of principals other than the hosting computer.
 */
import { aceEdges, type Ace } from './sharphound-aces.ts';
import { arr, kindsOf, link, refOf, type Obj, type Ref, type TypedRef } from './sharphound.ts';
import { normId, type Sink } from './sink.ts';

interface Collected { Collected?: unknown }
const collected = (v: unknown): boolean => (v as Collected | null)?.Collected === true;

export function enterpriseCaProperties(o: Obj, props: Obj): void {
  const http: string[] = [];
  const https: string[] = [];
  let any = false;
  for (const e of arr(o.HttpEnrollmentEndpoints)) {
    if (!collected(e)) continue;
    any = true;
    const r = ((e as Obj).Result ?? {}) as Obj;
    if (r.ADCSWebEnrollmentHTTP === true) http.push(String(r.Url ?? ''));
    if (r.ADCSWebEnrollmentHTTPS === true && r.ADCSWebEnrollmentEPA !== true) https.push(String(r.Url ?? ''));
  }
  if (http.length) props.httpenrollmentendpoints = http;
  if (https.length) props.httpsenrollmentendpoints = https;
  if (http.length || https.length) props.hasvulnerableendpoint = true;
  else if (any) props.hasvulnerableendpoint = false;
  const registry = (o.CARegistryData ?? {}) as Obj;
  const ear = registry.EnrollmentAgentRestrictions as (Collected & { Restrictions?: unknown }) | undefined;
  if (collected(ear)) props.hasenrollmentagentrestrictions = arr(ear!.Restrictions).length > 0;
  for (const [key, prop] of [['IsUserSpecifiesSanEnabled', 'isuserspecifiessanenabled'], ['RoleSeparationEnabled', 'roleseparationenabled']]) {
    const flag = registry[key] as (Collected & { Value?: unknown }) | undefined;
    if (collected(flag)) props[prop] = flag!.Value === true;
  }
}

const CA_RIGHTS = new Set(['ManageCA', 'ManageCertificates', 'Enroll']);
const LOCAL_GROUP_TYPES = new Set(['ADLocalGroup', 'LocalGroup']);

export function enterpriseCaEdges(o: Obj, self: Ref, props: Obj, sink: Sink): void {
  const templates: string[] = [];
  for (const t of arr(o.EnabledCertTemplates)) {
    const template = normId((t as TypedRef | null)?.ObjectIdentifier);
    if (!template) continue;
    templates.push(template);
    link(sink, { objectid: template, kinds: kindsOf('CertTemplate') }, self, 'PublishedTo');
  }
  const host = normId(o.HostingComputer);
  if (host) link(sink, { objectid: host, kinds: kindsOf('Computer') }, self, 'HostsCAService');
  const registry = (o.CARegistryData ?? {}) as Obj;
  const ear = registry.EnrollmentAgentRestrictions as (Collected & { Restrictions?: unknown }) | undefined;
  if (collected(ear)) {
    for (const r of arr(ear!.Restrictions)) {
      const restriction = r as { AccessType?: unknown; Agent?: unknown; AllTemplates?: unknown; Template?: unknown };
      if (restriction?.AccessType !== 'AccessAllowedCallback') continue;
      const agent = refOf(restriction.Agent);
      const targets = restriction.AllTemplates === true ? templates : [normId((restriction.Template as TypedRef | null)?.ObjectIdentifier)];
      for (const t of targets) if (t) link(sink, agent, { objectid: t, kinds: kindsOf('CertTemplate') }, 'DelegatedEnrollmentAgent');
    }
  }
  aceEdges(o.Aces, self, props, kindsOf, sink);
  const security = registry.CASecurity as (Collected & { Data?: unknown }) | undefined;
  if (!collected(security)) return;
  // BloodHound leaves out principals typed ADLocalGroup (the CA server's own groups); "LocalGroup" too here.
  const own = arr(security!.Data).filter((a) => !LOCAL_GROUP_TYPES.has(String((a as Ace)?.PrincipalType)) && (a as Ace)?.RightName !== 'Owns');
  const ad = arr(o.Aces).filter((a) => {
    const ace = a as Ace;
    return (host !== null && normId(ace?.PrincipalSID) === host) || !CA_RIGHTS.has(String(ace?.RightName));
  });
  aceEdges([...own, ...ad], self, props, kindsOf, sink);
}
