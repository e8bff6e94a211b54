/**
 * `npm run bench -- cypher [--database sqlite|postgres] [--scale small|large] [--data generated|sharphound] [--runs N] [--paths N] [--rebuild]
 *   [--only REGEX] [--suffix S]`
 *
 * Every Active Directory query of BloodHound's Query Library, N distinct runs each (default 3), then
 * `shortestPath` from random users to the dataset's Tier Zero group (the "Domain Admins" of the
 * generated graph), through POST /api/v2/graphs/cypher on the shared bench dataset (bench/dataset.ts),
 * in-process (app.inject: the whole request path, no socket), and the same (user, group) pairs through
 * GET /api/v2/graphs/shortest-path. Targets (issue 16, large scale, SQLite): median library query
 * <= 100 ms, p95 <= 1 s, none killed by the 30 s deadline; Cypher shortestPath within 2x of the route.
 * Writes bench/results/<date>-<database>-<scale>-cypher<S>.md. `--only REGEX`: the library queries whose name
 * matches (to profile a few: `node --cpu-prof --import tsx bench/run.ts cypher ... --only '...'`); no file is written.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { buildApp } from '../src/app.ts';
import { issueSession } from '../src/auth/sessions.ts';
import { testConfig } from '../src/config.ts';
import { createDb } from '../src/db/create-db.ts';
import { migrateToLatest } from '../src/db/migrate.ts';
import { AD_QUERIES } from '../src/cypher/library.test-helpers.ts';
import { AD_ATTACK_PATHS } from '../src/cypher/macros.ts';
import { createUser } from '../src/modules/users/users.service.ts';
import { DOMAIN } from './graph-generate.ts';
import { ensureDataset, type Database, type ScaleName } from './dataset.ts';
import { ensureSharpHoundDataset } from './cypher-dataset.ts';

const SECRET = 'bench-secret-that-is-long-enough-for-hs256!!';

function option(args: string[], name: string, fallback: string): string {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && args[i + 1] !== undefined ? args[i + 1] : fallback;
}

const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
const median = (xs: number[]) => quantile([...xs].sort((a, b) => a - b), 0.5);

export async function run(args: string[]): Promise<void> {
  const database = option(args, 'database', 'sqlite') as Database;
  const scale = option(args, 'scale', 'small') as ScaleName;
  const runs = Number(option(args, 'runs', '3'));
  const pathRuns = Number(option(args, 'paths', '20'));
  // --data generated (default): the shared synthetic graph of bench/dataset.ts, 1M nodes / 5M edges at large scale,
  // bare nodes; --data sharphound: an imported, analysed SharpHound collection (bench/cypher-dataset.ts).
  const data = option(args, 'data', 'generated');
  if (data !== 'generated' && data !== 'sharphound') throw new Error(`--data must be generated or sharphound, got ${data}`);
  const only = args.includes('--only') ? new RegExp(option(args, 'only', '')) : null;
  const suffix = option(args, 'suffix', '');
  const log = (s: string) => console.log(s);
  const manifest = data === 'sharphound'
    ? await ensureSharpHoundDataset(database, scale, args.includes('--rebuild'), log).then((m) => ({ url: m.url, nodes: m.nodes, edges: m.edges, target: m.tierZeroGroup, label: `an imported SharpHound collection of ${m.users} users` }))
    : await ensureDataset(database, scale, args.includes('--rebuild'), log).then((m) => ({ url: m.url, nodes: m.shape.nodes, edges: m.shape.edges, target: `${DOMAIN}-2`, label: 'the generated graph' }));
  const db = createDb(manifest.url);
  await migrateToLatest(db);
  const config = testConfig({ databaseUrl: manifest.url, jwtSecret: SECRET, responseCacheMb: 0 });
  const user = await createUser(db, { principalName: `cypher-bench-${Date.now()}`, email: `cypher-bench-${Date.now()}@example.test`, roleName: 'Read-Only' });
  const { token } = await issueSession(db, config, { userId: user.id }, 3600 * 4, 'bench');
  const app = await buildApp({ config, db });
  await app.ready();
  const ask = async (query: string) => {
    const started = performance.now();
    const res = await app.inject({ method: 'POST', url: '/api/v2/graphs/cypher', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', prefer: 'wait=30' }, payload: JSON.stringify({ query }) });
    const ms = performance.now() - started;
    const message = res.statusCode >= 400 ? (res.json() as { errors: Array<{ message: string }> }).errors[0].message : '';
    return { ms, status: res.statusCode, message };
  };
  try {
    await ask('RETURN 1 AS warm'); // the parser is generated on first use
    // A few queries alone: the graph engine's snapshot is loaded first (the whole run's first queries overlap its load).
    if (only !== null) await ask('MATCH (n:Base) RETURN n LIMIT 1');
    const rows: Array<{ name: string; median: number; min: number; max: number; status: number; message: string }> = [];
    for (const q of AD_QUERIES.filter((x) => only === null || only.test(x.name))) {
      const times: number[] = [];
      let last = { ms: 0, status: 0, message: '' };
      for (let i = 0; i < runs; i++) {
        last = await ask(q.query);
        times.push(last.ms);
      }
      rows.push({ name: q.name, median: median(times), min: Math.min(...times), max: Math.max(...times), status: last.status, message: last.message });
      console.log(`${last.status} ${median(times).toFixed(1).padStart(9)} ms  ${q.name}${last.message ? `  (${last.message.slice(0, 80)})` : ''}`);
    }
    if (only !== null && rows.length === 0) return;
    const medians = rows.map((r) => r.median).sort((a, b) => a - b);
    const byStatus = rows.reduce<Record<number, number>>((acc, r) => ((acc[r.status] = (acc[r.status] ?? 0) + 1), acc), {});

    // shortestPath from random users to the Tier Zero group of the generated graph.
    const users = await db.kysely.selectFrom('nodes').select('objectid').where('kind', '=', 'User').orderBy('id').limit(5000).execute();
    let seed = 7;
    const rand = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
    // The same pairs through GET /api/v2/graphs/shortest-path over the same kinds (the exploration issue's route).
    const kinds = `in:${AD_ATTACK_PATHS.join(',')}`;
    const route = async (start: string, end: string) => {
      const started = performance.now();
      const res = await app.inject({ method: 'GET', url: '/api/v2/graphs/shortest-path', query: { start_node: start, end_node: end, relationship_kinds: kinds }, headers: { authorization: `Bearer ${token}`, prefer: 'wait=30' } });
      return { ms: performance.now() - started, status: res.statusCode };
    };
    const paths: Array<{ ms: number; status: number }> = [];
    const routePaths: Array<{ ms: number; status: number }> = [];
    for (let i = 0; i < pathRuns && users.length > 0; i++) {
      const s = users[Math.floor(rand() * users.length)].objectid;
      paths.push(await ask(`MATCH p=shortestPath((s:User {objectid: '${s}'})-[:AD_ATTACK_PATHS*1..]->(t:Group)) WHERE t.objectid = '${manifest.target}' RETURN p`));
      routePaths.push(await route(s, manifest.target));
    }
    const pathTimes = paths.map((p) => p.ms).sort((a, b) => a - b);
    const pathStatus = paths.reduce<Record<number, number>>((acc, r) => ((acc[r.status] = (acc[r.status] ?? 0) + 1), acc), {});
    const routeTimes = routePaths.map((p) => p.ms).sort((a, b) => a - b);
    const routeStatus = routePaths.reduce<Record<number, number>>((acc, r) => ((acc[r.status] = (acc[r.status] ?? 0) + 1), acc), {});
    const pathRatio = quantile(pathTimes, 0.5) / quantile(routeTimes, 0.5);

    const summary = [
      `# Cypher bench: ${database}, ${scale} (${manifest.label}: ${manifest.nodes} nodes, ${manifest.edges} edges), ${new Date().toISOString()}`,
      '',
      `Command: \`npm run bench -- cypher --database ${database} --scale ${scale}${data === 'generated' ? '' : ` --data ${data}`} --runs ${runs} --paths ${pathRuns}\``,
      `Load average at the end: ${loadavg().map((x) => x.toFixed(2)).join(' ')}`,
      '',
      `Query Library, ${rows.length} Active Directory queries x ${runs} runs: median of the per-query medians ${quantile(medians, 0.5).toFixed(1)} ms, ` +
        `p95 ${quantile(medians, 0.95).toFixed(1)} ms, max ${medians[medians.length - 1].toFixed(1)} ms; statuses ${JSON.stringify(byStatus)}; ` +
        `killed by the deadline (504): ${byStatus[504] ?? 0}.`,
      '',
      `shortestPath from ${paths.length} random users to the Tier Zero group: median ${quantile(pathTimes, 0.5)?.toFixed(1)} ms, ` +
        `p95 ${quantile(pathTimes, 0.95)?.toFixed(1)} ms; statuses ${JSON.stringify(pathStatus)}. ` +
        `The same pairs on GET /api/v2/graphs/shortest-path (relationship_kinds = AD_ATTACK_PATHS): median ${quantile(routeTimes, 0.5)?.toFixed(1)} ms, ` +
        `p95 ${quantile(routeTimes, 0.95)?.toFixed(1)} ms; statuses ${JSON.stringify(routeStatus)}. Cypher / route (medians): ${pathRatio.toFixed(2)} (target <= 2).`,
      '',
      '| status | median ms | min | max | query | message |',
      '|---|---|---|---|---|---|',
      ...rows.map((r) => `| ${r.status} | ${r.median.toFixed(1)} | ${r.min.toFixed(1)} | ${r.max.toFixed(1)} | ${r.name.replace(/\|/g, '/')} | ${r.message.replace(/\|/g, '/').slice(0, 120)} |`),
    ].join('\n');
    console.log(summary.split('\n').slice(0, 8).join('\n'));
    if (only !== null) return;
    mkdirSync(new URL('./results/', import.meta.url), { recursive: true });
    const file = new URL(`./results/${new Date().toISOString().slice(0, 10)}-${database}-${scale}${data === 'generated' ? '' : `-${data}`}-cypher${suffix}.md`, import.meta.url);
    writeFileSync(file, `${summary}\n`);
    console.log(`written ${file.pathname}`);
  } finally {
    await app.close();
    await db.close();
  }
}
