/**
 * The benchmark dataset, one per (database, scale), built once and reused:
 *   SQLite      bench/.data/sqlite-<scale>.sqlite
 *   PostgreSQL  database scent_bench_<scale> on postgres://postgres@127.0.0.1:5432 (created here; SCENT_BENCH_PG_DATABASE=NAME:
 *               NAME_<scale> instead, for checkouts that share one PostgreSQL server)
 * with a manifest bench/.data/<database>-<scale>.json (shape, build time, client ids) telling a later
 * run that the dataset is complete. Contents (large / small):
 *   graph        1,000,000 / 50,000 nodes, 5,000,000 / 250,000 edges (bench/graph-generate.ts layout:
 *                Tier Zero tag of 200,000 / 10,000 members, a CertTemplate with 10,000 / 1,000 controllers,
 *                the rest random HasSession edges)
 *   data quality 20,000 / 2,000 records (a quarter in each of the four tables), all in the last 10 days
 *   collection   1,000 / 100 clients x 100 jobs (10 ready per client), 200 OU nodes, 1 event
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { sql } from 'kysely';
import { createDb, type Db } from '../src/db/create-db.ts';
import { migrateToLatest } from '../src/db/migrate.ts';
import { refreshTagMembership } from '../src/modules/asset-group-tags/membership.service.ts';
import { DOMAIN, TEMPLATE_OBJECTID, generateGraph } from './graph-generate.ts';

export type Database = 'sqlite' | 'postgres';
export type ScaleName = 'small' | 'large';

export interface Shape {
  nodes: number;
  edges: number;
  tagMembers: number;
  controllers: number;
  dataQuality: number;
  clients: number;
  jobsPerClient: number;
  readyPerClient: number;
  /** SharpHound users for the ingest case (bench/sharphound-generate.ts; ~3.5 MB per 1,000 users: ~1 GB at large). */
  ingestUsers: number;
}

export const SHAPES: Record<ScaleName, Shape> = {
  large: { nodes: 1_000_000, edges: 5_000_000, tagMembers: 200_000, controllers: 10_000, dataQuality: 20_000, clients: 1_000, jobsPerClient: 100, readyPerClient: 10, ingestUsers: 300_000 },
  small: { nodes: 50_000, edges: 250_000, tagMembers: 10_000, controllers: 1_000, dataQuality: 2_000, clients: 100, jobsPerClient: 100, readyPerClient: 10, ingestUsers: 10_000 },
};

export const PG_ADMIN_URL = process.env.SCENT_BENCH_PG ?? 'postgres://postgres@127.0.0.1:5432/postgres';
export const DATA_DIR = new URL('./.data/', import.meta.url).pathname;
/** PostgreSQL datasets are databases <prefix>_<scale>: several checkouts on one server each set their own prefix. */
const PG_DATABASE = process.env.SCENT_BENCH_PG_DATABASE ?? 'scent_bench';
/** 3: the graph generator's random numbers no longer cycle (datasets of version 2 hold far fewer edges than their shape). */
const MANIFEST_VERSION = 3;
/** Data-quality records are dated relative to the build; the endpoint's default range is the last 30 days. */
const MAX_AGE_DAYS = 14;

export interface Manifest {
  version: number;
  database: Database;
  scale: ScaleName;
  shape: Shape;
  url: string;
  builtAt: string;
  buildSeconds: number;
  clientIds: string[];
  eventId: number;
  tagId: number;
  templateObjectId: string;
}

export function pgUrl(name: string): string {
  const u = new URL(PG_ADMIN_URL);
  u.pathname = `/${name}`;
  return u.toString();
}

export async function recreatePgDatabase(name: string): Promise<void> {
  const admin = new pg.Client({ connectionString: PG_ADMIN_URL });
  await admin.connect();
  try {
    await admin.query(`drop database if exists ${name} with (force)`);
    await admin.query(`create database ${name}`);
  } finally {
    await admin.end();
  }
}

function manifestPath(database: Database, scale: ScaleName) {
  return `${DATA_DIR}${database}-${scale}.json`;
}

