/**
 * Materialised tag membership. A tag's members are re-derived as a whole from its selectors:
 *   seed   (source 1) the nodes whose objectid a selector names, or that its Cypher seeds return (src/cypher/selectors.ts);
 *   child  (source 2) their descendants: group members (MemberOf, member → group) and the contents of
 *                     OUs / containers / domains (Contains, container → child), transitively, mixed;
 *   parent (source 3) their ancestors: the groups they belong to and the containers holding them.
 * A selector's expansion picks which: 0 none, 1 all, 2 child, 3 parent. What each enabled selector
 * selected is kept per selector (asset_group_tag_selector_nodes, the lowest source per node; a
 * disabled selector selects nothing); a tag's members are the union over its selectors, a node
 * keeping its lowest source. Called on every selector change and after every ingest (refreshTagMemberships).
 */
import { sql, type Kysely, type Transaction } from 'kysely';
import type { Db } from '../../db/create-db.ts';
import type { Database } from '../../db/database.ts';
import { cypherSeedNodes, stageCypherSeeds } from '../../cypher/selectors.ts';

type K = Kysely<Database> | Transaction<Database>;

export const EXPANSION = { none: 0, all: 1, child: 2, parent: 3 } as const;

/** Recomputes the members of every tag, then bumps the graph generation. Call after each ingest. */
export async function refreshTagMemberships(db: Db): Promise<void> {
  const tags = await db.kysely.selectFrom('asset_group_tags').select('id').orderBy('id').execute();
  for (const t of tags) await refreshTagMembership(db, t.id);
  await bumpGraphGeneration(db.kysely);
}

/** Recomputes one tag's members in one transaction (readers see the old or the new set, never half). */
export async function refreshTagMembership(db: Db, tagId: number): Promise<void> {
  const cypherNodes = await cypherSeedNodes(db, tagId); // read before the transaction (its own statements)
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
 * One statement: per enabled selector, its seeds, their descendants and their ancestors (each a
 * recursive CTE whose one recursive term follows MemberOf or Contains through the (end, kind, start) /
 * (start, kind, end) indexes), merged to the lowest source per (selector, node).
 */
async function insertSelectorNodes(trx: K, tagId: number): Promise<void> {
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
      select c.selector_id, case when e.kind = 'MemberOf' then e.start_id else e.end_id end
      from child c join edges e
        on (e.end_id = c.id and e.kind = 'MemberOf') or (e.start_id = c.id and e.kind = 'Contains')
    ),
    parent(selector_id, id) as (
      select selector_id, id from seed where expansion in (${EXPANSION.all}, ${EXPANSION.parent})
      union
      select p.selector_id, case when e.kind = 'MemberOf' then e.end_id else e.start_id end
      from parent p join edges e
        on (e.start_id = p.id and e.kind = 'MemberOf') or (e.end_id = p.id and e.kind = 'Contains')
    )
    insert into asset_group_tag_selector_nodes (selector_id, node_id, source)
    select selector_id, id, min(source) from (
      select selector_id, id, 1 as source from seed
      union all select selector_id, id, 2 from child
      union all select selector_id, id, 3 from parent
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
