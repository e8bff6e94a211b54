/**
 * SharpHound CE (v5/v6) objects → nodes and edges, with BloodHound's ingest rules
 * (packages/go/ein/ad.go, cmd/api/src/services/graphify/convertors.go). One function per element;
 * the data type comes from `meta.type` (or the file name, or the object's shape: see
 * detectSharpHoundType). Computers, domains/OUs and AD CS objects have files of their own
 * (sharphound-computer.ts, sharphound-domain.ts, sharphound-adcs.ts); ACEs: sharphound-aces.ts.
 */
import { AD_RELATIONSHIP_KINDS } from './bloodhound-kinds.ts';
import { aceEdges, ownerSid } from './sharphound-aces.ts';
import { enterpriseCaEdges, enterpriseCaProperties } from './sharphound-adcs.ts';
import { computerEdges, computerProperties } from './sharphound-computer.ts';
import { domainProperties, gpoChanges, gpoProperties, trustEdges } from './sharphound-domain.ts';
import { cleanProperties, IngestError, normId, type Sink } from './sink.ts';

export const SHARPHOUND_KINDS: Record<string, string> = {
  users: 'User', groups: 'Group', computers: 'Computer', domains: 'Domain', ous: 'OU', containers: 'Container',
  gpos: 'GPO', aiacas: 'AIACA', rootcas: 'RootCA', enterprisecas: 'EnterpriseCA', ntauthstores: 'NTAuthStore',
  certtemplates: 'CertTemplate', issuancepolicies: 'IssuancePolicy',
};

/**
 * Data types without objects of their own: `sessions` (one HasSession per entry) and `deleted` (object
 * ids whose nodes and edges are removed; read by file-run.ts).
 */
export const SHARPHOUND_TYPES = [...Object.keys(SHARPHOUND_KINDS), 'sessions', 'deleted'];

/** Node kinds an ObjectType / PrincipalType may name (BloodHound: any other value is just `Base`). */
const NODE_KINDS = new Set([...Object.values(SHARPHOUND_KINDS), 'ADLocalGroup', 'ADLocalUser']);

export type Obj = Record<string, unknown>;
export interface Ref { objectid: string; kinds: string[] }
export interface TypedRef { ObjectIdentifier?: unknown; ObjectType?: unknown }

export const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
/** Shared, frozen kinds arrays: millions of edge ends need no array each. */
const KINDS_CACHE = new Map<string, string[]>();
const BASE = Object.freeze(['Base']) as string[];
export const kindsOf = (type: unknown): string[] => {
  if (typeof type !== 'string' || !NODE_KINDS.has(type)) return BASE;
  let k = KINDS_CACHE.get(type);
  if (!k) {
    k = Object.freeze([type, 'Base']) as string[];
    KINDS_CACHE.set(type, k);
  }
  return k;
};
/** `{isacl: false}` and friends, serialised once. */
export const NOT_ACL = '{"isacl":false}';

/** A TypedPrincipal → an edge end. */
export const refOf = (r: unknown): Ref | null => {
  const t = r as TypedRef | null;
  const oid = normId(t?.ObjectIdentifier);
  return oid ? { objectid: oid, kinds: kindsOf(t?.ObjectType) } : null;
};

export function link(sink: Sink, start: Ref | null, end: Ref | null, kind: string, properties?: Obj): void {
  if (start && end) sink.edge(properties ? { start, end, kind, properties } : { start, end, kind, propertiesJson: NOT_ACL });
}

/** BloodHound upper-cases these properties of every node (normalizeEinNodeProperties). */
const UPPER = ['name', 'operatingsystem', 'distinguishedname'];

/** The collector's properties as BloodHound stores them; keys reported null go to `clear`. */
export function nodeProperties(raw: unknown, clear?: string[]): Obj {
  const props = cleanProperties(raw, clear);
  for (const key of UPPER) if (typeof props[key] === 'string') props[key] = (props[key] as string).toUpperCase();
  delete props.reconcile;
  return props;
}

