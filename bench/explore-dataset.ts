/**
 * The graph benchmark's dataset (bench/explore.bench.ts): an Active-Directory-shaped graph written
 * straight into the tables, deterministic (seeded), about 5 edges per node:
 *   kinds     1 Domain; per 100 nodes: 1 OU, 1 Container or GPO, 8 Groups, 20 Computers, 70 Users
 *   Contains  every object from its OU (OUs from the domain or an earlier OU)             ~1.0 per node
 *   MemberOf  users: Domain Users (primary group) + 2 groups; computers: Domain Computers
 *             (+1 group for half); groups: one earlier group                                ~2.5
 *   HasSession computer → user                                                             ~0.85
 *   AdminTo   one group per computer, and a few users                                      ~0.25
 *   ACL edges GenericAll / GenericWrite / WriteDacl / ForceChangePassword / AddMember / Owns ~0.5
 *   GPLink    every GPO to 4 OUs
 * Tier Zero: a selector seeding Domain Admins, Enterprise Admins and Administrators
 * (children expansion), refreshed by the real membership code. 40 users are Domain Admins.
 * SQLite: bench/.data/explore-sqlite-<scale>.sqlite; PostgreSQL: database <prefix>_<scale> (copied from the
 * SQLite file in batches; prefix SCENT_BENCH_PG_DATABASE, default scent_explore, so checkouts sharing one
 * PostgreSQL server keep apart). A manifest beside them says the dataset is complete.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import { createDb } from '../src/db/create-db.ts';
import { migrateToLatest } from '../src/db/migrate.ts';
import { refreshTagMembership } from '../src/modules/asset-group-tags/membership.service.ts';
import { DATA_DIR, pgUrl, recreatePgDatabase } from './dataset.ts';

export const EXPLORE_SCALES = { small: 50_000, large: 1_000_000 } as const;
export type ExploreScale = keyof typeof EXPLORE_SCALES;
export const SID = 'S-1-5-21-4000-5000-6000';
const VERSION = 2;
const PG_PREFIX = process.env.SCENT_BENCH_PG_DATABASE ?? 'scent_explore';

/** Well-known node ids. */
export const WK = { domain: 1, domainAdmins: 2, domainUsers: 3, domainComputers: 4, enterpriseAdmins: 5, administrators: 6 } as const;
const FIRST = 10;

export interface ExploreManifest {
  version: number;
  scale: ExploreScale;
  nodes: number;
  edges: number;
  url: string;
  builtAt: string;
  tierZeroGroups: string[];
}

export function kindOf(i: number): string {
  if (i === WK.domain) return 'Domain';
  if (i < FIRST) return 'Group';
  const r = i % 100;
  if (r === 0) return 'OU';
  if (r === 1) return i % 200 === 1 ? 'GPO' : 'Container';
  if (r < 10) return 'Group';
  if (r < 30) return 'Computer';
  return 'User';
}

export function objectIdOf(i: number): string {
  if (i === WK.domain) return SID;
  const rid: Record<number, string> = { 2: '512', 3: '513', 4: '515', 5: '519' };
  if (rid[i]) return `${SID}-${rid[i]}`;
  if (i === WK.administrators) return 'BENCH.LOCAL-S-1-5-32-544';
  const k = kindOf(i);
  if (k === 'OU' || k === 'GPO' || k === 'Container') return `${(i * 2654435761 % 4294967296).toString(16).padStart(8, '0').toUpperCase()}-0000-4000-8000-${String(i).padStart(12, '0')}`;
  return `${SID}-${100000 + i}`;
}

export function nameOf(i: number): string {
  const special: Record<number, string> = {
    1: 'BENCH.LOCAL', 2: 'DOMAIN ADMINS@BENCH.LOCAL', 3: 'DOMAIN USERS@BENCH.LOCAL', 4: 'DOMAIN COMPUTERS@BENCH.LOCAL',
    5: 'ENTERPRISE ADMINS@BENCH.LOCAL', 6: 'ADMINISTRATORS@BENCH.LOCAL',
  };
  if (special[i]) return special[i];
  if (i < FIRST) return `GROUP${i}@BENCH.LOCAL`;
  const k = kindOf(i);
  return k === 'Computer' ? `COMP${i}.BENCH.LOCAL` : `${k.toUpperCase()}${i}@BENCH.LOCAL`;
}

