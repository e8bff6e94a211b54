/**
 * FROZEN: data-quality records written by the analysis after each ingest (spec 2.7, CONTRACT §6).
 * Platform-wide aggregations (ad / azure) and per-domain / per-tenant stats; counts are integers,
 * the completeness figures whole percentages.
 */
import type { CreateTableBuilder, Kysely } from 'kysely';
import { withId, withTimestamps } from './portable.ts';

const AD = ['users', 'groups', 'computers', 'ous', 'containers', 'gpos', 'aiacas', 'rootcas', 'enterprisecas',
  'ntauthstores', 'certtemplates', 'acls', 'sessions', 'relationships', 'session_completeness', 'local_group_completeness'];
const AZURE = ['users', 'groups', 'apps', 'service_principals', 'devices', 'management_groups', 'subscriptions',
  'resource_groups', 'vms', 'key_vaults', 'relationships'];

function counts<T extends string>(table: CreateTableBuilder<T, any>, columns: string[]) {
  let t = table.addColumn('run_id', 'text', (c) => c.notNull());
  for (const col of columns) t = t.addColumn(col, 'bigint', (c) => c.notNull().defaultTo(0));
  return t;
}

export async function up(db: Kysely<any>): Promise<void> {
  await counts(withTimestamps(withId(db, db.schema.createTable('ad_data_quality_aggregations'))), ['domains', ...AD]).execute();
  await counts(withTimestamps(withId(db, db.schema.createTable('ad_data_quality_stats'))), AD)
    .addColumn('domain_sid', 'text', (c) => c.notNull()).execute();
  await counts(withTimestamps(withId(db, db.schema.createTable('azure_data_quality_aggregations'))), ['tenants', ...AZURE]).execute();
  await counts(withTimestamps(withId(db, db.schema.createTable('azure_data_quality_stats'))), AZURE)
    .addColumn('tenant_id', 'text', (c) => c.notNull()).execute();
  for (const table of ['ad_data_quality_aggregations', 'azure_data_quality_aggregations']) {
    await db.schema.createIndex(`${table}_created_at`).on(table).column('created_at').execute();
  }
  await db.schema.createIndex('ad_data_quality_stats_domain').on('ad_data_quality_stats').columns(['domain_sid', 'created_at']).execute();
  await db.schema.createIndex('azure_data_quality_stats_tenant').on('azure_data_quality_stats').columns(['tenant_id', 'created_at']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const t of ['azure_data_quality_stats', 'azure_data_quality_aggregations', 'ad_data_quality_stats', 'ad_data_quality_aggregations']) {
    await db.schema.dropTable(t).execute();
  }
}
