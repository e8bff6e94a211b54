import { Type, type Static } from '@sinclair/typebox';
import type { OidcProviderRow, SsoProviderRow } from '../../db/database.ts';
import { recordFields, recordTimes } from '../../http/envelope.ts';
import { SamlProviderSchema, toWireSaml } from '../saml/saml.schema.ts';
import type { ProviderDetails } from './sso-providers.repository.ts';

/** Wire shapes: spec 2.6 (OIDC provider), the create body of 4.3, and the provider listing. */
export const SSO_TYPE = { saml: 1, oidc: 2 } as const;
const TYPE_NAMES: Record<number, string> = { 1: 'SAML', 2: 'OIDC' };

export const AutoProvisionSchema = Type.Object({
  enabled: Type.Optional(Type.Boolean({ description: 'create users on their first sign-in' })),
  default_role_id: Type.Optional(Type.Integer({ description: 'role given to provisioned users' })),
  role_provision: Type.Optional(Type.Boolean({ description: 'take roles from the ID token' })),
});

export const CreateOidcBody = Type.Object({
  name: Type.String({ minLength: 1, description: 'name of the OIDC provider (unique)' }),
  issuer: Type.String({ format: 'http-url', description: 'URL of the OIDC issuer' }),
  client_id: Type.String({ minLength: 1, description: 'client id for the provider' }),
  config: Type.Object({ auto_provision: Type.Optional(AutoProvisionSchema) }),
});
export type CreateOidcBody = Static<typeof CreateOidcBody>;

export const OidcProviderSchema = Type.Object(
  {
    id: Type.Integer(),
    ...recordFields,
    client_id: Type.String(),
    issuer: Type.String(),
    sso_provider_id: Type.Integer(),
  },
  { $id: 'OIDCProvider' },
);

export const SsoConfigSchema = Type.Object({
  auto_provision: Type.Object({
    enabled: Type.Boolean(),
    default_role_id: Type.Integer(),
    role_provision: Type.Boolean(),
  }),
});
export type SsoConfig = Static<typeof SsoConfigSchema>;

export const SsoProviderSchema = Type.Object(
  {
    id: Type.Integer(),
    name: Type.String(),
    slug: Type.String(),
    type: Type.String({ enum: ['OIDC', 'SAML'] }),
    // details and config: only for callers with auth/ManageProviders (CONTRACT §2)
    details: Type.Optional(Type.Union([Type.Ref(OidcProviderSchema), Type.Ref(SamlProviderSchema)])),
    config: Type.Optional(SsoConfigSchema),
    login_uri: Type.String(),
    callback_uri: Type.String(),
    created_at: recordFields.created_at,
    updated_at: recordFields.updated_at,
  },
  { $id: 'SSOProvider' },
);

export const ssoSchemas = [OidcProviderSchema, SamlProviderSchema, SsoProviderSchema];

/** Absent auto_provision members mean off / 0 (CONTRACT §6). */
export function normaliseConfig(body: CreateOidcBody['config']): SsoConfig {
  const ap = body.auto_provision ?? {};
  return {
    auto_provision: {
      enabled: ap.enabled ?? false,
      default_role_id: ap.default_role_id ?? 0,
      role_provision: ap.role_provision ?? false,
    },
  };
}

/** Lower-case name, spaces to `-` (BloodHound's rule). */
export function slugFor(name: string): string {
  return name.toLowerCase().replace(/ /g, '-');
}

export function toWireOidc(row: OidcProviderRow) {
  return {
    id: row.id,
    ...recordTimes(row),
    client_id: row.client_id,
    issuer: row.issuer,
    sso_provider_id: row.sso_provider_id,
  };
}

export function toWireProvider(row: SsoProviderRow, details: ProviderDetails, rootUrl: string) {
  const base = `${rootUrl}/api/v2/sso/${encodeURIComponent(row.slug)}`;
  return {
    id: row.id,
    name: row.name,
    slug: row.slug,
    type: TYPE_NAMES[row.type] ?? 'OIDC',
    details: 'saml' in details ? toWireSaml(details.saml, row, rootUrl) : toWireOidc(details.oidc),
    config: JSON.parse(row.config) as SsoConfig,
    login_uri: `${base}/login`,
    callback_uri: `${base}/callback`,
    ...recordTimes(row),
  };
}
