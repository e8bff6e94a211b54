import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { route } from '../../http/route.ts';
import { audited, auditNote } from '../../audit/audit.ts';
import { finishLogin, OidcFailure, startLogin } from './oidc.service.ts';
import { SSO_TYPE } from '../sso-providers/sso-providers.schema.ts';
import { providerType } from '../saml/saml.repository.ts';
import { samlLogin } from '../saml/saml.routes.ts';

/**
 * OIDC sign-in through the providers of POST /api/v2/sso-providers/oidc. Both routes answer with
 * redirects only, never a JSON body:
 *   success  302 {root}/ui/home              + cookie `token=<session JWT>` (as BloodHound's UI expects)
 *   failure  302 {root}/ui/login?error=<code>
 */
const STATE_COOKIE = 'scent_oidc_state';

const Slug = Type.Object({ slug: Type.String({ description: 'the provider\'s slug' }) });
const redirectOnly = { 302: Type.Null({ description: 'redirect (see Location)' }) };

function cookie(request: FastifyRequest, name: string): string | undefined {
  for (const part of (request.headers.cookie ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return decodeURIComponent(part.slice(eq + 1).trim());
  }
  return undefined;
}

function cookieAttributes(request: FastifyRequest, path: string, maxAge: number): string {
  const secure = request.server.config.rootUrl.startsWith('https:') ? '; Secure' : '';
  return `Path=${path}; Max-Age=${maxAge}; HttpOnly; SameSite=Lax${secure}`;
}

function failed(request: FastifyRequest, reply: FastifyReply, err: unknown) {
  if (!(err instanceof OidcFailure)) request.log.error({ err }, 'OIDC sign-in failed');
  const code = err instanceof OidcFailure ? err.code : 'server_error';
  auditNote(request, { failure: code });
  return reply.redirect(`${request.server.config.rootUrl}/ui/login?error=${encodeURIComponent(code)}`, 302);
}

export const oidcRoutes = [
  route<{ Params: { slug: string } }>({
    method: 'GET',
    url: '/api/v2/sso/:slug/login',
    config: { access: { public: true } },
    schema: {
      tags: ['sso'],
      summary: 'Start SSO sign-in: OIDC redirects to the provider (PKCE S256, state, nonce); SAML sends a signed AuthnRequest (HTTP-Redirect, else an HTTP-POST form page)',
      security: [],
      params: Slug,
      response: { ...redirectOnly, 200: Type.String({ description: 'SAML HTTP-POST binding: a self-submitting form page' }) },
    },
    handler: async (request, reply) => {
      try {
        const { db, config } = request.server;
        if ((await providerType(db.kysely, { slug: request.params.slug })) === SSO_TYPE.saml) return samlLogin(request, reply);
        const { url, state } = await startLogin(db, config, request.params.slug);
        const path = `/api/v2/sso/${encodeURIComponent(request.params.slug)}/`;
        reply.header('set-cookie', `${STATE_COOKIE}=${state}; ${cookieAttributes(request, path, 600)}`);
        return reply.redirect(url, 302);
      } catch (err) {
        return failed(request, reply, err);
      }
    },
  }),
  route<{ Params: { slug: string }; Querystring: Record<string, string | undefined> }>({
    method: 'GET',
    url: '/api/v2/sso/:slug/callback',
    config: { access: { public: true }, audit: { action: 'LoginAttempt' } },
    schema: {
      tags: ['sso'],
      summary: 'OIDC redirect target: verifies the ID token, finds or provisions the user, signs in, redirects to the UI',
      security: [],
      params: Slug,
      querystring: Type.Object({
        code: Type.Optional(Type.String()), state: Type.Optional(Type.String()), iss: Type.Optional(Type.String()),
        error: Type.Optional(Type.String()), error_description: Type.Optional(Type.String()),
      }),
      response: redirectOnly,
    },
    handler: async (request, reply) => {
      const { db, config } = request.server;
      const raw = request.raw.url ?? '';
      const rawQuery = raw.includes('?') ? raw.slice(raw.indexOf('?')) : '';
      const path = `/api/v2/sso/${encodeURIComponent(request.params.slug)}/`;
      reply.header('set-cookie', `${STATE_COOKIE}=; ${cookieAttributes(request, path, 0)}`);
      try {
        const query = Object.fromEntries(Object.entries(request.query).map(([k, v]) => [k, Array.isArray(v) ? undefined : v]));
        auditNote(request, { fields: { auth_type: 'oidc' } });
        const token = await finishLogin(
          db, config, request.params.slug, query, rawQuery, cookie(request, STATE_COOKIE),
          (change) => audited(request, change),
          (user) => auditNote(request, { actor: { id: user.id, name: user.principal_name, email: user.email_address } }),
        );
        const secure = config.rootUrl.startsWith('https:') ? '; Secure' : '';
        reply.header('set-cookie', [
          `${STATE_COOKIE}=; ${cookieAttributes(request, path, 0)}`,
          `token=${token}; Path=/; Max-Age=${config.sessionTtlSeconds}; SameSite=Lax${secure}`,
        ]);
        return reply.redirect(`${config.rootUrl}/ui/home`, 302);
      } catch (err) {
        return failed(request, reply, err);
      }
    },
  }),
];
