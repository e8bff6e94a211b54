/** A tag's selectors: paged list, one, create, update, delete, and the members each selected. */
import { Type } from '@sinclair/typebox';
import { DataEnvelope, PageEnvelope, errorResponses } from '../../http/envelope.ts';
import { ApiError } from '../../http/errors.ts';
import { defineQuery, type ParsedQuery } from '../../http/query/index.ts';
import { route } from '../../http/route.ts';
import { audited } from '../../audit/audit.ts';
import type { AuditAction } from '../../audit/actions.ts';
import { JSON_TYPE } from '../../http/json-body.ts';
import { environmentsOf } from './members.repository.ts';
import { memberJson } from './members.routes.ts';
import {
  seedsOf, selectedCounts, selectedPage, selectorMemberCounts, selectorMembersQuery, selectorPage, selectorsQuery,
} from './selectors.repository.ts';
import { CreateSelectorBody, SelectorSchema, UpdateSelectorBody, toWireSelector } from './selectors.schema.ts';
import { createSelector, patchSelector, removeSelector, requireSelector, SelectorMessages } from './selectors.service.ts';
import { actorEmail } from './tags.repository.ts';
import { MemberSchema } from './tags.schema.ts';
import { requireTag } from './tags.service.ts';
import { TAG_TABLES } from './tags.tables.ts';

const Id = Type.Integer({ format: 'int32' });
const tagParams = Type.Object({ asset_group_tag_id: Id });
const selectorParams = Type.Object({ asset_group_tag_id: Id, selector_id: Id });
type TagP = { Params: { asset_group_tag_id: number } };
type SelectorP = { Params: { asset_group_tag_id: number; selector_id: number } };
const none = defineQuery({});
const countsQuery = defineQuery({ params: { environments: { type: 'string[]', description: 'environment ids (domain SID or tenant id); repeatable' } } });
const readAccess = { permissions: ['graphdb/Read' as const] };
const write = (action: AuditAction) => ({ access: { permissions: ['graphdb/Write' as const] }, query: none, audit: { action } });
const tags = ['asset-group-tags'];

async function listAnswer(request: { server: { db: import('../../db/create-db.ts').Db }; parsedQuery: ParsedQuery }, tagId: number) {
  const { db } = request.server;
  const parsed = request.parsedQuery;
  await requireTag(db, tagId);
  const { count, rows } = await selectorPage(db.kysely, tagId, parsed);
  const ids = rows.map((r) => r.id);
  const seeds = await seedsOf(db.kysely, ids);
  const counts = parsed.params.counts === true ? await selectorMemberCounts(db.kysely, tagId, ids, environmentsOf(parsed)) : undefined;
  const selectors = rows.map((r) => toWireSelector(r, seeds.get(r.id) ?? [], counts ? { members: counts.get(r.id) ?? 0 } : undefined));
  return { count, skip: parsed.skip, limit: parsed.limit, data: { selectors } };
}

