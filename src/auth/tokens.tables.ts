import type { Selectable } from 'kysely';
import type { Micros } from '../db/time.ts';

/** Tables of migration 0005-auth-tokens. */
export interface AuthTokenTable {
  /** UUID, the `bhesignature <id>` credential. */
  id: string;
  user_id: string;
  name: string;
  /** `v1.<iv>.<ciphertext+tag>` (base64url), see auth/token-keys.ts. */
  key_sealed: string;
  hmac_method: string;
  last_access: Micros | null;
  created_at: Micros;
  updated_at: Micros;
  deleted_at: Micros | null;
}

export interface OidcLoginStateTable {
  state: string;
  sso_provider_id: number;
  nonce: string;
  code_verifier: string;
  expires_at: Micros;
  created_at: Micros;
}

export interface AuthTokenTables {
  auth_tokens: AuthTokenTable;
  oidc_login_states: OidcLoginStateTable;
}

export type AuthTokenRow = Selectable<AuthTokenTable>;
