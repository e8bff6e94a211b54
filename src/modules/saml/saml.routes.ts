import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { DataEnvelope, errorResponses } from '../../http/envelope.ts';
import { FormBody } from '../../http/form-body.ts';
import { badRequest, notFound } from '../../http/errors.ts';
import { route } from '../../http/route.ts';
import { audited, auditNote } from '../../audit/audit.ts';
import { spKeyPair } from './saml.keys.ts';
import { finishSamlLogin, SamlFailure, spMetadata, startSamlLogin } from './saml.login.ts';
import { findSamlById } from './saml.repository.ts';
import { createSamlProvider } from './saml-providers.service.ts';
import { SamlProviderSchema } from './saml.schema.ts';

/**
 * SAML routes (reference §10): provider create, Scent's SP certificate and metadata, and the ACS. The
 * login start shares `GET /api/v2/sso/{slug}/login` with OIDC (oidc.routes.ts dispatches on the
 * provider's type); PATCH /api/v2/sso-providers/{id} is sso-providers.routes.ts's, by type too.
 * Sign-in routes answer with redirects only, never a JSON page:
 *   success  302 {root}/ui/home              + cookie `token=<session JWT>`, as OIDC
 *   failure  302 {root}/ui/login?error=<code>
 */
const Slug = Type.Object({ slug: Type.String({ description: 'the provider\'s slug' }) });
const redirectOnly = { 302: Type.Null({ description: 'redirect (see Location)' }) };

/** An HTML-form body (or none) as a FormBody; anything else is a 400. */
export function formOf(body: unknown): FormBody {
  if (body === undefined || body === null) return new FormBody(new Map(), new Map());
  if (body instanceof FormBody) return body;
  throw badRequest('content type must be multipart/form-data');
}

function failed(request: FastifyRequest, reply: FastifyReply, err: unknown) {
  if (!(err instanceof SamlFailure)) request.log.error({ err }, 'SAML sign-in failed');
  else request.log.info({ code: err.code, reason: err.reason }, 'SAML sign-in refused');
  const code = err instanceof SamlFailure ? err.code : 'server_error';
  auditNote(request, { failure: code, fields: { auth_type: 'saml', ...(err instanceof SamlFailure ? { reason: err.reason } : {}) } });
  return reply.redirect(`${request.server.config.rootUrl}/ui/login?error=${encodeURIComponent(code)}`, 302);
}

/** GET /api/v2/sso/{slug}/login for a SAML provider: 302 to the IdP, or a self-submitting POST form. */
export async function samlLogin(request: FastifyRequest<{ Params: { slug: string } }>, reply: FastifyReply) {
  try {
    const { db, config } = request.server;
    const start = await startSamlLogin(db, config, request.params.slug);
    if ('redirect' in start) return reply.redirect(start.redirect, 302);
    return reply.code(200).header('content-type', 'text/html; charset=utf-8')
      .header('content-security-policy', "default-src 'none'; script-src 'unsafe-inline'; form-action *")
      .send(start.html);
  } catch (err) {
    return failed(request, reply, err);
  }
}

const multipartDoc = 'multipart/form-data: `name`, `metadata` (the IdP metadata XML file), `config.auto_provision.enabled`, ' +
  '`config.auto_provision.default_role_id`, `config.auto_provision.role_provision` (BloodHound\'s form)';

export const samlRoutes = [
  route({
    method: 'POST',
    url: '/api/v2/sso-providers/saml',
    config: { access: { permissions: ['auth/ManageProviders'] }, audit: { action: 'CreateSAMLIdentityProvider' }, form: true },
    schema: {
      tags: ['sso'],
      summary: 'Create a SAML provider from the IdP\'s metadata',
      description: multipartDoc,
      consumes: ['multipart/form-data'],
      response: { 200: DataEnvelope(Type.Ref(SamlProviderSchema)), ...errorResponses(400, 401, 403, 409) },
    },
    handler: async (request) => {
      const form = formOf(request.body);
      auditNote(request, { fields: { name: form.values.get('name')?.[0] ?? null } });
      const { config } = request.server;
      return { data: await audited(request, (db) => createSamlProvider(db, config, form)) };
    },
  }),
  route<{ Params: { sso_provider_id: string } }>({
    method: 'GET',
    url: '/api/v2/sso-providers/:sso_provider_id/signing-certificate',
    config: { access: { permissions: ['auth/ManageProviders'] } },
    schema: {
      tags: ['sso'],
      summary: 'Scent\'s SAML service-provider signing certificate (PEM; the same for every SAML provider)',
      params: Type.Object({ sso_provider_id: Type.String() }),
      response: { 200: Type.String({ description: 'PEM certificate' }), ...errorResponses(401, 403, 404) },
    },
    handler: async (request, reply) => {
      const id = /^\d{1,10}$/.test(request.params.sso_provider_id) ? Number(request.params.sso_provider_id) : NaN;
      const { db, config } = request.server;
      const found = id <= 2 ** 31 - 1 ? await findSamlById(db.kysely, id) : undefined;
      if (!found) throw notFound(); // BloodHound: unknown, non-SAML and malformed ids alike
      const { cert } = await spKeyPair(db, config);
      return reply.header('content-type', 'application/x-pem-file')
        .header('content-disposition', `attachment; filename="${found.provider.slug.replace(/[^\w.-]/g, '_')}-signing-certificate.pem"`)
        .send(cert);
    },
  }),
  route<{ Params: { slug: string } }>({
    method: 'GET',
    url: '/api/v2/sso/:slug/metadata',
    config: { access: { public: true } },
    schema: {
      tags: ['sso'],
      summary: 'Scent\'s SAML service-provider metadata for this provider (entity id, ACS, certificate)',
      security: [],
      params: Slug,
      response: { 200: Type.String({ description: 'SAML metadata XML' }), ...errorResponses(404) },
    },
    handler: async (request, reply) => {
      const { db, config } = request.server;
      const xml = await spMetadata(db, config, request.params.slug);
      if (xml === undefined) throw notFound();
      return reply.header('content-type', 'application/samlmetadata+xml').send(xml);
    },
  }),
  route<{ Params: { slug: string } }>({
    method: 'POST',
    url: '/api/v2/sso/:slug/callback',
    config: { access: { public: true }, audit: { action: 'LoginAttempt' }, form: true },
    schema: {
      tags: ['sso'],
      summary: 'SAML assertion consumer service (HTTP-POST `SAMLResponse`): validates, finds or provisions the user, signs in, redirects to the UI',
      security: [],
      consumes: ['application/x-www-form-urlencoded'],
      params: Slug,
      response: redirectOnly,
    },
    handler: async (request, reply) => {
      const { db, config } = request.server;
      try {
        auditNote(request, { fields: { auth_type: 'saml' } });
        const form = request.body instanceof FormBody ? request.body : undefined;
        const values = form?.values.get('SAMLResponse') ?? [];
        const token = await finishSamlLogin(
          db, config, request.params.slug, values.length === 1 ? values[0] : undefined,
          (change) => audited(request, change),
          (user) => auditNote(request, { actor: { id: user.id, name: user.principal_name, email: user.email_address } }),
        );
        const secure = config.rootUrl.startsWith('https:') ? '; Secure' : '';
        reply.header('set-cookie', `token=${token}; Path=/; Max-Age=${config.sessionTtlSeconds}; SameSite=Lax${secure}`);
        return reply.redirect(`${config.rootUrl}/ui/home`, 302);
      } catch (err) {
        return failed(request, reply, err);
      }
    },
  }),
];
