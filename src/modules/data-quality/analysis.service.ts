/**
 * The analysis pass after each ingest (CLI or upload job): counts the graph and writes one `ad` and
 * one `azure` aggregation for the platform, plus one stat per domain / tenant, all with one run_id.
 *   counts        nodes (not placeholders) by primary kind
 *   acls          edges whose kind is an ACE right (ACL_KINDS), `sessions` HasSession edges
 *   relationships AD: every edge whose kind is not AZ*; Azure: every AZ* edge
 *   completeness  whole percentage (rounded down) of computers with at least one HasSession edge /
 *                 at least one local-group edge (AdminTo, CanRDP, CanPSRemote, ExecuteDCOM) into them
 * Per domain / tenant, nodes count by their environment id and edges by their end node's.
 */
import { randomUUID } from 'node:crypto';
import SQLite from 'better-sqlite3';
import { sql, type RawBuilder } from 'kysely';
import type { Db } from '../../db/create-db.ts';
import { nowMicros } from '../../db/time.ts';
import type { AdCounts, AzureCounts } from './data-quality.tables.ts';
import { refreshTagMemberships } from '../asset-group-tags/membership.service.ts';
import { postProcess, type PostProcessingResult } from '../../graph/analysis/post-processing.ts';

export const ACL_KINDS = [
  'AllExtendedRights', 'ForceChangePassword', 'AddMember', 'AddAllowedToAct', 'GenericAll', 'WriteDacl', 'WriteOwner',
  'GenericWrite', 'ReadLAPSPassword', 'ReadGMSAPassword', 'Owns', 'AddSelf', 'WriteSPN', 'AddKeyCredentialLink',
  'GetChanges', 'GetChangesAll', 'GetChangesInFilteredSet', 'WriteAccountRestrictions', 'WriteGPLink', 'SyncLAPSPassword',
  'DCSync', 'ManageCertificates', 'ManageCA', 'Enroll', 'WritePKIEnrollmentFlag', 'WritePKINameFlag',
  'WriteOwnerLimitedRights', 'OwnsLimitedRights', 'OwnsRaw', 'WriteOwnerRaw', 'WriteAltSecurityIdentities', 'WritePublicInformation',
];
const ACL = new Set(ACL_KINDS);
const LOCAL_GROUP_KINDS = ['AdminTo', 'CanRDP', 'CanPSRemote', 'ExecuteDCOM'];

const AD_KINDS: Record<string, keyof AdCounts> = {
  User: 'users', Group: 'groups', Computer: 'computers', OU: 'ous', Container: 'containers', GPO: 'gpos',
  AIACA: 'aiacas', RootCA: 'rootcas', EnterpriseCA: 'enterprisecas', NTAuthStore: 'ntauthstores', CertTemplate: 'certtemplates',
  IssuancePolicy: 'issuancepolicies',
};
const AZURE_KINDS: Record<string, keyof AzureCounts> = {
  AZUser: 'users', AZGroup: 'groups', AZApp: 'apps', AZServicePrincipal: 'service_principals', AZDevice: 'devices',
  AZManagementGroup: 'management_groups', AZSubscription: 'subscriptions', AZResourceGroup: 'resource_groups', AZVM: 'vms',
  AZKeyVault: 'key_vaults', AZAutomationAccount: 'automation_accounts', AZContainerRegistry: 'container_registries',
  AZFunctionApp: 'function_apps', AZLogicApp: 'logic_apps', AZManagedCluster: 'managed_clusters', AZVMScaleSet: 'vm_scale_sets',
  AZWebApp: 'web_apps',
};

const zeroAd = (): AdCounts => ({
  users: 0, groups: 0, computers: 0, ous: 0, containers: 0, gpos: 0, aiacas: 0, rootcas: 0, enterprisecas: 0,
  ntauthstores: 0, certtemplates: 0, issuancepolicies: 0, acls: 0, sessions: 0, relationships: 0, session_completeness: 0, local_group_completeness: 0,
});
const zeroAzure = (): AzureCounts => ({
  users: 0, groups: 0, apps: 0, service_principals: 0, devices: 0, management_groups: 0, subscriptions: 0,
  resource_groups: 0, vms: 0, key_vaults: 0, automation_accounts: 0, container_registries: 0, function_apps: 0,
  logic_apps: 0, managed_clusters: 0, vm_scale_sets: 0, web_apps: 0, relationships: 0,
});

/** Per environment ('' = the whole platform). */
class Tally {
  ad = new Map<string, AdCounts>();
  azure = new Map<string, AzureCounts>();
  withSessions = new Map<string, number>();
  withLocalGroups = new Map<string, number>();
  adOf(env: string) {
    let c = this.ad.get(env);
    if (!c) this.ad.set(env, (c = zeroAd()));
    return c;
  }
  azureOf(env: string) {
    let c = this.azure.get(env);
    if (!c) this.azure.set(env, (c = zeroAzure()));
    return c;
  }
}

export interface AnalysisResult {
  runId: string;
  /** BloodHound's post-processing (derived edges), run first. */
  postProcessing: PostProcessingResult;
}

