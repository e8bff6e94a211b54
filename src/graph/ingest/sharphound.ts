/**
 * SharpHound CE (v5/v6) objects → nodes and edges. One function per element; the data type comes
 * from `meta.type` (or the file name, or the object's shape: see detectSharpHoundType).
 */
import { cleanProperties, IngestError, normId, type Sink } from './sink.ts';

export const SHARPHOUND_KINDS: Record<string, string> = {
  users: 'User', groups: 'Group', computers: 'Computer', domains: 'Domain', ous: 'OU', containers: 'Container',
  gpos: 'GPO', aiacas: 'AIACA', rootcas: 'RootCA', enterprisecas: 'EnterpriseCA', ntauthstores: 'NTAuthStore',
  certtemplates: 'CertTemplate', issuancepolicies: 'IssuancePolicy',
};

/** Local group RID → the edge its members get to the computer. */
const LOCAL_GROUP_EDGES: Record<string, string> = {
  '544': 'AdminTo', '555': 'CanRDP', '562': 'ExecuteDCOM', '580': 'CanPSRemote',
};
const GPO_CHANGE_EDGES: Record<string, string> = {
  LocalAdmins: 'AdminTo', RemoteDesktopUsers: 'CanRDP', DcomUsers: 'ExecuteDCOM', PSRemoteUsers: 'CanPSRemote',
};

type Obj = Record<string, unknown>;
interface TypedRef { ObjectIdentifier?: unknown; ObjectType?: unknown }

const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
/** Shared, frozen kinds arrays: millions of edge ends need no array each. */
const KINDS_CACHE = new Map<string, string[]>();
const BASE = Object.freeze(['Base']) as string[];
const kindsOf = (type: unknown): string[] => {
  if (typeof type !== 'string' || type === '' || type === 'Base') return BASE;
  let k = KINDS_CACHE.get(type);
  if (!k) {
    k = Object.freeze([type, 'Base']) as string[];
    if (KINDS_CACHE.size < 1000) KINDS_CACHE.set(type, k);
  }
  return k;
};
/** ACE edge properties, serialised once. */
const ACE_PROPS = { true: '{"isacl":true,"isinherited":true}', false: '{"isacl":true,"isinherited":false}' };