export async function ensureDataset(database: Database, scale: ScaleName, rebuild: boolean, log: (s: string) => void): Promise<Manifest> {
  mkdirSync(DATA_DIR, { recursive: true });
  const path = manifestPath(database, scale);
  if (!rebuild && existsSync(path)) {
    const m = JSON.parse(readFileSync(path, 'utf8')) as Manifest;
    const ageDays = (Date.now() - Date.parse(m.builtAt)) / 86_400_000;
    const place = database === 'postgres' ? pgUrl(`${PG_DATABASE}_${scale}`) : m.url;
    if (m.version === MANIFEST_VERSION && JSON.stringify(m.shape) === JSON.stringify(SHAPES[scale]) && ageDays < MAX_AGE_DAYS && m.url === place) {
      log(`dataset: reusing ${database}/${scale} built ${m.builtAt} (${m.url})`);
      return m;
    }
    log(`dataset: ${database}/${scale} is stale (version, shape, place or older than ${MAX_AGE_DAYS} days): rebuilding`);
  }
  rmSync(path, { force: true });
  const shape = SHAPES[scale];
  const started = Date.now();
  let url: string;
  if (database === 'sqlite') {
    const file = `${DATA_DIR}sqlite-${scale}.sqlite`;
    for (const suffix of ['', '-wal', '-shm']) rmSync(file + suffix, { force: true });
    url = `sqlite:${file}`;
    log(`dataset: generating the graph into ${file}`);
    await generateGraph(file, { nodes: shape.nodes, tagMembers: shape.tagMembers, controllers: shape.controllers, noise: shape.edges - shape.tagMembers - shape.controllers }, log);
  } else {
    const name = `${PG_DATABASE}_${scale}`;
    await recreatePgDatabase(name);
    url = pgUrl(name);
    log(`dataset: generating the graph into PostgreSQL database ${name}`);
    await generateGraphPg(url, shape, log);
  }
  const db = createDb(url);
  try {
    let t = Date.now();
    await seedDataQuality(db, shape.dataQuality);
    log(`data quality: ${shape.dataQuality} records in ${Date.now() - t} ms`);
    t = Date.now();
    const { clientIds, eventId } = await seedCollection(db, shape);
    log(`collection: ${shape.clients} clients, ${shape.clients * shape.jobsPerClient} jobs in ${Date.now() - t} ms`);
    await sql`analyze`.execute(db.kysely);
    const manifest: Manifest = {
      version: MANIFEST_VERSION, database, scale, shape, url, builtAt: new Date().toISOString(),
      buildSeconds: Math.round((Date.now() - started) / 1000), clientIds, eventId, tagId: 1, templateObjectId: TEMPLATE_OBJECTID,
    };
    writeFileSync(path, JSON.stringify(manifest, null, 2));
    log(`dataset: ${database}/${scale} built in ${manifest.buildSeconds} s`);
    return manifest;
  } finally {
    await db.close();
  }
}

/**
 * The PostgreSQL twin of graph-generate.ts: the same node ids, kinds, names and properties (byte for byte), written by
 * the server itself (generate_series), then the same selector and the real membership refresh.
 */
