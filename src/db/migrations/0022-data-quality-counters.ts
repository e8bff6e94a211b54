/**
 * FROZEN: BloodHound's newer data-quality counters (CONTRACT §6): `issuancepolicies` on the AD
 * records, seven Azure resource counters on the Azure records. Existing rows count 0.
 */
import type { Kysely } from 'kysely';

const AD = ['ad_data_quality_aggregations', 'ad_data_quality_stats'];
const AZURE = ['azure_data_quality_aggregations', 'azure_data_quality_stats'];
const AD_COLUMNS = ['issuancepolicies'];
const AZURE_COLUMNS = ['automation_accounts', 'container_registries', 'function_apps', 'logic_apps', 'managed_clusters', 'vm_scale_sets', 'web_apps'];

export async function up(db: Kysely<any>): Promise<void> {
  for (const [tables, columns] of [[AD, AD_COLUMNS], [AZURE, AZURE_COLUMNS]] as const) {
    for (const table of tables) {
      for (const column of columns) await db.schema.alterTable(table).addColumn(column, 'bigint', (c) => c.notNull().defaultTo(0)).execute();
    }
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const [tables, columns] of [[AD, AD_COLUMNS], [AZURE, AZURE_COLUMNS]] as const) {
    for (const table of tables) {
      for (const column of columns) await db.schema.alterTable(table).dropColumn(column).execute();
    }
  }
}