export function convertSharpHound(type: string, raw: unknown, sink: Sink): void {
  const kind = SHARPHOUND_KINDS[type];
  if (!kind) throw new IngestError(`unsupported SharpHound data type: ${type}`);
  if (!raw || typeof raw !== 'object') throw new IngestError(`a ${type} entry is not an object`);
  const o = raw as Obj;
  const id = normId(o.ObjectIdentifier);
  if (!id) throw new IngestError(`a ${type} entry has no ObjectIdentifier`);
  if (o.IsDeleted === true) return;
  const props = cleanProperties(o.Properties);
  const self = { objectid: id, kinds: kindsOf(kind) };
  const domainSid = typeof props.domainsid === 'string' ? props.domainsid : typeof o.DomainSID === 'string' ? o.DomainSID : null;
  if (kind === 'Domain' && !props.domainsid) props.domainsid = id;
  props.objectid = id;
  sink.node({
    objectid: id,
    kinds: [kind, 'Base'],
    name: typeof props.name === 'string' ? props.name : null,
    environmentId: kind === 'Domain' ? id : domainSid?.toUpperCase() ?? null,
    properties: props,
    sourceKind: 'Base',
  });

  const ref = (r: unknown) => {
    const t = r as TypedRef | null;
    const oid = normId(t?.ObjectIdentifier);
    return oid ? { objectid: oid, kinds: kindsOf(t?.ObjectType) } : null;
  };
  const edge = (start: { objectid: string; kinds?: string[] } | null, end: { objectid: string; kinds?: string[] } | null, k: string, properties?: Obj) => {
    if (start && end) sink.edge({ start, end, kind: k, properties });
  };

  for (const ace of arr(o.Aces)) aceEdge(ace, self, sink);
  const container = ref(o.ContainedBy);
  edge(container, self, 'Contains');
  for (const child of arr(o.ChildObjects)) edge(self, ref(child), 'Contains');
  for (const link of arr(o.Links)) {
    const l = link as { GUID?: unknown; IsEnforced?: unknown };
    const gpo = normId(l?.GUID);
    if (gpo) edge({ objectid: gpo, kinds: kindsOf('GPO') }, self, 'GPLink', { enforced: l.IsEnforced === true });
  }
  for (const r of arr(o.HasSIDHistory)) edge(self, ref(r), 'HasSIDHistory');
  for (const r of arr(o.AllowedToDelegate)) edge(self, ref(r), 'AllowedToDelegate');
  for (const r of arr(o.AllowedToAct)) edge(ref(r), self, 'AllowedToAct');
  for (const r of arr(o.DumpSMSAPassword)) edge(self, ref(r), 'DumpSMSAPassword');
  for (const t of arr(o.SPNTargets)) {
    const s = t as { ComputerSID?: unknown; Service?: unknown; Port?: unknown };
    const target = normId(s?.ComputerSID);
    if (target && typeof s.Service === 'string') edge(self, { objectid: target, kinds: kindsOf('Computer') }, s.Service, { port: s.Port ?? null });
  }
  const primary = normId(o.PrimaryGroupSID);
  if (primary) edge(self, { objectid: primary, kinds: kindsOf('Group') }, 'MemberOf', { isprimarygroup: true });
  for (const m of arr(o.Members)) edge(ref(m), self, 'MemberOf', { isprimarygroup: false });

  if (kind === 'Computer') computerEdges(o, self, sink);
  if (kind === 'Domain') domainEdges(o, self, sink);
  if (kind === 'Domain' || kind === 'OU') gpoChanges(o, sink);
  if (kind === 'EnterpriseCA') enterpriseCaEdges(o, self, sink);
  if (kind === 'IssuancePolicy') edge(self, ref(o.GroupLink), 'OIDGroupLink');
}

function aceEdge(raw: unknown, target: { objectid: string; kinds: string[] }, sink: Sink): void {
  const ace = raw as { PrincipalSID?: unknown; PrincipalType?: unknown; RightName?: unknown; IsInherited?: unknown } | null;
  const principal = normId(ace?.PrincipalSID);
  if (!principal || typeof ace?.RightName !== 'string' || !/^[A-Za-z0-9_]+$/.test(ace.RightName)) return;
  sink.edge({
    start: { objectid: principal, kinds: kindsOf(ace.PrincipalType) },
    end: target,
    kind: ace.RightName,
    propertiesJson: ACE_PROPS[ace.IsInherited === true ? 'true' : 'false'],
  });
}

function computerEdges(o: Obj, self: { objectid: string; kinds: string[] }, sink: Sink): void {
  for (const key of ['Sessions', 'PrivilegedSessions', 'RegistrySessions']) {
    for (const r of arr((o[key] as Obj | null)?.Results)) {
      const user = normId((r as Obj)?.UserSID);
      if (user) sink.edge({ start: self, end: { objectid: user, kinds: kindsOf('User') }, kind: 'HasSession', properties: { source: key } });
    }
  }
  for (const g of arr(o.LocalGroups)) {
    const group = g as { ObjectIdentifier?: unknown; Name?: unknown; Results?: unknown };
    if (group?.Name === 'IGNOREME') continue; // domain controllers: their "local" groups are domain groups
    const rid = typeof group?.ObjectIdentifier === 'string' ? group.ObjectIdentifier.split('-').pop()! : '';
    const kind = LOCAL_GROUP_EDGES[rid];
    if (!kind) continue;
    for (const m of arr(group.Results)) {
      const member = m as TypedRef;
      const oid = normId(member?.ObjectIdentifier);
      if (oid) sink.edge({ start: { objectid: oid, kinds: kindsOf(member.ObjectType) }, end: self, kind });
    }
  }
}

