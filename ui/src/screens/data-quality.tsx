/**
 * Data quality (AD and Azure): the latest counts, completeness, and their trend over a chosen range,
 * for the whole platform or one domain / tenant.
 */
import { useMemo } from 'preact/hooks';
import { ScentApiError, type AdDataQualityRecord, type AzureDataQualityRecord } from 'scent/client';
import { ErrorText, Field, Loading, Section, formatTime } from '../components/ui.tsx';
import { useAsync } from '../components/hooks.ts';
import { TimeChart } from '../components/chart.tsx';
import { setParams, useRoute } from '../router.ts';
import { api } from '../session.ts';

type Rec = (AdDataQualityRecord | AzureDataQualityRecord) & Record<string, unknown>;

const OBJECTS = {
  ad: ['users', 'groups', 'computers', 'ous', 'containers', 'gpos', 'domains', 'aiacas', 'rootcas', 'enterprisecas', 'ntauthstores', 'certtemplates', 'issuancepolicies'],
  azure: ['users', 'groups', 'apps', 'service_principals', 'devices', 'management_groups', 'subscriptions', 'resource_groups', 'vms', 'key_vaults', 'tenants'],
} as const;
const RELATIONSHIPS = { ad: ['relationships', 'acls', 'sessions'], azure: ['relationships'] } as const;
const RANGES: Record<string, number> = { '24 hours': 1, '7 days': 7, '30 days': 30, '90 days': 90, '1 year': 365 };
const NAMES: Record<string, string> = {
  ous: 'OUs', gpos: 'GPOs', aiacas: 'AIA CAs', rootcas: 'Root CAs', enterprisecas: 'Enterprise CAs', ntauthstores: 'NTAuth stores',
  certtemplates: 'Cert templates', issuancepolicies: 'Issuance policies', acls: 'ACLs', vms: 'VMs', service_principals: 'Service principals',
  session_completeness: 'Session completeness', local_group_completeness: 'Local group completeness',
};
const label = (k: string) => NAMES[k] ?? k.charAt(0).toUpperCase() + k.slice(1).replace(/_/g, ' ');

export function DataQuality() {
  const { params } = useRoute();
  const platform = params.get('platform') === 'azure' ? 'azure' : 'ad';
  const range = params.get('range') && RANGES[params.get('range')!] ? params.get('range')! : '30 days';
  const scope = params.get('scope') ?? '';
  const data = useAsync(async () => {
    const end = Date.now();
    const start = new Date(end - RANGES[range] * 86400_000).toISOString();
    const query = { start, sort_by: 'created_at', limit: 1000 };
    if (scope) {
      const page = platform === 'ad' ? await api.getDomainDataQualityStats(scope, query) : await api.getTenantDataQualityStats(scope, query);
      return { records: page.data as Rec[], count: page.count, span: [Date.parse(start) / 1000, end / 1000] as [number, number] };
    }
    const page = await api.getDataQualityStats(platform as 'ad', query);
    return { records: page.data as Rec[], count: page.count, span: [Date.parse(start) / 1000, end / 1000] as [number, number] };
  }, [platform, range, scope]);
  const latest = useAsync(async () => {
    const query = { sort_by: '-created_at', limit: 1 };
    const page = scope
      ? platform === 'ad' ? await api.getDomainDataQualityStats(scope, query) : await api.getTenantDataQualityStats(scope, query)
      : await api.getDataQualityStats(platform as 'ad', query);
    return (page.data[0] as Rec | undefined) ?? null;
  }, [platform, scope]);

  const records = data.data?.records ?? [];
  const times = useMemo(() => records.map((r) => Date.parse(r.created_at) / 1000), [records]);
  const series = (keys: readonly string[]) => keys.map((k) => ({ label: label(k), values: records.map((r) => (typeof r[k] === 'number' ? (r[k] as number) : null)) }));
  const objects = useMemo(() => series(OBJECTS[platform]), [records]);
  const rels = useMemo(() => series(RELATIONSHIPS[platform]), [records]);
  const completeness = useMemo(() => platform === 'ad' ? ['session_completeness', 'local_group_completeness'].map((k) => ({
    label: label(k), values: records.map((r) => (typeof r[k] === 'number' ? (r[k] as number) : null)),
  })) : [], [records]);

  return (
    <div class="screen">
      <h1>Data quality</h1>
      <form class="toolbar" aria-label="What to show" onSubmit={(e) => e.preventDefault()}>
        <Field label="Platform">
          <select value={platform} onChange={(e) => setParams({ platform: e.currentTarget.value, scope: undefined })}>
            <option value="ad">Active Directory</option>
            <option value="azure">Azure</option>
          </select>
        </Field>
        <ScopePicker platform={platform} scope={scope} />
        <Field label="Range">
          <select value={range} onChange={(e) => setParams({ range: e.currentTarget.value })}>
            {Object.keys(RANGES).map((r) => <option value={r}>Last {r}</option>)}
          </select>
        </Field>
      </form>
      <Section title="Current counts">
        <ErrorText error={latest.error} />
        {latest.loading ? <Loading /> : latest.data ? <Current record={latest.data} platform={platform} /> : <p class="muted">No analysis has recorded data for this {scope ? 'scope' : 'platform'} yet. Upload collector data first.</p>}
      </Section>
      <Section title="Over time">
        <ErrorText error={data.error} />
        {data.loading ? <Loading /> : records.length ? (
          <>
            <p class="muted">{records.length} analysis runs{data.data!.count > records.length ? ` (first ${records.length} of ${data.data!.count})` : ''} in the last {range}</p>
            <div class="charts">
              <TimeChart title="Objects" times={times} series={objects} span={data.data!.span} />
              <TimeChart title="Relationships" times={times} series={rels} span={data.data!.span} />
              {completeness.length ? <TimeChart title="Completeness" times={times} series={completeness} span={data.data!.span} percent /> : null}
            </div>
          </>
        ) : <p class="muted">No records in this range.</p>}
      </Section>
    </div>
  );
}