async function generateGraphPg(url: string, shape: Shape, log: (s: string) => void): Promise<void> {
  const db = createDb(url);
  await migrateToLatest(db);
  await db.close();
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const now = Date.now() * 1000;
  const TAG_GROUP = 2, TEMPLATE = 3, CTRL_GROUP = 4, FIRST = 10;
  try {
    await client.query(`set synchronous_commit = off`);
    await client.query(`set maintenance_work_mem = '256MB'`);
    let t = Date.now();
    const kind = `case when i = 1 then 'Domain' when i in (${TAG_GROUP}, ${CTRL_GROUP}) then 'Group' when i = ${TEMPLATE} then 'CertTemplate'
      when i % 10 = 0 then 'Group' when i % 10 = 1 then 'Computer' else 'User' end`;
    const name = `case when i = ${TAG_GROUP} then 'TIER ZERO ADMINS@BENCH.LOCAL' when i = ${CTRL_GROUP} then 'TEMPLATE ENROLLERS@BENCH.LOCAL'
      when i = ${TEMPLATE} then 'BENCHTEMPLATE@BENCH.LOCAL' else upper(k) || i || '@BENCH.LOCAL' end`;
    const objectid = `case when i = 1 then '${DOMAIN}' when i = ${TEMPLATE} then '${TEMPLATE_OBJECTID}' else '${DOMAIN}-' || i end`;
    const BATCH = 250_000;
    for (let start = 1; start <= shape.nodes; start += BATCH) {
      const end = Math.min(start + BATCH - 1, shape.nodes);
      await client.query(`insert into nodes (id, objectid, kind, kinds, name, environment_id, properties, source_kind, is_placeholder, last_seen)
        select i, oid, k, '["' || k || '","Base"]', n, '${DOMAIN}',
          '{"name":"' || n || '","objectid":"' || oid || '","domainsid":"${DOMAIN}","enabled":true,"lastlogon":' || (1700000000 + i) || ',"description":null}',
          'Base', 0, ${now}
        from (select i, k, ${name} as n, ${objectid} as oid from (select i, ${kind} as k from generate_series(${start}, ${end}) as i) a) b`);
    }
    await client.query(`select setval(pg_get_serial_sequence('nodes', 'id'), ${shape.nodes})`);
    log(`nodes: ${shape.nodes} in ${Date.now() - t} ms`);
    t = Date.now();
    await client.query(`insert into edges (start_id, end_id, kind, properties, last_seen)
      select ${FIRST} + i, ${TAG_GROUP}, 'MemberOf', '{}', ${now} from generate_series(0, ${shape.tagMembers - 2}) as i`);
    await client.query(`insert into edges (start_id, end_id, kind, properties, last_seen) values (${CTRL_GROUP}, ${TEMPLATE}, 'GenericAll', '{}', ${now})`);
    await client.query(`insert into edges (start_id, end_id, kind, properties, last_seen)
      select ${shape.nodes} - i, ${CTRL_GROUP}, 'MemberOf', '{}', ${now} from generate_series(0, ${shape.controllers - 2}) as i`);
    const noise = shape.edges - shape.tagMembers - shape.controllers;
    const span = shape.nodes - FIRST;
    for (let start = 0; start < noise; start += 1_000_000) {
      const end = Math.min(start + 1_000_000, noise) - 1;
      // Deterministic pseudo-random pairs (multiplicative hashing); duplicates are skipped like INSERT OR IGNORE.
      await client.query(`insert into edges (start_id, end_id, kind, properties, last_seen)
        select ${FIRST} + (i * 2654435761) % ${span}, ${FIRST} + (i * 40503 + 12345) % ${span}, 'HasSession', '{}', ${now}
        from generate_series(${start}::bigint, ${end}::bigint) as i
        on conflict do nothing`);
    }
    log(`edges: ${shape.edges} in ${Date.now() - t} ms`);
    await client.query(`insert into asset_group_tag_selectors (asset_group_tag_id, name, description, expansion, created_at, created_by, updated_at, updated_by)
      values (1, 'bench', '', 2, ${now}, 'bench', ${now}, 'bench')`);
    const sel = await client.query(`select max(id) as id from asset_group_tag_selectors`);
    await client.query(`insert into asset_group_tag_selector_seeds (selector_id, type, value) values ($1, 1, $2)`, [sel.rows[0].id, `${DOMAIN}-${TAG_GROUP}`]);
    await client.query('analyze');
  } finally {
    await client.end();
  }
  const t = Date.now();
  const app = createDb(url);
  await refreshTagMembership(app, 1);
  await app.close();
  log(`membership refresh (${shape.tagMembers} members): ${Date.now() - t} ms`);
}

async function seedDataQuality(db: Db, total: number): Promise<void> {
  const now = Date.now() * 1000;
  const per = Math.floor(total / 4);
  const span = 10 * 86_400_000_000;
  const AD = ['users', 'groups', 'computers', 'ous', 'containers', 'gpos', 'aiacas', 'rootcas', 'enterprisecas', 'ntauthstores', 'certtemplates', 'acls', 'sessions', 'relationships'];
  const AZURE = ['users', 'groups', 'apps', 'service_principals', 'devices', 'management_groups', 'subscriptions', 'resource_groups', 'vms', 'key_vaults', 'relationships'];
  const counts = (cols: string[], i: number) => Object.fromEntries(cols.map((c, k) => [c, (i * 31 + k * 7) % 5000]));
  const tables: Array<[string, (i: number) => Record<string, unknown>]> = [
    ['ad_data_quality_aggregations', (i) => ({ ...counts(AD, i), domains: 1 + (i % 5), session_completeness: i % 101, local_group_completeness: (i * 3) % 101 })],
    ['ad_data_quality_stats', (i) => ({ ...counts(AD, i), domain_sid: `${DOMAIN.slice(0, -4)}${3000 + (i % 20)}`, session_completeness: i % 101, local_group_completeness: (i * 3) % 101 })],
    ['azure_data_quality_aggregations', (i) => ({ ...counts(AZURE, i), tenants: 1 + (i % 3) })],
    ['azure_data_quality_stats', (i) => ({ ...counts(AZURE, i), tenant_id: `00000000-0000-4000-8000-${String(i % 20).padStart(12, '0')}` })],
  ];
  await db.kysely.transaction().execute(async (trx) => {
    for (const [table, row] of tables) {
      let batch: Array<Record<string, unknown>> = [];
      for (let i = 0; i < per; i++) {
        const at = now - span + Math.floor((span * i) / per);
        batch.push({ run_id: randomUUID(), ...row(i), created_at: at, updated_at: at, deleted_at: null });
        if (batch.length === 500 || i === per - 1) {
          await trx.insertInto(table as never).values(batch as never).execute();
          batch = [];
        }
      }
    }
  });
}