/** A deterministic generator (LCG), so every build of a scale is the same graph. */
function rng(seed: number) {
  let s = seed >>> 0;
  return (n: number) => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return Math.floor((s / 4294967296) * n);
  };
}

/** Calls `edge(start, kind, end, props)` for every edge of the graph of n nodes. */
export function forEachEdge(n: number, edge: (s: number, kind: string, e: number, props: string) => void): void {
  const rand = rng(7);
  const of = (kind: string, r: number) => {
    // The r-th node of a kind, by the period-100 layout (wrapped to the graph).
    const slots: Record<string, number[]> = { OU: [0], Group: [2, 3, 4, 5, 6, 7, 8, 9], Computer: Array.from({ length: 20 }, (_, k) => 10 + k), User: Array.from({ length: 70 }, (_, k) => 30 + k) };
    const s = slots[kind];
    const blocks = Math.floor((n - FIRST) / 100);
    const id = 100 * (1 + (Math.floor(r / s.length) % Math.max(1, blocks - 1))) + s[r % s.length];
    return id <= n ? id : FIRST + (id % (n - FIRST));
  };
  const count = (kind: string) => Math.floor((n - FIRST) / 100) * ({ OU: 1, Group: 8, Computer: 20, User: 70 } as Record<string, number>)[kind];
  const ous = count('OU');
  const groups = count('Group');
  const computers = count('Computer');
  const users = count('User');
  const ACL = ['GenericAll', 'GenericWrite', 'WriteDacl', 'ForceChangePassword', 'AddMember', 'Owns'];
  for (let g = 2; g <= 6; g++) edge(WK.domain, 'Contains', g, '{}');
  for (let i = FIRST; i <= n; i++) {
    const k = kindOf(i);
    if (k === 'OU') {
      const parent = i < 1000 || rand(3) === 0 ? WK.domain : of('OU', rand(Math.max(1, Math.floor(i / 100) - 1)));
      edge(parent, 'Contains', parent === i ? WK.domain : i, '{}');
      continue;
    }
    edge(of('OU', rand(ous)), 'Contains', i, '{}');
    if (k === 'User') {
      edge(i, 'MemberOf', WK.domainUsers, '{"isprimarygroup":true}');
      edge(i, 'MemberOf', of('Group', rand(groups)), '{}');
      edge(i, 'MemberOf', of('Group', rand(groups)), '{}');
    } else if (k === 'Computer') {
      edge(i, 'MemberOf', WK.domainComputers, '{"isprimarygroup":true}');
      if (rand(2) === 0) edge(i, 'MemberOf', of('Group', rand(groups)), '{}');
      edge(of('Group', rand(groups)), 'AdminTo', i, '{}');
      if (rand(20) === 0) edge(of('User', rand(users)), 'AdminTo', i, '{}');
      for (let s = 0; s < 5; s++) if (s < 4 || rand(4) === 0) edge(i, 'HasSession', of('User', rand(users)), '{}');
    } else if (k === 'Group') {
      if (i > 1000) edge(i, 'MemberOf', of('Group', rand(Math.max(1, Math.floor((i / 100) * 8) - 8))), '{}');
    } else if (k === 'GPO') {
      for (let l = 0; l < 4; l++) edge(i, 'GPLink', of('OU', rand(ous)), `{"enforced":${rand(5) === 0}}`);
    }
    // ACL edges: about one for every second node.
    if (rand(2) === 0) {
      const target = rand(10) === 0 ? of('Group', rand(groups)) : of(rand(3) === 0 ? 'Computer' : 'User', rand(rand(3) === 0 ? computers : users));
      if (target !== i) edge(i, ACL[rand(ACL.length)], target, '{"isacl":true}');
    }
  }
  // Tier Zero: 40 Domain Admins, Domain Admins in Administrators, Enterprise Admins in Administrators.
  for (let a = 0; a < 40; a++) edge(of('User', rand(users)), 'MemberOf', WK.domainAdmins, '{}');
  edge(WK.domainAdmins, 'MemberOf', WK.administrators, '{}');
  edge(WK.enterpriseAdmins, 'MemberOf', WK.administrators, '{}');
  edge(WK.domainAdmins, 'GenericAll', WK.domain, '{"isacl":true}');
}

