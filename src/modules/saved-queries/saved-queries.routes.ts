import { Type, type Static } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { DataEnvelope, errorResponses, NullTime, PageEnvelope, Timestamp } from '../../http/envelope.ts';
import { ApiError, badRequest, Messages } from '../../http/errors.ts';
import { applyFilters, applyPaging, applySort, defineQuery } from '../../http/query/index.ts';
import { route } from '../../http/route.ts';
import { audited } from '../../audit/audit.ts';
import {
  DuplicateName, findQuery, insertQueries, isAdministrator, isPublic, isSharedTo, scopesOf, toWireQuery, updateQuery,
  visibleQueries, type Scope,
} from './saved-queries.repository.ts';

export const SavedQuerySchema = Type.Object({
  user_id: Type.String(), name: Type.String(), query: Type.String(), description: Type.String(), id: Type.Integer(),
  created_at: Timestamp, updated_at: Timestamp, deleted_at: NullTime,
  scope: Type.Optional(Type.Union([Type.Literal('owned'), Type.Literal('shared'), Type.Literal('public')])),
});

const listQuery = defineQuery({
  filters: {
    user_id: { kind: 'uuid', column: 'saved_queries.user_id' },
    name: { kind: 'string', column: 'saved_queries.name' },
    query: { kind: 'string', column: 'saved_queries.query', predicates: ['eq', 'neq'] },
    description: { kind: 'string', column: 'saved_queries.description' },
  },
  sortable: {
    user_id: 'saved_queries.user_id', name: 'saved_queries.name', query: 'saved_queries.query', description: 'saved_queries.description',
    id: 'saved_queries.id', created_at: 'saved_queries.created_at', updated_at: 'saved_queries.updated_at', deleted_at: 'saved_queries.id',
  },
  defaultSort: [{ column: 'id' }],
  tieBreaker: 'saved_queries.id',
  paging: { defaultLimit: 10000 },
  params: { scope: { type: 'string', default: 'owned', description: 'owned (default), shared, public or all; any case' } },
});

const Body = Type.Object({
  name: Type.Optional(Type.String()), query: Type.Optional(Type.String()), description: Type.Optional(Type.String()),
});
type IdParams = { Params: { saved_query_id: string } };
const idParams = Type.Object({ saved_query_id: Type.String() });

export const SCOPES: Scope[] = ['owned', 'shared', 'public', 'all'];
export const DUPLICATE = 'duplicate name for saved query: please choose a different name';

/** The calling user's id (saved queries belong to users; a collection client has none). */
export function callerId(request: FastifyRequest): string {
  const p = request.principal;
  if (p?.kind !== 'user') throw badRequest('No associated user found');
  return p.user.id;
}

/** A path id: a positive integer, else 400 `id is malformed`. */
export function queryId(raw: string): number {
  if (!/^\d{1,15}$/.test(raw)) throw badRequest(Messages.idMalformed);
  return Number(raw);
}

