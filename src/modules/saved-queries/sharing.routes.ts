import { Type, type Static } from '@sinclair/typebox';
import { DataEnvelope, errorResponses, NullTime, Timestamp } from '../../http/envelope.ts';
import { ApiError, badRequest } from '../../http/errors.ts';
import { route } from '../../http/route.ts';
import { audited } from '../../audit/audit.ts';
import type { FastifyRequest } from 'fastify';
import type { Db } from '../../db/create-db.ts';
import {
  addPermissions, deletePermissions, findQuery, isAdministrator, isPublic, isSharedTo, permissionsOf, toWirePermission,
} from './saved-queries.repository.ts';
import { callerId, queryId } from './saved-queries.routes.ts';

const PermissionSchema = Type.Object({
  shared_to_user_id: Type.Union([Type.String(), Type.Null()]), query_id: Type.Integer(), public: Type.Boolean(), id: Type.Integer(),
  created_at: Timestamp, updated_at: Timestamp, deleted_at: NullTime,
});
const ShareBody = Type.Object({
  user_ids: Type.Optional(Type.Array(Type.String({ format: 'uuid' }))),
  public: Type.Optional(Type.Boolean()),
});
const UnshareBody = Type.Object({ user_ids: Type.Array(Type.String({ format: 'uuid' })) });
type IdParams = { Params: { saved_query_id: string } };
const idParams = Type.Object({ saved_query_id: Type.String() });
const forbidden = () => new ApiError(403, 'Forbidden');

export const savedQuerySharingRoutes = [
  route<IdParams>({
    method: 'GET',
    url: '/api/v2/saved-queries/:saved_query_id/permissions',
    config: { access: { permissions: ['saved_queries/Read'] } },
    schema: {
      tags: ['saved-queries'], summary: 'Who a saved query is shared with (owner, Administrator, or anyone when public)', params: idParams,
      response: {
        200: DataEnvelope(Type.Object({ query_id: Type.Integer(), public: Type.Boolean(), shared_to_user_ids: Type.Array(Type.String()) })),
        ...errorResponses(400, 401, 403, 404),
      },
    },
    handler: async (request) => {
      const { db } = request.server;
      const userId = callerId(request);
      const id = queryId(request.params.saved_query_id);
      const rows = await permissionsOf(db.kysely, id);
      const query = await findQuery(db.kysely, id);
      const pub = rows.some((r) => r.public === 1);
      const visible = pub || query?.user_id === userId || (await isAdministrator(db.kysely, userId));
      if (rows.length === 0 || !query || !visible) throw new ApiError(404, 'no query permissions exist for saved query');
      const shared = pub ? [] : rows.map((r) => r.shared_to_user_id).filter((u): u is string => u !== null);
      return { data: { query_id: id, public: pub, shared_to_user_ids: shared } };
    },
  }),
  route<IdParams & { Body: Static<typeof ShareBody> }>({
    method: 'PUT',
    url: '/api/v2/saved-queries/:saved_query_id/permissions',
    config: { access: { permissions: ['saved_queries/Write'] }, audit: { action: 'UpdateSavedQueryPermissions' } },
    schema: {
      tags: ['saved-queries'], summary: 'Share a saved query with users, make it public, or (no users, not public) private again',
      params: idParams, body: ShareBody,
      response: { 201: DataEnvelope(Type.Array(PermissionSchema)), 204: Type.Null(), ...errorResponses(400, 401, 403, 404) },
    },
    handler: async (request, reply) => {
      const shared = await audited(request, (db) => share(db, request));
      return shared === null ? reply.code(204).send() : reply.code(201).send({ data: shared.map(toWirePermission) });
    },
  }),
  route<IdParams & { Body: Static<typeof UnshareBody> }>({
    method: 'DELETE',
    url: '/api/v2/saved-queries/:saved_query_id/permissions',
    config: { access: { permissions: ['saved_queries/Write'] }, audit: { action: 'DeleteSavedQueryPermissions' } },
    schema: {
      tags: ['saved-queries'], summary: 'Stop sharing a saved query with users (its owner or an Administrator; a user may remove themselves)',
      params: idParams, body: UnshareBody, response: { 204: Type.Null(), ...errorResponses(400, 401, 403, 404) },
    },
    handler: async (request, reply) => {
      await audited(request, (db) => unshare(db, request));
      return reply.code(204).send();
    },
  }),
];

/** PUT …/permissions: the rows added (201), or null (204: made private, or public already). */
async function share(db: Db, request: FastifyRequest<IdParams & { Body: Static<typeof ShareBody> }>) {
  const userId = callerId(request);
  const id = queryId(request.params.saved_query_id);
  const userIds = [...new Set((request.body.user_ids ?? []).map((u) => u.toLowerCase()))];
  const makePublic = request.body.public === true;
  if (makePublic && userIds.length > 0) throw badRequest('Public cannot be true while user_ids is populated');
  const query = await findQuery(db.kysely, id);
  if (!query) throw new ApiError(404, 'Query does not exist');
  const admin = await isAdministrator(db.kysely, userId);
  const owner = query.user_id === userId;
  const pub = await isPublic(db.kysely, id);
  if (makePublic) {
    if (!owner || (pub && !admin)) throw forbidden();
    if (pub) return null;
    return addPermissions(db.kysely, id, [{ sharedTo: null, public: true }]);
  }
  if (userIds.length === 0) {
    if (!((admin && (owner || pub)) || (owner && !pub))) throw forbidden();
    await deletePermissions(db.kysely, id);
    return null;
  }
  if (pub) throw badRequest('Public query cannot be shared to users. You must set your query to private first');
  if (!owner) throw forbidden();
  if (userIds.includes(userId)) throw badRequest('Cannot share query to self');
  const known = await db.kysely.selectFrom('users').select('id').where('id', 'in', userIds).execute();
  if (known.length !== userIds.length) throw badRequest('user_ids must name existing users');
  const fresh: string[] = [];
  for (const u of userIds) if (!(await isSharedTo(db.kysely, id, u))) fresh.push(u);
  return addPermissions(db.kysely, id, fresh.map((u) => ({ sharedTo: u, public: false })));
}

/** DELETE …/permissions. */
async function unshare(db: Db, request: FastifyRequest<IdParams & { Body: Static<typeof UnshareBody> }>) {
  const userId = callerId(request);
  const id = queryId(request.params.saved_query_id);
  const userIds = [...new Set(request.body.user_ids.map((u) => u.toLowerCase()))];
  const query = await findQuery(db.kysely, id);
  if (!query) throw new ApiError(404, 'query does not exist');
  const owner = query.user_id === userId;
  if (userIds.includes(userId) && !(await isSharedTo(db.kysely, id, userId)) && !owner) {
    throw badRequest('User cannot unshare a query from themselves that is not shared to them');
  }
  const onlySelf = userIds.length === 1 && userIds[0] === userId;
  if (!owner && !onlySelf && !(await isAdministrator(db.kysely, userId))) throw new ApiError(403, 'Query does not belong to the user');
  await deletePermissions(db.kysely, id, userIds);
}
