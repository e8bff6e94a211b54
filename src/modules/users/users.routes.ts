import { Type, type Static } from '@sinclair/typebox';
import type { Principal } from '../../auth/principal.ts';
import type { Kysely } from 'kysely';
import type { Database, PermissionRow, RoleRow } from '../../db/database.ts';
import { DataEnvelope, errorResponses, recordTimes } from '../../http/envelope.ts';
import { ApiError, Messages, notFound } from '../../http/errors.ts';
import { applyFilters, applySort, defineQuery } from '../../http/query/index.ts';
import { route } from '../../http/route.ts';
import { audited, auditNote } from '../../audit/audit.ts';
import { hydrateUsers } from './users.repository.ts';
import { PermissionSchema, RoleSchema, UserSchema, toWireRole } from './users.schema.ts';
import {
  acceptEula, checkPutSecret, checkSecretAccess, createUserFromApi, deleteUserFromApi, expireSecret, prepareSecret, putSecret,
  updateUserFromApi,
} from './users-admin.service.ts';

/** Users, roles and permissions as BloodHound's routes answer them (`registerV2Auth`). */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const userId = (raw: string) => {
  if (!UUID.test(raw)) throw new ApiError(400, Messages.idMalformed);
  return raw.toLowerCase();
};
const userCaller = (principal: Principal | null) => {
  if (principal?.kind !== 'user') throw new ApiError(403, Messages.notAuthorized);
  return principal;
};

const UserBody = Type.Object({
  first_name: Type.Optional(Type.String()),
  last_name: Type.Optional(Type.String()),
  email_address: Type.Optional(Type.String()),
  principal: Type.Optional(Type.String({ description: 'login name (principal name); unique' })),
  roles: Type.Optional(Type.Array(Type.Integer(), { description: 'at most one role id' })),
  sso_provider_id: Type.Optional(Type.Union([Type.Integer(), Type.Null()], { description: 'SSO provider; absent or null = none' })),
  is_disabled: Type.Optional(Type.Boolean()),
});
const CreateUserBody = Type.Composite([UserBody, Type.Object({
  secret: Type.Optional(Type.String({ description: 'password (12+ characters: lower, upper, digit, special)' })),
  needs_password_reset: Type.Optional(Type.Boolean({ description: 'the password must be changed at first login' })),
})]);
const SecretBody = Type.Object({
  current_secret: Type.Optional(Type.String({ description: 'required when changing one\'s own password' })),
  secret: Type.String(),
  needs_password_reset: Type.Optional(Type.Boolean()),
});
const UserParams = Type.Object({ user_id: Type.String() });
const Empty = Type.Null({ description: 'empty body (as BloodHound)' });

const TIME = { kind: 'timestamp' } as const;
const usersQuery = defineQuery({
  filters: {
    id: { kind: 'uuid', column: 'users.id' },
    first_name: { kind: 'string', column: 'users.first_name', nullable: true },
    last_name: { kind: 'string', column: 'users.last_name', nullable: true },
    email_address: { kind: 'string', column: 'users.email_address', nullable: true },
    principal_name: { kind: 'string', column: 'users.principal_name' },
    last_login: { ...TIME, column: 'users.last_login', nullable: true },
    created_at: { ...TIME, column: 'users.created_at' },
    updated_at: { ...TIME, column: 'users.updated_at' },
  },
  sortable: {
    first_name: 'users.first_name', last_name: 'users.last_name', email_address: 'users.email_address',
    principal_name: 'users.principal_name', last_login: 'users.last_login', created_at: 'users.created_at', updated_at: 'users.updated_at',
  },
  defaultSort: [{ column: 'principal_name' }],
  tieBreaker: 'users.id',
});
const minimalQuery = defineQuery({
  filters: {
    id: { kind: 'uuid', column: 'users.id' },
    first_name: { kind: 'string', column: 'users.first_name' },
    last_name: { kind: 'string', column: 'users.last_name' },
    email_address: { kind: 'string', column: 'users.email_address' },
  },
  sortable: { id: 'users.id', first_name: 'users.first_name', last_name: 'users.last_name', email_address: 'users.email_address' },
  defaultSort: [{ column: 'email_address' }],
  tieBreaker: 'users.id',
});
const rolesQuery = defineQuery({
  filters: {
    id: { kind: 'integer', column: 'roles.id' },
    name: { kind: 'string', column: 'roles.name' },
    description: { kind: 'string', column: 'roles.description' },
    created_at: { ...TIME, column: 'roles.created_at' },
    updated_at: { ...TIME, column: 'roles.updated_at' },
  },
  sortable: { id: 'roles.id', name: 'roles.name', description: 'roles.description', created_at: 'roles.created_at', updated_at: 'roles.updated_at' },
  defaultSort: [{ column: 'id' }],
  tieBreaker: 'roles.id',
});
const permissionsQuery = defineQuery({
  filters: {
    id: { kind: 'integer', column: 'permissions.id' },
    authority: { kind: 'string', column: 'permissions.authority' },
    name: { kind: 'string', column: 'permissions.name' },
    created_at: { ...TIME, column: 'permissions.created_at' },
    updated_at: { ...TIME, column: 'permissions.updated_at' },
  },
  sortable: {
    id: 'permissions.id', authority: 'permissions.authority', name: 'permissions.name',
    created_at: 'permissions.created_at', updated_at: 'permissions.updated_at',
  },
  defaultSort: [{ column: 'id' }],
  tieBreaker: 'permissions.id',
});

