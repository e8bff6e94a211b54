import { Type, type Static } from '@sinclair/typebox';
import { issueSession, revokeSessions } from '../../auth/sessions.ts';
import { verifySecret } from '../../auth/password.ts';
import { nowMicros } from '../../db/time.ts';
import { DataEnvelope, errorResponses } from '../../http/envelope.ts';
import { ApiError, Messages, badRequest, unauthorized } from '../../http/errors.ts';
import { route } from '../../http/route.ts';
import { findAuthSecret, findUserByName, hydrateUsers, touchLastLogin } from '../users/users.repository.ts';
import { UserSchema } from '../users/users.schema.ts';

const LoginBody = Type.Object({
  login_method: Type.String(),
  username: Type.String(),
  secret: Type.String(),
});

const LoginResponse = DataEnvelope(
  Type.Object({ user_id: Type.String(), session_token: Type.String(), auth_expired: Type.Boolean() }),
);

export const authRoutes = [
  route<{ Body: Static<typeof LoginBody> }>({
    method: 'POST',
    url: '/api/v2/login',
    config: { access: { public: true } },
    schema: {
      tags: ['auth'],
      summary: 'Log in with a user name and password; returns a bearer session token',
      security: [],
      body: LoginBody,
      response: { 200: LoginResponse, ...errorResponses(400, 401, 403) },
    },
    handler: async (request) => {
      const { db, config } = request.server;
      const { login_method, username, secret } = request.body;
      if (login_method !== 'secret') throw badRequest('login_method must be "secret"');
      const user = await findUserByName(db.kysely, username);
      const stored = user && (await findAuthSecret(db.kysely, user.id));
      if (!user || !stored || user.deleted_at !== null || !(await verifySecret(secret, stored.digest))) throw unauthorized();
      if (user.is_disabled) throw new ApiError(403, Messages.userDisabled);
      const session = await issueSession(db, config, { userId: user.id }, config.sessionTtlSeconds, 'secret');
      await touchLastLogin(db.kysely, user.id);
      return { data: { user_id: user.id, session_token: session.token, auth_expired: stored.expires_at <= nowMicros() } };
    },
  }),
  route({
    method: 'POST',
    url: '/api/v2/logout',
    config: { access: { permissions: [] } },
    schema: { tags: ['auth'], summary: 'End the calling session', response: { 200: Type.Object({}), ...errorResponses(401) } },
    handler: async (request) => {
      await revokeSessions(request.server.db.kysely, { sessionId: request.principal!.sessionId });
      return {};
    },
  }),
  route({
    method: 'GET',
    url: '/api/v2/self',
    config: { access: { permissions: [] } },
    schema: { tags: ['auth'], summary: 'The calling user', response: { 200: DataEnvelope(Type.Ref(UserSchema)), ...errorResponses(401, 403) } },
    handler: async (request) => {
      const principal = request.principal!;
      if (principal.kind !== 'user') throw unauthorized();
      const [user] = await hydrateUsers(request.server.db.kysely, [principal.user]);
      return { data: user };
    },
  }),
];
