/** Wire shapes of selectors (BloodHound's fields, plain nullable values) and their request bodies. */
import { Type, type Static } from '@sinclair/typebox';
import { Nullable, Timestamp, timeOrNull } from '../../http/envelope.ts';
import { toRfc3339 } from '../../db/time.ts';
import type { SelectorRow } from './tags.tables.ts';

export const AUTO_CERTIFY = { off: 0, allMembers: 1, seedsOnly: 2 } as const;

export const SeedSchema = Type.Object({
  selector_id: Type.Integer(),
  type: Type.Integer({ description: '1 object id, 2 Cypher' }),
  value: Type.String(),
});

export const SelectorSchema = Type.Object(
  {
    id: Type.Integer(),
    asset_group_tag_id: Type.Integer(),
    created_at: Timestamp,
    created_by: Type.String(),
    updated_at: Timestamp,
    updated_by: Type.String(),
    disabled_at: Nullable(Timestamp),
    disabled_by: Nullable(Type.String({ description: 'id of the user who disabled it' })),
    name: Type.String(),
    description: Type.String(),
    auto_certify: Type.Integer({ description: '0 off, 1 all members, 2 seeds only' }),
    is_default: Type.Boolean(),
    allow_disable: Type.Boolean(),
    expansion: Type.Integer({ description: 'Scent: 0 none, 1 all (child and parent), 2 child, 3 parent' }),
    seeds: Type.Array(SeedSchema),
    counts: Type.Optional(Type.Object({ members: Type.Integer() })),
  },
  { title: 'AssetGroupTagSelector' },
);

const SeedBody = Type.Object({
  type: Type.Integer({ description: '1 = object id, 2 = Cypher (read-only; the nodes it returns)' }),
  value: Type.String({ minLength: 1, maxLength: 1000 }),
});
const Name = Type.String({ minLength: 1, maxLength: 250 });
const Description = Type.String({ maxLength: 2000 });
const Expansion = Type.Integer({ minimum: 0, maximum: 3, description: '0 none, 1 all, 2 child (default), 3 parent' });
const AutoCertify = Type.Union([Type.Integer(), Type.Null()], { description: '0 off (default), 1 all members, 2 seeds only; tiers only' });

export const CreateSelectorBody = Type.Object(
  {
    name: Name,
    description: Type.Optional(Description),
    expansion: Type.Optional(Expansion),
    auto_certify: Type.Optional(AutoCertify),
    seeds: Type.Array(SeedBody, { minItems: 1, maxItems: 1000 }),
  },
  { additionalProperties: false },
);
export type CreateSelectorBody = Static<typeof CreateSelectorBody>;

/** Every field optional; `id` (BloodHound's client sends it) is ignored. */
export const UpdateSelectorBody = Type.Object(
  {
    id: Type.Optional(Type.Integer()),
    name: Type.Optional(Name),
    description: Type.Optional(Description),
    expansion: Type.Optional(Expansion),
    auto_certify: Type.Optional(AutoCertify),
    disabled: Type.Optional(Type.Boolean({ description: 'true disables the selector (it then selects nothing), false enables it' })),
    seeds: Type.Optional(Type.Array(SeedBody, { maxItems: 1000, description: 'replaces the seeds (empty or absent: unchanged)' })),
  },
  { additionalProperties: false },
);
export type UpdateSelectorBody = Static<typeof UpdateSelectorBody>;

export type Seed = { type: number; value: string };

export function toWireSelector(s: SelectorRow, seeds: Seed[], counts?: { members: number }) {
  return {
    id: s.id,
    asset_group_tag_id: Number(s.asset_group_tag_id),
    created_at: toRfc3339(s.created_at),
    created_by: s.created_by,
    updated_at: toRfc3339(s.updated_at),
    updated_by: s.updated_by,
    disabled_at: timeOrNull(s.disabled_at),
    disabled_by: s.disabled_by ?? null,
    name: s.name,
    description: s.description,
    auto_certify: s.auto_certify,
    is_default: s.is_default === 1,
    allow_disable: s.allow_disable === 1,
    expansion: s.expansion,
    seeds: seeds.map((d) => ({ selector_id: s.id, type: d.type, value: d.value })),
    ...(counts ? { counts } : {}),
  };
}
