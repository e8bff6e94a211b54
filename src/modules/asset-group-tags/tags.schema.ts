/** Wire shapes of asset group tags, selectors and members (BloodHound's field names), and the mappers. */
import { Type, type Static } from '@sinclair/typebox';
import { NullInt32, NullString, NullTime, Timestamp, nullInt32, nullString, nullTime } from '../../http/envelope.ts';
import { toRfc3339 } from '../../db/time.ts';
import type { SelectorRow, TagRow } from './tags.tables.ts';

export const TAG_TYPES = { tier: 1, label: 2, owned: 3 } as const;

const NullBool = Type.Object({ bool: Type.Boolean(), valid: Type.Boolean() });

export const TagSchema = Type.Object(
  {
    id: Type.Integer(),
    type: Type.Integer({ description: '1 tier, 2 label, 3 owned' }),
    name: Type.String(),
    description: Type.String(),
    position: NullInt32,
    require_certify: NullBool,
    glyph: NullString,
    created_at: Timestamp,
    created_by: Type.String(),
    updated_at: Timestamp,
    updated_by: Type.String(),
    deleted_at: NullTime,
    deleted_by: NullString,
  },
  { title: 'AssetGroupTag' },
);

export const SeedSchema = Type.Object({
  type: Type.Literal(1, { description: '1 = object id (the only supported seed type)' }),
  value: Type.String({ minLength: 1, maxLength: 1000 }),
});

export const SelectorSchema = Type.Object(
  {
    id: Type.Integer(),
    asset_group_tag_id: Type.Integer(),
    name: Type.String(),
    description: Type.String(),
    expansion: Type.Integer({ description: '0 none, 1 all (child and parent), 2 child, 3 parent' }),
    seeds: Type.Array(SeedSchema),
    created_at: Timestamp,
    created_by: Type.String(),
    updated_at: Timestamp,
    updated_by: Type.String(),
  },
  { title: 'AssetGroupTagSelector' },
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
    glyph: Type.Optional(Type.Union([Type.String({ maxLength: 250 }), Type.Null()])),
  },
  { additionalProperties: false },
);
export type UpdateTagBody = Static<typeof UpdateTagBody>;

export const CreateSelectorBody = Type.Object(
  {
    name: Name,
    description: Type.Optional(Description),
    expansion: Type.Optional(Type.Integer({ minimum: 0, maximum: 3, default: 2, description: '0 none, 1 all, 2 child (default), 3 parent' })),
    seeds: Type.Array(SeedSchema, { minItems: 1, maxItems: 1000 }),
  },
  { additionalProperties: false },
);
export type CreateSelectorBody = Static<typeof CreateSelectorBody>;

export function toWireTag(t: TagRow) {
  return {
    id: t.id,
    type: t.type,
    name: t.name,
    description: t.description,
    position: nullInt32(t.position),
    require_certify: t.require_certify === null ? { bool: false, valid: false } : { bool: t.require_certify === 1, valid: true },
    glyph: nullString(t.glyph),
    created_at: toRfc3339(t.created_at),
    created_by: t.created_by,
    updated_at: toRfc3339(t.updated_at),
    updated_by: t.updated_by,
    deleted_at: nullTime(null),
    deleted_by: nullString(null),
  };
}

export function toWireSelector(s: SelectorRow, seeds: Array<{ type: number; value: string }>) {
  return {
    id: s.id,
    asset_group_tag_id: s.asset_group_tag_id,
    name: s.name,
    description: s.description,
    expansion: s.expansion,
    seeds: seeds.map((d) => ({ type: d.type as 1, value: d.value })),
    created_at: toRfc3339(s.created_at),
    created_by: s.created_by,
    updated_at: toRfc3339(s.updated_at),
    updated_by: s.updated_by,
  };
}
