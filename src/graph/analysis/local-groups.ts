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
import { bool, hasKind, type AnalysisContext } from './context.ts';

export const LOCAL_GROUP_RULES: ReadonlyArray<{ kind: string; suffix: string }> = [
  { kind: 'AdminTo', suffix: '-544' },
  { kind: 'CanPSRemote', suffix: '-580' },
  { kind: 'ExecuteDCOM', suffix: '-562' },
];

/** AdminTo / CanPSRemote / ExecuteDCOM: one insert … select per rule (index lookups from the local groups). */
export async function localGroupEdges(ctx: AnalysisContext, kind: string, suffix: string): Promise<void> {
  await ctx.insertSelect(kind, sql`
    insert into edges (start_id, end_id, kind, properties, last_seen)
    select distinct m.start_id, l.end_id, cast(${kind} as text), '{}', cast(${ctx.now} as bigint)
    from nodes g
    join edges l on l.start_id = g.id and l.kind = 'LocalToComputer'
    join nodes c on c.id = l.end_id and c.kind = 'Computer'
    join edges m on m.end_id = g.id and m.kind = 'MemberOfLocalGroup'
    join nodes s on s.id = m.start_id
      and (s.kinds like '%"User"%' or s.kinds like '%"Group"%' or s.kinds like '%"Computer"%')
    where g.objectid like ${`%${suffix}`}
    on conflict (start_id, kind, end_id) do nothing`);
}

/** CanRDP, with BloodHound's User Rights Assignment rule. */
export async function canRdp(ctx: AnalysisContext): Promise<void> {
  const groups = await ctx.k.selectFrom('nodes as g').innerJoin('edges as l', (j) => j.onRef('l.start_id', '=', 'g.id').on('l.kind', '=', 'LocalToComputer'))
    .innerJoin('nodes as c', (j) => j.onRef('c.id', '=', 'l.end_id').on('c.kind', '=', 'Computer'))
    .select(['g.id as group', 'c.id as computer']).where('g.objectid', 'like', '%-555').orderBy('c.id').execute();
  for (const { group, computer } of groups.map((r) => ({ group: Number(r.group), computer: Number(r.computer) }))) {
    const c = (await ctx.nodes([computer])).get(computer)!;
    const rights = await ctx.edgesInto([computer], ['RemoteInteractiveLogonRight']);
    const direct = async () => {
      const members = await ctx.edgesInto([group], ['MemberOfLocalGroup']);
      const nodes = await ctx.nodes(members.map((m) => m.start));
      return members.map((m) => m.start).filter((id) => hasKind(nodes.get(id)!, 'User', 'Group', 'Computer'));
    };
    if (bool(c, 'hasura') !== true || rights.some((r) => r.start === group)) {
      for (const id of await direct()) ctx.emit(id, computer, 'CanRDP');
      continue;
    }
    const rdpMembers = await ctx.members(group);
    const holders = await ctx.nodes(rights.map((r) => r.start));
    for (const holder of holders.values()) {
      if (rdpMembers.has(holder.id)) ctx.emit(holder.id, computer, 'CanRDP');
      else if (hasKind(holder, 'Group', 'ADLocalGroup')) {
        for (const m of await ctx.members(holder.id)) if (rdpMembers.has(m)) ctx.emit(m, computer, 'CanRDP');
      }
    }
  }
  await ctx.flush();
}
