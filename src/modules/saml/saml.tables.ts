/** Table types of SAML sign-in (migration 0070-saml). */
import type { Generated, Selectable } from 'kysely';
import type { Timestamps } from '../../db/database.ts';
import type { Micros } from '../../db/time.ts';

export interface SamlProviderTable extends Timestamps {
  id: Generated<number>;
  sso_provider_id: number;
  name: string;
  display_name: string;
  /** The IdP's entity id (metadata `entityID`). */
  issuer_uri: string;
  /** The IdP's HTTP-POST SingleSignOnService location. */
  single_sign_on_uri: string;
  /** The IdP metadata XML as uploaded (never sent back). */
  metadata: string;
  root_uri_version: Generated<number>;
  /** JSON text: attribute names to take the principal from, or null (the defaults). */
  principal_attribute_mappings: string | null;
}

/** An AuthnRequest in flight (its ID), until answered or expired. */
export interface SamlRequestTable {
  id: string;
  sso_provider_id: number;
  expires_at: Micros;
  created_at: Micros;
  /** When a response answered it (single use). */
  answered_at: Micros | null;
}

/** An accepted assertion (per IdP), kept until it expires, so that it is accepted only once. */
export interface SamlUsedAssertionTable {
  issuer: string;
  assertion_id: string;
  expires_at: Micros;
  created_at: Micros;
}

export interface SamlTables {
  saml_providers: SamlProviderTable;
  saml_requests: SamlRequestTable;
  saml_used_assertions: SamlUsedAssertionTable;
}

export type SamlProviderRow = Selectable<SamlProviderTable>;
