import { Type, type Static } from '@sinclair/typebox';
import { issueSession, revokeSessions } from '../../auth/sessions.ts';
import { verifySecret } from '../../auth/password.ts';
import { nowMicros } from '../../db/time.ts';
import { DataEnvelope, errorResponses } from '../../http/envelope.ts';
import { ApiError, Messages, badRequest, unauthorized } from '../../http/errors.ts';
import { route } from '../../http/route.ts';
import { audited, auditNote } from '../../audit/audit.ts';
import { findAuthSecret, findUserForLogin, hydrateUsers, touchLastLogin } from '../users/users.repository.ts';
import { UserSchema } from '../users/users.schema.ts';

const LoginBody = Type.Object({
  login_method: Type.String(),
  username: Type.String(),
  secret: Type.String(),
});

const LoginResponse = DataEnvelope(
  Type.Object({
    user_id: Type.String({ format: 'uuid' }),
    session_token: Type.String(),
    auth_expired: Type.Boolean(),
    user_name: Type.String(),
    eula_accepted: Type.Boolean(),
  }),
);

export const authRoutes = [
  route<{ Body: Static<typeof LoginBody> }>({
    method: 'POST',
    url: '/api/v2/login',
    config: { access: { public: true }, audit: { action: 'LoginAttempt' } },
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
      auditNote(request, { fields: { username, auth_type: 'secret' } });
      if (login_method.toLowerCase() !== 'secret') throw badRequest(`Login method ${login_method} is not supported.`);
      const user = await findUserForLogin(db.kysely, username.trim());
      if (user) auditNote(request, { actor: { id: user.id, name: user.principal_name, email: user.email_address } });
      const stored = user && (await findAuthSecret(db.kysely, user.id));
      if (!user || !stored || user.deleted_at !== null || !(await verifySecret(secret, stored.digest))) throw unauthorized();
      if (user.is_disabled) throw new ApiError(403, Messages.userDisabled);
      // The community edition has no EULA step: a login accepts it, as BloodHound CE does.
      const eulaAccepted = user.eula_accepted === 1 || config.edition === 'community';
      const session = await audited(request, async (tx) => {
        await touchLastLogin(tx.kysely, user.id, eulaAccepted);
        return issueSession(tx, config, { userId: user.id }, config.sessionTtlSeconds, 'secret');
      });
      return {
        data: {
          user_id: user.id,
          session_token: session.token,
          auth_expired: stored.expires_at <= nowMicros(),
          user_name: user.principal_name,
          eula_accepted: eulaAccepted,
        },
      };
    },
  }),
  route({
    method: 'POST',
    url: '/api/v2/logout',
    config: { access: { permissions: [] }, audit: { action: 'Logout' } },
    schema: {
      tags: ['auth'],
      summary: 'End the calling session (200, empty body, `Location: /ui`, as BloodHound)',
      response: { 200: Type.Null(), ...errorResponses(401) },
    },
    handler: async (request, reply) => {
      await audited(request, (tx) => revokeSessions(tx.kysely, { sessionId: request.principal!.sessionId }));
      return reply.header('location', '/ui').send();
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
