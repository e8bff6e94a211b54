/**
 * Rules per collected domain (BloodHound packages/go/analysis/ad/post.go):
 *   DCSync             the cross product of the holders of GetChanges and GetChangesAll on the domain → domain
 *   SyncLAPSPassword   the cross product of GetChanges and GetChangesInFilteredSet holders → every
 *                      Computer of the domain with `haslaps: true`
 *   ProtectAdminGroups the domain's AdminSDHolder container (DN starting `CN=ADMINSDHOLDER,CN=SYSTEM,`)
 *                      → every User / Group / Computer of the domain with `adminsdholderprotected: true`
 *   HasTrustKeys       a domain with a `netbios` name → the User `<netbios>$` of each domain it has an
 *                      outbound SameForestTrust / CrossForestTrust to
 */
import { hasKind, str, type AnalysisContext, type AnalysisNode } from './context.ts';
import { collectedDomains } from './well-known.ts';

export const ADMIN_SD_HOLDER_PREFIX = 'CN=ADMINSDHOLDER,CN=SYSTEM,';

const sidOf = (d: AnalysisNode) => str(d, 'domainsid') ?? d.objectid;

async function holders(ctx: AnalysisContext, domain: number, right: string): Promise<AnalysisNode[]> {
  const edges = await ctx.edgesInto([domain], [right]);
  return [...(await ctx.nodes(new Set(edges.map((e) => e.start)))).values()].sort((a, b) => a.id - b.id);
}

async function replicationRule(ctx: AnalysisContext, second: string, targets: (domain: AnalysisNode) => Promise<number[]>, kind: string) {
  for (const domain of await collectedDomains(ctx)) {
    const principals = await ctx.crossProduct([await holders(ctx, domain.id, 'GetChanges'), await holders(ctx, domain.id, second)]);
    if (!principals.size) continue;
    for (const target of await targets(domain)) for (const p of principals) ctx.emit(p, target, kind);
  }
  await ctx.flush();
}

export const dcSync = (ctx: AnalysisContext) => replicationRule(ctx, 'GetChangesAll', async (d) => [d.id], 'DCSync');

export const syncLapsPassword = (ctx: AnalysisContext) => replicationRule(ctx, 'GetChangesInFilteredSet', async (d) => {
  const rows = await ctx.k.selectFrom('nodes').select(['id', 'properties']).where('kind', '=', 'Computer')
    .where('environment_id', '=', sidOf(d)).where('properties', 'like', '%"haslaps":true%').execute();
  return rows.filter((r) => (JSON.parse(r.properties) as Record<string, unknown>).haslaps === true).map((r) => Number(r.id));
}, 'SyncLAPSPassword');

export async function protectAdminGroups(ctx: AnalysisContext): Promise<void> {
  for (const domain of await collectedDomains(ctx)) {
    const sid = sidOf(domain);
    const candidates = await ctx.k.selectFrom('nodes').select('id').where('kind', '=', 'Container').where('environment_id', '=', sid)
      .where('properties', 'like', `%"distinguishedname":"${ADMIN_SD_HOLDER_PREFIX}%`).orderBy('id').execute();
    const holder = [...(await ctx.nodes(candidates.map((c) => Number(c.id)))).values()]
      .find((c) => (str(c, 'distinguishedname') ?? '').startsWith(ADMIN_SD_HOLDER_PREFIX));
    if (!holder) continue;
    const rows = await ctx.k.selectFrom('nodes').select(['id', 'kinds', 'properties']).where('environment_id', '=', sid)
      .where('kind', 'in', ['User', 'Group', 'Computer']).where('properties', 'like', '%"adminsdholderprotected":true%').orderBy('id').execute();
    for (const r of rows) {
      if ((JSON.parse(r.properties) as Record<string, unknown>).adminsdholderprotected === true) ctx.emit(holder.id, Number(r.id), 'ProtectAdminGroups');
    }
  }
  await ctx.flush();
}

export async function hasTrustKeys(ctx: AnalysisContext): Promise<void> {
  for (const domain of await collectedDomains(ctx)) {
    const netbios = str(domain, 'netbios');
    if (!netbios) continue;
    const trusts = await ctx.edgesFrom([domain.id], ['SameForestTrust', 'CrossForestTrust']);
    const trusting = await ctx.nodes(trusts.map((t) => t.end));
    for (const other of trusting.values()) {
      const sid = str(other, 'domainsid');
      if (!hasKind(other, 'Domain') || !sid) continue;
      const candidates = await ctx.k.selectFrom('nodes').select(['id', 'kinds', 'properties']).where('environment_id', '=', sid)
        .where('kind', '=', 'User').where('properties', 'like', `%"samaccountname":${JSON.stringify(`${netbios}$`)}%`).orderBy('id').execute();
      const account = candidates.find((r) => (JSON.parse(r.properties) as Record<string, unknown>).samaccountname === `${netbios}$`);
      if (account) ctx.emit(domain.id, Number(account.id), 'HasTrustKeys');
    }
  }
  await ctx.flush();
}
