/**
 * Selector writes with BloodHound's rules (auto_certify, default selectors, disabling), each followed
 * by the tag's membership refresh when what the selector selects may have changed.
 */
import type { Principal } from '../../auth/principal.ts';
import { seedsError } from '../../cypher/selectors.ts';
import type { Db } from '../../db/create-db.ts';
import { nowMicros } from '../../db/time.ts';
import { badRequest, conflict, forbidden, notFound, ApiError } from '../../http/errors.ts';
import { bumpGraphGeneration, EXPANSION, refreshTagMembership } from './membership.service.ts';
import {
  deleteSelector, findSelector, insertSelector, seedsOf, selectorNameTaken, updateSelector, type SelectorChanges,
} from './selectors.repository.ts';
import { AUTO_CERTIFY, toWireSelector, type CreateSelectorBody, type UpdateSelectorBody } from './selectors.schema.ts';
import { TAG_TYPES } from './tags.schema.ts';
import { actor, requireTag } from './tags.service.ts';
import type { SelectorRow, TagRow } from './tags.tables.ts';

export const SelectorMessages = {
  notPartOfTag: 'selector is not part of asset group tag',
  nameTaken: 'asset group tag selector name must be unique',
  autoCertifyZonesOnly: 'auto_certify is only available for asset group tags of tag_type = 1 (zones)',
  autoCertifyRange: 'auto_certify must be an input value of 0 to 2',
  cannotDisable: 'this selector cannot be disabled',
  defaultFields: 'default selectors only support modifying auto_certify and disabled_at',
  deleteDefault: 'cannot delete a default selector',
  disabled: 'selector is disabled',
} as const;

/** The tag and its selector; 404 for either unknown, or when the selector belongs to another tag. */
export async function requireSelector(db: Db, tagId: number, selectorId: number): Promise<{ tag: TagRow; selector: SelectorRow }> {
  const tag = await requireTag(db, tagId);
  const selector = await findSelector(db.kysely, selectorId);
  if (!selector) throw notFound();
  if (Number(selector.asset_group_tag_id) !== tagId) throw new ApiError(404, SelectorMessages.notPartOfTag);
  return { tag, selector };
}

/** null / absent → undefined (keep); otherwise BloodHound's checks. */
function autoCertify(tag: TagRow, value: number | null | undefined): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (tag.type !== TAG_TYPES.tier && value !== AUTO_CERTIFY.off) throw badRequest(SelectorMessages.autoCertifyZonesOnly);
  if (!Object.values(AUTO_CERTIFY).includes(value as 0)) throw badRequest(SelectorMessages.autoCertifyRange);
  return value;
}

async function wire(db: Db, selectorId: number) {
  const selector = (await findSelector(db.kysely, selectorId))!;
  return toWireSelector(selector, (await seedsOf(db.kysely, [selectorId])).get(selectorId) ?? []);
}

async function refresh(db: Db, tagId: number): Promise<void> {
  await refreshTagMembership(db, tagId);
  await bumpGraphGeneration(db.kysely);
}

export async function createSelector(db: Db, principal: Principal | null, tagId: number, body: CreateSelectorBody) {
  const tag = await requireTag(db, tagId);
  const seedProblem = seedsError(body.seeds);
  if (seedProblem) throw badRequest(seedProblem);
  const certify = autoCertify(tag, body.auto_certify) ?? AUTO_CERTIFY.off;
  const id = await db.kysely.transaction().execute(async (trx) => {
    if (await selectorNameTaken(trx, tagId, body.name)) throw conflict(SelectorMessages.nameTaken);
    return insertSelector(trx, {
      tagId, name: body.name, description: body.description ?? '', expansion: body.expansion ?? EXPANSION.child,
      autoCertify: certify, seeds: body.seeds,
    }, actor(principal), nowMicros());
  });
  await refresh(db, tagId);
  return wire(db, id);
}

/** PATCH: only the fields given change; `disabled` sets or clears disabled_at / disabled_by. */
export async function patchSelector(db: Db, principal: Principal | null, tagId: number, selectorId: number, body: UpdateSelectorBody) {
  const { tag, selector } = await requireSelector(db, tagId, selectorId);
  const who = actor(principal);
  const changes: SelectorChanges = {};
  if (body.disabled === true) {
    if (selector.allow_disable !== 1) throw forbidden(SelectorMessages.cannotDisable);
    if (selector.disabled_at === null) Object.assign(changes, { disabled_at: nowMicros(), disabled_by: who });
  } else if (body.disabled === false) {
    Object.assign(changes, { disabled_at: null, disabled_by: null });
  }
  const certify = autoCertify(tag, body.auto_certify);
  if (certify !== undefined) changes.auto_certify = certify;
  const seeds = body.seeds && body.seeds.length > 0 ? body.seeds : undefined;
  const seedProblem = seeds ? seedsError(seeds) : null;
  if (seedProblem) throw badRequest(seedProblem);
  const definition = body.name !== undefined || body.description !== undefined || seeds !== undefined || body.expansion !== undefined;
  if (selector.is_default === 1 && definition) throw forbidden(SelectorMessages.defaultFields);
  if (body.name !== undefined) changes.name = body.name;
  if (body.description !== undefined) changes.description = body.description;
  if (body.expansion !== undefined) changes.expansion = body.expansion;
  await db.kysely.transaction().execute(async (trx) => {
    if (body.name !== undefined && (await selectorNameTaken(trx, tagId, body.name, selectorId))) throw conflict(SelectorMessages.nameTaken);
    await updateSelector(trx, selectorId, changes, seeds, who, nowMicros());
  });
  const selects = seeds !== undefined || 'disabled_at' in changes || (body.expansion !== undefined && body.expansion !== selector.expansion);
  if (selects) await refresh(db, tagId);
  return wire(db, selectorId);
}

export async function removeSelector(db: Db, tagId: number, selectorId: number): Promise<void> {
  const { selector } = await requireSelector(db, tagId, selectorId);
  if (selector.is_default === 1) throw forbidden(SelectorMessages.deleteDefault);
  await db.kysely.transaction().execute((trx) => deleteSelector(trx, selectorId));
  await refresh(db, tagId);
}
