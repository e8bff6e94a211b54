import { Type } from '@sinclair/typebox';
import { DataEnvelope, errorResponses } from '../../http/envelope.ts';
import { applyFilters, applySort, defineQuery } from '../../http/query/index.ts';
import { route } from '../../http/route.ts';
import { audited, auditNote } from '../../audit/audit.ts';
import { UserSchema } from '../users/users.schema.ts';
import { listProvidersQuery, splitListRow, type ProviderListRow } from './sso-providers.repository.ts';
import { CreateOidcBody, OidcProviderSchema, SSO_TYPE, SsoProviderSchema, toWireProvider } from './sso-providers.schema.ts';
import { createOidcProvider, deleteSsoProvider } from './sso-providers.service.ts';
import { updateOidcProvider, type UpdateOidcBody } from './oidc-update.service.ts';
import { authenticate } from '../../auth/guard.ts';
import { badRequest, Messages, notFound } from '../../http/errors.ts';
import { FormBody } from '../../http/form-body.ts';
import { providerType } from '../saml/saml.repository.ts';
import { formOf } from '../saml/saml.routes.ts';
import { SamlProviderSchema } from '../saml/saml.schema.ts';
import { updateSamlProvider } from '../saml/saml-providers.service.ts';

const listQuery = defineQuery({
  filters: {
    name: { kind: 'string', column: 'sso_providers.name', predicates: ['eq', '~eq', 'neq'] },
    slug: { kind: 'string', column: 'sso_providers.slug', predicates: ['eq', '~eq', 'neq'] },
  },
  sortable: {
    id: 'sso_providers.id',
    name: 'sso_providers.name',
    slug: 'sso_providers.slug',
    created_at: 'sso_providers.created_at',
    updated_at: 'sso_providers.updated_at',
  },
  defaultSort: [{ column: 'id' }],
  tieBreaker: 'sso_providers.id',
});

export const ssoProviderRoutes = [
  route({
    method: 'GET',
    url: '/api/v2/sso-providers',
    // Public, as BloodHound (its login page lists providers before anyone signs in); config and details
    // only for a caller with auth/ManageProviders; a bad token is still 401 (CONTRACT §2).
    config: { access: { public: true }, query: listQuery },
    schema: {
      tags: ['sso'],
      summary: 'List SSO providers (anonymous callers: what a login page needs; config and details with auth/ManageProviders)',
      response: { 200: DataEnvelope(Type.Array(Type.Ref(SsoProviderSchema))), ...errorResponses(400, 401) },
    },
    handler: async (request) => {
      const { db, config } = request.server;
      const caller = request.headers.authorization ? await authenticate(request) : null;
      const manager = caller?.kind === 'user' && !caller.user.is_disabled && caller.permissions.has('auth/ManageProviders');
      let qb = listProvidersQuery(db.kysely);
      qb = applySort(applyFilters(qb, listQuery, request.parsedQuery), listQuery, request.parsedQuery);
      const rows = (await qb.execute()) as ProviderListRow[];
      const providers = rows.map((row) => toWireProvider(...splitListRow(row), config.rootUrl));
      return { data: manager ? providers : providers.map(({ config: _c, details: _d, ...visible }) => visible) };
    },
  }),
  route<{ Body: CreateOidcBody }>({
    method: 'POST',
    url: '/api/v2/sso-providers/oidc',
    config: { access: { permissions: ['auth/ManageProviders'] }, audit: { action: 'CreateOIDCIdentityProvider' } },
    schema: {
      tags: ['sso'],
      summary: 'Create an OIDC provider',
      body: CreateOidcBody,
      response: { 200: DataEnvelope(Type.Ref(OidcProviderSchema)), ...errorResponses(400, 401, 403, 409) },
    },
    handler: async (request) => {
      auditNote(request, { fields: { name: request.body.name, issuer: request.body.issuer, client_id: request.body.client_id } });
      return { data: await audited(request, (db) => createOidcProvider(db, request.body)) };
    },
  }),
  // One PATCH for both types, dispatching on the provider's: SAML takes BloodHound's multipart form
  // (name, metadata, config.auto_provision.*; every part optional), OIDC a JSON body.
  route<{ Params: { sso_provider_id: number }; Body: UpdateOidcBody | FormBody | undefined }>({
    method: 'PATCH',
    url: '/api/v2/sso-providers/:sso_provider_id',
    config: { access: { permissions: ['auth/ManageProviders'] }, audit: { action: 'UpdateSSOIdentityProvider' }, form: true },
    schema: {
      tags: ['sso'],
      summary: 'Update an SSO provider: SAML by multipart form (name, metadata, config.auto_provision.*), OIDC by JSON',
      params: Type.Object({ sso_provider_id: Type.Integer({ format: 'int32' }) }),
      body: Type.Partial(CreateOidcBody),
      response: {
        200: DataEnvelope(Type.Union([Type.Ref(OidcProviderSchema), Type.Ref(SamlProviderSchema)])),
        ...errorResponses(400, 401, 403, 404, 409),
      },
    },
    handler: async (request) => {
      const { db, config } = request.server;
      const id = request.params.sso_provider_id;
      const type = await providerType(db.kysely, { id });
      if (type === undefined) throw notFound();
      if (type === SSO_TYPE.saml) {
        const form = formOf(request.body);
        auditNote(request, { fields: { name: form.values.get('name')?.[0] ?? null } });
        return { data: await audited(request, (tx) => updateSamlProvider(tx, config, id, form)) };
      }
      const body = request.body ?? {};
      if (body instanceof FormBody) throw badRequest(Messages.contentType);
      auditNote(request, { fields: { name: body.name, issuer: body.issuer, client_id: body.client_id } });
      return { data: await audited(request, (tx) => updateOidcProvider(tx, id, body)) };
    },
  }),
  route<{ Params: { sso_provider_id: number } }>({
    method: 'DELETE',
    url: '/api/v2/sso-providers/:sso_provider_id',
    config: { access: { permissions: ['auth/ManageProviders'] }, audit: { action: 'DeleteSSOIdentityProvider' } },
    schema: {
      tags: ['sso'],
      summary: 'Delete an SSO provider; its users are kept, unlinked and signed out',
      params: Type.Object({ sso_provider_id: Type.Integer({ format: 'int32' }) }),
      response: {
        200: DataEnvelope(Type.Object({ affected_users: Type.Array(Type.Ref(UserSchema)) })),
        ...errorResponses(400, 401, 403, 404, 409),
      },
    },
    handler: async (request) => {
      const affected = await audited(request, (db) => deleteSsoProvider(db, request.principal!, request.params.sso_provider_id));
      return { data: { affected_users: affected } };
    },
  }),
];