export function convertSharpHound(type: string, raw: unknown, sink: Sink): void {
  if (type === 'sessions') return convertSession(raw, sink);
  const kind = SHARPHOUND_KINDS[type];
  if (!kind) throw new IngestError(`unsupported SharpHound data type: ${type}`);
  if (!raw || typeof raw !== 'object') throw new IngestError(`a ${type} entry is not an object`);
  const o = raw as Obj;
  const id = normId(o.ObjectIdentifier);
  if (!id) throw new IngestError(`a ${type} entry has no ObjectIdentifier`);
  if (o.IsDeleted === true) return;
  const clear: string[] = [];
  const props = nodeProperties(o.Properties, clear);
  const owner = ownerSid(o.Aces);
  if (owner !== undefined) props.ownersid = owner;
  if (kind === 'Domain' || kind === 'OU' || kind === 'Container') {
    if (Array.isArray(o.InheritanceHashes) && o.InheritanceHashes.length) props.inheritancehashes = o.InheritanceHashes;
  }
  if (kind === 'Domain') domainProperties(props);
  if (kind === 'GPO') gpoProperties(props);
  if (kind === 'Computer') computerProperties(o, props, clear);
  if (kind === 'EnterpriseCA') enterpriseCaProperties(o, props);
  if (kind === 'IssuancePolicy' && normId((o.GroupLink as TypedRef | null)?.ObjectIdentifier)) {
    props.grouplinkid = (o.GroupLink as TypedRef).ObjectIdentifier;
  }
  const self: Ref = { objectid: id, kinds: kindsOf(kind) };
  const domainSid = typeof props.domainsid === 'string' ? props.domainsid : typeof o.DomainSID === 'string' ? o.DomainSID : null;
  props.objectid = id;
  sink.node({
    objectid: id,
    kinds: [kind, 'Base'],
    name: typeof props.name === 'string' ? props.name : null,
    environmentId: kind === 'Domain' ? id : domainSid?.toUpperCase() || null,
    properties: props,
    sourceKind: 'Base',
    ...(clear.length ? { clear } : {}),
  });

  if (kind !== 'EnterpriseCA') aceEdges(o.Aces, self, props, kindsOf, sink); // a CA's: sharphound-adcs.ts
  // Domains and GPOs have no container edge in BloodHound; only domains, OUs and containers list children.
  if (kind !== 'Domain' && kind !== 'GPO') link(sink, refOf(o.ContainedBy), self, 'Contains');
  if (kind === 'Domain' || kind === 'OU' || kind === 'Container') for (const c of arr(o.ChildObjects)) link(sink, self, refOf(c), 'Contains');
  if (kind === 'Domain' || kind === 'OU') {
    for (const l of arr(o.Links)) {
      const gpo = normId((l as Obj | null)?.GUID);
      if (gpo) link(sink, { objectid: gpo, kinds: kindsOf('GPO') }, self, 'GPLink', { isacl: false, enforced: (l as Obj).IsEnforced === true });
    }
    gpoChanges(o.GPOChanges, sink);
  }
  if (kind === 'User' || kind === 'Computer' || kind === 'Group') for (const r of arr(o.HasSIDHistory)) link(sink, self, refOf(r), 'HasSIDHistory');
  if (kind === 'User' || kind === 'Computer') {
    const primary = normId(o.PrimaryGroupSID);
    if (primary) link(sink, self, { objectid: primary, kinds: kindsOf('Group') }, 'MemberOf', { isacl: false, isprimarygroup: true });
    for (const r of arr(o.AllowedToDelegate)) link(sink, self, refOf(r), 'AllowedToDelegate');
  }
  if (kind === 'User') userEdges(o, self, props, sink);
  if (kind === 'Group') members(o, self, sink);
  if (kind === 'Computer') computerEdges(o, self, props, sink);
  if (kind === 'Domain') trustEdges(o, self, sink);
  if (kind === 'EnterpriseCA') enterpriseCaEdges(o, self, props, sink);
  if (kind === 'RootCA' || kind === 'NTAuthStore') {
    link(sink, self, refOf({ ObjectIdentifier: o.DomainSID, ObjectType: 'Domain' }), kind === 'RootCA' ? 'RootCAFor' : 'NTAuthStoreFor');
  }
  if (kind === 'IssuancePolicy') link(sink, self, refOf(o.GroupLink), 'OIDGroupLink');
}

