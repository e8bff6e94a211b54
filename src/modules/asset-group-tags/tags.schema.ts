/**
 * Wire shapes of asset group tags and members (BloodHound's field names), and the mappers.
 * Tags are outside the seed: nullable fields are the plain value or null, except `deleted_at`, which
 * keeps the seed's `{time, valid}` (CONTRACT §6). Members are the seed's (2.13) plus `asset_group_tag_id`.
 */
import { Type, type Static } from '@sinclair/typebox';
import { NullTime, Nullable, Timestamp, boolOrNull, nullTime } from '../../http/envelope.ts';
import { toRfc3339 } from '../../db/time.ts';
import type { TagRow } from './tags.tables.ts';

export const TAG_TYPES = { tier: 1, label: 2, owned: 3 } as const;

export const TagCountsSchema = Type.Object({
  selectors: Type.Integer({ description: 'selectors of the tag' }),
  custom_selectors: Type.Integer({ description: 'selectors that are not default ones' }),
  default_selectors: Type.Integer({ description: 'default selectors' }),
  disabled_selectors: Type.Integer({ description: 'disabled selectors' }),
  members: Type.Integer({ description: 'graph nodes carrying the tag' }),
});

export const TagSchema = Type.Object(
  {
    id: Type.Integer(),
    type: Type.Integer({ description: '1 tier (zone), 2 label, 3 owned' }),
    kind_id: Type.Integer({ description: 'the graph kind of the tag (Tag_<name>); in Scent the tag id' }),
    name: Type.String(),
    description: Type.String(),
    created_at: Timestamp,
    created_by: Type.String(),
    updated_at: Timestamp,
    updated_by: Type.String(),
    deleted_at: NullTime,
    deleted_by: Nullable(Type.String()),
    position: Nullable(Type.Integer({ description: 'tiers only; Tier Zero = 1' })),
    require_certify: Nullable(Type.Boolean({ description: 'tiers only' })),
    analysis_enabled: Nullable(Type.Boolean({ description: 'tiers only; true for Tier Zero' })),
    glyph: Nullable(Type.String()),
    counts: Type.Optional(TagCountsSchema),
  },
  { title: 'AssetGroupTag' },
);

export const MemberSchema = Type.Object(
  {
    id: Type.Integer({ description: 'graph node id' }),
    object_id: Type.String(),
    environment_id: Type.String({ description: 'domain SID or tenant id ("" when unknown)' }),
    primary_kind: Type.String(),
    name: Type.String(),
    properties: Type.Object({}, { additionalProperties: true }),
    source: Type.Integer({ description: '1 seed, 2 child, 3 parent' }),
    asset_group_tag_id: Type.Integer(),
  },
  { title: 'AssetGroupTagMember' },
);

const Name = Type.String({ minLength: 1, maxLength: 250 });
const Description = Type.String({ maxLength: 2000 });

export const CreateTagBody = Type.Object(
  {
    name: Name,
    description: Type.Optional(Description),
    type: Type.Union([Type.Literal(TAG_TYPES.tier), Type.Literal(TAG_TYPES.label)], { description: '1 tier or 2 label' }),
    position: Type.Optional(Type.Union([Type.Integer({ minimum: 1, maximum: 2147483647 }), Type.Null()])),
    require_certify: Type.Optional(Type.Union([Type.Boolean(), Type.Null()])),
    glyph: Type.Optional(Type.Union([Type.String({ maxLength: 250 }), Type.Null()])),
  },
  { additionalProperties: false },
);
export type CreateTagBody = Static<typeof CreateTagBody>;

export const UpdateTagBody = Type.Object(
  {
    name: Type.Optional(Name),
    description: Type.Optional(Description),
    position: Type.Optional(Type.Union([Type.Integer({ minimum: 1, maximum: 2147483647 }), Type.Null()])),
    require_certify: Type.Optional(Type.Union([Type.Boolean(), Type.Null()])),
    analysis_enabled: Type.Optional(Type.Union([Type.Boolean(), Type.Null()], {
      description: 'tiers other than Tier Zero, and only with multi-tier analysis (which Scent does not have)',
    })),
    glyph: Type.Optional(Type.Union([Type.String({ maxLength: 250 }), Type.Null()])),
  },
  { additionalProperties: false },
);
export type UpdateTagBody = Static<typeof UpdateTagBody>;

export interface TagCounts { selectors: number; custom_selectors: number; default_selectors: number; disabled_selectors: number; members: number }

export function toWireTag(t: TagRow, counts?: TagCounts) {
  return {
    id: t.id,
    type: t.type,
    kind_id: Number(t.kind_id),
    name: t.name,
    description: t.description,
    created_at: toRfc3339(t.created_at),
    created_by: t.created_by,
    updated_at: toRfc3339(t.updated_at),
    updated_by: t.updated_by,
    deleted_at: nullTime(null),
    deleted_by: null,
    position: t.position ?? null,
    require_certify: boolOrNull(t.require_certify),
    analysis_enabled: boolOrNull(t.analysis_enabled),
    glyph: t.glyph ?? null,
    ...(counts ? { counts } : {}),
  };
}
