/**
 * SharpHound domains, OUs and GPOs, as BloodHound reads them (ein.ConvertDomainToNode,
 * ParseDomainTrusts, ParseGPOChanges, ParseGPOData): typed domain properties, trusts as
 * SameForestTrust / CrossForestTrust (+ AbuseTGTDelegation, SpoofSIDHistory) with a Domain node for
 * each trusted domain, and the local groups GPOs set on computers.
 */
import { arr, kindsOf, link, refOf, type Obj, type Ref, type TypedRef } from './sharphound.ts';
import { normId, type Sink } from './sink.ts';

const INTEGER_PROPERTIES = ['machineaccountquota', 'minpwdlength', 'pwdproperties', 'pwdhistorylength', 'lockoutthreshold'];

/** Domain properties SharpHound may write as strings become numbers / booleans; unreadable ones are dropped. */
export function domainProperties(props: Obj): void {
  for (const key of INTEGER_PROPERTIES) {
    if (!(key in props)) continue;
    const v = props[key];
    if (typeof v === 'number') props[key] = Math.trunc(v);
    else if (typeof v === 'string' && /^[+-]?\d+$/.test(v.trim())) props[key] = Number.parseInt(v, 10);
    else delete props[key];
  }
  const key = 'expirepasswordsonsmartcardonlyaccounts';
  if (key in props && typeof props[key] !== 'boolean') {
    const v = typeof props[key] === 'string' ? parseBool(props[key] as string) : undefined;
    if (v === undefined) delete props[key];
    else props[key] = v;
  }
}

/** Go's strconv.ParseBool. */
function parseBool(s: string): boolean | undefined {
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(s)) return true;
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(s)) return false;
  return undefined;
}

const GPO_STATUS: Record<string, string> = {
  0: 'Enabled', 1: 'User Configuration Disabled', 2: 'Computer Configuration Disabled', 3: 'Disabled',
};

/** `gpostatus` as collected goes to `gpostatusraw`; `gpostatus` becomes its meaning. */
export function gpoProperties(props: Obj): void {
  if (!('gpostatus' in props)) return;
  const raw = String(props.gpostatus).trim();
  props.gpostatusraw = raw;
  props.gpostatus = GPO_STATUS[raw] ?? 'GPO Status does not exist';
}

const SAME_FOREST = new Set(['ParentChild', 'TreeRoot', 'CrossLink']);
const DIRECTIONS: Record<string, string> = { 1: 'Inbound', 2: 'Outbound', 3: 'Bidirectional' };

/** TrustAttributes as a number; null when absent or unreadable. */
function trustAttributes(v: unknown): number | null {
  if (typeof v === 'number') return Math.trunc(v);
  if (typeof v === 'string' && /^[+-]?\d+$/.test(v.trim())) return Number.parseInt(v, 10);
  return null;
}

export function trustEdges(o: Obj, self: Ref, sink: Sink): void {
  for (const t of arr(o.Trusts)) {
    const trust = t as Obj;
    const target = normId(trust?.TargetDomainSid);
    if (!target) continue;
    const name = typeof trust.TargetDomainName === 'string' ? trust.TargetDomainName.toUpperCase() : null;
    sink.node({
      objectid: target, kinds: ['Domain', 'Base'], name, environmentId: target,
      properties: { ...(name !== null ? { name } : {}), domainsid: trust.TargetDomainSid, objectid: target }, sourceKind: 'Base',
    });
    const other = { objectid: target, kinds: kindsOf('Domain') };
    const type = typeof trust.TrustType === 'string' ? trust.TrustType : '';
    const kind = SAME_FOREST.has(type) ? 'SameForestTrust' : 'CrossForestTrust';
    const direction = typeof trust.TrustDirection === 'number' ? DIRECTIONS[trust.TrustDirection] : trust.TrustDirection;
    const transitive = trust.IsTransitive === true;
    const attributes = trustAttributes(trust.TrustAttributes);
    const sidFiltering = trust.SidFilteringEnabled === true;
    const tgtDelegation = trust.TGTDelegationEnabled === true;
    if (direction === 'Inbound' || direction === 'Bidirectional') {
      link(sink, other, self, kind, {
        isacl: false, trusttype: type, transitive,
        ...(attributes !== null ? { trustattributesinbound: attributes, tgtdelegation: tgtDelegation } : {}),
      });
      if (kind === 'CrossForestTrust' && tgtDelegation) link(sink, other, self, 'AbuseTGTDelegation', { isacl: false, trusttype: type });
    }
    if (direction === 'Outbound' || direction === 'Bidirectional') {
      link(sink, self, other, kind, {
        isacl: false, spoofsidhistoryblocked: sidFiltering, trusttype: type, transitive,
        ...(attributes !== null ? { trustattributesoutbound: attributes } : {}),
      });
      if (kind === 'CrossForestTrust' && !sidFiltering) link(sink, other, self, 'SpoofSIDHistory', { isacl: false, trusttype: type });
    }
  }
}

const GPO_GROUPS: Array<[string, string]> = [['544', 'LocalAdmins'], ['555', 'RemoteDesktopUsers'], ['562', 'DcomUsers'], ['580', 'PSRemoteUsers']];

/** Local groups a GPO sets on the computers it affects: ADLocalGroup `<computer>-<RID>` nodes and their members. */
export function gpoChanges(raw: unknown, sink: Sink): void {
  const changes = raw as Obj | null | undefined;
  if (!changes) return;
  for (const c of arr(changes.AffectedComputers)) {
    const computer = normId((c as TypedRef | null)?.ObjectIdentifier);
    if (!computer) continue;
    for (const [rid, key] of GPO_GROUPS) {
      const members = arr(changes[key]);
      const id = `${computer}-${rid}`;
      const group = { objectid: id, kinds: kindsOf('ADLocalGroup') };
      if (members.length) {
        sink.node({ objectid: id, kinds: ['ADLocalGroup', 'Base'], properties: { objectid: id }, sourceKind: 'Base' });
        link(sink, group, { objectid: computer, kinds: kindsOf('Computer') }, 'LocalToComputer');
      }
      for (const m of members) link(sink, refOf(m), group, 'MemberOfLocalGroup');
    }
  }
}
