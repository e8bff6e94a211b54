/**
 * FROZEN: BloodHound's feature flags and application parameters (`GET /api/v2/features`,
 * `GET|PUT /api/v2/config`). Flags keep BloodHound's ids and keys (clients look them up by key);
 * `enabled` says what Scent does, and only flags whose toggle Scent honours are user-updatable.
 * Parameters: only those that mean something in Scent.
 */
import type { Kysely } from 'kysely';
import { withTimestamps } from './portable.ts';

// [id, key, name, description, enabled, user_updatable]
const FLAGS: Array<[number, string, string, string, 0 | 1, 0 | 1]> = [
  [1, 'butterfly_analysis', 'Enhanced Asset Inbound-Outbound Exposure Analysis', 'Exposure analysis of assets (not in Scent).', 0, 0],
  [2, 'enable_saml_sso', 'SAML Single Sign-On Support', 'Sign-in through SAML identity providers.', 1, 0],
  [3, 'scope_collection_by_ou', 'Enable SharpHound OU Scoped Collections', 'Collection jobs may be scoped to OUs.', 1, 0],
  [4, 'azure_support', 'Enable Azure Support', 'AzureHound data is ingested and served.', 1, 0],
  [5, 'entity_panel_cache', 'Enable application level caching', 'Answers are cached by data version.', 1, 0],
  [6, 'adcs', 'Enable collection and processing of Active Directory Certificate Services Data', 'ADCS data is ingested and analysed.', 1, 0],
  [7, 'dark_mode', 'Dark Mode', 'The web interface may use a dark theme.', 1, 0],
  [8, 'pg_migration_dual_ingest', 'PostgreSQL Migration Dual Ingest', 'BloodHound graph-database migration (not in Scent).', 0, 0],
  [9, 'clear_graph_data', 'Clear Graph Data', 'Graph data may be cleared.', 1, 0],
  [10, 'risk_exposure_new_calculation', 'Use new tier zero risk exposure calculation', 'Not in Scent.', 0, 0],
  [11, 'fedramp_eula', 'FedRAMP EULA', 'Not in Scent.', 0, 0],
  [12, 'auto_tag_t0_parent_objects', 'Automatically add parent OUs and containers of Tier Zero AD objects to Tier Zero', 'Parent OUs and containers of Tier Zero objects are Tier Zero.', 1, 0],
  [13, 'oidc_support', 'OIDC Support', 'Sign-in through OpenID Connect providers.', 1, 0],
  [15, 'back_button_support', 'Back Button Support', 'The web interface follows the browser history.', 1, 0],
  [16, 'tier_management_engine', 'Tier Management Engine', 'Privilege zones: the asset group tag routes (off: they answer 404).', 1, 1],
  [17, 'ntlm_post_processing', 'NTLM Post Processing Support', 'NTLM relay edges are derived.', 1, 0],
  [18, 'explore_table_view', 'Explore Table View', 'Explore results may be shown as a table.', 1, 0],
  [20, 'environment_targeted_access_control', 'Environment Targeted Access Control', 'Not in Scent.', 0, 0],
  [21, 'finished_jobs_log_v2', 'Finished Jobs Log Update', 'Not in Scent.', 0, 0],
  [22, 'open_graph_phase_2', 'Open Graph Phase 2', 'OpenGraph data is ingested and served.', 1, 0],
  [23, 'changelog', 'Changelog', 'Not in Scent.', 0, 0],
];

export async function up(db: Kysely<any>): Promise<void> {
  await withTimestamps(db.schema.createTable('feature_flags')
    .addColumn('id', 'integer', (c) => c.primaryKey())
    .addColumn('key', 'text', (c) => c.notNull().unique())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('enabled', 'integer', (c) => c.notNull())
    .addColumn('user_updatable', 'integer', (c) => c.notNull()))
    .execute();
  await withTimestamps(db.schema.createTable('parameters')
    .addColumn('id', 'integer', (c) => c.primaryKey())
    .addColumn('key', 'text', (c) => c.notNull().unique())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('value', 'text', (c) => c.notNull()))
    .execute();
  const now = Date.now() * 1000;
  const stamp = { created_at: now, updated_at: now, deleted_at: null };
  await db.insertInto('feature_flags').values(FLAGS.map(([id, key, name, description, enabled, user_updatable]) =>
    ({ id, key, name, description, enabled, user_updatable, ...stamp }))).execute();
  await db.insertInto('parameters').values({
    id: 1, key: 'auth.password_expiration_window', name: 'Local Auth Password Expiry Window',
    description: 'How long a password set through the API stays valid (ISO-8601 duration).',
    value: JSON.stringify({ duration: 'P90D' }), ...stamp,
  }).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('parameters').execute();
  await db.schema.dropTable('feature_flags').execute();
}
