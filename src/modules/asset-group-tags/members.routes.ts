import { Readable } from 'node:stream';
import { Type } from '@sinclair/typebox';
import { DataEnvelope, PageEnvelope, errorResponses } from '../../http/envelope.ts';
import { defineQuery } from '../../http/query/index.ts';
import { TAG_TABLES } from './tags.tables.ts';
import { route } from '../../http/route.ts';
import { notFound } from '../../http/errors.ts';
import { environmentsOf, findMember, memberCounts, memberJson, membersQuery, MembersQuery } from './members.repository.ts';
import { seedsOf, selectorsOfNode } from './selectors.repository.ts';
import { SelectorSchema, toWireSelector } from './selectors.schema.ts';
import { MemberSchema } from './tags.schema.ts';
import { requireTag } from './tags.service.ts';
import { JSON_TYPE } from '../../http/json-body.ts';

type TagParams = { Params: { asset_group_tag_id: number } };
const params = Type.Object({ asset_group_tag_id: Type.Integer({ format: 'int32' }) });
const countsQuery = defineQuery({ params: { environments: { type: 'string[]', description: 'environment ids; repeatable' } } });
const memberParams = Type.Object({ asset_group_tag_id: Type.Integer({ format: 'int32' }), member_id: Type.Integer({ format: 'int32', description: 'graph node id' }) });

const COMMA = Buffer.from(',');
const TAIL = Buffer.from(']}}');

/** Rows streamed per query when limit=0 (memory stays flat whatever the tag's size). */
const STREAM_BATCH = 2000;

export { memberJson } from './members.repository.ts';

async function* streamMembers(q: MembersQuery, head: string, skip: number, total: number, tagId: number): AsyncGenerator<string> {
  yield head;
  let first = true;
  for (let offset = skip; ; offset += STREAM_BATCH) {
    const rows = await q.page(offset, STREAM_BATCH, total);
    if (rows.length > 0) yield (first ? '' : ',') + rows.map((r) => memberJson(r, tagId)).join(',');
    first = first && rows.length === 0;
    if (rows.length < STREAM_BATCH) break;
  }
  yield ']}}';
}

export const memberRoutes = [
  route<TagParams>({
    method: 'GET',
    url: '/api/v2/asset-group-tags/:asset_group_tag_id/members',
    config: { access: { permissions: ['graphdb/Read'] }, query: membersQuery, cache: { reads: [...TAG_TABLES, 'nodes'] } },
    schema: {
      tags: ['asset-group-tags'],
      summary: 'List the members of an asset group tag (limit=0: all, streamed)',
      params,
      response: {
        200: PageEnvelope(Type.Object({ members: Type.Array(MemberSchema) })),
        ...errorResponses(400, 401, 403, 404),
      },
    },
    handler: async (request, reply) => {
      const { db } = request.server;
      const tagId = request.params.asset_group_tag_id;
      await requireTag(db, tagId);
      const { skip, limit } = request.parsedQuery;
      const q = new MembersQuery(db, tagId, request.parsedQuery);
      const count = await q.count();
      const head = `{"count":${count},"skip":${skip},"limit":${limit},"data":{"members":[`;
      reply.type(JSON_TYPE);
      if (limit === 0 && count - skip > STREAM_BATCH) return reply.send(Readable.from(streamMembers(q, head, skip, count, tagId)));
      const members = await q.pageJson(skip, limit, count);
      // Made of kept JSON without a statement: cheaper to make again than to keep a copy of in the response cache.
      if (q.fromKept) request.cacheFill = null;
      const parts: Buffer[] = [Buffer.from(head)];
      for (let i = 0; i < members.length; i++) {
        if (i > 0) parts.push(COMMA);
        parts.push(members[i]);
      }
      parts.push(TAIL);
      return reply.send(Buffer.concat(parts));
    },
  }),
  route<TagParams>({
    method: 'GET',
    url: '/api/v2/asset-group-tags/:asset_group_tag_id/members/counts',
    config: { access: { permissions: ['graphdb/Read'] }, query: countsQuery, cache: { reads: [...TAG_TABLES, 'nodes'] } },
    schema: {
      tags: ['asset-group-tags'],
      summary: 'Members of an asset group tag per primary kind',
      params,
      response: {
        200: DataEnvelope(Type.Object({
          total_count: Type.Integer(),
          counts: Type.Record(Type.String(), Type.Integer()),
        })),
        ...errorResponses(400, 401, 403, 404),
      },
    },
    handler: async (request) => {
      const { db } = request.server;
      await requireTag(db, request.params.asset_group_tag_id);
      const rows = await memberCounts(db.kysely, request.params.asset_group_tag_id, environmentsOf(request.parsedQuery));
      const counts: Record<string, number> = {};
      for (const r of rows) counts[r.primary_kind] = Number(r.count);
      return { data: { total_count: rows.reduce((n, r) => n + Number(r.count), 0), counts } };
    },
  }),
  route<{ Params: { asset_group_tag_id: number; member_id: number } }>({
    method: 'GET',
    url: '/api/v2/asset-group-tags/:asset_group_tag_id/members/:member_id',
    config: { access: { permissions: ['graphdb/Read'] }, query: defineQuery({}), cache: { reads: [...TAG_TABLES, 'nodes'] } },
    schema: {
      tags: ['asset-group-tags'],
      summary: 'One member (by graph node id) with its properties and the selectors that selected it',
      params: memberParams,
      response: {
        200: DataEnvelope(Type.Object({ member: Type.Intersect([MemberSchema, Type.Object({ selectors: Type.Array(SelectorSchema) })]) })),
        ...errorResponses(400, 401, 403, 404),
      },
    },
    handler: async (request, reply) => {
      const { db } = request.server;
      const { asset_group_tag_id: tagId, member_id: nodeId } = request.params;
      await requireTag(db, tagId);
      const selectors = await selectorsOfNode(db.kysely, tagId, nodeId);
      const member = selectors.length ? await findMember(db.kysely, tagId, nodeId) : undefined;
      if (!member) throw notFound();
      const seeds = await seedsOf(db.kysely, selectors.map((s) => s.id));
      const wire = selectors.map((s) => toWireSelector(s, seeds.get(s.id) ?? []));
      return reply.type(JSON_TYPE).send(`{"data":{"member":${memberJson(member, tagId, `,"selectors":${JSON.stringify(wire)}`)}}}`);
    },
  }),
];
