/**
 * Owns / WriteOwner from the raw ACE edges (BloodHound `PostOwnsAndWriteOwner`, owns.go): each
 * `OwnsRaw` becomes `Owns` and each `WriteOwnerRaw` becomes `WriteOwner` between the same ends, with
 * properties isacl=true, isinherited and inheritancehash copied (false / "" when absent). The raw
 * edges stay. When the target's domain enforces BlockOwnerImplicitRights (the 29th character of the
 * domain's `dsheuristics` is `1`) and the target is computer-derived (a Computer, or a gMSA / MSA):
 * Owns is kept only when the owner is Domain Admins / Enterprise Admins (-512 / -519) or one of their
 * members, and WriteOwner is dropped.
 */
import { sql } from 'kysely';
import { str, type AnalysisContext } from './context.ts';

export async function ownership(ctx: AnalysisContext, kind: 'Owns' | 'WriteOwner'): Promise<void> {
  const raw = `${kind}Raw`;
  const enforced = (await ctx.nodesOfKind('Domain'))
    .filter((d) => str(d, 'dsheuristics')?.[28] === '1').map((d) => str(d, 'domainsid') ?? d.objectid);
  const pg = ctx.dialect === 'postgres';
  const isInherited = pg
    ? sql`coalesce((e.properties::json->>'isinherited')::boolean, false)`
    : sql`json(case when json_extract(e.properties, '$.isinherited') then 'true' else 'false' end)`;
  const hash = pg
    ? sql`coalesce(e.properties::json->>'inheritancehash', '')`
    : sql`coalesce(json_extract(e.properties, '$.inheritancehash'), '')`;
  const props = pg
    ? sql`json_build_object('isacl', true, 'isinherited', ${isInherited}, 'inheritancehash', ${hash})::text`
    : sql`json_object('isacl', json('true'), 'isinherited', ${isInherited}, 'inheritancehash', ${hash})`;
  const notEnforced = enforced.length
    ? sql`(t.environment_id is null or t.environment_id not in (${sql.join(enforced)}))`
    : sql`1 = 1`;
  // SQLite: from the nodes (an index) to their raw edges by the (end, kind) index, rather than a
  // scan of the whole edges table (~15% of the rule at 100,000 users); written in the raw edges'
  // order, as that scan wrote them. PostgreSQL: written in the unique index's order (start, kind,
  // end), so that its pages are visited in one sweep rather than at random.
  const from = pg
    ? sql`from edges e join nodes t on t.id = e.end_id where e.kind = ${raw} and ${notEnforced} order by e.start_id, e.end_id`
    : sql`from nodes t cross join edges e where e.end_id = t.id and e.kind = ${raw} and ${notEnforced} order by e.id`;
  await ctx.insertSelect(kind, sql`
    insert into edges (start_id, end_id, kind, properties, last_seen)
    select e.start_id, e.end_id, cast(${kind} as text), ${props}, cast(${ctx.now} as bigint)
    ${from}
    on conflict (start_id, kind, end_id) do nothing`);
  if (!enforced.length) return;
  // Targets in enforcing domains: decided one by one (few).
  const rows = await ctx.k.selectFrom('edges as e').innerJoin('nodes as t', 't.id', 'e.end_id')
    .select(['e.start_id', 'e.end_id', 'e.properties']).where('e.kind', '=', raw).where('t.environment_id', 'in', enforced).execute();
  const admins = new Set<number>();
  for (const g of await ctx.k.selectFrom('nodes').select('id').where((eb) => eb.or([eb('objectid', 'like', '%-512'), eb('objectid', 'like', '%-519')])).execute()) {
    admins.add(Number(g.id));
    for (const m of await ctx.members(Number(g.id))) admins.add(m);
  }
  const targets = await ctx.nodes(rows.map((r) => Number(r.end_id)));
  for (const r of rows) {
    const t = targets.get(Number(r.end_id))!;
    const computerDerived = t.kinds.includes('Computer') || t.properties.gmsa === true || t.properties.msa === true;
    const keep = !computerDerived || (kind === 'Owns' && admins.has(Number(r.start_id)));
    if (!keep) continue;
    const p = JSON.parse(r.properties) as Record<string, unknown>;
    ctx.emit(Number(r.start_id), Number(r.end_id), kind, {
      isacl: true, isinherited: p.isinherited === true, inheritancehash: typeof p.inheritancehash === 'string' ? p.inheritancehash : '',
    });
  }
  await ctx.flush();
}
