/**
 * The passes BloodHound runs before its edge rules (packages/go/analysis/ad/ad.go), in its order:
 *   FixWellKnownNodeTypes  an object whose id ends with a well-known Tier Zero group RID and that is
 *                          neither Group nor ADLocalGroup gets the Group kind
 *   DomainAssociations     an object with no name whose id minus its last `-RID` is a known domain SID
 *                          gets name `(<domain name>) <objectid>` and that domainsid
 *   LinkWellKnownNodes     per collected domain: the groups below are found (by object id) or created,
 *                          then DOMAIN USERS / DOMAIN COMPUTERS –MemberOf→ AUTHENTICATED USERS
 *                          –MemberOf→ EVERYONE, EVERYONE –ClaimSpecialIdentity→ each special identity,
 *                          GUEST –MemberOf→ EVERYONE, and EVERYONE –ClaimSpecialIdentity→ GUEST when
 *                          GUEST is enabled. These edges are upserted, never deleted.
 */
import { sql } from 'kysely';
import { parseKinds } from '../merge.ts';
import { str, type AnalysisContext, type AnalysisNode } from './context.ts';

const TIER_ZERO_GROUP_SUFFIXES = ['-527', '-526', '-S-1-5-9', '-512', '-516', '-518', '-519', '-544', '-551'];

/** Well-known groups of a domain: [id suffix, name prefix, id prefixed by the domain SID (else by its name)]. */
export const WELL_KNOWN_GROUPS: ReadonlyArray<{ key: string; suffix: string; name: string; bySid?: true }> = [
  { key: 'everyone', suffix: '-S-1-1-0', name: 'EVERYONE' },
  { key: 'authUsers', suffix: '-S-1-5-11', name: 'AUTHENTICATED USERS' },
  { key: 'domainUsers', suffix: '-513', name: 'DOMAIN USERS', bySid: true },
  { key: 'domainComputers', suffix: '-515', name: 'DOMAIN COMPUTERS', bySid: true },
  { key: 'network', suffix: '-S-1-5-2', name: 'NETWORK' },
  { key: 'thisOrganization', suffix: '-S-1-5-15', name: 'THIS ORGANIZATION' },
  { key: 'thisOrganizationCertificate', suffix: '-S-1-5-65-1', name: 'THIS ORGANIZATION CERTIFICATE' },
  { key: 'authenticationAuthority', suffix: '-S-1-18-1', name: 'AUTHENTICATION AUTHORITY ASSERTED IDENTITY' },
  { key: 'keyTrust', suffix: '-S-1-18-4', name: 'KEY TRUST' },
  { key: 'mfaKeyProperty', suffix: '-S-1-18-5', name: 'MFA KEY PROPERTY' },
  { key: 'ntlm', suffix: '-S-1-5-64-10', name: 'NTLM AUTHENTICATION' },
  { key: 'schannel', suffix: '-S-1-5-64-14', name: 'SCHANNEL AUTHENTICATION' },
];
const SPECIAL_IDENTITIES = ['network', 'thisOrganization', 'thisOrganizationCertificate', 'authenticationAuthority', 'keyTrust', 'mfaKeyProperty', 'ntlm', 'schannel'];

export async function fixWellKnownNodeTypes(ctx: AnalysisContext): Promise<void> {
  const rows = await (ctx.dialect === 'sqlite'
    ? sql<{ id: number; kind: string; kinds: string }>`select id, kind, kinds from nodes where id in (
        select id from nodes where ${sqliteEndsWithAny('objectid', TIER_ZERO_GROUP_SUFFIXES)})`.execute(ctx.k).then((r) => r.rows)
    : ctx.k.selectFrom('nodes').select(['id', 'kind', 'kinds'])
      .where((eb) => eb.or(TIER_ZERO_GROUP_SUFFIXES.map((s) => eb('objectid', 'like', `%${s}`)))).execute());
  for (const r of rows) {
    const kinds = parseKinds(r.kinds);
    if (kinds.includes('Group') || kinds.includes('ADLocalGroup')) continue;
    // A node whose only kind is Base becomes a Group (primary); otherwise Group is added after its own kinds.
    const next = kinds.length === 0 || (kinds.length === 1 && kinds[0] === 'Base') ? ['Group', 'Base'] : [...kinds, 'Group'];
    await ctx.k.updateTable('nodes').set({ kind: next[0], kinds: JSON.stringify(next) }).where('id', '=', r.id).execute();
  }
}

