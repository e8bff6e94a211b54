/**
 * Hand-written table types (one interface per table). Conventions of the storage layer are in
 * ./migrations/portable.ts: ids and timestamps are numbers, booleans 0/1, JSON is text.
 */
import type { Generated, Insertable, Selectable, Updateable } from 'kysely';
import type { Micros } from './time.ts';
import type { AuthTokenTables } from '../auth/tokens.tables.ts';
import type { AuditTables } from '../audit/audit.tables.ts';
import type { AppConfigTables } from '../modules/app-config/app-config.tables.ts';
import type { GraphTables } from '../graph/graph.tables.ts';
import type { AssetGroupTagTables } from '../modules/asset-group-tags/tags.tables.ts';
import type { CollectionTables } from '../modules/jobs/collection.tables.ts';
import type { DataQualityTables } from '../modules/data-quality/data-quality.tables.ts';
import type { FileUploadTables } from '../modules/file-upload/file-upload.tables.ts';
import type { SavedQueryTables } from '../modules/saved-queries/saved-queries.tables.ts';
import type { SamlTables } from '../modules/saml/saml.tables.ts';

export type Bool = 0 | 1;

export interface Timestamps {
  created_at: Micros;
  updated_at: Micros;
  deleted_at: Micros | null;
}

export interface PermissionTable extends Timestamps {
  id: Generated<number>;
  authority: string;
  name: string;
}

export interface RoleTable extends Timestamps {
  id: Generated<number>;
  name: string;
  description: string;
}

export interface RolePermissionTable {
  role_id: number;
  permission_id: number;
}

export interface UserTable extends Timestamps {
  id: string;
  principal_name: string;
  first_name: string | null;
  last_name: string | null;
  email_address: string | null;
  sso_provider_id: number | null;
  saml_provider_id: number | null;
  last_login: Micros | null;
  is_disabled: Bool;
  eula_accepted: Bool;
}

export interface UserRoleTable {
  user_id: string;
  role_id: number;
}

export interface AuthSecretTable extends Timestamps {
  id: Generated<number>;
  user_id: string;
  digest: string;
  digest_method: string;
  expires_at: Micros;
  totp_activated: Bool;
}

export interface SessionTable {
  id: string;
  user_id: string | null;
  client_id: string | null;
  auth_method: string;
  expires_at: Micros;
  created_at: Micros;
}

export interface SsoProviderTable extends Timestamps {
  id: Generated<number>;
  name: string;
  slug: string;
  /** 1 = SAML, 2 = OIDC (BloodHound's enum). */
  type: number;
  /** JSON text: { auto_provision: { enabled, default_role_id, role_provision } } */
  config: string;
}

export interface OidcProviderTable extends Timestamps {
  id: Generated<number>;
  sso_provider_id: number;
  client_id: string;
  issuer: string;
}

export interface SettingTable {
  key: string;
  value: string;
  updated_at: Micros;
}

export interface Database extends GraphTables, DataQualityTables, FileUploadTables, AssetGroupTagTables, CollectionTables, AuthTokenTables, SavedQueryTables, AuditTables, SamlTables, AppConfigTables {
  permissions: PermissionTable;
  roles: RoleTable;
  roles_permissions: RolePermissionTable;
  users: UserTable;
  users_roles: UserRoleTable;
  auth_secrets: AuthSecretTable;
  sessions: SessionTable;
  sso_providers: SsoProviderTable;
  oidc_providers: OidcProviderTable;
  settings: SettingTable;
}

export type UserRow = Selectable<UserTable>;
export type NewUser = Insertable<UserTable>;
export type UserUpdate = Updateable<UserTable>;
export type RoleRow = Selectable<RoleTable>;
export type PermissionRow = Selectable<PermissionTable>;
export type AuthSecretRow = Selectable<AuthSecretTable>;
export type SessionRow = Selectable<SessionTable>;
export type SsoProviderRow = Selectable<SsoProviderTable>;
export type OidcProviderRow = Selectable<OidcProviderTable>;
