/**
 * Hybrid identities (BloodHound packages/go/analysis/hybrid/hybrid.go `PostHybrid`, run by its Azure
 * post-processing, cmd/api/src/analysis/azure/post.go): each Entra user a tenant contains (AZContains)
 * that is synchronised from AD (`onpremsyncenabled` true and a non-empty `onpremid`) is linked with the
 * AD object whose objectid is that `onpremid`: AD user –SyncedToEntraUser→ Entra user and Entra user
 * –SyncedToADUser→ AD user. When no object has that id, an AD User node with only its objectid is
 * created (and stays, as in BloodHound). Without tenants it costs one indexed read.
 */
import { hasKind, str, type AnalysisContext } from './context.ts';

const CHUNK = 500;

export async function hybridUsers(ctx: AnalysisContext): Promise<void> {
  const tenants = await ctx.nodesOfKind('AZTenant');
  if (!tenants.length) return;
  const contained = await ctx.edgesFrom(tenants.map((t) => t.id), ['AZContains']);
  const synced = new Map<number, string>();
  for (const u of (await ctx.nodes(new Set(contained.map((e) => e.end)))).values()) {
    const onPremId = str(u, 'onpremid');
    if (hasKind(u, 'AZUser') && u.properties.onpremsyncenabled === true && onPremId) synced.set(u.id, onPremId);
  }
  const adIds = await objectIds(ctx, new Set(synced.values()));
  for (const [entra, onPremId] of [...synced].sort(([a], [b]) => a - b)) {
    const ad = adIds.get(onPremId) ?? await createAdUser(ctx, onPremId, adIds);
    ctx.emit(ad, entra, 'SyncedToEntraUser');
    ctx.emit(entra, ad, 'SyncedToADUser');
  }
  await ctx.flush();
}

async function objectIds(ctx: AnalysisContext, wanted: Set<string>): Promise<Map<string, number>> {
  const list = [...wanted];
  const out = new Map<string, number>();
  for (let i = 0; i < list.length; i += CHUNK) {
    for (const r of await ctx.k.selectFrom('nodes').select(['id', 'objectid']).where('objectid', 'in', list.slice(i, i + CHUNK)).execute()) out.set(r.objectid, Number(r.id));
  }
  return out;
}

async function createAdUser(ctx: AnalysisContext, objectid: string, known: Map<string, number>): Promise<number> {
  const row = await ctx.k.insertInto('nodes').values({
    objectid, kind: 'User', kinds: JSON.stringify(['User', 'Base']), name: null, environment_id: null,
    properties: '{}', source_kind: 'Base', is_placeholder: 0, last_seen: ctx.now,
  }).returning('id').executeTakeFirstOrThrow();
  known.set(objectid, Number(row.id));
  return Number(row.id);
}
