import { Type } from '@sinclair/typebox';
import { NullTime, nullTime, Timestamp } from '../../http/envelope.ts';
import { toRfc3339 } from '../../db/time.ts';

const int = () => Type.Integer();
const AD_FIELDS = ['users', 'groups', 'computers', 'ous', 'containers', 'gpos', 'aiacas', 'rootcas', 'enterprisecas',
  'ntauthstores', 'certtemplates', 'issuancepolicies', 'acls', 'sessions', 'relationships', 'session_completeness', 'local_group_completeness'] as const;
const AZURE_FIELDS = ['users', 'groups', 'apps', 'service_principals', 'devices', 'management_groups', 'subscriptions',
  'resource_groups', 'vms', 'key_vaults', 'automation_accounts', 'container_registries', 'function_apps', 'logic_apps',
  'managed_clusters', 'vm_scale_sets', 'web_apps', 'relationships'] as const;

const base = { id: int(), created_at: Timestamp, updated_at: Timestamp, deleted_at: NullTime };
const fields = (names: readonly string[]) => Object.fromEntries(names.map((n) => [n, int()]));

export const AdAggregationSchema = Type.Object({ ...base, domains: int(), ...fields(AD_FIELDS), run_id: Type.String({ format: 'uuid' }) }, { $id: 'AdDataQualityAggregation' });
export const AdStatSchema = Type.Object({ ...base, domain_sid: Type.String(), ...fields(AD_FIELDS), run_id: Type.String({ format: 'uuid' }) }, { $id: 'AdDataQualityStat' });
export const AzureAggregationSchema = Type.Object({ ...base, tenants: int(), ...fields(AZURE_FIELDS), run_id: Type.String({ format: 'uuid' }) }, { $id: 'AzureDataQualityAggregation' });
export const AzureStatSchema = Type.Object({ ...base, tenant_id: Type.String(), ...fields(AZURE_FIELDS), run_id: Type.String({ format: 'uuid' }) }, { $id: 'AzureDataQualityStat' });
export const dataQualitySchemas = [AdAggregationSchema, AdStatSchema, AzureAggregationSchema, AzureStatSchema];

/** One mapper for every data-quality row: timestamps to the wire, counts as they are (a plain loop: it runs per row). */
export function toWireRecord(row: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {
    id: row.id,
    created_at: toRfc3339(row.created_at as number),
    updated_at: toRfc3339(row.updated_at as number),
    deleted_at: nullTime(row.deleted_at as number | null),
  };
  for (const key in row) {
    if (key === 'id' || key === 'created_at' || key === 'updated_at' || key === 'deleted_at' || key === 'run_id') continue;
    const v = row[key];
    out[key] = typeof v === 'string' && key !== 'domain_sid' && key !== 'tenant_id' ? Number(v) : v;
  }
  out.run_id = row.run_id;
  return out;
}

export const rangeEnvelope = (item: ReturnType<typeof Type.Ref>) => Type.Object({
  start: Timestamp, end: Timestamp,
  count: Type.Integer({ minimum: 0 }), skip: Type.Integer({ minimum: 0 }), limit: Type.Integer({ minimum: 0 }),
  data: Type.Array(item),
});

export const wireTime = toRfc3339;