function manifestPath(database: string, scale: ExploreScale) {
  return `${DATA_DIR}explore-${database}-${scale}.json`;
}

export async function ensureExploreDataset(database: 'sqlite' | 'postgres', scale: ExploreScale, rebuild: boolean, log: (s: string) => void): Promise<ExploreManifest> {
  mkdirSync(DATA_DIR, { recursive: true });
  const path = manifestPath(database, scale);
  if (!rebuild && existsSync(path)) {
    const m = JSON.parse(readFileSync(path, 'utf8')) as ExploreManifest;
    const place = database === 'postgres' ? pgUrl(`${PG_PREFIX}_${scale}`) : m.url;
    if (m.version === VERSION && m.nodes === EXPLORE_SCALES[scale] && m.url === place) {
      log(`dataset: reusing explore ${database}/${scale} built ${m.builtAt}`);
      return m;
    }
  }
  rmSync(path, { force: true });
  const file = `${DATA_DIR}explore-sqlite-${scale}.sqlite`;
  const sqliteManifest = manifestPath('sqlite', scale);
  const current = existsSync(sqliteManifest) && (JSON.parse(readFileSync(sqliteManifest, 'utf8')) as ExploreManifest).version === VERSION;
  if (rebuild || !current) {
    rmSync(sqliteManifest, { force: true });
    writeFileSync(sqliteManifest, JSON.stringify(await generateSqlite(file, scale, log), null, 2));
  }
  const base = JSON.parse(readFileSync(sqliteManifest, 'utf8')) as ExploreManifest;
  if (database === 'sqlite') return base;
  const name = `${PG_PREFIX}_${scale}`;
  await recreatePgDatabase(name);
  const url = pgUrl(name);
  await copyToPostgres(file, url, log);
  const manifest = { ...base, url, builtAt: new Date().toISOString() };
  writeFileSync(path, JSON.stringify(manifest, null, 2));
  return manifest;
}

async function generateSqlite(file: string, scale: ExploreScale, log: (s: string) => void): Promise<ExploreManifest> {
  for (const suffix of ['', '-wal', '-shm']) rmSync(file + suffix, { force: true });
  const n = EXPLORE_SCALES[scale];
  const url = `sqlite:${file}`;
  let db = createDb(url);
  await migrateToLatest(db);
  await db.close();
  const raw = new SQLite(file);
  raw.pragma('journal_mode = WAL');
  raw.pragma('synchronous = OFF');
  raw.pragma('cache_size = -262144');
  const now = Date.now() * 1000;
  let t = Date.now();
  const insertNode = raw.prepare(`insert into nodes (id, objectid, kind, kinds, name, environment_id, properties, source_kind, is_placeholder, last_seen)
    values (?, ?, ?, ?, ?, ?, ?, 'Base', 0, ?)`);
  raw.transaction(() => {
    for (let i = 1; i <= n; i++) {
      const kind = kindOf(i);
      const name = nameOf(i);
      const objectid = objectIdOf(i);
      const props: Record<string, unknown> = { name, objectid, domainsid: SID, domain: 'BENCH.LOCAL', distinguishedname: `CN=${name.split('@')[0]},DC=BENCH,DC=LOCAL` };
      if (kind === 'User' || kind === 'Computer') Object.assign(props, { enabled: true, lastlogon: 1700000000 + i });
      if (kind === 'OU') props.blocksinheritance = i % 700 === 0;
      insertNode.run(i, objectid, kind, JSON.stringify([kind, 'Base']), name, SID, JSON.stringify(props), now);
    }
  })();
  log(`nodes: ${n} in ${Date.now() - t} ms`);
  t = Date.now();
  const insertEdge = raw.prepare(`insert or ignore into edges (start_id, end_id, kind, properties, last_seen) values (?, ?, ?, ?, ?)`);
  let pending: Array<[number, string, number, string]> = [];
  const flush = raw.transaction(() => {
    for (const [s, k, e, p] of pending) insertEdge.run(s, e, k, p, now);
  });
  forEachEdge(n, (s, k, e, p) => {
    if (s === e) return;
    pending.push([s, k, e, p]);
    if (pending.length === 200_000) {
      flush();
      pending = [];
    }
  });
  flush();
  const edges = (raw.prepare('select count(*) as c from edges').get() as { c: number }).c;
  log(`edges: ${edges} in ${Date.now() - t} ms`);
  raw.prepare(`insert into asset_group_tag_selectors (asset_group_tag_id, name, description, expansion, created_at, created_by, updated_at, updated_by)
    values (1, 'bench tier zero', '', 2, ?, 'bench', ?, 'bench')`).run(now, now);
  const seed = raw.prepare(`insert into asset_group_tag_selector_seeds (selector_id, type, value) values (1, 1, ?)`);
  for (const id of [WK.domainAdmins, WK.enterpriseAdmins, WK.administrators]) seed.run(objectIdOf(id));
  raw.pragma('wal_checkpoint(TRUNCATE)');
  raw.exec('analyze');
  raw.close();
  t = Date.now();
  db = createDb(url);
  await refreshTagMembership(db, 1);
  await db.close();
  log(`tier zero membership: ${Date.now() - t} ms`);
  return {
    version: VERSION, scale, nodes: n, edges, url, builtAt: new Date().toISOString(),
    tierZeroGroups: [WK.domainAdmins, WK.enterpriseAdmins, WK.administrators].map(objectIdOf),
  };
}

