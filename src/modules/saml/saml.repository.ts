import type { Kysely } from 'kysely';
import type { Database, SsoProviderRow } from '../../db/database.ts';
import { nowMicros } from '../../db/time.ts';
import type { SsoConfig } from '../sso-providers/sso-providers.schema.ts';
import type { SamlProviderRow } from './saml.tables.ts';

type Q = Kysely<Database>;

export interface SamlInput {
  name: string;
  slug: string;
  config: SsoConfig;
  issuerUri: string;
  ssoUri: string;
  metadata: string;
}

/**
 * Inserts the provider and its SAML row. PostgreSQL: one statement (a CTE), so both rows or neither
 * without a transaction. SQLite: two statements; call it inside a transaction.
 */
export async function insertSamlProvider(db: Q, dialect: 'sqlite' | 'postgres', input: SamlInput): Promise<SamlProviderRow> {
  const now = nowMicros();
  const stamp = { created_at: now, updated_at: now, deleted_at: null };
  const provider = { name: input.name, slug: input.slug, type: 1, config: JSON.stringify(input.config), ...stamp };
  const saml = {
    name: input.slug, display_name: input.name, issuer_uri: input.issuerUri, single_sign_on_uri: input.ssoUri,
    metadata: input.metadata, root_uri_version: 2, principal_attribute_mappings: null, ...stamp,
  };
  if (dialect === 'postgres') {
    return db.with('provider', (q) => q.insertInto('sso_providers').values(provider).returning('id'))
      .insertInto('saml_providers')
      .values((eb) => ({ sso_provider_id: eb.selectFrom('provider').select('provider.id'), ...saml }))
      .returningAll()
      .executeTakeFirstOrThrow();
  }
  const { id } = await db.insertInto('sso_providers').values(provider).returning('id').executeTakeFirstOrThrow();
  return db.insertInto('saml_providers').values({ sso_provider_id: id, ...saml }).returningAll().executeTakeFirstOrThrow();
}

export interface SamlProviderFull {
  provider: SsoProviderRow;
  saml: SamlProviderRow;
}

async function findSaml(db: Q, where: { id: number } | { slug: string }, lock = false): Promise<SamlProviderFull | undefined> {
  let q = db.selectFrom('sso_providers')
    .innerJoin('saml_providers', 'saml_providers.sso_provider_id', 'sso_providers.id')
    .selectAll('saml_providers')
    .select([
      'sso_providers.name as p_name', 'sso_providers.slug as p_slug', 'sso_providers.type as p_type', 'sso_providers.config as p_config',
      'sso_providers.created_at as p_created_at', 'sso_providers.updated_at as p_updated_at', 'sso_providers.deleted_at as p_deleted_at',
    ])
    .where('sso_providers.deleted_at', 'is', null);
  q = 'id' in where ? q.where('sso_providers.id', '=', where.id) : q.where('sso_providers.slug', '=', where.slug);
  if (lock) q = q.forUpdate();
  const row = await q.executeTakeFirst();
  if (!row) return undefined;
  const { p_name, p_slug, p_type, p_config, p_created_at, p_updated_at, p_deleted_at, ...saml } = row;
  return {
    provider: {
      id: saml.sso_provider_id, name: p_name, slug: p_slug, type: p_type, config: p_config,
      created_at: p_created_at, updated_at: p_updated_at, deleted_at: p_deleted_at,
    },
    saml,
  };
}

export const findSamlBySlug = (db: Q, slug: string) => findSaml(db, { slug });
export const findSamlById = (db: Q, id: number, lock = false) => findSaml(db, { id }, lock);

/** The provider's type (1 SAML, 2 OIDC) by id or slug; undefined when there is none. */
export async function providerType(db: Q, where: { id: number } | { slug: string }): Promise<number | undefined> {
  let q = db.selectFrom('sso_providers').select('type').where('deleted_at', 'is', null);
  q = 'id' in where ? q.where('id', '=', where.id) : q.where('slug', '=', where.slug);
  return (await q.executeTakeFirst())?.type;
}

export async function updateSamlRows(
  db: Q,
  id: number,
  change: { name?: string; slug?: string; config?: SsoConfig; issuerUri?: string; ssoUri?: string; metadata?: string },
): Promise<void> {
  const now = nowMicros();
  await db.updateTable('sso_providers').set({
    updated_at: now,
    ...(change.name !== undefined ? { name: change.name, slug: change.slug! } : {}),
    ...(change.config ? { config: JSON.stringify(change.config) } : {}),
  }).where('id', '=', id).execute();
  await db.updateTable('saml_providers').set({
    updated_at: now,
    ...(change.name !== undefined ? { name: change.slug!, display_name: change.name } : {}),
    ...(change.metadata !== undefined ? { metadata: change.metadata, issuer_uri: change.issuerUri!, single_sign_on_uri: change.ssoUri! } : {}),
  }).where('sso_provider_id', '=', id).execute();
}

/** Remembers an AuthnRequest Scent sent (its ID), for `ttlSeconds`. */
export async function saveRequest(db: Q, id: string, ssoProviderId: number, ttlSeconds: number): Promise<void> {
  const now = nowMicros();
  // Housekeeping of both tables here, at the start of a sign-in (outside the ACS transaction, whose locks stay narrow).
  await db.deleteFrom('saml_requests').where('expires_at', '<', now).execute();
  await db.deleteFrom('saml_used_assertions').where('expires_at', '<', now).execute();
  await db.insertInto('saml_requests')
    .values({ id, sso_provider_id: ssoProviderId, expires_at: now + ttlSeconds * 1_000_000, created_at: now, answered_at: null }).execute();
}

/** An unexpired request by ID, answered or not (read only: the ACS takes it in its transaction). */
export async function findRequest(db: Q, id: string) {
  const row = await db.selectFrom('saml_requests').selectAll().where('id', '=', id).executeTakeFirst();
  return row && row.expires_at > nowMicros() ? row : undefined;
}

/** Takes the request (single use, whichever instance asks first): whether it was there, unanswered, unexpired, for this provider. */
export async function consumeRequest(db: Q, id: string, ssoProviderId: number): Promise<boolean> {
  const now = nowMicros();
  const row = await db.updateTable('saml_requests').set({ answered_at: now })
    .where('id', '=', id).where('sso_provider_id', '=', ssoProviderId).where('answered_at', 'is', null).where('expires_at', '>', now)
    .returning('id').executeTakeFirst();
  return row !== undefined;
}

/** Records an accepted assertion; false when it was accepted before (a replay), on any instance. */
export async function recordAssertion(db: Q, issuer: string, assertionId: string, expiresAt: number): Promise<boolean> {
  const now = nowMicros();
  const row = await db.insertInto('saml_used_assertions')
    .values({ issuer, assertion_id: assertionId, expires_at: expiresAt, created_at: now })
    .onConflict((oc) => oc.columns(['issuer', 'assertion_id']).doNothing())
    .returning('assertion_id')
    .executeTakeFirst();
  return row !== undefined;
}