function Current({ record, platform }: { record: Rec; platform: 'ad' | 'azure' }) {
  const keys = [...OBJECTS[platform], ...RELATIONSHIPS[platform]].filter((k) => typeof record[k] === 'number');
  return (
    <>
      <p class="muted">As of {formatTime(record.created_at)}</p>
      <dl class="counts">
        {keys.map((k) => <div><dt>{label(k)}</dt><dd>{(record[k] as number).toLocaleString()}</dd></div>)}
      </dl>
      {platform === 'ad' ? (
        <div class="completeness">
          {(['session_completeness', 'local_group_completeness'] as const).map((k) => {
            const pct = (record[k] as number) ?? 0; // whole percentages (docs/ingest-and-analysis.md)
            return (
              <div class="meter-row">
                <span>{label(k)}</span>
                <meter min={0} max={100} value={pct} aria-label={label(k)} />
                <span>{pct}%</span>
              </div>
            );
          })}
        </div>
      ) : null}
    </>
  );
}

/**
 * The whole platform or one domain / tenant: a list of the collected ones from `available-domains`;
 * a server without that route gets a field for the SID or tenant id instead.
 */
function ScopePicker({ platform, scope }: { platform: 'ad' | 'azure'; scope: string }) {
  const domains = useAsync(async () => {
    try {
      return await api.listAvailableDomains({ sort_by: 'name' });
    } catch (err) {
      if (err instanceof ScentApiError && err.status === 404) return null;
      throw err;
    }
  }, []);
  const what = platform === 'ad' ? 'Domain' : 'Tenant';
  if (domains.loading && !domains.data) return null; // no field until it is known which one the server's routes give
  if (domains.data) {
    const mine = domains.data.filter((d) => (d.type === 'azure') === (platform === 'azure'));
    return (
      <Field label={what}>
        <select value={scope} onChange={(e) => setParams({ scope: e.currentTarget.value })}>
          <option value="">All {platform === 'ad' ? 'domains' : 'tenants'} (the platform)</option>
          {mine.map((d) => <option value={d.id}>{d.name}{d.collected ? '' : ' (not collected)'}</option>)}
        </select>
      </Field>
    );
  }
  return (
    <Field label={`${what} ${platform === 'ad' ? 'SID' : 'id'} (empty: whole platform)`}>
      <input value={scope} placeholder={platform === 'ad' ? 'S-1-5-21-…' : 'tenant id'} onChange={(e) => setParams({ scope: e.currentTarget.value.trim() })} />
    </Field>
  );
}
