/**
 * FROZEN: SAML providers (the SAML half of `sso_providers`), the AuthnRequests Scent sent and not yet
 * answered, and the assertion ids already accepted. Both of the latter are shared by every instance on
 * the database: a response may come back to any of them, and an assertion is accepted once on all of them.
 */
import type { Kysely } from 'kysely';
import { withId, withTimestamps } from './portable.ts';

export async function up(db: Kysely<any>): Promise<void> {
  await withTimestamps(withId(db, db.schema.createTable('saml_providers')))
    .addColumn('sso_provider_id', 'bigint', (c) => c.notNull().unique().references('sso_providers.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('display_name', 'text', (c) => c.notNull())
    .addColumn('issuer_uri', 'text', (c) => c.notNull())
    .addColumn('single_sign_on_uri', 'text', (c) => c.notNull())
    .addColumn('metadata', 'text', (c) => c.notNull())
    .addColumn('root_uri_version', 'integer', (c) => c.notNull().defaultTo(2))
    .addColumn('principal_attribute_mappings', 'text')
    .execute();

  await db.schema.createTable('saml_requests')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('sso_provider_id', 'bigint', (c) => c.notNull().references('sso_providers.id').onDelete('cascade'))
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    // Set when a response answered it: the row stays until it expires, so that a second response to
    // the same request is told apart (and refused) rather than looking like one to an unknown request.
    .addColumn('answered_at', 'bigint')
    .execute();
  await db.schema.createIndex('saml_requests_expires_at').on('saml_requests').column('expires_at').execute();

  await db.schema.createTable('saml_used_assertions')
    .addColumn('issuer', 'text', (c) => c.notNull())
    .addColumn('assertion_id', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('saml_used_assertions_pk', ['issuer', 'assertion_id'])
    .execute();
  await db.schema.createIndex('saml_used_assertions_expires_at').on('saml_used_assertions').column('expires_at').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('saml_used_assertions').execute();
  await db.schema.dropTable('saml_requests').execute();
  await db.schema.dropTable('saml_providers').execute();
}
