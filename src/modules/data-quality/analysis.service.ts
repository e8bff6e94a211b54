/**
 * The analysis after each ingest (CLI or upload job): BloodHound's post-processing
 * (src/graph/analysis/), then the data-quality records as BloodHound computes them
 * (cmd/api/src/analysis/ad/queries.go GraphStats) and tag membership (at once on PostgreSQL and on a SQLite file). One run_id per run:
 *   per collected domain (Domain with `collected: true`) / per tenant (AZTenant) one stat record:
 *     counts         nodes of that domain / tenant (environment id) by primary kind
 *     relationships  edges whose **start** node belongs to it; `acls` those of an ACE kind (ACL_KINDS);
 *                    `sessions` its computers' HasSession edges
 *     completeness   whole percentage (rounded down) of its active users with a HasSession edge into
 *                    them / of its active Windows computers with an AdminTo, CanRDP, CanPSRemote or
 *                    ExecuteDCOM edge into them. Active: enabled, with a `lastlogontimestamp` no more than
 *                    14 days before the most recent one among them (computers: `operatingsystem`
 *                    containing WINDOWS). 0 when none is active.
 *   the platform record: the sum of the run's per-domain (per-tenant) records, `domains` / `tenants`
 *   their number, completeness over every active user / computer (as BloodHound's aggregation).
 * Nodes and edges of no domain count nowhere.
 */
import { randomUUID } from 'node:crypto';
import { sql, type RawBuilder } from 'kysely';
import type { Db } from '../../db/create-db.ts';
import { nowMicros } from '../../db/time.ts';
import type { AdCounts, AzureCounts } from './data-quality.tables.ts';
import { refreshTagMemberships } from '../asset-group-tags/membership.service.ts';
import { postProcess, type PostProcessingResult } from '../../graph/analysis/post-processing.ts';
import { readRowsOnThread, stopReadThread } from '../../graph/analysis/read-thread.ts';
import { checkpointLater } from '../../graph/bulk/checkpointer.ts';

export const ACL_KINDS = [
  'AllExtendedRights', 'ForceChangePassword', 'AddMember', 'AddAllowedToAct', 'GenericAll', 'WriteDacl', 'WriteOwner',
  'GenericWrite', 'ReadLAPSPassword', 'ReadGMSAPassword', 'Owns', 'AddSelf', 'WriteSPN', 'AddKeyCredentialLink',
  'GetChanges', 'GetChangesAll', 'GetChangesInFilteredSet', 'WriteAccountRestrictions', 'WriteGPLink', 'SyncLAPSPassword',
  'DCSync', 'ManageCertificates', 'ManageCA', 'Enroll', 'WritePKIEnrollmentFlag', 'WritePKINameFlag',
  'WriteOwnerLimitedRights', 'OwnsLimitedRights', 'OwnsRaw', 'WriteOwnerRaw', 'WriteAltSecurityIdentities', 'WritePublicInformation',
];

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
const LOCAL_GROUP_KINDS = ['AdminTo', 'CanRDP', 'CanPSRemote', 'ExecuteDCOM'];
const FOURTEEN_DAYS = 14 * 24 * 3600;

const zeroAd = (): AdCounts => ({
  users: 0, groups: 0, computers: 0, ous: 0, containers: 0, gpos: 0, aiacas: 0, rootcas: 0, enterprisecas: 0,
  ntauthstores: 0, certtemplates: 0, issuancepolicies: 0, acls: 0, sessions: 0, relationships: 0, session_completeness: 0,
  local_group_completeness: 0,
});
const zeroAzure = (): AzureCounts => ({
  users: 0, groups: 0, apps: 0, service_principals: 0, devices: 0, management_groups: 0, subscriptions: 0,
  resource_groups: 0, vms: 0, key_vaults: 0, automation_accounts: 0, container_registries: 0, function_apps: 0, logic_apps: 0,
  managed_clusters: 0, vm_scale_sets: 0, web_apps: 0, relationships: 0,
});

export interface AnalysisResult {
  runId: string;
  /** BloodHound's post-processing (derived edges), run first. */
  postProcessing: PostProcessingResult;
  /** Seconds spent on the data-quality records and on tag membership (the phases after post-processing; on PostgreSQL they run at once). */
  dataQualitySeconds: number;
  tagMembershipSeconds: number;
}

/**
 * Post-processing, data quality and tag membership, after every ingest that ingested something
 * (the callers skip it when no document was ingested: such a run writes no record).
 */
