import { Type } from '@sinclair/typebox';
import type { Principal } from '../../auth/principal.ts';
import { DataEnvelope, errorResponses } from '../../http/envelope.ts';
import { ApiError, Messages } from '../../http/errors.ts';
import { applyFilters, applySort, defineQuery } from '../../http/query/index.ts';
import { route } from '../../http/route.ts';
import { audited, auditNote } from '../../audit/audit.ts';
import { listTokensQuery } from './tokens.repository.ts';
import { AuthTokenSchema, CreateTokenBody, toWireToken } from './tokens.schema.ts';
import { canManageUsers, createToken, removeToken } from './tokens.service.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const listQuery = defineQuery({
  filters: {
    user_id: { kind: 'uuid', column: 'auth_tokens.user_id' },
    name: { kind: 'string', column: 'auth_tokens.name' },
    hmac_method: { kind: 'string', column: 'auth_tokens.hmac_method' },
    last_access: { kind: 'timestamp', column: 'auth_tokens.last_access', nullable: true },
    created_at: { kind: 'timestamp', column: 'auth_tokens.created_at' },
  },
  sortable: {
    name: 'auth_tokens.name',
    last_access: 'auth_tokens.last_access',
    created_at: 'auth_tokens.created_at',
    updated_at: 'auth_tokens.updated_at',
  },
  defaultSort: [{ column: 'created_at' }],
  tieBreaker: 'auth_tokens.id',
});

const userOf = (principal: Principal | null) => {
  if (principal?.kind !== 'user') throw new ApiError(403, Messages.notAuthorized);
  return principal;
};

export const tokenRoutes = [
  route<{ Body: CreateTokenBody }>({
    method: 'POST',
    url: '/api/v2/tokens',
    config: { access: { permissions: ['auth/CreateToken'] }, audit: { action: 'CreateAuthToken' } },
    schema: {
      tags: ['auth'],
      summary: 'Create an API token (HMAC key shown once); another user\'s needs auth/ManageUsers',
      body: CreateTokenBody,
      response: { 200: DataEnvelope(AuthTokenSchema), ...errorResponses(400, 401, 403, 404) },
    },
    handler: async (request) => {
      const { config } = request.server;
      const caller = userOf(request.principal);
      auditNote(request, { fields: { token_name: request.body.token_name, user_id: request.body.user_id ?? caller.user.id } });
      return { data: await audited(request, (db) => createToken(db, config, caller, request.body)) };
    },
  }),
  route({
    method: 'GET',
    url: '/api/v2/tokens',
    config: { access: { permissions: ['auth/CreateToken'] }, query: listQuery },
    schema: {
      tags: ['auth'],
      summary: 'List API tokens: one\'s own, or everyone\'s with auth/ManageUsers (keys never shown)',
      response: { 200: DataEnvelope(Type.Object({ tokens: Type.Array(AuthTokenSchema) })), ...errorResponses(400, 401, 403) },
    },
    handler: async (request) => {
      const caller = userOf(request.principal);
      let qb = listTokensQuery(request.server.db.kysely);
      if (!canManageUsers(caller)) {
        // As BloodHound: without auth/ManageUsers one sees one's own tokens; asking for another's is 403.
        const others = request.parsedQuery.filters.some((f) => f.name === 'user_id'
          && (f.predicate !== 'eq' || f.values.some((v) => String(v).toLowerCase() !== caller.user.id)));
        if (others) throw new ApiError(403, Messages.notAuthorized);
        qb = qb.where('auth_tokens.user_id', '=', caller.user.id);
      }
      qb = applySort(applyFilters(qb, listQuery, request.parsedQuery), listQuery, request.parsedQuery);
      return { data: { tokens: (await qb.execute()).map((row) => toWireToken(row)) } };
    },
  }),
  route<{ Params: { token_id: string } }>({
    method: 'DELETE',
    url: '/api/v2/tokens/:token_id',
    config: { access: { permissions: ['auth/CreateToken'] }, audit: { action: 'DeleteAuthToken' } },
    schema: {
      tags: ['auth'],
      summary: 'Delete an API token (one\'s own, or anyone\'s with auth/ManageUsers)',
      params: Type.Object({ token_id: Type.String({ format: 'uuid' }) }),
      response: { 200: Type.Null({ description: 'empty body (as BloodHound)' }), ...errorResponses(400, 401, 403, 404) },
    },
    handler: async (request, reply) => {
      if (!UUID.test(request.params.token_id)) throw new ApiError(400, Messages.idMalformed);
      await audited(request, (db) => removeToken(db, userOf(request.principal), request.params.token_id));
      return reply.code(200).send();
    },
  }),
];
