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

/** BloodHound's SAMLProvider (POST /api/v2/sso-providers/saml; `details` of a SAML provider). */
export interface SamlProvider extends Record_ {
  id: number; name: string; display_name: string; idp_issuer_uri: string; idp_sso_uri: string; root_uri_version: number;
  principal_attribute_mappings: string[] | null; sp_issuer_uri: string; sp_sso_uri: string; sp_metadata_uri: string; sp_acs_uri: string;
  sso_provider_id: number;
}

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
  aiacas: number; rootcas: number; enterprisecas: number; ntauthstores: number; certtemplates: number; issuancepolicies: number;
  acls: number; sessions: number; relationships: number; session_completeness: number; local_group_completeness: number;
}
/** CONTRACT §6 (platform `azure`) */
export interface AzureDataQualityRecord extends Counted {
  tenants: number; users: number; groups: number; apps: number; service_principals: number; devices: number;
  management_groups: number; subscriptions: number; resource_groups: number; vms: number; key_vaults: number;
  automation_accounts: number; container_registries: number; function_apps: number; logic_apps: number; managed_clusters: number;
  vm_scale_sets: number; web_apps: number; relationships: number;
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
  id: number; client_id: string; client_name: string; event_id: NullInt32; event_title: string; status: number;
  execution_time: string; start_time: string; end_time: string; status_message: string; domain_controller: string;
  ous: OuReference[] | string[]; domains: DomainReference[] | string[]; domain_results: DomainResult[];
}

/** Spec 2.12 */
export interface CollectionEvent extends CollectionFlags {
  id: number; client_id: string; rrule: string; ous: OuReference[]; domains: DomainReference[];
}