/** Post-processing (src/graph/analysis/), then data quality and tag membership, after every ingest. */
export async function analyzeGraph(db: Db): Promise<AnalysisResult> {
  const postProcessing = await postProcess(db);
  // The GROUP BYs below sort every edge; on SQLite those sorts must spill to disk, not to memory
  // (the connection's temp_store is MEMORY), or a large graph costs hundreds of MB of RSS.
  if (db.dialect === 'sqlite') await sql`pragma temp_store = file`.execute(db.kysely);
  try {
    return { ...(await analyze(db)), postProcessing };
  } finally {
    if (db.dialect === 'sqlite') await sql`pragma temp_store = memory`.execute(db.kysely);
  }
}

/**
 * Runs one whole-graph aggregate. On a SQLite file it runs on a short-lived read-only connection
 * with a small page cache (the sorts spill to disk), so the server's connection keeps its cache and
 * the process its memory; elsewhere through Kysely.
 */
async function aggregate<T>(db: Db, query: RawBuilder<T>): Promise<T[]> {
  const bulk = db.bulk;
  if (bulk.dialect !== 'sqlite' || bulk.path === null) return (await query.execute(db.kysely)).rows;
  const compiled = query.compile(db.kysely);
  const conn = new SQLite(bulk.path, { readonly: true });
  try {
    conn.pragma('cache_size = -8192');
    conn.pragma('temp_store = FILE');
    return conn.prepare(compiled.sql).all(...(compiled.parameters as unknown[])) as T[];
  } finally {
    conn.close();
  }
}

async function analyze(db: Db): Promise<{ runId: string }> {
  const k = db.kysely;
  const t = new Tally();
  const nodes = { rows: await aggregate(db, sql<{ env: string | null; kind: string; n: number }>`
    select environment_id as env, kind, count(*) as n from nodes where is_placeholder = 0 group by environment_id, kind`) };
  const domains: string[] = [];
  const tenants: string[] = [];
  for (const { env, kind, n } of nodes.rows) {
    for (const scope of env ? ['', env] : ['']) {
      if (AD_KINDS[kind]) t.adOf(scope)[AD_KINDS[kind]] += Number(n);
      if (AZURE_KINDS[kind]) t.azureOf(scope)[AZURE_KINDS[kind]] += Number(n);
    }
  }
  const domainRows = await k.selectFrom('nodes').select('objectid').where('kind', 'in', ['Domain', 'AZTenant']).where('is_placeholder', '=', 0)
    .select('kind').execute();
  for (const r of domainRows) (r.kind === 'Domain' ? domains : tenants).push(r.objectid);

  const edges = { rows: await aggregate(db, sql<{ env: string | null; kind: string; n: number }>`
    select n.environment_id as env, e.kind, count(*) as n from edges e join nodes n on n.id = e.end_id
    group by n.environment_id, e.kind`) };
  for (const { env, kind, n } of edges.rows) {
    for (const scope of env ? ['', env] : ['']) {
      if (kind.startsWith('AZ')) {
        t.azureOf(scope).relationships += Number(n);
        continue;
      }
      const c = t.adOf(scope);
      c.relationships += Number(n);
      if (ACL.has(kind)) c.acls += Number(n);
      if (kind === 'HasSession') c.sessions += Number(n);
    }
  }
  const computers = async (q: ReturnType<typeof sql<{ env: string | null; n: number }>>, into: Map<string, number>) => {
    for (const { env, n } of await aggregate(db, q)) {
      for (const scope of env ? ['', env] : ['']) into.set(scope, (into.get(scope) ?? 0) + Number(n));
    }
  };
  await computers(sql`select c.environment_id as env, count(distinct c.id) as n from edges e join nodes c on c.id = e.start_id
    where e.kind = 'HasSession' and c.kind = 'Computer' and c.is_placeholder = 0 group by c.environment_id`, t.withSessions);
  await computers(sql`select c.environment_id as env, count(distinct c.id) as n from edges e join nodes c on c.id = e.end_id
    where e.kind in (${sql.join(LOCAL_GROUP_KINDS)}) and c.kind = 'Computer' and c.is_placeholder = 0 group by c.environment_id`, t.withLocalGroups);
  for (const [scope, c] of t.ad) {
    c.session_completeness = percent(t.withSessions.get(scope) ?? 0, c.computers);
    c.local_group_completeness = percent(t.withLocalGroups.get(scope) ?? 0, c.computers);
  }

  const runId = randomUUID();
  const now = nowMicros();
  const stamp = { created_at: now, updated_at: now, deleted_at: null, run_id: runId };
  await k.transaction().execute(async (trx) => {
    await trx.insertInto('ad_data_quality_aggregations').values({ ...stamp, ...t.adOf(''), domains: domains.length }).execute();
    await trx.insertInto('azure_data_quality_aggregations').values({ ...stamp, ...t.azureOf(''), tenants: tenants.length }).execute();
    for (const sid of domains) await trx.insertInto('ad_data_quality_stats').values({ ...stamp, ...t.adOf(sid), domain_sid: sid }).execute();
    for (const id of tenants) await trx.insertInto('azure_data_quality_stats').values({ ...stamp, ...t.azureOf(id), tenant_id: id }).execute();
  });
  await refreshTagMemberships(db); // asset group tag membership follows every ingest
  return { runId };
}

function percent(part: number, whole: number): number {
  return whole > 0 ? Math.floor((100 * part) / whole) : 0;
}
