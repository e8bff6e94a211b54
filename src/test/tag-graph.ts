/**
 * A small hand-made AD graph for the tag tests:
 *
 *   DOMAIN (S-1-5-21-1) ─Contains→ OU-1 ─Contains→ G1, U3
 *   U1 ─MemberOf→ G1,  G2 ─MemberOf→ G1,  U2 ─MemberOf→ G2,  G2 ─MemberOf→ G3 (parent side)
 *   U4 (unrelated), C1 in environment S-1-5-21-2, P% (name with a literal percent sign)
 *
 * The default Tier Zero selectors (migration 0030) are removed first: these tests exercise the
 * selectors they create (the defaults are proven by src/graph/analysis/parity.test.ts).
 */
import type { Db } from '../db/create-db.ts';
import { upsertEdges, upsertNodes } from '../graph/store.repository.ts';

export const ENV = 'S-1-5-21-1';
export const ENV2 = 'S-1-5-21-2';

const n = (objectid: string, kind: string, name: string | null, environmentId = ENV, extra: Record<string, unknown> = {}) => ({
  objectid, kinds: [kind, 'Base'], name, environmentId, properties: { name, domainsid: environmentId, ...extra }, sourceKind: 'Base',
});

export async function buildTagGraph(db: Db): Promise<Map<string, number>> {
  await db.kysely.deleteFrom('asset_group_tag_selectors').where('is_default', '=', 1).execute();
  const ids = await upsertNodes(db.kysely, [
    n(ENV, 'Domain', 'CORP.LOCAL'),
    n('OU-1', 'OU', 'SERVERS@CORP.LOCAL'),
    n('G1', 'Group', 'ADMINS@CORP.LOCAL'),
    n('G2', 'Group', 'NESTED@CORP.LOCAL'),
    n('G3', 'Group', 'OUTER@CORP.LOCAL'),
    n('U1', 'User', 'ALICE@CORP.LOCAL', ENV, { enabled: true }),
    n('U2', 'User', 'BOB@CORP.LOCAL'),
    n('U3', 'User', 'CAROL@CORP.LOCAL'),
    n('U4', 'User', 'DAVE@CORP.LOCAL'),
    n('C1', 'Computer', 'SRV01.OTHER.LOCAL', ENV2),
    n('P1', 'User', 'P%CENT@CORP.LOCAL'),
  ]);
  await upsertEdges(db.kysely, [
    { start: { objectid: ENV }, end: { objectid: 'OU-1' }, kind: 'Contains' },
    { start: { objectid: 'OU-1' }, end: { objectid: 'G1' }, kind: 'Contains' },
    { start: { objectid: 'OU-1' }, end: { objectid: 'U3' }, kind: 'Contains' },
    { start: { objectid: 'U1' }, end: { objectid: 'G1' }, kind: 'MemberOf' },
    { start: { objectid: 'G2' }, end: { objectid: 'G1' }, kind: 'MemberOf' },
    { start: { objectid: 'U2' }, end: { objectid: 'G2' }, kind: 'MemberOf' },
    { start: { objectid: 'G2' }, end: { objectid: 'G3' }, kind: 'MemberOf' },
  ]);
  return ids;
}