/** Spec 2.13 (+ `asset_group_tag_id`, as BloodHound) */
export interface AssetGroupTagMember {
  id: number; object_id: string; environment_id: string; primary_kind: string; name: string;
  properties: Record<string, unknown>; source: number; asset_group_tag_id: number;
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

/* ---- Beyond the seed: what the console (ui/) and other clients call ---- */

/** GET /api/v2/sso-providers (anonymous callers see id, name, slug, type and the two URIs). */
export interface SsoProvider {
  id: number; name: string; slug: string; type: 'OIDC' | 'SAML'; login_uri: string; callback_uri: string;
  details?: OidcProvider | SamlProvider; config?: { auto_provision: { enabled: boolean; default_role_id: number; role_provision: boolean } };
  created_at?: string; updated_at?: string;
}
/** GET /api/v2/file-upload; status as CONTRACT §6 job status. */
export interface FileUploadJob {
  id: number; user_id: string; user_email_address: string | null; status: number; status_message: string;
  start_time: string; end_time: string; last_ingest: string; total_files: number; failed_files: number;
  created_at: string; updated_at: string; deleted_at: NullTime;
}
/** GET /api/v2/file-upload/{id}/completed-tasks: one file of a job and its ingest result. */
export interface FileUploadTask {
  id: number; ingest_job_id: number; file_name: string; parent_file_name: string; content_type: string; size: number; status: number;
  /** `<file>: <error>` per failed document (a zip's entry named zip/entry). */
  errors: string[]; warnings: string[]; nodes: number; edges: number;
  created_at: string; updated_at: string;
}
/** Asset group tag (Privilege Zone / label / owned); `type` 1 tier, 2 label, 3 owned. `counts` with `counts=true`. */
export interface AssetGroupTag {
  id: number; type: number; kind_id: number; name: string; description: string; position: number | null; require_certify: boolean | null;
  analysis_enabled: boolean | null; glyph: string | null; created_at: string; created_by: string; updated_at: string; updated_by: string;
  deleted_at: NullTime; deleted_by: string | null; counts?: { selectors: number; custom_selectors: number; default_selectors: number; disabled_selectors: number; members: number };
}
/** Seed `type`: 1 object id, 2 Cypher (the nodes a read-only query returns). */
export interface SelectorSeed { type: number; value: string; selector_id?: number }
/** `expansion`: 0 none, 1 all, 2 child, 3 parent; `auto_certify`: 0 off, 1 all members, 2 seeds only. */
export interface AssetGroupTagSelector {
  id: number; asset_group_tag_id: number; name: string; description: string; expansion: number; seeds: SelectorSeed[];
  created_at: string; created_by: string; updated_at: string; updated_by: string;
  disabled_at: string | null; disabled_by: string | null; is_default: boolean; allow_disable: boolean; auto_certify: number;
  counts?: { members: number };
}
export interface CreateSelectorBody { name: string; description?: string; expansion?: number; auto_certify?: number | null; seeds: SelectorSeed[] }
export interface UpdateSelectorBody extends Partial<CreateSelectorBody> { disabled?: boolean }
export interface MemberCounts { total_count: number; counts: Record<string, number> }
/** A collection client (enterprise). */
export interface CollectionClient extends Record_ {
  id: string; name: string; type: 'sharphound' | 'azurehound'; domain_controller: string; ip_address: string; hostname: string;
  configured_user: string; user_sid: string; version: string;
  /** BloodHound's plain values (clients are outside the seed). */
  last_checkin: string | null; current_job_id: number | null; current_job: ClientJob | null;
  current_task_id: null; current_task: null; completed_job_count: number; completed_task_count: number;
  events: ScheduledEvent[]; token: null; issuer_address: string; issuer_address_override: string;
}
export interface ScheduledEvent extends Omit<CollectionEvent, 'ous' | 'domains'> {
  title: string; ous: OuReference[] | string[]; domains: DomainReference[] | string[]; created_at: string; updated_at: string;
}
export interface EventBody {
  client_id: string; rrule: string; title?: string; ous?: string[]; domains?: string[];
  session_collection?: boolean; local_group_collection?: boolean; ad_structure_collection?: boolean; cert_services_collection?: boolean;
  ca_registry_collection?: boolean; dc_registry_collection?: boolean; all_trusted_domains?: boolean;
}
/** BloodHound's flat graph map (type=graph answers): node entries by id, edge entries `rel_<id>`. */
export interface FlatGraphNode {
  label: { text: string }; color?: string; data: Record<string, unknown> & { nodetype?: string; objectid?: string; kinds?: string[]; isTierZero?: boolean };
}
export interface FlatGraphEdge { id1: string; id2: string; label: { text: string }; data?: Record<string, unknown> }
export type FlatGraph = Record<string, FlatGraphNode | FlatGraphEdge>;
/** `GET /api/v2/<type>/<object id>`: the node's properties, its kinds, and a count per related list. */
export interface EntityInfo { props: Record<string, unknown>; kind?: string; kinds?: string[]; [list: string]: unknown }
/** An Azure node as `GET /api/v2/azure/<type>` answers it (alone, or as the rows of a related list). */
export interface AzureNode { kind: string; kinds: string[]; isTierZero: boolean; isOwnedObject: boolean; props: Record<string, unknown> }
/** An Azure node with its type's counts: numbers, `descendents.descendent_counts` (per kind) or `Readers` (per list). */
export interface AzureEntityInfo extends AzureNode { [count: string]: unknown }
/** BloodHound's unified graph (Cypher, shortest paths): nodes by id, edges as a list. */
export interface UnifiedGraphNode {
  label: string; kind: string; kinds: string[]; objectId: string; isTierZero?: boolean; isOwnedObject?: boolean; lastSeen?: string;
  properties?: Record<string, unknown>;
}
export interface UnifiedGraphEdge { source: string; target: string; label: string; kind: string; lastSeen?: string; properties?: Record<string, unknown> }
export interface UnifiedGraph { nodes: Record<string, UnifiedGraphNode>; edges: UnifiedGraphEdge[] }
/** `POST /api/v2/graphs/cypher`: the graph, scalar columns as literals, and the property keys when asked for. */
export interface CypherResult extends UnifiedGraph { literals?: Array<{ key: string; value: unknown }>; node_keys?: string[]; edge_keys?: string[] }
/** A saved query; lists add the caller's `scope` for it. */
export interface SavedQuery {
  id: number; user_id: string; name: string; query: string; description: string; created_at: string; updated_at: string; deleted_at: NullTime;
  scope?: 'owned' | 'shared' | 'public';
}
/** `GET /api/v2/search`: `type` is the node's primary kind; `system_tags` space-separated (admin_tier_0, owned). */
export interface SearchHit { objectid: string; type: string; name: string; distinguishedname: string; system_tags: string }
/** `GET /api/v2/available-domains` */
export interface AvailableDomain { type: 'active-directory' | 'azure'; name: string; id: string; collected: boolean }
/** `GET /api/v2/audit`; `status` intent, success or failure (an intent and its outcome share `commit_id`). */
export interface AuditLog {
  id: number; created_at: string; actor_id: string; actor_name: string; actor_email: string; action: string;
  fields: Record<string, unknown>; request_id: string; source_ip_address: string; status: string; commit_id: string;
}