export const savedQueryRoutes = [
  route({
    method: 'GET',
    url: '/api/v2/saved-queries',
    config: { access: { permissions: ['saved_queries/Read'] }, query: listQuery },
    schema: {
      tags: ['saved-queries'], summary: 'Saved Cypher queries one owns, is shared, or that are public (scope)',
      response: { 200: PageEnvelope(Type.Array(SavedQuerySchema)), ...errorResponses(400, 401, 403) },
    },
    handler: async (request) => {
      const { db } = request.server;
      const userId = callerId(request);
      const raw = String(request.parsedQuery.params.scope ?? 'owned');
      const scope = raw.toLowerCase() as Scope;
      if (!SCOPES.includes(scope)) throw badRequest(`invalid scope parameter: ${raw}`);
      const base = applyFilters(visibleQueries(db.kysely, userId, scope), listQuery, request.parsedQuery);
      const total = await base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
      const rows = await applyPaging(applySort(base.selectAll('saved_queries'), listQuery, request.parsedQuery), request.parsedQuery).execute();
      const scopes = await scopesOf(db.kysely, userId, rows);
      const { skip, limit } = request.parsedQuery;
      return { count: Number(total.n), limit, skip, data: rows.map((r) => toWireQuery(r, scopes.get(Number(r.id)))) };
    },
  }),
  route<{ Body: Static<typeof Body> }>({
    method: 'POST',
    url: '/api/v2/saved-queries',
    config: { access: { permissions: ['saved_queries/Write'] }, audit: { action: 'CreateSavedQuery' } },
    schema: {
      tags: ['saved-queries'], summary: 'Save a Cypher query (name unique per user)', body: Body,
      response: { 201: DataEnvelope(SavedQuerySchema), ...errorResponses(400, 401, 403) },
    },
    handler: async (request, reply) => {
      const userId = callerId(request);
      const { name = '', query = '', description = '' } = request.body;
      if (name === '' || query === '') throw badRequest('the name and/or query field is empty');
      try {
        const [row] = await audited(request, (db) => insertQueries(db.kysely, [{ userId, name, query, description }]));
        return reply.code(201).send({ data: toWireQuery(row) });
      } catch (err) {
        if (err instanceof DuplicateName) throw badRequest(DUPLICATE);
        throw err;
      }
    },
  }),
  route<IdParams>({
    method: 'GET',
    url: '/api/v2/saved-queries/:saved_query_id',
    config: { access: { permissions: ['saved_queries/Read'] } },
    schema: {
      tags: ['saved-queries'], summary: 'One saved query: one\'s own, shared to one, public, or any (Administrator)', params: idParams,
      response: { 200: DataEnvelope(SavedQuerySchema), ...errorResponses(400, 401, 403, 404) },
    },
    handler: async (request) => {
      const row = await visibleQuery(request, queryId(request.params.saved_query_id));
      if (!row) throw new ApiError(404, 'query not found');
      return { data: toWireQuery(row) };
    },
  }),
  route<IdParams & { Body: Static<typeof Body> }>({
    method: 'PUT',
    url: '/api/v2/saved-queries/:saved_query_id',
    config: { access: { permissions: ['saved_queries/Write'] }, audit: { action: 'UpdateSavedQuery' } },
    schema: {
      tags: ['saved-queries'], summary: 'Change a saved query (fields given non-empty); one\'s own, or a public one (Administrator)',
      params: idParams, body: Body, response: { 200: DataEnvelope(SavedQuerySchema), ...errorResponses(400, 401, 403, 404) },
    },
    handler: async (request) => audited(request, async (db) => {
      const userId = callerId(request);
      const id = queryId(request.params.saved_query_id);
      const row = await findQuery(db.kysely, id);
      if (!row) throw new ApiError(404, 'query does not exist');
      if (row.user_id !== userId && !((await isAdministrator(db.kysely, userId)) && (await isPublic(db.kysely, id)))) {
        throw new ApiError(404, 'query does not exist');
      }
      const change: { name?: string; query?: string; description?: string } = {};
      for (const key of ['name', 'query', 'description'] as const) if (request.body[key]) change[key] = request.body[key];
      try {
        return { data: toWireQuery(await updateQuery(db.kysely, id, change)) };
      } catch (err) {
        if (err instanceof DuplicateName) throw badRequest(DUPLICATE);
        throw err;
      }
    }),
  }),
  route<IdParams>({
    method: 'DELETE',
    url: '/api/v2/saved-queries/:saved_query_id',
    config: { access: { permissions: ['saved_queries/Write'] }, audit: { action: 'DeleteSavedQuery' } },
    schema: {
      tags: ['saved-queries'], summary: 'Delete a saved query: one\'s own, or a public one (Administrator)', params: idParams,
      response: { 204: Type.Null(), ...errorResponses(400, 401, 403, 404) },
    },
    handler: async (request, reply) => {
      await audited(request, async (db) => {
        const userId = callerId(request);
        const id = queryId(request.params.saved_query_id);
        const row = await findQuery(db.kysely, id);
        if (!row) throw new ApiError(404, 'query does not exist');
        if (row.user_id !== userId && !((await isAdministrator(db.kysely, userId)) && (await isPublic(db.kysely, id)))) {
          throw new ApiError(403, 'User does not have permission to delete this query');
        }
        await db.kysely.deleteFrom('saved_queries').where('id', '=', id).execute();
      });
      return reply.code(204).send();
    },
  }),
];

/** The query when the caller may see it: owner, Administrator, shared to the caller, or public. */
export async function visibleQuery(request: FastifyRequest, id: number) {
  const { db } = request.server;
  const userId = callerId(request);
  const row = await findQuery(db.kysely, id);
  if (!row) return undefined;
  if (row.user_id === userId || (await isAdministrator(db.kysely, userId))) return row;
  if ((await isSharedTo(db.kysely, id, userId)) || (await isPublic(db.kysely, id))) return row;
  return undefined;
}
