import { Type } from '@sinclair/typebox';
import { DataEnvelope, errorResponses } from '../../http/envelope.ts';
import { TAG_TABLES } from './tags.tables.ts';
import { route } from '../../http/route.ts';
import { memberRoutes } from './members.routes.ts';
import { listSelectors, listTags } from './tags.repository.ts';
import {
  CreateSelectorBody, CreateTagBody, SelectorSchema, TagSchema, UpdateTagBody, toWireSelector, toWireTag,
} from './tags.schema.ts';
import { createSelector, createTag, patchTag, removeSelector, removeTag, requireTag } from './tags.service.ts';

const Id = Type.Integer({ format: 'int32' });
const tagParams = Type.Object({ asset_group_tag_id: Id });
const selectorParams = Type.Object({ asset_group_tag_id: Id, selector_id: Id });
type TagParams = { asset_group_tag_id: number };
const read = { access: { permissions: ['graphdb/Read' as const] }, cache: { reads: TAG_TABLES } };
const write = { access: { permissions: ['graphdb/Write' as const] } };
const tags = ['asset-group-tags'];

const tagRoutes = [
  route({
    method: 'GET',
    url: '/api/v2/asset-group-tags',
    config: read,
    schema: {
      tags, summary: 'List asset group tags',
      response: { 200: DataEnvelope(Type.Object({ tags: Type.Array(TagSchema) })), ...errorResponses(401, 403) },
    },
    handler: async (request) => ({ data: { tags: (await listTags(request.server.db.kysely)).map(toWireTag) } }),
  }),
  route<{ Body: CreateTagBody }>({
    method: 'POST',
    url: '/api/v2/asset-group-tags',
    config: write,
    schema: {
      tags, summary: 'Create an asset group tag (type 1 tier or 2 label)', body: CreateTagBody,
      response: { 201: DataEnvelope(TagSchema), ...errorResponses(400, 401, 403, 409) },
    },
    handler: async (request, reply) => {
      const tag = await createTag(request.server.db, request.principal, request.body);
      return reply.code(201).send({ data: toWireTag(tag) });
    },
  }),
  route<{ Params: TagParams }>({
    method: 'GET',
    url: '/api/v2/asset-group-tags/:asset_group_tag_id',
    config: read,
    schema: {
      tags, summary: 'Read an asset group tag', params: tagParams,
      response: { 200: DataEnvelope(Type.Object({ tag: TagSchema })), ...errorResponses(400, 401, 403, 404) },
    },
    handler: async (request) => ({ data: { tag: toWireTag(await requireTag(request.server.db, request.params.asset_group_tag_id)) } }),
  }),
  route<{ Params: TagParams; Body: UpdateTagBody }>({
    method: 'PATCH',
    url: '/api/v2/asset-group-tags/:asset_group_tag_id',
    config: write,
    schema: {
      tags, summary: 'Update an asset group tag', params: tagParams, body: UpdateTagBody,
      response: { 200: DataEnvelope(TagSchema), ...errorResponses(400, 401, 403, 404, 409) },
    },
    handler: async (request) => {
      const tag = await patchTag(request.server.db, request.principal, request.params.asset_group_tag_id, request.body);
      return { data: toWireTag(tag) };
    },
  }),
  route<{ Params: TagParams }>({
    method: 'DELETE',
    url: '/api/v2/asset-group-tags/:asset_group_tag_id',
    config: write,
    schema: {
      tags, summary: 'Delete an asset group tag with its selectors and membership (not Tier Zero or Owned)', params: tagParams,
      response: { 204: Type.Null(), ...errorResponses(400, 401, 403, 404, 409) },
    },
    handler: async (request, reply) => {
      await removeTag(request.server.db, request.params.asset_group_tag_id);
      return reply.code(204).send();
    },
  }),
  route<{ Params: TagParams }>({
    method: 'GET',
    url: '/api/v2/asset-group-tags/:asset_group_tag_id/selectors',
    config: read,
    schema: {
      tags, summary: "List a tag's selectors", params: tagParams,
      response: { 200: DataEnvelope(Type.Object({ selectors: Type.Array(SelectorSchema) })), ...errorResponses(400, 401, 403, 404) },
    },
    handler: async (request) => {
      const { db } = request.server;
      await requireTag(db, request.params.asset_group_tag_id);
      const selectors = await listSelectors(db.kysely, request.params.asset_group_tag_id);
      return { data: { selectors: selectors.map((s) => toWireSelector(s.selector, s.seeds)) } };
    },
  }),
  route<{ Params: TagParams; Body: CreateSelectorBody }>({
    method: 'POST',
    url: '/api/v2/asset-group-tags/:asset_group_tag_id/selectors',
    config: write,
    schema: {
      tags, summary: 'Create a selector; the tag membership is recomputed before the answer', params: tagParams, body: CreateSelectorBody,
      response: { 201: DataEnvelope(SelectorSchema), ...errorResponses(400, 401, 403, 404) },
    },
    handler: async (request, reply) => {
      const created = await createSelector(request.server.db, request.principal, request.params.asset_group_tag_id, request.body);
      return reply.code(201).send({ data: toWireSelector(created.selector, created.seeds) });
    },
  }),
  route<{ Params: TagParams & { selector_id: number } }>({
    method: 'DELETE',
    url: '/api/v2/asset-group-tags/:asset_group_tag_id/selectors/:selector_id',
    config: write,
    schema: {
      tags, summary: 'Delete a selector; the tag membership is recomputed before the answer', params: selectorParams,
      response: { 204: Type.Null(), ...errorResponses(400, 401, 403, 404) },
    },
    handler: async (request, reply) => {
      await removeSelector(request.server.db, request.params.asset_group_tag_id, request.params.selector_id);
      return reply.code(204).send();
    },
  }),
];

/** Tags, selectors, members and member counts. */
export const assetGroupTagRoutes = [...tagRoutes, ...memberRoutes];