/** Group members; a member named by distinguished name (`DN=…`, unresolved by the collector) is reported, not linked. */
function members(o: Obj, self: Ref, sink: Sink): void {
  for (const m of arr(o.Members)) {
    const member = refOf(m);
    if (!member) continue;
    if (member.objectid.startsWith('DN=')) {
      sink.warn(`${self.objectid}: member ${member.objectid} is named by distinguished name only; not linked`);
      continue;
    }
    link(sink, member, self, 'MemberOf', { isacl: false, isprimarygroup: false });
  }
}


function userEdges(o: Obj, self: Ref, props: Obj, sink: Sink): void {
  // BloodHound reads JSON fields case-insensitively; SharpHound versions write SPNTargets or SpnTargets.
  for (const t of arr(o.SPNTargets ?? o.SpnTargets)) {
    const s = t as { ComputerSID?: unknown; Service?: unknown; Port?: unknown };
    const target = normId(s?.ComputerSID);
    if (target && typeof s.Service === 'string' && AD_RELATIONSHIP_KINDS.has(s.Service)) {
      link(sink, self, { objectid: target, kinds: kindsOf('Computer') }, s.Service, { isacl: true, port: typeof s.Port === 'number' ? s.Port : 0 });
    }
  }
  coerceToTgt(o, self, props, sink);
}

/** Unconstrained delegation → CoerceToTGT to the object's domain (the property wins over the v6 field). */
export function coerceToTgt(o: Obj, self: Ref, props: Obj, sink: Sink): void {
  const uncondel = props.unconstraineddelegation !== undefined ? props.unconstraineddelegation : o.UnconstrainedDelegation;
  const domain = normId(props.domainsid !== undefined ? props.domainsid : o.DomainSID);
  if (uncondel === true && domain) link(sink, self, { objectid: domain, kinds: kindsOf('Domain') }, 'CoerceToTGT');
}

/** A `sessions` file entry: {ComputerSID, UserSID, LogonType} → HasSession (computer → user) with `logontype`. */
function convertSession(raw: unknown, sink: Sink): void {
  const o = raw as Obj | null;
  const computer = normId(o?.ComputerSID);
  const user = normId(o?.UserSID);
  if (!computer || !user) throw new IngestError('a sessions entry needs ComputerSID and UserSID');
  sink.edge({ start: { objectid: computer, kinds: kindsOf('Computer') }, end: { objectid: user, kinds: kindsOf('User') }, kind: 'HasSession', properties: { logontype: typeof o!.LogonType === 'number' ? o!.LogonType : 0 } });
}

/** Best guess of a SharpHound type from one object's shape (used when neither meta nor name tell). */
export function detectSharpHoundType(raw: unknown): string | null {
  if (typeof raw === 'string') return 'deleted';
  if (!raw || typeof raw !== 'object') return null;
  const o = raw as Obj;
  const p = (o.Properties ?? {}) as Obj;
  if ('ComputerSID' in o && 'UserSID' in o) return 'sessions';
  if ('EnabledCertTemplates' in o || 'CARegistryData' in o) return 'enterprisecas';
  if ('Members' in o) return 'groups';
  if ('Sessions' in o || 'LocalGroups' in o) return 'computers';
  if ('Trusts' in o) return 'domains';
  if ('SPNTargets' in o || 'SpnTargets' in o || 'PrimaryGroupSID' in o) return 'users';
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