export const selectorRoutes = [
  route<TagP>({
    method: 'GET',
    url: '/api/v2/asset-group-tags/:asset_group_tag_id/selectors',
    config: { access: readAccess, query: selectorsQuery, cache: { reads: TAG_TABLES } },
    schema: {
      tags, summary: "A tag's selectors, paged (counts=true: members each selected)", params: tagParams,
      response: { 200: PageEnvelope(Type.Object({ selectors: Type.Array(SelectorSchema) })), ...errorResponses(400, 401, 403, 404) },
    },
    handler: (request) => listAnswer(request, request.params.asset_group_tag_id),
  }),
  route<TagP & { Body: CreateSelectorBody }>({
    method: 'POST',
    url: '/api/v2/asset-group-tags/:asset_group_tag_id/selectors',
    config: write('CreateAssetGroupTagSelector'),
    schema: {
      tags, summary: 'Create a selector; the tag membership is recomputed before the answer', params: tagParams, body: CreateSelectorBody,
      response: { 201: DataEnvelope(SelectorSchema), ...errorResponses(400, 401, 403, 404, 409) },
    },
    handler: async (request, reply) => {
      const created = await audited(request, (db) => createSelector(db, request.principal, request.params.asset_group_tag_id, request.body));
      return reply.code(201).send({ data: created });
    },
  }),
  route<SelectorP>({
    method: 'GET',
    url: '/api/v2/asset-group-tags/:asset_group_tag_id/selectors/:selector_id',
    config: { access: readAccess, query: none, cache: { reads: [...TAG_TABLES, 'users'] } },
    schema: {
      tags, summary: "A selector (created_by / updated_by as the user's email address)", params: selectorParams,
      response: { 200: DataEnvelope(Type.Object({ selector: SelectorSchema })), ...errorResponses(400, 401, 403, 404) },
    },
    handler: async (request) => {
      const { db } = request.server;
      const { selector } = await requireSelector(db, request.params.asset_group_tag_id, request.params.selector_id);
      const [createdBy, updatedBy] = await Promise.all([actorEmail(db.kysely, selector.created_by), actorEmail(db.kysely, selector.updated_by)]);
      const seeds = (await seedsOf(db.kysely, [selector.id])).get(selector.id) ?? [];
      return { data: { selector: toWireSelector({ ...selector, created_by: createdBy, updated_by: updatedBy }, seeds) } };
    },
  }),
  route<SelectorP & { Body: UpdateSelectorBody }>({
    method: 'PATCH',
    url: '/api/v2/asset-group-tags/:asset_group_tag_id/selectors/:selector_id',
    config: write('UpdateAssetGroupTagSelector'),
    schema: {
      tags, params: selectorParams, body: UpdateSelectorBody,
      summary: 'Update a selector (default selectors: auto_certify and disabled only); membership is recomputed when what it selects changes',
      response: { 200: DataEnvelope(SelectorSchema), ...errorResponses(400, 401, 403, 404, 409) },
    },
    handler: async (request) => ({
      data: await audited(request, (db) => patchSelector(db, request.principal, request.params.asset_group_tag_id, request.params.selector_id, request.body)),
    }),
  }),
  route<SelectorP>({
    method: 'DELETE',
    url: '/api/v2/asset-group-tags/:asset_group_tag_id/selectors/:selector_id',
    config: write('DeleteAssetGroupTagSelector'),
    schema: {
      tags, summary: 'Delete a selector (not a default one); the tag membership is recomputed before the answer', params: selectorParams,
      response: { 204: Type.Null(), ...errorResponses(400, 401, 403, 404) },
    },
    handler: async (request, reply) => {
      await audited(request, (db) => removeSelector(db, request.params.asset_group_tag_id, request.params.selector_id));
      return reply.code(204).send();
    },
  }),
  route<SelectorP>({
    method: 'GET',
    url: '/api/v2/asset-group-tags/:asset_group_tag_id/selectors/:selector_id/members',
    config: { access: readAccess, query: selectorMembersQuery, cache: { reads: [...TAG_TABLES, 'nodes'] } },
    schema: {
      tags, summary: 'The members a selector selected (source: how this selector reached each)', params: selectorParams,
      response: { 200: PageEnvelope(Type.Object({ members: Type.Array(MemberSchema) })), ...errorResponses(400, 401, 403, 404, 409) },
    },
    handler: async (request, reply) => {
      const { db } = request.server;
      const { asset_group_tag_id: tagId, selector_id: selectorId } = request.params;
      const { selector } = await requireSelector(db, tagId, selectorId);
      if (selector.disabled_at !== null) throw new ApiError(409, SelectorMessages.disabled);
      const parsed = request.parsedQuery;
      const { count, rows } = await selectedPage(db.kysely, tagId, selectorId, parsed, environmentsOf(parsed));
      const members = rows.map((r) => memberJson(r, tagId)).join(',');
      return reply.type(JSON_TYPE)
        .send(`{"count":${count},"skip":${parsed.skip},"limit":${parsed.limit},"data":{"members":[${members}]}}`);
    },
  }),
  route<SelectorP>({
    method: 'GET',
    url: '/api/v2/asset-group-tags/:asset_group_tag_id/selectors/:selector_id/members/counts',
    config: { access: readAccess, query: countsQuery, cache: { reads: [...TAG_TABLES, 'nodes'] } },
    schema: {
      tags, summary: 'The members a selector selected, per primary kind (as GET …/members/counts for the tag)', params: selectorParams,
      response: {
        200: DataEnvelope(Type.Object({ total_count: Type.Integer(), counts: Type.Record(Type.String(), Type.Integer()) })),
        ...errorResponses(400, 401, 403, 404, 409),
      },
    },
    handler: async (request) => {
      const { db } = request.server;
      const { asset_group_tag_id: tagId, selector_id: selectorId } = request.params;
      const { selector } = await requireSelector(db, tagId, selectorId);
      if (selector.disabled_at !== null) throw new ApiError(409, SelectorMessages.disabled);
      const rows = await selectedCounts(db.kysely, tagId, selectorId, environmentsOf(request.parsedQuery));
      const counts: Record<string, number> = {};
      for (const r of rows) counts[r.primary_kind] = Number(r.count);
      return { data: { total_count: rows.reduce((n, r) => n + Number(r.count), 0), counts } };
    },
  }),
];
