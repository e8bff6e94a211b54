import { Type } from '@sinclair/typebox';
import { DataEnvelope, errorResponses } from '../../http/envelope.ts';
import { TAG_TABLES } from './tags.tables.ts';
import { route } from '../../http/route.ts';
import { audited } from '../../audit/audit.ts';
import type { AuditAction } from '../../audit/actions.ts';
import { defineQuery } from '../../http/query/index.ts';
import { memberRoutes } from './members.routes.ts';
import { selectorCountsByTag } from './selectors.repository.ts';
import { selectorRoutes } from './selectors.routes.ts';
import { actorEmail, listTags, memberCountsByTag, tagsQuery } from './tags.repository.ts';
import { CreateTagBody, TagSchema, UpdateTagBody, toWireTag } from './tags.schema.ts';
import { createTag, patchTag, removeTag, requireTag } from './tags.service.ts';

const Id = Type.Integer({ format: 'int32' });
const tagParams = Type.Object({ asset_group_tag_id: Id });
type TagParams = { asset_group_tag_id: number };
const none = defineQuery({});
const read = { access: { permissions: ['graphdb/Read' as const] }, cache: { reads: TAG_TABLES }, query: none };
const write = (action: AuditAction) => ({ access: { permissions: ['graphdb/Write' as const] }, query: none, audit: { action } });
const tags = ['asset-group-tags'];

const tagRoutes = [
  route({
    method: 'GET',
    url: '/api/v2/asset-group-tags',
    config: { ...read, query: tagsQuery },
    schema: {
      tags, summary: 'List asset group tags (counts=true: selectors and members of each)',
      response: { 200: DataEnvelope(Type.Object({ tags: Type.Array(TagSchema) })), ...errorResponses(400, 401, 403) },
    },
    handler: async (request) => {
      const db = request.server.db.kysely;
      const rows = await listTags(db, request.parsedQuery);
      if (request.parsedQuery.params.counts !== true) return { data: { tags: rows.map((r) => toWireTag(r)) } };
      const [selectors, members] = await Promise.all([selectorCountsByTag(db), memberCountsByTag(db)]);
      const none = { selectors: 0, custom_selectors: 0, default_selectors: 0, disabled_selectors: 0 };
      return { data: { tags: rows.map((r) => toWireTag(r, { ...(selectors.get(r.id) ?? none), members: members.get(r.id) ?? 0 })) } };
    },
  }),
  route<{ Body: CreateTagBody }>({
    method: 'POST',
    url: '/api/v2/asset-group-tags',
    config: write('CreateAssetGroupTag'),
    schema: {
      tags, summary: 'Create an asset group tag (type 1 tier or 2 label)', body: CreateTagBody,
      response: { 201: DataEnvelope(TagSchema), ...errorResponses(400, 401, 403, 409) },
    },
    handler: async (request, reply) => {
      const tag = await audited(request, (db) => createTag(db, request.principal, request.body));
      return reply.code(201).send({ data: toWireTag(tag) });
    },
  }),
  route<{ Params: TagParams }>({
    method: 'GET',
    url: '/api/v2/asset-group-tags/:asset_group_tag_id',
    config: { ...read, cache: { reads: [...TAG_TABLES, 'users'] } },
    schema: {
      tags, summary: 'Read an asset group tag (created_by / updated_by as the user\'s email address)', params: tagParams,
      response: { 200: DataEnvelope(Type.Object({ tag: TagSchema })), ...errorResponses(400, 401, 403, 404) },
    },
    handler: async (request) => {
      const { db } = request.server;
      const tag = await requireTag(db, request.params.asset_group_tag_id);
      const [createdBy, updatedBy] = await Promise.all([actorEmail(db.kysely, tag.created_by), actorEmail(db.kysely, tag.updated_by)]);
      return { data: { tag: toWireTag({ ...tag, created_by: createdBy, updated_by: updatedBy }) } };
    },
  }),
  route<{ Params: TagParams; Body: UpdateTagBody }>({
    method: 'PATCH',
    url: '/api/v2/asset-group-tags/:asset_group_tag_id',
    config: write('UpdateAssetGroupTag'),
    schema: {
      tags, summary: 'Update an asset group tag', params: tagParams, body: UpdateTagBody,
      response: { 200: DataEnvelope(TagSchema), ...errorResponses(400, 401, 403, 404, 409) },
    },
    handler: async (request) => {
      const tag = await audited(request, (db) => patchTag(db, request.principal, request.params.asset_group_tag_id, request.body));
      return { data: toWireTag(tag) };
    },
  }),
  route<{ Params: TagParams }>({
    method: 'DELETE',
    url: '/api/v2/asset-group-tags/:asset_group_tag_id',
    config: write('DeleteAssetGroupTag'),
    schema: {
      tags, summary: 'Delete an asset group tag with its selectors and membership (not Tier Zero or Owned)', params: tagParams,
      response: { 204: Type.Null(), ...errorResponses(400, 401, 403, 404, 409) },
    },
    handler: async (request, reply) => {
      await audited(request, (db) => removeTag(db, request.params.asset_group_tag_id));
      return reply.code(204).send();
    },
  }),
];

/** Tags, selectors, members and member counts. */
export const assetGroupTagRoutes = [...tagRoutes, ...selectorRoutes, ...memberRoutes];