/** Copies the graph tables of the SQLite dataset into a migrated PostgreSQL database, 50,000 rows a statement. */
async function copyToPostgres(file: string, url: string, log: (s: string) => void): Promise<void> {
  const db = createDb(url);
  await migrateToLatest(db);
  await db.close();
  const raw = new SQLite(file, { readonly: true });
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const t = Date.now();
  try {
    await client.query('set synchronous_commit = off');
    const copy = async (table: string, columns: string[], types: string[]) => {
      const rows = raw.prepare(`select ${columns.join(', ')} from ${table} order by rowid`).raw(true).iterate() as IterableIterator<unknown[]>;
      let batch: unknown[][] = columns.map(() => []);
      let size = 0;
      const send = async () => {
        if (!size) return;
        await client.query(`insert into ${table} (${columns.join(', ')}) select * from unnest(${types.map((ty, k) => `$${k + 1}::${ty}[]`).join(', ')})`, batch);
        batch = columns.map(() => []);
        size = 0;
      };
      for (const r of rows) {
        r.forEach((v, k) => batch[k].push(v));
        if (++size === 50_000) await send();
      }
      await send();
      if (columns[0] === 'id') await client.query(`select setval(pg_get_serial_sequence('${table}', 'id'), (select max(id) from ${table}))`);
    };
    await copy('nodes', ['id', 'objectid', 'kind', 'kinds', 'name', 'environment_id', 'properties', 'source_kind', 'is_placeholder', 'last_seen'],
      ['bigint', 'text', 'text', 'text', 'text', 'text', 'text', 'text', 'integer', 'bigint']);
    await copy('edges', ['id', 'start_id', 'end_id', 'kind', 'properties', 'last_seen'], ['bigint', 'bigint', 'bigint', 'text', 'text', 'bigint']);
    // The selectors as the SQLite dataset has them (its migrations' defaults and the bench's), every column both sides have.
    await client.query('delete from asset_group_tag_selector_seeds');
    await client.query('delete from asset_group_tag_selectors');
    for (const table of ['asset_group_tag_selectors', 'asset_group_tag_selector_seeds']) {
      const here = new Set((raw.prepare(`pragma table_info(${table})`).all() as Array<{ name: string }>).map((c) => c.name));
      const { rows } = await client.query<{ name: string; type: string }>(
        `select column_name as name, data_type as type from information_schema.columns where table_schema = current_schema() and table_name = $1 order by ordinal_position`, [table]);
      const columns = rows.filter((c) => here.has(c.name));
      await copy(table, columns.map((c) => c.name), columns.map((c) => c.type));
    }
    // As autovacuum leaves a table after a bulk insert: GIN pending lists merged (every trigram search scanned them), visibility maps set.
    await client.query('vacuum analyze');
  } finally {
    await client.end();
    raw.close();
  }
  log(`copied to PostgreSQL in ${Date.now() - t} ms`);
  const app = createDb(url);
  await refreshTagMembership(app, 1);
  await app.close();
}