function domainEdges(o: Obj, self: { objectid: string; kinds: string[] }, sink: Sink): void {
  for (const t of arr(o.Trusts)) {
    const trust = t as Obj;
    const target = normId(trust?.TargetDomainSid);
    if (!target) continue;
    const other = { objectid: target, kinds: kindsOf('Domain') };
    const properties = {
      istransitive: trust.IsTransitive === true, sidfiltering: trust.SidFilteringEnabled === true,
      trusttype: trust.TrustType ?? null, targetdomainname: trust.TargetDomainName ?? null,
    };
    const dir = String(trust.TrustDirection);
    // TrustedBy points from the trusted domain to the trusting one.
    if (dir === '1' || dir === '3' || dir === 'Inbound' || dir === 'Bidirectional') sink.edge({ start: self, end: other, kind: 'TrustedBy', properties });
    if (dir === '2' || dir === '3' || dir === 'Outbound' || dir === 'Bidirectional') sink.edge({ start: other, end: self, kind: 'TrustedBy', properties });
  }
}

function gpoChanges(o: Obj, sink: Sink): void {
  const changes = o.GPOChanges as Obj | null | undefined;
  if (!changes) return;
  const computers = arr(changes.AffectedComputers).map((c) => normId((c as TypedRef)?.ObjectIdentifier)).filter((c): c is string => !!c);
  for (const [key, kind] of Object.entries(GPO_CHANGE_EDGES)) {
    for (const p of arr(changes[key])) {
      const principal = normId((p as TypedRef)?.ObjectIdentifier);
      if (!principal) continue;
      for (const c of computers) {
        sink.edge({ start: { objectid: principal, kinds: kindsOf((p as TypedRef).ObjectType) }, end: { objectid: c, kinds: kindsOf('Computer') }, kind });
      }
    }
  }
}

function enterpriseCaEdges(o: Obj, self: { objectid: string; kinds: string[] }, sink: Sink): void {
  for (const t of arr(o.EnabledCertTemplates)) {
    const template = normId((t as TypedRef)?.ObjectIdentifier);
    if (template) sink.edge({ start: { objectid: template, kinds: kindsOf('CertTemplate') }, end: self, kind: 'PublishedTo' });
  }
  const host = normId(o.HostingComputer);
  if (host) sink.edge({ start: { objectid: host, kinds: kindsOf('Computer') }, end: self, kind: 'HostsCAService' });
  const registry = o.CARegistryData as { CASecurity?: { Data?: unknown } } | undefined;
  for (const ace of arr(registry?.CASecurity?.Data)) aceEdge(ace, self, sink);
}

/** Best guess of a SharpHound type from one object's shape (used when neither meta nor name tell). */
export function detectSharpHoundType(raw: unknown): string | null {
  if (!raw || typeof raw !== 'object') return null;
  const o = raw as Obj;
  const p = (o.Properties ?? {}) as Obj;
  if ('EnabledCertTemplates' in o || 'CARegistryData' in o) return 'enterprisecas';
  if ('Members' in o) return 'groups';
  if ('Sessions' in o || 'LocalGroups' in o) return 'computers';
  if ('Trusts' in o) return 'domains';
  if ('SPNTargets' in o || 'PrimaryGroupSID' in o) return 'users';
  if ('GroupLink' in o) return 'issuancepolicies';
  if ('certthumbprints' in p) return 'ntauthstores';
  if ('crosscertificatepair' in p) return 'aiacas';
  if ('certthumbprint' in p) return 'rootcas';
  if ('validityperiod' in p || 'oid' in p) return 'certtemplates';
  if ('Links' in o) return 'ous';
  if ('gpcpath' in p) return 'gpos';
  if ('ChildObjects' in o) return 'containers';
  return null;
}
