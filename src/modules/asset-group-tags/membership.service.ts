/**
 * Materialised tag membership. A tag's members are re-derived as a whole from its selectors:
 *   seed   (source 1) the nodes whose objectid a selector names, or that its Cypher seeds return (src/cypher/selectors.ts);
 *   child  (source 2) their descendants: group members and the contents of OUs / containers, transitively;
 *   parent (source 3) the OUs, GPOs and (for objects whose ACL inherits) containers above them
 *                     (BloodHound's rules: insertSelectorNodes below).
 * A selector's expansion picks which: 0 none, 1 all, 2 child, 3 parent. What each enabled selector
 * selected is kept per selector (asset_group_tag_selector_nodes, the lowest source per node; a
 * disabled selector selects nothing); a tag's members are the union over its selectors, a node
 * keeping its lowest source. Called on every selector change and after every ingest (refreshTagMemberships).
 */
import { sql, type Kysely, type Transaction } from 'kysely';
import type { Db } from '../../db/create-db.ts';
import type { Database } from '../../db/database.ts';
import { cypherSeedNodes, SeedGraph, stageCypherSeeds } from '../../cypher/selectors.ts';

type K = Kysely<Database> | Transaction<Database>;

export const EXPANSION = { none: 0, all: 1, child: 2, parent: 3 } as const;

/**
 * Recomputes the members of every tag, then bumps the graph generation. Call after each ingest: the
 * Cypher seeds of every tag read one SeedGraph (the nodes and the edge kinds they name), not the
 * engine's snapshot of the whole graph.
 */
export async function refreshTagMemberships(db: Db): Promise<void> {
  const tags = await db.kysely.selectFrom('asset_group_tags').select('id').orderBy('id').execute();
  const graph = new SeedGraph(db);
  for (const t of tags) await refreshTagMembership(db, t.id, graph);
  await bumpGraphGeneration(db.kysely);
}

/** Recomputes one tag's members in one transaction (readers see the old or the new set, never half). */
export async function refreshTagMembership(db: Db, tagId: number, graph?: SeedGraph): Promise<void> {
  const cypherNodes = await cypherSeedNodes(db, tagId, graph); // read before the transaction (its own statements)
  await db.kysely.transaction().execute(async (trx) => {
    await stageCypherSeeds(trx, tagId, cypherNodes);
    if (db.dialect === 'sqlite') {
      await sql`delete from asset_group_tag_members_fts
        where rowid in (select id from asset_group_tag_members where tag_id = ${tagId})`.execute(trx);
    }
    await trx.deleteFrom('asset_group_tag_members').where('tag_id', '=', tagId).execute();
    await trx.deleteFrom('asset_group_tag_member_counts').where('tag_id', '=', tagId).execute();
    await trx.deleteFrom('asset_group_tag_selector_nodes').where('selector_id', 'in',
      trx.selectFrom('asset_group_tag_selectors').select('id').where('asset_group_tag_id', '=', tagId)).execute();
    await insertSelectorNodes(trx, tagId);
    await insertMembers(trx, tagId);
    if (db.dialect === 'sqlite') {
      // The FTS rows hold the values lower-cased by the same lower() the query engine uses.
      await sql`insert into asset_group_tag_members_fts (rowid, name, objectid)
        select id, lower(name), lower(objectid) from asset_group_tag_members where tag_id = ${tagId}`.execute(trx);
    }
    await sql`insert into asset_group_tag_member_counts (tag_id, primary_kind, member_count)
      select tag_id, primary_kind, count(*) from asset_group_tag_members where tag_id = ${tagId}
      group by tag_id, primary_kind`.execute(trx);
  });
}

/**
 * One statement: per enabled selector, its seeds, their descendants and their ancestors, as
 * BloodHound's asset group tagging expands them (cmd/api/src/daemons/datapipe/agt.go):
 *   child   a Group's members (MemberOf inbound), an OU's or Container's contents (Contains outbound),
 *           transitively, each found node expanded by its own kind; AZGroup members (AZMemberOf), the
 *           contents of AZ management groups / subscriptions / resource groups (AZContains), an AZRole's
 *           holders (AZHasRole / AZRoleEligible). Only Base / AZBase nodes are expanded.
 *   parent  of the seeds (expansion parent) or of the seeds and children (expansion all): the OUs that
 *           contain the node through a chain of OUs (Contains inbound), the GPOs linked (GPLink) to the
 *           node or one of those OUs, and, when the node's `isaclprotected` is false, the Containers
 *           that contain it through a chain of Containers.
 * Each recursive CTE has one recursive term (a join whose ON picks the rule by the node's kinds),
 * as PostgreSQL requires. `cross join` keeps the few selected nodes as the outer loop: SQLite
 * otherwise chose to scan every node (the `isaclprotected` test) or every edge (GPLink) and look
 * the selected nodes up, most of a second on a large graph.
 */
