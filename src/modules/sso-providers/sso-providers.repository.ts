import type { Kysely } from 'kysely';
import type { Database, OidcProviderRow, SsoProviderRow, UserRow } from '../../db/database.ts';
import { nowMicros } from '../../db/time.ts';
import type { SsoConfig } from './sso-providers.schema.ts';
import type { SamlProviderRow } from '../saml/saml.tables.ts';

type Q = Kysely<Database>;

export async function roleExists(db: Q, id: number): Promise<boolean> {
  return (await db.selectFrom('roles').select('id').where('id', '=', id).executeTakeFirst()) !== undefined;
}

/**
 * Inserts the provider and its OIDC row. PostgreSQL: one statement (the provider's insert is a CTE the
 * OIDC insert reads), so both rows or neither without a transaction. SQLite: two statements; call it
 * inside a transaction.
 */
export async function insertOidcProvider(
  db: Q,
  dialect: 'sqlite' | 'postgres',
  input: { name: string; slug: string; type: number; config: SsoConfig; clientId: string; issuer: string },
): Promise<OidcProviderRow> {
  const now = nowMicros();
  const stamp = { created_at: now, updated_at: now, deleted_at: null };
  const provider = { name: input.name, slug: input.slug, type: input.type, config: JSON.stringify(input.config), ...stamp };
  const oidc = { client_id: input.clientId, issuer: input.issuer, ...stamp };
  if (dialect === 'postgres') {
    return db.with('provider', (q) => q.insertInto('sso_providers').values(provider).returning('id'))
      .insertInto('oidc_providers')
      .values((eb) => ({ sso_provider_id: eb.selectFrom('provider').select('provider.id'), ...oidc }))
      .returningAll()
      .executeTakeFirstOrThrow();
  }
  const { id } = await db.insertInto('sso_providers').values(provider).returning('id').executeTakeFirstOrThrow();
  return db.insertInto('oidc_providers').values({ sso_provider_id: id, ...oidc }).returningAll().executeTakeFirstOrThrow();
}

/** Whether the provider exists, and its users by principal name: one statement. */
export async function providerUsers(db: Q, id: number): Promise<{ found: boolean; users: UserRow[] }> {
  const rows = await db.selectFrom('sso_providers').leftJoin('users', 'users.sso_provider_id', 'sso_providers.id')
    .selectAll('users').select('sso_providers.id as provider_id')
    .where('sso_providers.id', '=', id).orderBy('users.principal_name').execute();
  const users = rows.filter((r) => r.id !== null).map(({ provider_id: _p, ...user }) => user as UserRow);
  return { found: rows.length > 0, users };
}

/** Deletes the provider when no user is linked to it (one atomic statement); whether it did. */
export async function deleteProviderWithoutUsers(db: Q, id: number): Promise<boolean> {
  const row = await db.deleteFrom('sso_providers').where('id', '=', id)
    .where((eb) => eb.not(eb.exists(eb.selectFrom('users').select('users.id').where('users.sso_provider_id', '=', id))))
    .returning('id').executeTakeFirst();
  return row !== undefined;
}

/**
 * PostgreSQL: locks the provider row so that nobody links a user to it until the transaction ends (a
 * user's insert or update takes a key-share lock on it). Whether it exists. SQLite: one writer at a time.
 */
export async function lockProvider(db: Q, id: number, dialect: 'sqlite' | 'postgres'): Promise<boolean> {
  if (dialect === 'sqlite') return true;
  return (await db.selectFrom('sso_providers').select('id').where('id', '=', id).forUpdate().executeTakeFirst()) !== undefined;
}

/**
 * Deletes the provider (its OIDC or SAML row cascades) after detaching its users (when it has any): the
 * database refuses to delete a provider a user still references (migration 0012).
 */
export async function deleteProvider(db: Q, id: number, hasUsers: boolean): Promise<void> {
  if (hasUsers) {
    await db.updateTable('users').set({ sso_provider_id: null, saml_provider_id: null, updated_at: nowMicros() })
      .where('sso_provider_id', '=', id).execute();
  }
  await db.deleteFrom('sso_providers').where('id', '=', id).execute();
}

/** Providers with their OIDC or SAML row (one of the two), for the listing; the SAML metadata is left out. */
export function listProvidersQuery(db: Q) {
  return db
    .selectFrom('sso_providers')
    .leftJoin('oidc_providers', 'oidc_providers.sso_provider_id', 'sso_providers.id')
    .leftJoin('saml_providers', 'saml_providers.sso_provider_id', 'sso_providers.id')
    .selectAll('sso_providers')
    .select([
      'oidc_providers.id as oidc_id',
      'oidc_providers.client_id as oidc_client_id',
      'oidc_providers.issuer as oidc_issuer',
      'oidc_providers.created_at as oidc_created_at',
      'oidc_providers.updated_at as oidc_updated_at',
      'oidc_providers.deleted_at as oidc_deleted_at',
      'saml_providers.id as saml_id',
      'saml_providers.name as saml_name',
      'saml_providers.display_name as saml_display_name',
      'saml_providers.issuer_uri as saml_issuer_uri',
      'saml_providers.single_sign_on_uri as saml_single_sign_on_uri',
      'saml_providers.root_uri_version as saml_root_uri_version',
      'saml_providers.principal_attribute_mappings as saml_principal_attribute_mappings',
      'saml_providers.created_at as saml_created_at',
      'saml_providers.updated_at as saml_updated_at',
      'saml_providers.deleted_at as saml_deleted_at',
    ]);
}

type Prefixed<T, P extends string> = { [K in keyof T as `${P}${K & string}`]: T[K] | null };
export type ProviderListRow = SsoProviderRow
  & Prefixed<Omit<OidcProviderRow, 'sso_provider_id'>, 'oidc_'>
  & Prefixed<Omit<SamlProviderRow, 'sso_provider_id' | 'metadata'>, 'saml_'>;

/** The provider and its one detail row (OIDC or SAML; the SAML one without its metadata). */
export type ProviderDetails = { oidc: OidcProviderRow } | { saml: SamlProviderRow };

export function splitListRow(row: ProviderListRow): [SsoProviderRow, ProviderDetails] {
  const provider: SsoProviderRow = {
    id: row.id, name: row.name, slug: row.slug, type: row.type, config: row.config,
    created_at: row.created_at, updated_at: row.updated_at, deleted_at: row.deleted_at,
  };
  if (row.saml_id !== null) {
    return [provider, {
      saml: {
        id: row.saml_id, sso_provider_id: row.id, name: row.saml_name!, display_name: row.saml_display_name!,
        issuer_uri: row.saml_issuer_uri!, single_sign_on_uri: row.saml_single_sign_on_uri!, metadata: '',
        root_uri_version: row.saml_root_uri_version!, principal_attribute_mappings: row.saml_principal_attribute_mappings,
        created_at: row.saml_created_at!, updated_at: row.saml_updated_at!, deleted_at: row.saml_deleted_at,
      },
    }];
  }
  return [provider, {
    oidc: {
      id: row.oidc_id!, sso_provider_id: row.id, client_id: row.oidc_client_id!, issuer: row.oidc_issuer!,
      created_at: row.oidc_created_at!, updated_at: row.oidc_updated_at!, deleted_at: row.oidc_deleted_at,
    },
  }];
}
