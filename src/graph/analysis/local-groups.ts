/**
 * Local-group rules (BloodHound `PostLocalGroups`, packages/go/analysis/ad/post.go): a computer's
 * local group is found through `LocalToComputer` by the end of its object id; its **direct** members
 * (User, Group or Computer via `MemberOfLocalGroup`) get the edge to the computer.
 *   -544 Administrators → AdminTo, -580 Remote Management Users → CanPSRemote,
 *   -562 Distributed COM Users → ExecuteDCOM, -555 Remote Desktop Users → CanRDP.
 * CanRDP when the computer has User Rights Assignment data (`hasura: true`) and the RDP group does
 * not hold RemoteInteractiveLogonRight on it: only the holders of that right that are (transitively)
 * in the RDP group, and the members of holding groups that are. (Citrix "Direct Access Users"
 * handling is behind a BloodHound setting that is off by default; Scent does not model it.)
 */
import { sql } from 'kysely';
import { hasKind, type AnalysisContext } from './context.ts';

export const LOCAL_GROUP_RULES: ReadonlyArray<{ kind: string; suffix: string }> = [
  { kind: 'AdminTo', suffix: '-544' },
  { kind: 'CanPSRemote', suffix: '-580' },
  { kind: 'ExecuteDCOM', suffix: '-562' },
];

/**
 * AdminTo / CanPSRemote / ExecuteDCOM (and CanRDP where user rights do not restrict it): one insert …
 * select per rule, by index lookups from the local groups. `restricted` adds CanRDP's condition: the
 * computer has no user-rights data, or its RDP group holds RemoteInteractiveLogonRight on it. The
 * edges are written in the unique index's order (start, kind, end): its pages are visited in one
 * sweep rather than at random (as Owns / WriteOwner, ownership.ts).
 */
export async function localGroupEdges(ctx: AnalysisContext, kind: string, suffix: string, unrestrictedOnly = false): Promise<void> {
  const pg = ctx.dialect === 'postgres';
  const hasUra = uraTest(pg);
  const unrestricted = unrestrictedOnly
    ? sql`and (not (${hasUra}) or exists (select 1 from edges r where r.start_id = g.id and r.kind = 'RemoteInteractiveLogonRight' and r.end_id = c.id))`
    : sql``;
  if (pg) {
    // PostgreSQL's planner misjudges the kinds LIKEs and started from every principal's membership
    // edges; the computers' local groups of this suffix first (materialised: a few thousand rows),
    // then their members: a third to half of the rule's time at 30,000 users, the same rows.
    await ctx.insertSelect(kind, sql`
      with lg as materialized (
        select g.id as grp, c.id as computer from nodes c
        join edges l on l.end_id = c.id and l.kind = 'LocalToComputer'
        join nodes g on g.id = l.start_id
        where c.kind = 'Computer' and g.objectid like ${`%${suffix}`} ${unrestricted}
      )
      insert into edges (start_id, end_id, kind, properties, last_seen)
      select distinct m.start_id, lg.computer, cast(${kind} as text), '{}', cast(${ctx.now} as bigint)
      from lg
      join edges m on m.end_id = lg.grp and m.kind = 'MemberOfLocalGroup'
      join nodes s on s.id = m.start_id
        and (s.kinds like '%"User"%' or s.kinds like '%"Group"%' or s.kinds like '%"Computer"%')
      order by m.start_id, lg.computer
      on conflict (start_id, kind, end_id) do nothing`);
    return;
  }
  await ctx.insertSelect(kind, sql`
    insert into edges (start_id, end_id, kind, properties, last_seen)
    select distinct m.start_id, l.end_id, cast(${kind} as text), '{}', cast(${ctx.now} as bigint)
    from nodes g
    join edges l on l.start_id = g.id and l.kind = 'LocalToComputer'
    join nodes c on c.id = l.end_id and c.kind = 'Computer'
    join edges m on m.end_id = g.id and m.kind = 'MemberOfLocalGroup'
    join nodes s on s.id = m.start_id
      and (s.kinds like '%"User"%' or s.kinds like '%"Group"%' or s.kinds like '%"Computer"%')
    where g.objectid like ${`%${suffix}`} ${unrestricted}
    order by m.start_id, l.end_id
    on conflict (start_id, kind, end_id) do nothing`);
}

/** The computer `c` has user-rights data (`hasura: true`); false, never null, when the property is absent. */
const uraTest = (pg: boolean) => (pg
  ? sql.raw(`coalesce((c.properties::json->>'hasura') = 'true', false)`)
  : sql.raw(`coalesce(json_type(c.properties, '$.hasura') = 'true', 0) = 1`));

/** CanRDP: the local-group rule where user rights allow it, BloodHound's URA rule on the other computers. */
export async function canRdp(ctx: AnalysisContext): Promise<void> {
  await localGroupEdges(ctx, 'CanRDP', '-555', true);
  const pg = ctx.dialect === 'postgres';
  const hasUra = uraTest(pg);
  // The computers with user-rights data whose RDP group lacks the right: the holders of the right inside the group.
  const restricted = await sql<{ group: number; computer: number }>`
    select g.id as "group", c.id as computer from nodes g
    join edges l on l.start_id = g.id and l.kind = 'LocalToComputer'
    join nodes c on c.id = l.end_id and c.kind = 'Computer'
    where g.objectid like '%-555' and ${hasUra}
      and not exists (select 1 from edges r where r.start_id = g.id and r.kind = 'RemoteInteractiveLogonRight' and r.end_id = c.id)
    order by c.id`.execute(ctx.k);
  for (const { group, computer } of restricted.rows.map((r) => ({ group: Number(r.group), computer: Number(r.computer) }))) {
    const rdpMembers = await ctx.members(group);
    const holders = await ctx.nodes((await ctx.edgesInto([computer], ['RemoteInteractiveLogonRight'])).map((r) => r.start));
    for (const holder of holders.values()) {
      if (rdpMembers.has(holder.id)) ctx.emit(holder.id, computer, 'CanRDP');
      else if (hasKind(holder, 'Group', 'ADLocalGroup')) {
        for (const m of await ctx.members(holder.id)) if (rdpMembers.has(m)) ctx.emit(m, computer, 'CanRDP');
      }
    }
  }
  await ctx.flush();
}