export async function analyzeGraph(db: Db): Promise<AnalysisResult> {
  // On SQLite the analysis' temporary tables and sorts (an insert … select reading the table it
  // writes, a DISTINCT over the derived edges, recursive CTEs) spill to disk, not to memory (the
  // connection's temp_store is MEMORY): on a large graph they held hundreds of MB of RSS.
  if (db.dialect === 'sqlite') await sql`pragma temp_store = file`.execute(db.kysely);
  // On a SQLite file the connection's page cache is 16 MB during the analysis (64 MB otherwise): its
  // inserts and scans go through indexes far larger than either, and the rest of the cache was the
  // analysis' largest piece of memory (at 300,000 users: peak 357-384 -> 314-326 MB for the analysis
  // alone, the same time within the machine's noise).
  const cacheSize = db.bulk.dialect === 'sqlite' && db.bulk.path !== null
    ? Number((await sql<{ cache_size: number }>`pragma cache_size`.execute(db.kysely)).rows[0]?.cache_size)
    : null;
  const shrunk = cacheSize !== null && Number.isFinite(cacheSize);
  if (shrunk) await sql.raw(`pragma cache_size = ${ANALYSIS_CACHE_KIB}`).execute(db.kysely);
  // On a SQLite file, post-processing's commit (a million derived edges at 300,000 users) does not copy
  // the WAL into the database itself: the checkpoint thread does, while data quality and tag
  // membership run (src/graph/bulk/checkpointer.ts).
  const file = db.bulk.dialect === 'sqlite' && db.bulk.path !== null ? { conn: db.bulk.database, path: db.bulk.path } : null;
  const autoCheckpoint = file ? file.conn.pragma('wal_autocheckpoint', { simple: true }) as number : 0;
  file?.conn.pragma('wal_autocheckpoint = 0');
  try {
    const postProcessing = await postProcess(db);
    if (file) checkpointLater(file.path);
    const timed = async <T>(fn: () => Promise<T>): Promise<[T, number]> => {
      const started = performance.now();
      const value = await fn();
      return [value, (performance.now() - started) / 1000];
    };
    // The read thread (SQLite) stops when data quality is done: its memory is not held during tag membership's peak.
    const quality = () => timed(() => dataQuality(db).finally(stopReadThread));
    const tags = () => timed(() => refreshTagMemberships(db)); // asset group tag membership follows every ingest
    // Both only read the post-processed graph (and write apart): they run at once. On PostgreSQL the
    // server does most of their work, on connections of their own; on a SQLite file data quality's
    // aggregates run on a thread of their own while tag membership runs on this one (an in-memory
    // database has one connection: one after the other).
    const [[runId, dataQualitySeconds], [, tagMembershipSeconds]] = db.dialect === 'postgres' || file
      ? await bothSettled(quality(), tags())
      : [await quality(), await tags()];
    return { runId, postProcessing, dataQualitySeconds, tagMembershipSeconds };
  } finally {
    if (db.dialect === 'sqlite') await sql`pragma temp_store = memory`.execute(db.kysely);
    if (shrunk) await sql.raw(`pragma cache_size = ${cacheSize}`).execute(db.kysely);
    if (file) {
      file.conn.pragma(`wal_autocheckpoint = ${autoCheckpoint}`);
      checkpointLater(file.path);
    }
  }
}

/** The SQLite page cache of the analysis' connection (negative: KiB). */
const ANALYSIS_CACHE_KIB = -16384;

/** Both results once both have settled (neither is left running when the other fails); the first failure is thrown. */
async function bothSettled<A, B>(a: Promise<A>, b: Promise<B>): Promise<[A, B]> {
  const [x, y] = await Promise.allSettled([a, b]);
  if (x.status === 'rejected') throw x.reason;
  if (y.status === 'rejected') throw y.reason;
  return [x.value, y.value];
}

/**
 * Runs one whole-graph aggregate. On a SQLite file it runs on a read-only connection with a small
 * page cache (the sorts spill to disk) in a thread of its own (src/graph/analysis/read-thread.ts), so
 * the server's connection keeps its cache, the process its memory, and the main thread is free for
 * tag membership meanwhile; elsewhere through Kysely.
 */
async function aggregate<T>(db: Db, query: RawBuilder<T>): Promise<T[]> {
  const rows: T[] = [];
  await aggregateEach(db, query, (row) => rows.push(row));
  return rows;
}

/** As aggregate, each row handed over as it is read (on SQLite none is kept). */
async function aggregateEach<T>(db: Db, query: RawBuilder<T>, each: (row: T) => void): Promise<void> {
  const bulk = db.bulk;
  if (bulk.dialect !== 'sqlite' || bulk.path === null) {
    for (const row of (await query.execute(db.kysely)).rows) each(row);
    return;
  }
  const compiled = query.compile(db.kysely);
  for await (const row of readRowsOnThread(bulk.path, compiled.sql, compiled.parameters)) each(row as T);
}

