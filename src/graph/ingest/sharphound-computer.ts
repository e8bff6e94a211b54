/**
 * SharpHound computers, as BloodHound reads them (ein.ConvertComputerToNode, ParseComputerMiscData,
 * ConvertLocalGroup, ParseUserRightData, ParseDCRegistryData): properties from the collected API
 * results, sessions, local groups as ADLocalGroup nodes with LocalToComputer / MemberOfLocalGroup
 * (AdminTo and friends are the analysis' work), RemoteInteractiveLogonRight, DCFor or CoerceToTGT.
 */
import { coerceToTgt, arr, kindsOf, link, refOf, type Obj, type Ref } from './sharphound.ts';
import { normId, type Sink } from './sink.ts';

interface ApiResult { Collected?: unknown; Results?: unknown; Result?: unknown; Value?: unknown }
const collected = (v: unknown): v is ApiResult => (v as ApiResult | null)?.Collected === true;

/** SharpHound's NTLM registry values → BloodHound's properties (a value not reported clears the property). */
const NTLM: Array<[string, string, (v: number) => unknown]> = [
  ['RestrictSendingNtlmTraffic', 'restrictoutboundntlm', (v) => v === 2],
  ['RestrictReceivingNTLMTraffic', 'restrictreceivingntlmtraffic', (v) => v === 2],
  ['RequireSecuritySignature', 'requiresecuritysignature', (v) => v !== 0],
  ['EnableSecuritySignature', 'enablesecuritysignature', (v) => v !== 0],
  ['NtlmMinClientSec', 'ntlmminclientsec', (v) => v],
  ['NtlmMinServerSec', 'ntlmminserversec', (v) => v],
  ['LmCompatibilityLevel', 'lmcompatibilitylevel', (v) => v],
  ['UseMachineId', 'usemachineid', (v) => v !== 0],
];

const CERT_MAPPING: Array<[number, string]> = [
  [0x01, '0x01: One-to-one (subject/issuer)'],
  [0x02, '0x02: Many-to-one (issuer certificate)'],
  [0x04, '0x04: User principal name (UPN/SAN)'],
  [0x08, '0x08: Kerberos service-for-user (S4U) certificate'],
  [0x10, '0x10: Kerberos service-for-user (S4U) explicit certificate'],
];
const NOT_EXISTING = 'Registry value does not exist';
const BINDING = ['Disabled', 'Compatibility mode', 'Full enforcement mode'];

export function computerProperties(o: Obj, props: Obj, clear: string[]): void {
  if (collected(o.IsWebClientRunning)) props.webclientrunning = o.IsWebClientRunning.Result;
  if (collected(o.SmbInfo)) props.smbsigning = (o.SmbInfo.Result as Obj | null)?.SigningEnabled ?? false;
  if (collected(o.NTLMRegistryData)) {
    const r = (o.NTLMRegistryData.Result ?? {}) as Obj;
    for (const [source, key, convert] of NTLM) {
      if (typeof r[source] === 'number') props[key] = convert(r[source] as number);
      else clear.push(key);
    }
    if (Array.isArray(r.ClientAllowedNTLMServers)) props.clientallowedntlmservers = r.ClientAllowedNTLMServers;
    else clear.push('clientallowedntlmservers');
  }
  for (const [from, to] of [['ldapenabled', 'ldapavailable'], ['ldapsenabled', 'ldapsavailable']]) {
    if (from in props) {
      props[to] = props[from];
      delete props[from];
    }
  }
  for (const ur of arr(o.UserRights)) {
    const right = ur as ApiResult & { Privilege?: unknown };
    if (collected(right) && arr(right.Results).length && right.Privilege === 'SeRemoteInteractiveLogonRight') props.hasura = true;
  }
  const dc = (o.DCRegistryData ?? {}) as Obj;
  const mapping = dc.CertificateMappingMethods;
  if (collected(mapping) && typeof mapping.Value === 'number') {
    const v = mapping.Value;
    props.certificatemappingmethodsraw = v;
    const pretty = v === -1 ? [NOT_EXISTING] : CERT_MAPPING.filter(([bit]) => v & bit).map(([, text]) => text);
    if (pretty.length) props.certificatemappingmethods = pretty;
  }
  const binding = dc.StrongCertificateBindingEnforcement;
  if (collected(binding) && typeof binding.Value === 'number') {
    props.strongcertificatebindingenforcementraw = binding.Value;
    const pretty = binding.Value === -1 ? NOT_EXISTING : BINDING[binding.Value];
    if (pretty !== undefined) props.strongcertificatebindingenforcement = pretty;
  }
  const netlogon = dc.VulnerableNetlogonSecurityDescriptor;
  props.vulnerablenetlogonsecuritydescriptorcollected = collected(netlogon);
  if (collected(netlogon) && netlogon.Value !== null && netlogon.Value !== undefined) props.vulnerablenetlogonsecuritydescriptor = netlogon.Value;
}

