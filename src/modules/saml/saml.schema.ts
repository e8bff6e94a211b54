import { Type } from '@sinclair/typebox';
import type { SsoProviderRow } from '../../db/database.ts';
import { Nullable, recordFields, recordTimes } from '../../http/envelope.ts';
import type { SamlProviderRow } from './saml.tables.ts';

/**
 * BloodHound's SAMLProvider (reference §10.1): the IdP as its metadata says, and Scent's own
 * service-provider URIs for it. The metadata XML is never sent.
 */
export const SamlProviderSchema = Type.Object(
  {
    id: Type.Integer(),
    name: Type.String(),
    display_name: Type.String(),
    idp_issuer_uri: Type.String({ description: 'the IdP entity id' }),
    idp_sso_uri: Type.String({ description: 'the IdP HTTP-POST single sign-on URL' }),
    root_uri_version: Type.Integer({ description: '2: the SP URIs live under /api/v2/sso/{slug}' }),
    principal_attribute_mappings: Nullable(Type.Array(Type.String())),
    sp_issuer_uri: Type.String({ description: 'Scent\'s entity id for this provider' }),
    sp_sso_uri: Type.String({ description: 'where a sign-in starts' }),
    sp_metadata_uri: Type.String({ description: 'Scent\'s SP metadata for this provider' }),
    sp_acs_uri: Type.String({ description: 'the assertion consumer service (HTTP-POST)' }),
    sso_provider_id: Type.Integer(),
    ...recordFields,
  },
  { $id: 'SAMLProvider' },
);

/** Scent's service-provider URIs for a provider (root URI version 2). */
export function spUris(rootUrl: string, slug: string) {
  const root = `${rootUrl}/api/v2/sso/${encodeURIComponent(slug)}`;
  return { issuer: root, login: `${root}/login`, metadata: `${root}/metadata`, acs: `${root}/callback` };
}

export function toWireSaml(row: SamlProviderRow, provider: Pick<SsoProviderRow, 'slug'>, rootUrl: string) {
  const sp = spUris(rootUrl, provider.slug);
  return {
    id: row.id,
    name: row.name,
    display_name: row.display_name,
    idp_issuer_uri: row.issuer_uri,
    idp_sso_uri: row.single_sign_on_uri,
    root_uri_version: row.root_uri_version,
    principal_attribute_mappings: row.principal_attribute_mappings ? (JSON.parse(row.principal_attribute_mappings) as string[]) : null,
    sp_issuer_uri: sp.issuer,
    sp_sso_uri: sp.login,
    sp_metadata_uri: sp.metadata,
    sp_acs_uri: sp.acs,
    sso_provider_id: row.sso_provider_id,
    ...recordTimes(row),
  };
}