/** JSON property access in SQL, per dialect: a boolean true test, a number (null when not a number), a string. */
function props(db: Db) {
  const pg = db.dialect === 'postgres';
  return {
    isTrue: (key: string) => (pg ? sql.raw(`(n.properties::json->>'${key}') = 'true'`) : sql.raw(`json_type(n.properties, '$.${key}') = 'true'`)),
    number: (key: string) => (pg
      ? sql.raw(`case when json_typeof(n.properties::json->'${key}') = 'number' then (n.properties::json->>'${key}')::float8 end`)
      : sql.raw(`case when json_type(n.properties, '$.${key}') in ('integer', 'real') then json_extract(n.properties, '$.${key}') end`)),
    text: (key: string) => (pg ? sql.raw(`(n.properties::json->>'${key}')`) : sql.raw(`json_extract(n.properties, '$.${key}')`)),
  };
}

/**
 * BloodHound's completeness: of the active principals (see the header), the whole percentage that has
 * one of `edgeKinds` into it; per environment and over all.
 */
async function completeness(db: Db, kind: 'User' | 'Computer', edgeKinds: string[]): Promise<Map<string | null, number> & { all: number }> {
  const tally = new CompletenessTally();
  const covered = (id: RawBuilder<unknown>) =>
    sql`case when exists (select 1 from edges e where e.end_id = ${id} and e.kind in (${sql.join(edgeKinds)})) then 1 else 0 end`;
  const each = (r: { env: string | null; ts: number; covered: number }) => tally.add(r.env, Number(r.ts), Number(r.covered) === 1);
  if (db.dialect === 'postgres') {
    // Each `properties::json->…` parses the node's whole JSON text: the three values are taken once
    // (the OFFSET 0 keeps the planner from copying them into every test), then tested as the same
    // expressions on the properties would (`#>> '{}'` is `->>` of the value itself): 40% less time.
    const windows = kind === 'Computer' ? sql`and (x.os #>> '{}') like '%WINDOWS%'` : sql``;
    const ts = sql`case when json_typeof(x.ts) = 'number' then (x.ts #>> '{}')::float8 end`;
    await aggregateEach(db, sql<{ env: string | null; ts: number; covered: number }>`
      select x.env, ${ts} as ts, ${covered(sql`x.id`)} as covered
      from (select n.id, n.environment_id as env, n.properties::json->'enabled' as enabled,
          n.properties::json->'lastlogontimestamp' as ts${kind === 'Computer' ? sql`, n.properties::json->'operatingsystem' as os` : sql``}
        from nodes n where n.kind = ${kind} offset 0) x
      where (x.enabled #>> '{}') = 'true' and ${ts} is not null ${windows}`, each);
    return tally.result();
  }
  const p = props(db);
  const windows = kind === 'Computer' ? sql`and ${p.text('operatingsystem')} like '%WINDOWS%'` : sql``;
  await aggregateEach(db, sql<{ env: string | null; ts: number; covered: number }>`
    select n.environment_id as env, ${p.number('lastlogontimestamp')} as ts, ${covered(sql`n.id`)} as covered
    from nodes n where n.kind = ${kind} and ${p.isTrue('enabled')} and ${p.number('lastlogontimestamp')} is not null ${windows}`, each);
  return tally.result();
}

/**
 * The percentages from the active principals' rows (`ts` = lastlogontimestamp, `covered` = 1 when an
 * edge of the kinds reaches it), per environment and over all. Linear in the rows, whatever their count.
 */
export function completenessOf(rows: Iterable<{ env: string | null; ts: number; covered: number }>): Map<string | null, number> & { all: number } {
  const tally = new CompletenessTally();
  for (const r of rows) tally.add(r.env, Number(r.ts), Number(r.covered) === 1);
  return tally.result();
}

/**
 * The principals' (logon time, covered) per environment as they are read, in typed arrays (9 bytes
 * a principal: at 300,000 users an array of row objects was tens of MB of the analysis' memory).
 */
class CompletenessTally {
  private readonly byEnv = new Map<string | null, { ts: Float64Array; covered: Uint8Array; n: number }>();

  add(env: string | null, ts: number, covered: boolean): void {
    let list = this.byEnv.get(env);
    if (!list) this.byEnv.set(env, (list = { ts: new Float64Array(1024), covered: new Uint8Array(1024), n: 0 }));
    if (list.n === list.ts.length) {
      const ts2 = new Float64Array(list.n * 2);
      ts2.set(list.ts);
      const covered2 = new Uint8Array(list.n * 2);
      covered2.set(list.covered);
      list.ts = ts2;
      list.covered = covered2;
    }
    list.ts[list.n] = ts;
    list.covered[list.n++] = covered ? 1 : 0;
  }