async function insertSelectorNodes(trx: K, tagId: number): Promise<void> {
  const has = (alias: string, kind: string) => sql.raw(`${alias}.kinds like '%"${kind}"%'`);
  await sql`
    with recursive
    seed(selector_id, id, expansion) as (
      select s.id, n.id, s.expansion from asset_group_tag_selectors s
      join asset_group_tag_selector_seeds d on d.selector_id = s.id and d.type = 1
      join nodes n on n.objectid = d.value
      where s.asset_group_tag_id = ${tagId} and s.disabled_at is null
      union
      select s.id, c.node_id, s.expansion from asset_group_tag_selectors s
      join asset_group_tag_selector_cypher_nodes c on c.selector_id = s.id
      where s.asset_group_tag_id = ${tagId} and s.disabled_at is null
    ),
    child(selector_id, id) as (
      select selector_id, id from seed where expansion in (${EXPANSION.all}, ${EXPANSION.child})
      union
      select c.selector_id, case when e.end_id = c.id then e.start_id else e.end_id end
      from child c join nodes n on n.id = c.id join edges e on
        (e.end_id = c.id and e.kind = 'MemberOf' and ${has('n', 'Group')})
        or (e.start_id = c.id and e.kind = 'Contains' and (${has('n', 'OU')} or ${has('n', 'Container')}))
        or (e.end_id = c.id and e.kind = 'AZMemberOf' and ${has('n', 'AZGroup')})
        or (e.start_id = c.id and e.kind = 'AZContains'
          and (${has('n', 'AZManagementGroup')} or ${has('n', 'AZSubscription')} or ${has('n', 'AZResourceGroup')}))
        or (e.end_id = c.id and e.kind in ('AZHasRole', 'AZRoleEligible') and ${has('n', 'AZRole')})
      where n.kinds like '%Base"%'
    ),
    base(selector_id, id) as (
      select selector_id, id from seed where expansion = ${EXPANSION.parent}
      union
      select c.selector_id, c.id from child c join asset_group_tag_selectors s on s.id = c.selector_id
      where s.expansion = ${EXPANSION.all}
    ),
    ou(selector_id, id) as (
      select selector_id, id from base
      union
      select o.selector_id, e.start_id from ou o join edges e on e.end_id = o.id and e.kind = 'Contains'
      join nodes p on p.id = e.start_id and ${has('p', 'OU')}
    ),
    gpo(selector_id, id) as (
      select o.selector_id, e.start_id from ou o cross join edges e
      join nodes g on g.id = e.start_id and ${has('g', 'GPO')}
      where e.end_id = o.id and e.kind = 'GPLink'
    ),
    ctr(selector_id, id) as (
      select b.selector_id, b.id from base b cross join nodes n
      where n.id = b.id and n.properties like '%"isaclprotected":false%'
      union
      select c.selector_id, e.start_id from ctr c join edges e on e.end_id = c.id and e.kind = 'Contains'
      join nodes p on p.id = e.start_id and ${has('p', 'Container')}
    )
    insert into asset_group_tag_selector_nodes (selector_id, node_id, source)
    select selector_id, id, min(source) from (
      select selector_id, id, 1 as source from seed
      union all select selector_id, id, 2 from child
      union all select selector_id, id, 3 from ou
      union all select selector_id, id, 3 from gpo
      union all select selector_id, id, 3 from ctr
    ) u group by selector_id, id
  `.execute(trx);
}

/** The tag's members: the union of its selectors' nodes (lowest source), numbered in node-id order. */
async function insertMembers(trx: K, tagId: number): Promise<void> {
  await sql`
    insert into asset_group_tag_members (tag_id, node_id, source, objectid, name, primary_kind, environment_id, ord)
    select ${tagId}, n.id, p.source, n.objectid, coalesce(n.name, n.objectid), n.kind, n.environment_id,
      row_number() over (order by n.id) - 1
    from (
      select sn.node_id, min(sn.source) as source from asset_group_tag_selector_nodes sn
      join asset_group_tag_selectors s on s.id = sn.selector_id
      where s.asset_group_tag_id = ${tagId}
      group by sn.node_id
    ) p join nodes n on n.id = p.node_id
  `.execute(trx);
}

/** The current graph generation (cache key for derived answers such as controller lists). */
export async function graphGeneration(db: K): Promise<number> {
  const row = await db.selectFrom('graph_generation').select('generation').where('id', '=', 1).executeTakeFirst();
  return Number(row?.generation ?? 0);
}

export async function bumpGraphGeneration(db: K): Promise<void> {
  await db.updateTable('graph_generation').set((eb) => ({ generation: eb('generation', '+', 1) })).where('id', '=', 1).execute();
}
