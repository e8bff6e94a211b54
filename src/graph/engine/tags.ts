/**
 * Asset-group-tag membership as node kinds: a member of the tag "Tier Zero" has the kind
 * `Tag_Tier_Zero` (BloodHound names a tag's kind `Tag_` + its name with spaces as underscores).
 * Nothing stores these kinds in nodes.kinds; they come from asset_group_tag_members.
 */
import type { Db } from '../../db/create-db.ts';

export const TIER_ZERO_KIND = 'Tag_Tier_Zero';
export const OWNED_KIND = 'Tag_Owned';

export function tagKind(name: string): string {
  return `Tag_${name.replaceAll(' ', '_')}`;
}

export interface TagLayer {
  /** Tag kind → member node ids. */
  readonly members: ReadonlyMap<string, ReadonlySet<number>>;
  /** Node id → its tag kinds. */
  readonly byNode: ReadonlyMap<number, readonly string[]>;
  /** Every tag kind (also those of tags without members). */
  readonly kinds: readonly string[];
}

export async function loadTags(db: Db): Promise<TagLayer> {
  const tags = await db.kysely.selectFrom('asset_group_tags').select(['id', 'name']).orderBy('id').execute();
  const rows = await db.kysely.selectFrom('asset_group_tag_members').select(['tag_id', 'node_id']).execute();
  const kindOf = new Map(tags.map((t) => [Number(t.id), tagKind(t.name)]));
  const members = new Map<string, Set<number>>([...kindOf.values()].map((k) => [k, new Set()]));
  const byNode = new Map<number, string[]>();
  for (const r of rows) {
    const kind = kindOf.get(Number(r.tag_id));
    if (!kind) continue;
    const id = Number(r.node_id);
    members.get(kind)!.add(id);
    const list = byNode.get(id);
    if (list) list.push(kind);
    else byNode.set(id, [kind]);
  }
  return { members, byNode, kinds: [...kindOf.values()] };
}