  result(): Map<string | null, number> & { all: number } {
    const lists = [...this.byEnv.values()];
    // loops, not Math.max(...list): a spread of hundreds of thousands of arguments overflows the stack
    const latestOf = (some: typeof lists) => {
      let latest = 0;
      for (const l of some) for (let i = 0; i < l.n; i++) latest = Math.max(latest, l.ts[i]);
      return latest;
    };
    const percent = (some: typeof lists) => {
      if (!some.some((l) => l.n > 0)) return 0;
      const threshold = latestOf(some) - FOURTEEN_DAYS;
      let active = 0;
      let covered = 0;
      for (const l of some) {
        for (let i = 0; i < l.n; i++) {
          if (!(l.ts[i] >= threshold)) continue;
          active++;
          covered += l.covered[i];
        }
      }
      return active ? Math.floor((100 * covered) / active) : 0;
    };
    const out = new Map([...this.byEnv].map(([env, list]) => [env, percent([list])])) as Map<string | null, number> & { all: number };
    out.all = percent(lists);
    return out;
  }
}

async function dataQuality(db: Db): Promise<string> {
  const k = db.kysely;
  const domainRows = await k.selectFrom('nodes').select(['objectid', 'properties']).where('kind', '=', 'Domain').where('is_placeholder', '=', 0).orderBy('objectid').execute();
  const domains = domainRows.filter((d) => (JSON.parse(d.properties) as Record<string, unknown>).collected === true).map((d) => d.objectid);
  const tenants = (await k.selectFrom('nodes').select('objectid').where('kind', '=', 'AZTenant').where('is_placeholder', '=', 0).orderBy('objectid').execute())
    .map((t) => t.objectid);
  const ad = new Map(domains.map((d) => [d, zeroAd()]));
  const azure = new Map(tenants.map((t) => [t, zeroAzure()]));

  for (const { env, kind, n } of await aggregate(db, sql<{ env: string | null; kind: string; n: number }>`
    select environment_id as env, kind, count(*) as n from nodes where environment_id is not null group by environment_id, kind`)) {
    const a = ad.get(env!);
    if (a && AD_KINDS[kind]) a[AD_KINDS[kind]] += Number(n);
    const z = azure.get(env!);
    if (z && AZURE_KINDS[kind]) z[AZURE_KINDS[kind]] += Number(n);
  }

  // One pass in environment order (nodes_environment_kind, then each node's edges from the
  // start-kind-end index): no sort of every edge, which took most of the analysis on a large graph.
  for (const { env, relationships, acls, sessions } of await aggregate(db, sql<{ env: string | null; relationships: number; acls: number; sessions: number }>`
    select s.environment_id as env, count(*) as relationships,
      sum(case when e.kind in (${sql.join(ACL_KINDS)}) then 1 else 0 end) as acls,
      sum(case when e.kind = 'HasSession' and s.kind = 'Computer' then 1 else 0 end) as sessions
    from nodes s join edges e on e.start_id = s.id where s.environment_id is not null
    group by s.environment_id`)) {
    const z = azure.get(env!);
    if (z) z.relationships += Number(relationships);
    const a = ad.get(env!);
    if (!a) continue;
    a.relationships += Number(relationships);
    a.acls += Number(acls);
    a.sessions += Number(sessions);
  }
  const sessions = await completeness(db, 'User', ['HasSession']);
  const localGroups = await completeness(db, 'Computer', LOCAL_GROUP_KINDS);
  for (const [sid, c] of ad) {
    c.session_completeness = sessions.get(sid) ?? 0;
    c.local_group_completeness = localGroups.get(sid) ?? 0;
  }
  const adTotal = zeroAd();
  for (const c of ad.values()) for (const key of Object.keys(adTotal) as Array<keyof AdCounts>) adTotal[key] += c[key];
  adTotal.session_completeness = sessions.all;
  adTotal.local_group_completeness = localGroups.all;
  const azureTotal = zeroAzure();
  for (const c of azure.values()) for (const key of Object.keys(azureTotal) as Array<keyof AzureCounts>) azureTotal[key] += c[key];

  const runId = randomUUID();
  const now = nowMicros();
  const stamp = { created_at: now, updated_at: now, deleted_at: null, run_id: runId };
  await k.transaction().execute(async (trx) => {
    await trx.insertInto('ad_data_quality_aggregations').values({ ...stamp, ...adTotal, domains: domains.length }).execute();
    await trx.insertInto('azure_data_quality_aggregations').values({ ...stamp, ...azureTotal, tenants: tenants.length }).execute();
    for (const [sid, c] of ad) await trx.insertInto('ad_data_quality_stats').values({ ...stamp, ...c, domain_sid: sid }).execute();
    for (const [id, c] of azure) await trx.insertInto('azure_data_quality_stats').values({ ...stamp, ...c, tenant_id: id }).execute();
  });
  return runId;
}
