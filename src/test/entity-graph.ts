/**
 * A hand-built AD graph on which every entity traversal has a hand-derived answer
 * (entities.test.ts). Two domains (D1 = S-1-5-21-1, D2/D3 foreign), primary-group membership,
 * nested groups, local admin rights, sessions, ACLs, an OU tree with GPO links and blocked
 * inheritance, trusts, DCSync, and a PKI chain.
 *
 *   D1 ─Contains→ OU1 ─Contains→ U1, C1, OU2 ─Contains→ U2, C2, OU3 (OU2 blocks inheritance) ─Contains→ U4
 *   D1 ─Contains→ CN1 (Container)        GPA ─GPLink→ D1, GPB ─GPLink{enforced}→ OU1, GPC ─GPLink→ OU2
 *   U1, U2 ─MemberOf{primary}→ DU;  U3 ─MemberOf→ G2 ─MemberOf→ G1;  FU (D2) ─MemberOf→ G1;  FG (D2) ─MemberOf→ G1
 *   G1 ─AdminTo→ C1;  U2 ─AdminTo→ C2;  U2 ─CanRDP→ C1;  FU ─AdminTo→ C2;  U2 ─SQLAdmin→ C1;  C2 ─AllowedToDelegate→ C1
 *   C1 ─HasSession→ U1;  C2 ─HasSession→ U3
 *   U1 ─GenericAll→ U2;  DU ─ForceChangePassword→ U3;  G1 ─WriteDacl→ C2;  U1 ─GenericAll→ CN1;  G2 ─Owns→ AIA
 *   D1 ─SameForestTrust→ D2 ─CrossForestTrust→ D3
 *   U3 ─DCSync / GetChanges / GetChangesAll→ D1;  U1 ─ADCSESC1→ D1;  U2 ─ADCSESC13→ D1
 *   CT1 ─PublishedTo→ ECA1 ─EnterpriseCAFor→ RCA, AIA;  ECA1 ─TrustedForNTAuth→ NTA ─NTAuthStoreFor→ D1
 *   RCA ─RootCAFor→ D1;  C1 ─HostsCAService→ ECA1;  CT1 ─ExtendedByPolicy→ IP1
 *   Tier Zero tag: G1, C1
 */
import type { Db } from '../db/create-db.ts';
import { upsertEdges, upsertNodes } from '../graph/store.repository.ts';

export const D1 = 'S-1-5-21-1';
export const D2 = 'S-1-5-21-2';

export async function buildEntityGraph(db: Db): Promise<Map<string, number>> {
  const n = (objectid: string, kind: string, env: string | null = D1, extra: Record<string, unknown> = {}) => ({
    objectid, kinds: [kind, 'Base'], name: `${objectid}@TEST`, environmentId: env,
    properties: { name: `${objectid}@TEST`, ...(env ? { domainsid: env } : {}), ...extra }, sourceKind: 'Base',
  });
  await upsertNodes(db.kysely, [
    n(D1, 'Domain'), n(D2, 'Domain', D2), n('S-1-5-21-3', 'Domain', 'S-1-5-21-3'),
    n('OU1', 'OU'), n('OU2', 'OU', D1, { blocksinheritance: true }), n('OU3', 'OU'), n('CN1', 'Container'),
    n('GPA', 'GPO'), n('GPB', 'GPO'), n('GPC', 'GPO'),
    n('U1', 'User'), n('U2', 'User'), n('U3', 'User'), n('U4', 'User'), n('FU', 'User', D2),
    n('DU', 'Group'), n('G1', 'Group'), n('G2', 'Group'), n('FG', 'Group', D2),
    n('C1', 'Computer'), n('C2', 'Computer'),
    n('ECA1', 'EnterpriseCA'), n('RCA', 'RootCA'), n('AIA', 'AIACA'), n('NTA', 'NTAuthStore'), n('CT1', 'CertTemplate'), n('IP1', 'IssuancePolicy'),
  ]);
  const e = (start: string, kind: string, end: string, properties?: Record<string, unknown>) => ({ start: { objectid: start }, end: { objectid: end }, kind, properties });
  await upsertEdges(db.kysely, [
    e(D1, 'Contains', 'OU1'), e('OU1', 'Contains', 'U1'), e('OU1', 'Contains', 'C1'), e('OU1', 'Contains', 'OU2'),
    e('OU2', 'Contains', 'U2'), e('OU2', 'Contains', 'C2'), e('OU2', 'Contains', 'OU3'), e('OU3', 'Contains', 'U4'), e(D1, 'Contains', 'CN1'),
    e('GPA', 'GPLink', D1, { enforced: false }), e('GPB', 'GPLink', 'OU1', { enforced: true }), e('GPC', 'GPLink', 'OU2', { enforced: false }),
    e('U1', 'MemberOf', 'DU', { isprimarygroup: true }), e('U2', 'MemberOf', 'DU', { isprimarygroup: true }),
    e('U3', 'MemberOf', 'G2'), e('G2', 'MemberOf', 'G1'), e('FU', 'MemberOf', 'G1'), e('FG', 'MemberOf', 'G1'),
    e('G1', 'AdminTo', 'C1'), e('U2', 'AdminTo', 'C2'), e('U2', 'CanRDP', 'C1'), e('FU', 'AdminTo', 'C2'),
    e('U2', 'SQLAdmin', 'C1'), e('C2', 'AllowedToDelegate', 'C1'),
    e('C1', 'HasSession', 'U1'), e('C2', 'HasSession', 'U3'),
    e('U1', 'GenericAll', 'U2'), e('DU', 'ForceChangePassword', 'U3'), e('G1', 'WriteDacl', 'C2'), e('U1', 'GenericAll', 'CN1'), e('G2', 'Owns', 'AIA'),
    e(D1, 'SameForestTrust', D2), e(D2, 'CrossForestTrust', 'S-1-5-21-3'),
    e('U3', 'DCSync', D1), e('U3', 'GetChanges', D1), e('U3', 'GetChangesAll', D1), e('U1', 'ADCSESC1', D1), e('U2', 'ADCSESC13', D1),
    e('CT1', 'PublishedTo', 'ECA1'), e('ECA1', 'EnterpriseCAFor', 'RCA'), e('ECA1', 'EnterpriseCAFor', 'AIA'), e('ECA1', 'TrustedForNTAuth', 'NTA'),
    e('NTA', 'NTAuthStoreFor', D1), e('RCA', 'RootCAFor', D1), e('C1', 'HostsCAService', 'ECA1'), e('CT1', 'ExtendedByPolicy', 'IP1'),
  ]);
  const ids = new Map((await db.kysely.selectFrom('nodes').select(['objectid', 'id']).execute()).map((r) => [r.objectid, Number(r.id)]));
  let ord = 0;
  for (const oid of ['G1', 'C1']) {
    await db.kysely.insertInto('asset_group_tag_members').values({
      tag_id: 1, node_id: ids.get(oid)!, source: 1, objectid: oid, name: `${oid}@TEST`, primary_kind: oid === 'G1' ? 'Group' : 'Computer', environment_id: D1, ord: ord++,
    }).execute();
  }
  return ids;
}
