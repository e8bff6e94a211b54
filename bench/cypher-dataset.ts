/**
 * The Cypher bench's realistic dataset (`npm run bench -- cypher --data sharphound`): the ingest bench's
 * generated SharpHound collection (bench/sharphound-generate.ts; 10,000 users at small scale, 300,000 at
 * large, ~1 GB) imported by `scent import` with the whole analysis (derived edges, Tier Zero, data quality),
 * so the Query Library's queries meet the properties, tags and edges they look for. The synthetic graph of
 * bench/dataset.ts has the right size but bare nodes: most library queries find nothing there (404).
 * Cached in bench/.data (SQLite: a file; PostgreSQL: a database of its own) with a manifest.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DATA_DIR, pgUrl, recreatePgDatabase, SHAPES, type Database, type ScaleName } from './dataset.ts';
import { DOMAIN_SID, sharpHoundFiles } from './sharphound-generate.ts';

const BIN = fileURLToPath(new URL('../bin/scent.js', import.meta.url));
/** Bump when the import or the analysis changes what a dataset holds. */
const VERSION = 2; // 2: the generator's Domain Admins has members

export interface SharpHoundDataset {
  version: number;
  url: string;
  users: number;
  nodes: number;
  edges: number;
  builtAt: string;
  /** Domain Admins: the shortest-path target, as the synthetic dataset's Tier Zero group is. */
  tierZeroGroup: string;
}

export async function ensureSharpHoundDataset(database: Database, scale: ScaleName, rebuild: boolean, log: (s: string) => void): Promise<SharpHoundDataset> {
  const users = SHAPES[scale].ingestUsers;
  const manifest = join(DATA_DIR, `cypher-sharphound-${database}-${users}.json`);
  if (!rebuild && existsSync(manifest)) {
    const m = JSON.parse(readFileSync(manifest, 'utf8')) as SharpHoundDataset;
    if (m.version === VERSION) {
      log(`dataset: reusing the imported SharpHound collection of ${users} users (${m.url})`);
      return m;
    }
  }
  rmSync(manifest, { force: true });
  mkdirSync(DATA_DIR, { recursive: true });
  const files = await sharpHoundFiles(users, DATA_DIR, log); // shared with the ingest bench
  let url: string;
  if (database === 'sqlite') {
    const file = join(DATA_DIR, `cypher-sharphound-${users}.sqlite`);
    for (const suffix of ['', '-wal', '-shm']) rmSync(file + suffix, { force: true });
    url = `sqlite:${file}`;
  } else {
    const name = `scent_bench_cypher_sharphound_${users}`;
    await recreatePgDatabase(name);
    url = pgUrl(name);
  }
  log(`dataset: importing ${files.length} SharpHound files (${users} users) with the analysis into ${url}`);
  const started = Date.now();
  const run = spawnSync(process.execPath, [BIN, 'import', '--database', url, ...files], { encoding: 'utf8', maxBuffer: 64 << 20 });
  if (run.status !== 0) throw new Error(`scent import failed (${run.status}): ${run.stderr || run.stdout}`);
  // The whole import's line (each file's line before it has its own counts).
  const summary = /files ingested in [\d.]+ s: (\d+) nodes, (\d+) edges/.exec(run.stdout);
  const derived = /(\d+) derived edges/.exec(run.stdout);
  log(`dataset: ${run.stdout.trim().split('\n').pop()} (${Math.round((Date.now() - started) / 1000)} s)`);
  const m: SharpHoundDataset = {
    version: VERSION, url, users,
    nodes: Number(summary?.[1] ?? 0),
    edges: Number(summary?.[2] ?? 0) + Number(derived?.[1] ?? 0),
    builtAt: new Date().toISOString(),
    tierZeroGroup: `${DOMAIN_SID}-512`,
  };
  writeFileSync(manifest, JSON.stringify(m, null, 2));
  return m;
}