/**
 * SQLite: `column LIKE '%suffix'` for any of the suffixes (ASCII case-insensitive, as LIKE), as one
 * comparison of the column's tail per suffix length: on the object-id index of a large graph a
 * quarter of the time of nine LIKEs over every object id.
 */
function sqliteEndsWithAny(column: string, suffixes: readonly string[]) {
  const byLength = new Map<number, string[]>();
  for (const s of suffixes) byLength.set(s.length, [...(byLength.get(s.length) ?? []), s.toUpperCase()]);
  return sql.join([...byLength].map(([n, list]) => sql`upper(substr(${sql.ref(column)}, ${-n})) in (${sql.join(list)})`), sql` or `);
}

export async function domainAssociations(ctx: AnalysisContext): Promise<void> {
  const domains = new Map<string, string>();
  for (const d of await ctx.nodesOfKind('Domain')) {
    const name = str(d, 'name');
    if (name) domains.set(d.objectid, name);
  }
  if (!domains.size) return;
  const unnamed = await ctx.k.selectFrom('nodes').select(['id', 'objectid', 'properties']).where('name', 'is', null).execute();
  for (const r of unnamed) {
    const cut = r.objectid.lastIndexOf('-');
    const sid = cut >= 0 ? r.objectid.slice(0, cut) : '';
    const domain = domains.get(sid);
    if (!domain) continue;
    const name = `(${domain}) ${r.objectid}`;
    const properties = { ...(JSON.parse(r.properties) as Record<string, unknown>), name, domainsid: sid };
    await ctx.k.updateTable('nodes').set({ name, environment_id: sid, properties: JSON.stringify(properties) }).where('id', '=', r.id).execute();
  }
}

/** Collected domains (property `collected: true`), as BloodHound's edge passes take them. */
export async function collectedDomains(ctx: AnalysisContext): Promise<AnalysisNode[]> {
  return (await ctx.nodesOfKind('Domain')).filter((d) => d.properties.collected === true);
}

export async function linkWellKnownNodes(ctx: AnalysisContext): Promise<void> {
  for (const domain of await collectedDomains(ctx)) {
    const sid = str(domain, 'domainsid') ?? domain.objectid;
    const name = str(domain, 'name');
    if (!name) continue;
    const ids = new Map<string, number>();
    for (const g of WELL_KNOWN_GROUPS) ids.set(g.key, await wellKnownGroup(ctx, g, sid, name));
    const link = (from: string, to: string, kind: string) => ctx.emit(ids.get(from)!, ids.get(to)!, kind);
    link('domainUsers', 'authUsers', 'MemberOf');
    link('domainComputers', 'authUsers', 'MemberOf');
    link('authUsers', 'everyone', 'MemberOf');
    for (const s of SPECIAL_IDENTITIES) link('everyone', s, 'ClaimSpecialIdentity');
    const guest = await ctx.k.selectFrom('nodes').select(['id', 'properties']).where('objectid', '=', `${sid}-501`).executeTakeFirst();
    if (guest) {
      ctx.emit(Number(guest.id), ids.get('everyone')!, 'MemberOf');
      if ((JSON.parse(guest.properties) as Record<string, unknown>).enabled === true) ctx.emit(ids.get('everyone')!, Number(guest.id), 'ClaimSpecialIdentity');
    }
  }
  await ctx.flush();
}

/** The node of a well-known group (by object id, whatever its kind; Group is added when missing), created when absent. */
async function wellKnownGroup(ctx: AnalysisContext, group: (typeof WELL_KNOWN_GROUPS)[number], sid: string, domain: string): Promise<number> {
  const objectid = `${group.bySid ? sid : domain}${group.suffix}`;
  const found = await ctx.k.selectFrom('nodes').select(['id', 'kinds']).where('objectid', '=', objectid).executeTakeFirst();
  if (found) {
    const kinds = parseKinds(found.kinds);
    if (!kinds.includes('Group')) {
      const next = kinds.length === 1 && kinds[0] === 'Base' ? ['Group', 'Base'] : [...kinds, 'Group'];
      await ctx.k.updateTable('nodes').set({ kind: next[0], kinds: JSON.stringify(next) }).where('id', '=', found.id).execute();
    }
    return Number(found.id);
  }
  const name = `${group.name}@${domain}`;
  const inserted = await ctx.k.insertInto('nodes').values({
    objectid, kind: 'Group', kinds: JSON.stringify(['Group', 'Base']), name, environment_id: sid,
    properties: JSON.stringify({ name, domainsid: sid, domain }), source_kind: 'Base', is_placeholder: 0, last_seen: ctx.now,
  }).returning('id').executeTakeFirstOrThrow();
  return Number(inserted.id);
}