const SESSION_LISTS = ['Sessions', 'PrivilegedSessions', 'RegistrySessions'];

export function computerEdges(o: Obj, self: Ref, props: Obj, sink: Sink): void {
  for (const r of arr(o.AllowedToAct)) link(sink, refOf(r), self, 'AllowedToAct');
  for (const r of arr(o.DumpSMSAPassword)) link(sink, self, refOf(r), 'DumpSMSAPassword');
  for (const key of SESSION_LISTS) {
    const list = o[key];
    if (!collected(list)) continue;
    for (const r of arr(list.Results)) {
      const s = r as Obj | null;
      link(sink, refOf({ ObjectIdentifier: s?.ComputerSID, ObjectType: 'Computer' }), refOf({ ObjectIdentifier: s?.UserSID, ObjectType: 'User' }), 'HasSession');
    }
  }
  localGroups(o, self, sink);
  for (const ur of arr(o.UserRights)) {
    const right = ur as ApiResult & { Privilege?: unknown };
    if (!collected(right) || right.Privilege !== 'SeRemoteInteractiveLogonRight') continue;
    for (const g of arr(right.Results)) link(sink, refOf(g), self, 'RemoteInteractiveLogonRight');
  }
  const domain = normId(o.DomainSID);
  if (o.IsDC === true && domain) link(sink, self, { objectid: domain, kinds: kindsOf('Domain') }, 'DCFor');
  else coerceToTgt(o, self, props, sink); // never from a domain controller
}

/**
 * Collected local groups with members (or named "Direct Access Users…"): an ADLocalGroup node (not
 * for a DC's groups, named IGNOREME: those are the domain's own), LocalToComputer, MemberOfLocalGroup
 * from each member; local principals named in LocalNames become `Base` nodes with their name.
 */
function localGroups(o: Obj, computer: Ref, sink: Sink): void {
  for (const g of arr(o.LocalGroups)) {
    const group = g as ApiResult & { ObjectIdentifier?: unknown; Name?: unknown; LocalNames?: unknown };
    const name = typeof group?.Name === 'string' ? group.Name : '';
    if (!collected(group) || (!arr(group.Results).length && !name.toUpperCase().startsWith('DIRECT ACCESS USERS'))) continue;
    const id = normId(group.ObjectIdentifier);
    if (!id) continue;
    const ref = { objectid: id, kinds: kindsOf('ADLocalGroup') };
    if (name !== 'IGNOREME') {
      sink.node({ objectid: id, kinds: ['ADLocalGroup', 'Base'], name: name.toUpperCase(), properties: { name: name.toUpperCase(), objectid: id }, sourceKind: 'Base' });
    }
    link(sink, ref, computer, 'LocalToComputer');
    for (const m of arr(group.Results)) link(sink, refOf(m), ref, 'MemberOfLocalGroup');
    for (const n of arr(group.LocalNames)) {
      const p = n as { ObjectIdentifier?: unknown; PrincipalName?: unknown } | null;
      const pid = normId(p?.ObjectIdentifier);
      const pname = typeof p?.PrincipalName === 'string' ? p.PrincipalName.toUpperCase() : null;
      if (pid) sink.node({ objectid: pid, kinds: ['Base'], name: pname, properties: { ...(pname ? { name: pname } : {}), objectid: pid }, sourceKind: 'Base' });
    }
  }
}