async function seedCollection(db: Db, shape: Shape): Promise<{ clientIds: string[]; eventId: number }> {
  const now = Date.now() * 1000;
  const stamp = { created_at: now, updated_at: now, deleted_at: null };
  const ids = Array.from({ length: shape.clients }, () => randomUUID());
  const ous = Array.from({ length: 200 }, (_, i) => `OU-${String(i).padStart(4, '0')}-0000-4000-8000-000000000000`);
  const off = { session_collection: 0, local_group_collection: 1, ad_structure_collection: 1, cert_services_collection: 0, ca_registry_collection: 0, dc_registry_collection: 0, all_trusted_domains: 0 } as const;
  let eventId = 0;
  await db.kysely.transaction().execute(async (trx) => {
    const nodes = ous.map((o, i) => ({ objectid: o, kind: 'OU', kinds: '["OU","Base"]', name: `OU${i}@BENCH.LOCAL`, environment_id: DOMAIN,
      properties: JSON.stringify({ name: `OU${i}@BENCH.LOCAL`, distinguishedname: `OU=OU${i},DC=BENCH,DC=LOCAL` }), source_kind: 'Base', is_placeholder: 0 as const, last_seen: now }));
    for (let i = 0; i < nodes.length; i += 100) await trx.insertInto('nodes').values(nodes.slice(i, i + 100)).execute();
    for (let i = 0; i < ids.length; i += 200) {
      await trx.insertInto('clients').values(ids.slice(i, i + 200).map((id, k) => ({
        id, name: `collector-${i + k}`, type: 'sharphound', domain_controller: 'dc01.bench.local', ip_address: '', hostname: '',
        last_checkin: null, current_job_id: null, ...stamp,
      }))).execute();
    }
    const event = await trx.insertInto('client_events').values({
      client_id: ids[0], title: 'nightly', rrule: 'DTSTART:20240101T020000Z\nRRULE:FREQ=DAILY;INTERVAL=1',
      ous: JSON.stringify(ous.slice(0, 3)), domains: JSON.stringify([DOMAIN]), next_run_at: now + 86_400_000_000, ...off, ...stamp,
    } as never).returning('id' as never).executeTakeFirstOrThrow();
    eventId = Number((event as { id: number }).id);
    let batch: Array<Record<string, unknown>> = [];
    for (let c = 0; c < shape.clients; c++) {
      for (let j = 0; j < shape.jobsPerClient; j++) {
        const ready = j < shape.readyPerClient;
        const at = now - (shape.jobsPerClient - j) * 3_600_000_000;
        batch.push({
          client_id: ids[c], event_id: null, event_title: '', execution_time: at,
          start_time: ready ? null : at + 1_000_000, end_time: ready ? null : at + 60_000_000, last_ingest: null,
          status: ready ? 0 : 2, status_message: ready ? '' : 'done', log_path: null, domain_controller: 'dc01.bench.local',
          ous: JSON.stringify([ous[(c + j) % ous.length], ous[(c + j + 7) % ous.length]]), domains: JSON.stringify([DOMAIN]),
          ...off, ...stamp,
        });
        if (batch.length === 400) {
          await trx.insertInto('client_jobs').values(batch as never).execute();
          batch = [];
        }
      }
    }
    if (batch.length) await trx.insertInto('client_jobs').values(batch as never).execute();
  });
  return { clientIds: ids, eventId };
}
