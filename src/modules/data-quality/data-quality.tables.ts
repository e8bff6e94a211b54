/** Table types of migration 0006-data-quality. */
import type { Generated, Selectable } from 'kysely';
import type { Timestamps } from '../../db/database.ts';

export interface AdCounts {
  users: number; groups: number; computers: number; ous: number; containers: number; gpos: number;
  aiacas: number; rootcas: number; enterprisecas: number; ntauthstores: number; certtemplates: number; issuancepolicies: number;
  acls: number; sessions: number; relationships: number; session_completeness: number; local_group_completeness: number;
}
export interface AzureCounts {
  users: number; groups: number; apps: number; service_principals: number; devices: number; management_groups: number;
  subscriptions: number; resource_groups: number; vms: number; key_vaults: number; relationships: number;
  automation_accounts: number; container_registries: number; function_apps: number; logic_apps: number;
  managed_clusters: number; vm_scale_sets: number; web_apps: number;
}

interface Record_ extends Timestamps { id: Generated<number>; run_id: string }
export interface AdAggregationTable extends Record_, AdCounts { domains: number }
export interface AdStatTable extends Record_, AdCounts { domain_sid: string }
export interface AzureAggregationTable extends Record_, AzureCounts { tenants: number }
export interface AzureStatTable extends Record_, AzureCounts { tenant_id: string }

export interface DataQualityTables {
  ad_data_quality_aggregations: AdAggregationTable;
  ad_data_quality_stats: AdStatTable;
  azure_data_quality_aggregations: AzureAggregationTable;
  azure_data_quality_stats: AzureStatTable;
}

export type AdAggregationRow = Selectable<AdAggregationTable>;
export type AzureAggregationRow = Selectable<AzureAggregationTable>;
