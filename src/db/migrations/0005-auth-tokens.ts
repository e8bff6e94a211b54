/** FROZEN: API tokens (HMAC-signed requests) and server-side OIDC sign-in state. */
import type { Kysely } from 'kysely';
import { withTimestamps } from './portable.ts';

export async function up(db: Kysely<any>): Promise<void> {
  // The key is needed in clear to verify signatures, so it is stored encrypted (AES-256-GCM under a
  // key derived from the server's JWT signing key), never hashed. See src/auth/token-keys.ts.
  await withTimestamps(db.schema.createTable('auth_tokens'))
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('key_sealed', 'text', (c) => c.notNull())
    .addColumn('hmac_method', 'text', (c) => c.notNull())
    .addColumn('last_access', 'bigint')
    .execute();
  await db.schema.createIndex('auth_tokens_user_id').on('auth_tokens').column('user_id').execute();

  // One row per OIDC sign-in in flight, keyed by the `state` sent to the provider; consumed by the
  // callback. Shared by every instance on the database; deleting the provider cascades.
  await db.schema.createTable('oidc_login_states')
    .addColumn('state', 'text', (c) => c.primaryKey())
    .addColumn('sso_provider_id', 'bigint', (c) => c.notNull().references('sso_providers.id').onDelete('cascade'))
    .addColumn('nonce', 'text', (c) => c.notNull())
    .addColumn('code_verifier', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('oidc_login_states_expires_at').on('oidc_login_states').column('expires_at').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('oidc_login_states').execute();
  await db.schema.dropTable('auth_tokens').execute();
}
