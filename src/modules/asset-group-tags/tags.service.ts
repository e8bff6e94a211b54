/** Tag and selector writes: uniqueness, built-in tags, and the membership refresh that follows. */
import type { Principal } from '../../auth/principal.ts';
import type { Db } from '../../db/create-db.ts';
import { nowMicros } from '../../db/time.ts';
import { ApiError, conflict, notFound } from '../../http/errors.ts';
import { bumpGraphGeneration, EXPANSION, refreshTagMembership } from './membership.service.ts';
import {
  deleteSelector, deleteTag, findTag, findTagByName, insertSelector, insertTag, listSelectors, updateTag,
} from './tags.repository.ts';
import { TAG_TYPES, type CreateSelectorBody, type CreateTagBody, type UpdateTagBody } from './tags.schema.ts';
import type { TagRow } from './tags.tables.ts';

export const TagMessages = {
  nameTaken: 'asset group tag name must be unique',
  builtIn: 'a built-in asset group tag cannot be deleted',
} as const;

/** Tier Zero and Owned, seeded by the migration (created by SYSTEM; users' tags name their creator). */
const isBuiltIn = (t: TagRow) => t.created_by === 'SYSTEM' || t.type === TAG_TYPES.owned;

function actor(principal: Principal | null): string {
  return principal?.kind === 'user' ? principal.user.id : 'SYSTEM';
}

const boolOrNull = (v: boolean | null | undefined) => (v === undefined ? undefined : v === null ? null : v ? 1 : 0);

export async function requireTag(db: Db, id: number): Promise<TagRow> {
  const tag = await findTag(db.kysely, id);
  if (!tag) throw notFound();
  return tag;
}

export async function createTag(db: Db, principal: Principal | null, body: CreateTagBody): Promise<TagRow> {
  if (await findTagByName(db.kysely, body.name)) throw conflict(TagMessages.nameTaken);
  return insertTag(db.kysely, {
    type: body.type,
    name: body.name,
    description: body.description ?? '',
    position: body.position ?? null,
    require_certify: boolOrNull(body.require_certify) ?? null,
    glyph: body.glyph ?? null,
  }, actor(principal), nowMicros());
}

export async function patchTag(db: Db, principal: Principal | null, id: number, body: UpdateTagBody): Promise<TagRow> {
  await requireTag(db, id);
  if (body.name !== undefined) {
    const other = await findTagByName(db.kysely, body.name);
    if (other && other.id !== id) throw conflict(TagMessages.nameTaken);
  }
  const { require_certify, ...rest } = body;
  const updated = await updateTag(db.kysely, id, { ...rest, require_certify: boolOrNull(require_certify) }, actor(principal), nowMicros());
  if (!updated) throw notFound();
  return updated;
}

export async function removeTag(db: Db, id: number): Promise<void> {
  const tag = await requireTag(db, id);
  if (isBuiltIn(tag)) throw new ApiError(409, TagMessages.builtIn);
  await db.kysely.transaction().execute((trx) => deleteTag(trx, id, db.dialect === 'sqlite'));
  await bumpGraphGeneration(db.kysely);
}

export async function createSelector(db: Db, principal: Principal | null, tagId: number, body: CreateSelectorBody) {
  await requireTag(db, tagId);
  const id = await db.kysely.transaction().execute((trx) => insertSelector(trx, {
    tagId,
    name: body.name,
    description: body.description ?? '',
    expansion: body.expansion ?? EXPANSION.child,
    seeds: body.seeds,
  }, actor(principal), nowMicros()));
  await refreshTagMembership(db, tagId);
  await bumpGraphGeneration(db.kysely);
  const [created] = await listSelectors(db.kysely, tagId, id);
  return created;
}

export async function removeSelector(db: Db, tagId: number, selectorId: number): Promise<void> {
  await requireTag(db, tagId);
  const existed = await db.kysely.transaction().execute((trx) => deleteSelector(trx, tagId, selectorId));
  if (!existed) throw notFound();
  await refreshTagMembership(db, tagId);
  await bumpGraphGeneration(db.kysely);
}
