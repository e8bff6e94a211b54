/**
 * AD CS links that no single file states: they join objects of several files by certificate
 * thumbprint, so they are drawn after ingest over the whole graph (few nodes: CAs, stores). They are
 * BloodHound post-processing (its analysis draws them), run by the callers of the ingest.
 *   EnterpriseCAFor  EnterpriseCA → RootCA / AIACA with the same certificate thumbprint
 *   IssuedSignedBy   EnterpriseCA / RootCA / AIACA → the RootCA / AIACA / EnterpriseCA whose thumbprint is its certchain[1]
 *   TrustedForNTAuth EnterpriseCA → NTAuthStore that lists its thumbprint
 */
import type { Kysely } from 'kysely';
import type { Database } from '../../db/database.ts';
import type { EdgeInput } from '../merge.ts';
import { upsertEdges } from '../store.repository.ts';

interface PkiNode {
  objectid: string;
  kind: string;
  environment_id: string | null;
  properties: Record<string, unknown>;
}

export async function drawAdcsLinks(db: Kysely<Database>): Promise<number> {
  const rows = await db.selectFrom('nodes')
    .select(['objectid', 'kind', 'environment_id', 'properties'])
    .where('kind', 'in', ['RootCA', 'AIACA', 'EnterpriseCA', 'NTAuthStore'])
    .where('is_placeholder', '=', 0)
    .execute();
  const nodes: PkiNode[] = rows.map((r) => ({ ...r, properties: JSON.parse(r.properties) as Record<string, unknown> }));
  const thumb = (n: PkiNode) => (typeof n.properties.certthumbprint === 'string' ? n.properties.certthumbprint.toUpperCase() : null);
  const of = (kind: string) => nodes.filter((n) => n.kind === kind);
  const ref = (n: PkiNode) => ({ objectid: n.objectid, kinds: [n.kind, 'Base'] });
  const edges: EdgeInput[] = [];
  const link = (a: PkiNode, b: { objectid: string; kinds: string[] }, kind: string) => edges.push({ start: ref(a), end: b, kind });

  for (const eca of of('EnterpriseCA')) {
    const t = thumb(eca);
    if (!t) continue;
    for (const ca of [...of('RootCA'), ...of('AIACA')]) if (thumb(ca) === t) link(eca, ref(ca), 'EnterpriseCAFor');
    for (const store of of('NTAuthStore')) {
      const listed = Array.isArray(store.properties.certthumbprints) ? store.properties.certthumbprints.map((x) => String(x).toUpperCase()) : [];
      if (listed.includes(t)) link(eca, ref(store), 'TrustedForNTAuth');
    }
  }
  for (const n of [...of('EnterpriseCA'), ...of('RootCA'), ...of('AIACA')]) {
    const chain = Array.isArray(n.properties.certchain) ? n.properties.certchain : [];
    const issuer = typeof chain[1] === 'string' ? chain[1].toUpperCase() : null;
    if (!issuer) continue;
    for (const ca of [...of('RootCA'), ...of('AIACA'), ...of('EnterpriseCA')]) {
      if (ca !== n && thumb(ca) === issuer) link(n, ref(ca), 'IssuedSignedBy');
    }
  }
  return edges.length ? upsertEdges(db, edges) : 0;
}
