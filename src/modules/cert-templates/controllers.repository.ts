/**
 * Certificate-template controllers (CONTRACT §6): principals with a direct control edge into the
 * template, plus, transitively, the members (MemberOf, member → group) of those principals. One
 * recursive CTE over edges_end_kind_start; UNION makes the set distinct and stops on cycles.
 *
 * Group membership includes primary-group membership, as BloodHound counts it: the MemberOf edge
 * written from a user's or computer's PrimaryGroupSID (`{"isprimarygroup":true}`) is followed like
 * any other, so every domain user controls a template that Domain Users may enroll in.
 */
import { sql, type Kysely } from 'kysely';
import type { Database } from '../../db/database.ts';

export const CONTROL_EDGE_KINDS = [
  'GenericAll', 'GenericWrite', 'WriteOwner', 'WriteDacl', 'Owns', 'AllExtendedRights', 'Enroll', 'ManageCA',
  'ManageCertificates', 'WritePKIEnrollmentFlag', 'WritePKINameFlag', 'OwnsLimitedRights', 'WriteOwnerLimitedRights',
] as const;

export interface ControllerRow {
  id: number;
  objectid: string;
  /** nodes.name, or the objectid when the node has none (a placeholder). */
  name: string;
  /** Primary kind. */
  kind: string;
  /** JSON array text. */
  kinds: string;
}

const controlKinds = sql.join(CONTROL_EDGE_KINDS.map((k) => sql.lit(k)));

const controllerSet = (templateId: number) => sql`
  with recursive c(id) as (
    select start_id from edges where end_id = ${templateId} and kind in (${controlKinds})
    union
    select e.start_id from edges e join c on e.end_id = c.id where e.kind = 'MemberOf'
  )`;

export async function findControllers(db: Kysely<Database>, templateId: number): Promise<ControllerRow[]> {
  const { rows } = await sql<ControllerRow>`${controllerSet(templateId)}
    select n.id, n.objectid, coalesce(n.name, n.objectid) as name, n.kind, n.kinds
    from nodes n where n.id in (select id from c)`.execute(db);
  return rows.map((r) => ({ ...r, id: Number(r.id) }));
}

/** Identifies the graph's state cheaply: the analysis generation plus the newest node and edge ids. */
export async function graphFingerprint(db: Kysely<Database>): Promise<string> {
  const { rows } = await sql<{ g: number | null; n: number | null; e: number | null }>`
    select (select generation from graph_generation where id = 1) as g,
           (select max(id) from nodes) as n, (select max(id) from edges) as e`.execute(db);
  const r = rows[0];
  return `${r?.g ?? 0}:${r?.n ?? 0}:${r?.e ?? 0}`;
}
