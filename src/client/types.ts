/**
 * Wire types of the seed's seven endpoints (spec 2.x) plus the few calls a client needs around
 * them (login, version, API tokens). Timestamps are RFC-3339 strings.
 */
export interface NullTime { time: string; valid: boolean }
export interface NullInt32 { int32: number; valid: boolean }
export interface NullString { string: string; valid: boolean }

export interface Record_ { created_at: string; updated_at: string; deleted_at: NullTime }

export interface Permission extends Record_ { id: number; authority: string; name: string }
export interface Role extends Record_ { id: number; name: string; description: string; permissions: Permission[] }
export interface AuthSecret extends Record_ { id: number; digest_method: string; expires_at: string; totp_activated: boolean }

/** Spec 2.3 */
export interface User extends Record_ {
  id: string;
  saml_provider_id: NullInt32;
  sso_provider_id: NullInt32;
  AuthSecret: AuthSecret | null;
  roles: Role[];
  first_name: NullString;
  last_name: NullString;
  email_address: NullString;
  principal_name: string;
  last_login: string;
  is_disabled: boolean;
  eula_accepted: boolean;
}

/** Spec 2.6 */
export interface OidcProvider extends Record_ { id: number; client_id: string; issuer: string; sso_provider_id: number }

export interface CreateOidcProviderBody {
  name: string;
  issuer: string;
  client_id: string;
  config: { auto_provision?: { enabled?: boolean; default_role_id?: number; role_provision?: boolean } };
}

interface Counted { id: number; created_at: string; updated_at: string; deleted_at: NullTime; run_id: string }
/** Spec 2.7 (platform `ad`) */
export interface AdDataQualityRecord extends Counted {
  domains: number; users: number; groups: number; computers: number; ous: number; containers: number; gpos: number;
  aiacas: number; rootcas: number; enterprisecas: number; ntauthstores: number; certtemplates: number;
  acls: number; sessions: number; relationships: number; session_completeness: number; local_group_completeness: number;
}
/** CONTRACT §6 (platform `azure`) */
export interface AzureDataQualityRecord extends Counted {
  tenants: number; users: number; groups: number; apps: number; service_principals: number; devices: number;
  management_groups: number; subscriptions: number; resource_groups: number; vms: number; key_vaults: number; relationships: number;
}

/** Spec 2.10 / 2.11 */
export interface OuReference { objectid: string; name: string; exists: boolean; distinguishedname: string; type: string }
export interface DomainReference { objectid: string; name: string; exists: boolean; type: string }

/** Spec 2.9 */
export interface DomainResult extends Record_ {
  id: number; job_id: number; domain_name: string; success: boolean; message: string;
  user_count: number; group_count: number; computer_count: number; gpo_count: number; ou_count: number; container_count: number;
  aiaca_count: number; rootca_count: number; enterpriseca_count: number; ntauthstore_count: number; certtemplate_count: number; deleted_count: number;
}

interface CollectionFlags {
  session_collection: boolean; local_group_collection: boolean; ad_structure_collection: boolean; cert_services_collection: boolean;
  ca_registry_collection: boolean; dc_registry_collection: boolean; all_trusted_domains: boolean;
}

/** Spec 2.8 (+ `status`, CONTRACT §6). `ous`/`domains` are object ids when not hydrated. */
export interface ClientJob extends CollectionFlags {
  id: number; client_id: string; client_name: string; event_id: NullInt32; status: number;
  execution_time: string; start_time: string; end_time: string; status_message: string; domain_controller: string;
  ous: OuReference[] | string[]; domains: DomainReference[] | string[]; domain_results: DomainResult[];
}

/** Spec 2.12 */
export interface CollectionEvent extends CollectionFlags {
  id: number; client_id: string; rrule: string; ous: OuReference[]; domains: DomainReference[];
}

/** Spec 2.13 */
export interface AssetGroupTagMember {
  id: number; object_id: string; environment_id: string; primary_kind: string; name: string;
  properties: Record<string, unknown>; source: number;
}

/** Spec 2.14 */
export interface ControllerEntry { objectID: string; name: string; label: string; kinds: string[] }

/** Spec 2.15 */
export interface Page<T> { count: number; skip: number; limit: number; data: T }

export interface ApiVersion {
  API: { current_version: string; deprecated_version: string };
  server_version: string;
  product_edition: 'enterprise' | 'community';
}

export interface AuthToken extends Record_ {
  id: string; user_id: string; name: string; key?: string; hmac_method: string; last_access: string;
}

export interface LoginResult { user_id: string; session_token: string; auth_expired: boolean }

/** A query parameter value; arrays repeat the parameter. Filter values use `[predicate:]operand`. */
export type QueryValue = string | number | boolean | ReadonlyArray<string | number | boolean>;
export type Query = Record<string, QueryValue | undefined>;
