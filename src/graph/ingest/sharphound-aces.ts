/**
 * SharpHound ACEs → edges, with BloodHound's rules (packages/go/ein/ad.go ParseACEData):
 * - only rights BloodHound knows as ACL kinds become edges (ACL_RIGHTS); an ACE whose principal is
 *   the object itself is dropped; repeated ACEs are one edge (the last wins);
 * - ownership is left for the analysis: the (last) `Owns` ACE becomes `OwnsRaw` {isacl, isinherited:
 *   false}, each `WriteOwner` ACE `WriteOwnerRaw`, unless the OWNER RIGHTS SID (…S-1-3-4) says
 *   otherwise: abusable rights granted to OWNER RIGHTS give `OwnsLimitedRights` (from the owner) and,
 *   when some are inherited, `WriteOwnerLimitedRights` (from each WriteOwner holder), each with the
 *   list in `privileges`; inherited non-abusable OWNER RIGHTS grants (the object's
 *   `doesanyinheritedacegrantownerrights`) suppress the raw edges;
 * - every other ACE: {isacl: true, isinherited, inheritancehash}.
 * The first `Owns` ACE also names the owner in the node's `ownersid` property (see ownerSid).
 */
import type { Sink } from './sink.ts';
import { normId } from './sink.ts';

/** ad.ACLRelationships() of BloodHound's graph schema. */
export const ACL_RIGHTS = new Set([
  'AllExtendedRights', 'ForceChangePassword', 'AddMember', 'AddAllowedToAct', 'GenericAll', 'WriteDacl', 'WriteOwner',
  'GenericWrite', 'ReadLAPSPassword', 'ReadGMSAPassword', 'Owns', 'AddSelf', 'WriteSPN', 'AddKeyCredentialLink', 'GetChanges',
  'GetChangesAll', 'GetChangesInFilteredSet', 'WriteAccountRestrictions', 'WriteGPLink', 'SyncLAPSPassword', 'DCSync',
  'ManageCertificates', 'ManageCA', 'Enroll', 'WritePKIEnrollmentFlag', 'WritePKINameFlag', 'WriteOwnerLimitedRights',
  'OwnsLimitedRights',
]);

export interface Ace {
  PrincipalSID?: unknown;
  PrincipalType?: unknown;
  RightName?: unknown;
  IsInherited?: unknown;
  InheritanceHash?: unknown;
}

export interface Ref { objectid: string; kinds: string[] }

const OWNER_RIGHTS_SUFFIX = 'S-1-3-4';

/** The first ACE granting Owns (or OwnsRaw) names the owner, whoever it is (BloodHound's `ownersid`). */
export function ownerSid(aces: unknown): string | undefined {
  if (!Array.isArray(aces)) return undefined;
  for (const a of aces as Ace[]) {
    if ((a?.RightName === 'Owns' || a?.RightName === 'OwnsRaw') && typeof a.PrincipalSID === 'string') return a.PrincipalSID;
  }
  return undefined;
}

/** Serialised property texts shared by every ACE edge with the same values. */
const propsCache = new Map<string, string>();
function aceProps(inherited: boolean, hash: string): string {
  const key = `${inherited ? 1 : 0}${hash}`;
  let s = propsCache.get(key);
  if (s === undefined) {
    s = JSON.stringify({ isacl: true, isinherited: inherited, inheritancehash: hash });
    if (propsCache.size < 10_000) propsCache.set(key, s);
  }
  return s;
}

/**
 * Writes the edges of `aces` on `target`. `targetProps` are the object's properties (for the
 * OWNER RIGHTS flags); `kindsOf` maps a PrincipalType to the principal's kinds.
 */
export function aceEdges(aces: unknown, target: Ref, targetProps: Record<string, unknown>, kindsOf: (type: unknown) => string[], sink: Sink): void {
  if (!Array.isArray(aces) || aces.length === 0) return;
  let owner: { ref: Ref } | null = null;
  const writeOwners: Array<{ ref: Ref; inherited: boolean; hash: string }> = [];
  const ownerRights: string[] = [];
  const inheritedOwnerRights: string[] = [];
  for (const raw of aces as Ace[]) {
    const principal = normId(raw?.PrincipalSID);
    const right = raw?.RightName;
    if (!principal || typeof right !== 'string' || principal === target.objectid || !ACL_RIGHTS.has(right)) continue;
    const inherited = raw.IsInherited === true;
    const hash = typeof raw.InheritanceHash === 'string' ? raw.InheritanceHash : '';
    const ref = { objectid: principal, kinds: kindsOf(raw.PrincipalType) };
    if (right === 'Owns') owner = { ref };
    else if (right === 'WriteOwner') writeOwners.push({ ref, inherited, hash });
    else if (principal.endsWith(OWNER_RIGHTS_SUFFIX)) {
      ownerRights.push(right);
      if (inherited) inheritedOwnerRights.push(right);
    } else sink.edge({ start: ref, end: target, kind: right, propertiesJson: aceProps(inherited, hash) });
  }
  const raws = (kind: 'WriteOwnerRaw' | 'WriteOwnerLimitedRights', privileges?: string[]) => {
    for (const w of writeOwners) {
      sink.edge({ start: w.ref, end: target, kind, properties: { isacl: true, isinherited: w.inherited, inheritancehash: w.hash, ...(privileges ? { privileges } : {}) } });
    }
  };
  if (ownerRights.length) {
    if (owner) sink.edge({ start: owner.ref, end: target, kind: 'OwnsLimitedRights', properties: { isacl: true, isinherited: false, privileges: ownerRights } });
    if (inheritedOwnerRights.length) raws('WriteOwnerLimitedRights', inheritedOwnerRights);
    else if (targetProps.doesanyinheritedacegrantownerrights !== true) raws('WriteOwnerRaw');
    return;
  }
  if (targetProps.doesanyacegrantownerrights === true) {
    // Non-abusable OWNER RIGHTS grants: inherited ones survive an owner change (WriteOwner is not
    // abusable, no raw edges); uninherited ones do not (WriteOwnerRaw, but no OwnsRaw).
    if (targetProps.doesanyinheritedacegrantownerrights !== true) raws('WriteOwnerRaw');
    return;
  }
  if (owner) sink.edge({ start: owner.ref, end: target, kind: 'OwnsRaw', properties: { isacl: true, isinherited: false } });
  raws('WriteOwnerRaw');
}
