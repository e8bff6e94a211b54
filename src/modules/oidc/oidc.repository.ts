import { sql, type Kysely } from 'kysely';
import type { Database, UserRow } from '../../db/database.ts';
import { nowMicros } from '../../db/time.ts';
import { insertUser } from '../users/users.repository.ts';
import type { SsoConfig } from '../sso-providers/sso-providers.schema.ts';

type Q = Kysely<Database>;

export interface OidcLoginProvider {
  id: number;
  slug: string;
  issuer: string;
  clientId: string;
  config: SsoConfig;
}

/** The OIDC provider behind a slug (type 2), or undefined. */
export async function findOidcBySlug(db: Q, slug: string): Promise<OidcLoginProvider | undefined> {
  const row = await db
    .selectFrom('sso_providers')
    .innerJoin('oidc_providers', 'oidc_providers.sso_provider_id', 'sso_providers.id')
    .select(['sso_providers.id', 'sso_providers.slug', 'sso_providers.config', 'oidc_providers.issuer', 'oidc_providers.client_id'])
    .where('sso_providers.slug', '=', slug)
    .where('sso_providers.deleted_at', 'is', null)
    .executeTakeFirst();
  if (!row) return undefined;
  return { id: row.id, slug: row.slug, issuer: row.issuer, clientId: row.client_id, config: JSON.parse(row.config) as SsoConfig };
}

export async function saveLoginState(
  db: Q,
  row: { state: string; ssoProviderId: number; nonce: string; codeVerifier: string; ttlSeconds: number },
): Promise<void> {
  const now = nowMicros();
  await db.deleteFrom('oidc_login_states').where('expires_at', '<', now).execute(); // housekeeping
  await db
    .insertInto('oidc_login_states')
    .values({
      state: row.state, sso_provider_id: row.ssoProviderId, nonce: row.nonce, code_verifier: row.codeVerifier,
      expires_at: now + row.ttlSeconds * 1_000_000, created_at: now,
    })
    .execute();
}

/** Takes a state row (single use, whichever instance asks first); undefined when unknown or expired. */
export async function consumeLoginState(db: Q, state: string) {
  const row = await db.deleteFrom('oidc_login_states').where('state', '=', state).returningAll().executeTakeFirst();
  return row && row.expires_at > nowMicros() ? row : undefined;
}

export async function findUsersByEmail(db: Q, email: string): Promise<UserRow[]> {
  return db
    .selectFrom('users')
    .selectAll()
    .where(sql<string>`lower(email_address)`, '=', email.toLowerCase())
    .where('deleted_at', 'is', null)
    .orderBy('created_at')
    .execute();
}

export async function roleIdsByName(db: Q): Promise<Map<string, number>> {
  const rows = await db.selectFrom('roles').select(['id', 'name']).where('deleted_at', 'is', null).execute();
  return new Map(rows.map((r) => [r.name, r.id]));
}

export async function roleIdExists(db: Q, id: number): Promise<boolean> {
  return (await db.selectFrom('roles').select('id').where('id', '=', id).executeTakeFirst()) !== undefined;
}

/** A just-in-time user of the provider, with its roles (the first through insertUser). */
export async function provisionUser(
  db: Q,
  input: { email: string; firstName: string | null; lastName: string | null; ssoProviderId: number },
  roleIds: number[],
): Promise<UserRow> {
  const user = await insertUser(
    db,
    { principalName: input.email, email: input.email, roleName: '', firstName: input.firstName, lastName: input.lastName, ssoProviderId: input.ssoProviderId },
    roleIds[0],
  );
  if (roleIds.length > 1) await db.insertInto('users_roles').values(roleIds.slice(1).map((role_id) => ({ user_id: user.id, role_id }))).execute();
  return user;
}

export async function replaceRoles(db: Q, userId: string, roleIds: number[]): Promise<void> {
  await db.deleteFrom('users_roles').where('user_id', '=', userId).execute();
  await db.insertInto('users_roles').values(roleIds.map((role_id) => ({ user_id: userId, role_id }))).execute();
}