const toWirePermission = (p: PermissionRow) => ({ id: p.id, ...recordTimes(p), authority: p.authority, name: p.name });

async function rolesWithPermissions(db: Kysely<Database>, roles: RoleRow[]) {
  const ids = roles.map((r) => r.id);
  const perms = ids.length
    ? await db.selectFrom('roles_permissions').innerJoin('permissions', 'permissions.id', 'roles_permissions.permission_id')
      .selectAll('permissions').select('roles_permissions.role_id').where('roles_permissions.role_id', 'in', ids).orderBy('permissions.id').execute()
    : [];
  return roles.map((role) => toWireRole({ role, permissions: perms.filter((p) => p.role_id === role.id).map(({ role_id: _r, ...p }) => p) }));
}

const ManageUsers = { permissions: ['auth/ManageUsers' as const] };
const ManageSelf = { permissions: ['auth/ManageSelf' as const] };

export const userRoutes = [
  route({
    method: 'GET',
    url: '/api/v2/bloodhound-users',
    config: { access: ManageUsers, query: usersQuery },
    schema: {
      tags: ['users'],
      summary: 'List users (not paged, as BloodHound)',
      response: { 200: DataEnvelope(Type.Object({ users: Type.Array(Type.Ref(UserSchema)) })), ...errorResponses(400, 401, 403) },
    },
    handler: async (request) => {
      const db = request.server.db.kysely;
      const qb = applySort(applyFilters(db.selectFrom('users').selectAll('users'), usersQuery, request.parsedQuery), usersQuery, request.parsedQuery);
      return { data: { users: await hydrateUsers(db, await qb.execute()) } };
    },
  }),
  route({
    method: 'GET',
    url: '/api/v2/bloodhound-users-minimal',
    config: { access: { permissions: ['auth/ReadUsers'] }, query: minimalQuery },
    schema: {
      tags: ['users'],
      summary: 'Enabled users with names and e-mail only (who a saved query can be shared with), as BloodHound',
      response: {
        200: DataEnvelope(Type.Object({ users: Type.Array(Type.Object({
          id: Type.String({ format: 'uuid' }), email_address: Type.String(), first_name: Type.String(), last_name: Type.String(),
        })) })),
        ...errorResponses(400, 401, 403),
      },
    },
    handler: async (request) => {
      const db = request.server.db.kysely;
      const base = db.selectFrom('users').select(['users.id', 'users.email_address', 'users.first_name', 'users.last_name']).where('users.is_disabled', '=', 0);
      const rows = await applySort(applyFilters(base, minimalQuery, request.parsedQuery), minimalQuery, request.parsedQuery).execute();
      // BloodHound writes absent names as "" here (plain strings, not the User resource's wrappers).
      return { data: { users: rows.map((u) => ({ id: u.id, email_address: u.email_address ?? '', first_name: u.first_name ?? '', last_name: u.last_name ?? '' })) } };
    },
  }),
  route<{ Body: Static<typeof CreateUserBody> }>({
    method: 'POST',
    url: '/api/v2/bloodhound-users',
    config: { access: ManageUsers, audit: { action: 'CreateUser' } },
    schema: {
      tags: ['users'],
      summary: 'Create a user (200, as BloodHound); 409 for a taken principal name or e-mail address',
      body: CreateUserBody,
      response: { 200: DataEnvelope(Type.Ref(UserSchema)), ...errorResponses(400, 401, 403, 409) },
    },
    handler: async (request) => {
      const { db, config } = request.server;
      const { secret: _s, ...fields } = request.body;
      auditNote(request, { fields });
      const secret = request.body.secret ? await prepareSecret(db, request.body.secret, request.body.needs_password_reset) : null;
      const eula = config.edition === 'community';
      return { data: await audited(request, (tx) => createUserFromApi(tx, request.body, secret, eula)) };
    },
  }),
  route<{ Params: Static<typeof UserParams> }>({
    method: 'GET',
    url: '/api/v2/bloodhound-users/:user_id',
    config: { access: ManageUsers },
    schema: {
      tags: ['users'], summary: 'A user', params: UserParams,
      response: { 200: DataEnvelope(Type.Ref(UserSchema)), ...errorResponses(400, 401, 403, 404) },
    },
    handler: async (request) => {
      const db = request.server.db.kysely;
      const row = await db.selectFrom('users').selectAll().where('id', '=', userId(request.params.user_id)).executeTakeFirst();
      if (!row) throw notFound();
      return { data: (await hydrateUsers(db, [row]))[0] };
    },
  }),
  route<{ Params: Static<typeof UserParams>; Body: Static<typeof UserBody> }>({
    method: 'PATCH',
    url: '/api/v2/bloodhound-users/:user_id',
    config: { access: ManageUsers, audit: { action: 'UpdateUser' } },
    schema: {
      tags: ['users'],
      summary: 'Update a user (200, empty body, as BloodHound); absent sso_provider_id unlinks, as BloodHound',
      params: UserParams, body: UserBody,
      response: { 200: Empty, ...errorResponses(400, 401, 403, 404, 409) },
    },
    handler: async (request, reply) => {
      const id = userId(request.params.user_id);
      auditNote(request, { fields: { ...request.body } });
      await audited(request, (db) => updateUserFromApi(db, userCaller(request.principal), id, request.body));
      return reply.code(200).send();
    },
  }),
  route<{ Params: Static<typeof UserParams> }>({
    method: 'DELETE',
    url: '/api/v2/bloodhound-users/:user_id',
    config: { access: ManageUsers, audit: { action: 'DeleteUser' } },
    schema: {
      tags: ['users'], summary: 'Delete a user (not yourself); their sessions and tokens go with them', params: UserParams,
      response: { 200: Empty, ...errorResponses(400, 401, 403, 404) },
    },
    handler: async (request, reply) => {
      const id = userId(request.params.user_id);
      await audited(request, (db) => deleteUserFromApi(db, userCaller(request.principal), id));
      return reply.code(200).send();
    },
  }),
  route<{ Params: Static<typeof UserParams>; Body: Static<typeof SecretBody> }>({
    method: 'PUT',
    url: '/api/v2/bloodhound-users/:user_id/secret',
    config: { access: ManageSelf, audit: { action: 'UpdateAuthSecret' } },
    schema: {
      tags: ['users'],
      summary: 'Set a password: one\'s own (current_secret required) or, with auth/ManageUsers, another user\'s',
      params: UserParams, body: SecretBody,
      response: { 200: Empty, ...errorResponses(400, 401, 403, 404) },
    },
    handler: async (request, reply) => {
      const { db } = request.server;
      const id = userId(request.params.user_id);
      const caller = userCaller(request.principal);
      checkSecretAccess(caller, id);
      auditNote(request, { fields: { needs_password_reset: request.body.needs_password_reset ?? false } });
      const secret = await prepareSecret(db, request.body.secret, request.body.needs_password_reset);
      await checkPutSecret(db, caller, id, request.body.current_secret);
      await audited(request, (tx) => putSecret(tx, id, secret));
      return reply.code(200).send();
    },
  }),
  route<{ Params: Static<typeof UserParams> }>({
    method: 'DELETE',
    url: '/api/v2/bloodhound-users/:user_id/secret',
    config: { access: ManageSelf, audit: { action: 'DeleteAuthSecret' } },
    schema: {
      tags: ['users'], summary: 'Expire a password (the next login must set a new one)', params: UserParams,
      response: { 200: Empty, ...errorResponses(400, 401, 403, 404, 409) },
    },
    handler: async (request, reply) => {
      const id = userId(request.params.user_id);
      checkSecretAccess(userCaller(request.principal), id);
      await audited(request, (db) => expireSecret(db, id));
      return reply.code(200).send();
    },
  }),
  route({
    method: 'PUT',
    url: '/api/v2/accept-eula',
    config: { access: { permissions: [] }, audit: { action: 'AcceptEULA' } },
    schema: { tags: ['users'], summary: 'Accept the EULA for oneself (202, empty body)', response: { 202: Empty, ...errorResponses(401, 403) } },
    handler: async (request, reply) => {
      const caller = userCaller(request.principal);
      await audited(request, (db) => acceptEula(db, caller.user.id));
      return reply.code(202).send();
    },
  }),
  route({
    method: 'GET',
    url: '/api/v2/roles',
    config: { access: ManageSelf, query: rolesQuery },
    schema: {
      tags: ['users'], summary: 'List roles with their permissions',
      response: { 200: DataEnvelope(Type.Object({ roles: Type.Array(Type.Ref(RoleSchema)) })), ...errorResponses(400, 401, 403) },
    },
    handler: async (request) => {
      const db = request.server.db.kysely;
      const rows = await applySort(applyFilters(db.selectFrom('roles').selectAll('roles'), rolesQuery, request.parsedQuery), rolesQuery, request.parsedQuery).execute();
      return { data: { roles: await rolesWithPermissions(db, rows) } };
    },
  }),
  route<{ Params: { role_id: number } }>({
    method: 'GET',
    url: '/api/v2/roles/:role_id',
    config: { access: ManageSelf },
    schema: {
      tags: ['users'], summary: 'A role with its permissions', params: Type.Object({ role_id: Type.Integer({ format: 'int32' }) }),
      response: { 200: DataEnvelope(Type.Ref(RoleSchema)), ...errorResponses(400, 401, 403, 404) },
    },
    handler: async (request) => {
      const db = request.server.db.kysely;
      const row = await db.selectFrom('roles').selectAll().where('id', '=', request.params.role_id).executeTakeFirst();
      if (!row) throw notFound();
      return { data: (await rolesWithPermissions(db, [row]))[0] };
    },
  }),
  route({
    method: 'GET',
    url: '/api/v2/permissions',
    config: { access: ManageSelf, query: permissionsQuery },
    schema: {
      tags: ['users'], summary: 'List permissions',
      response: { 200: DataEnvelope(Type.Object({ permissions: Type.Array(Type.Ref(PermissionSchema)) })), ...errorResponses(400, 401, 403) },
    },
    handler: async (request) => {
      const db = request.server.db.kysely;
      const rows = await applySort(applyFilters(db.selectFrom('permissions').selectAll('permissions'), permissionsQuery, request.parsedQuery), permissionsQuery, request.parsedQuery).execute();
      return { data: { permissions: rows.map(toWirePermission) } };
    },
  }),
  route<{ Params: { permission_id: number } }>({
    method: 'GET',
    url: '/api/v2/permissions/:permission_id',
    config: { access: ManageSelf },
    schema: {
      tags: ['users'], summary: 'A permission', params: Type.Object({ permission_id: Type.Integer({ format: 'int32' }) }),
      response: { 200: DataEnvelope(Type.Ref(PermissionSchema)), ...errorResponses(400, 401, 403, 404) },
    },
    handler: async (request) => {
      const row = await request.server.db.kysely.selectFrom('permissions').selectAll().where('id', '=', request.params.permission_id).executeTakeFirst();
      if (!row) throw notFound();
      return { data: toWirePermission(row) };
    },
  }),
];
