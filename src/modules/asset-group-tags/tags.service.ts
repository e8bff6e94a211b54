/** Tag and selector writes: uniqueness, built-in tags, and the membership refresh that follows. */
import type { Principal } from '../../auth/principal.ts';
import type { Db } from '../../db/create-db.ts';
import { nowMicros } from '../../db/time.ts';
import { VersionedCache } from '../../http/bounded-cache.ts';
import { ApiError, badRequest, conflict, forbidden, notFound } from '../../http/errors.ts';
import { bumpGraphGeneration } from './membership.service.ts';
import { deleteTag, findTag, findTagByName, insertTag, updateTag } from './tags.repository.ts';
import { TAG_TYPES, type CreateTagBody, type UpdateTagBody } from './tags.schema.ts';
import type { TagRow } from './tags.tables.ts';

export const TagMessages = {
  nameTaken: 'asset group tag name must be unique',
  builtIn: 'a built-in asset group tag cannot be deleted',
  tierZeroAnalysis: 'tier zero analysis_enabled cannot be modified',
  zonesOnlyAnalysis: 'only zones support modifying analysis_enabled',
  multiTierOff: 'multi-tier analysis is not enabled for privilege zones',
} as const;

/** Tier Zero and Owned, seeded by the migration (created by SYSTEM; users' tags name their creator). */
const isBuiltIn = (t: TagRow) => t.created_by === 'SYSTEM' || t.type === TAG_TYPES.owned;

/** Tier Zero: the tier at position 1 (as BloodHound tells it). */
export const isTierZero = (t: TagRow) => t.type === TAG_TYPES.tier && t.position === 1;

export function actor(principal: Principal | null): string {
  return principal?.kind === 'user' ? principal.user.id : 'SYSTEM';
}

const boolOrNull = (v: boolean | null | undefined) => (v === undefined ? undefined : v === null ? null : v ? 1 : 0);

/**
 * Tags by id (or null: none), kept while asset_group_tags is unchanged (src/db/data-versions.ts): every member page
 * checks its tag. Frozen: callers share them.
 */
const tagsKept = new WeakMap<Db, VersionedCache<Readonly<TagRow> | null>>();
const TAG_ROW = ['asset_group_tags'] as const;

export async function requireTag(db: Db, id: number): Promise<TagRow> {
  let kept = tagsKept.get(db);
  if (!kept) tagsKept.set(db, (kept = new VersionedCache<Readonly<TagRow> | null>(db.versions, 1024 * 1024, (t) => (t ? 256 + t.name.length + t.description.length : 16))));
  const key = String(id);
  let tag = kept.get(key, TAG_ROW);
  if (tag === undefined) {
    const keep = kept.prepare(key, TAG_ROW);
    tag = Object.freeze((await findTag(db.kysely, id)) ?? null);
    keep(tag);
  }
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
    analysis_enabled: body.type === TAG_TYPES.tier ? 0 : null,
    glyph: body.glyph ?? null,
  }, actor(principal), nowMicros());
}

/** BloodHound's rules for analysis_enabled: Tier Zero's is fixed, other tags have none, other tiers need multi-tier analysis. */
function checkAnalysisEnabled(tag: TagRow, body: UpdateTagBody): void {
  if (body.analysis_enabled === undefined) return;
  if (isTierZero(tag)) throw forbidden(TagMessages.tierZeroAnalysis);
  if (tag.type !== TAG_TYPES.tier) throw badRequest(TagMessages.zonesOnlyAnalysis);
  throw forbidden(TagMessages.multiTierOff);
}

export async function patchTag(db: Db, principal: Principal | null, id: number, body: UpdateTagBody): Promise<TagRow> {
  checkAnalysisEnabled(await requireTag(db, id), body);
  if (body.name !== undefined) {
    const other = await findTagByName(db.kysely, body.name);
    if (other && other.id !== id) throw conflict(TagMessages.nameTaken);
  }
  const { require_certify, analysis_enabled: _fixed, ...rest } = body;
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
