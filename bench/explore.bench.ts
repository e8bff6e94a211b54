/**
 * Graph benchmark: `npm run bench -- explore [--database sqlite|postgres] [--scale small|large]
 *   [--duration S] [--connections K] [--rebuild] [--label NAME]`
 * On the AD-shaped graph of bench/explore-dataset.ts (small 50,000 nodes; large 1,000,000 nodes and
 * ~5,000,000 edges), against the real server (bin/scent.js serve) at `connections` concurrency, each
 * request different: entity info with counts (random users), related-list pages (random entities and
 * lists), search (random prefixes of random names), shortest paths (random user → a Tier Zero group).
 * The floor (bench/explore-floor.ts) answers the same shortest-path and membership questions
 * in-process with a plain BFS over typed arrays from the same database. Reported: requests/s, p50 /
 * p99 latency, non-2xx, server RSS after the graph is loaded and after the run, time to the first
 * graph answer (the engine's full load), floor ops/s. Results: bench/results/explore-<date>-<db>-<scale>[-<label>].md and .json
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import autocannon from 'autocannon';
import { issueSession } from '../src/auth/sessions.ts';
import { testConfig } from '../src/config.ts';
import { createDb } from '../src/db/create-db.ts';
import { createUser } from '../src/modules/users/users.service.ts';
import { EXPLORE_SCALES, ensureExploreDataset, kindOf, nameOf, objectIdOf, type ExploreScale } from './explore-dataset.ts';
import { loadFloor } from './explore-floor.ts';

const ROOT = new URL('../', import.meta.url).pathname;
const SECRET = 'bench-secret-that-is-long-enough-for-hs256!!';
const log = (s: string) => console.log(`[explore] ${s}`);
const option = (args: string[], name: string, fallback: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && args[i + 1] !== undefined ? args[i + 1] : fallback;
};

function rssMb(pid: number): { rss: number; hwm: number } {
  const s = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (k: string) => Number(new RegExp(`^${k}:\\s+(\\d+) kB`, 'm').exec(s)?.[1] ?? 0) / 1024;
  return { rss: Math.round(kb('VmRSS')), hwm: Math.round(kb('VmHWM')) };
}

/** CPU time (user + system) the process has used, ms (/proc/<pid>/stat, clock ticks of 10 ms). */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

async function startServer(url: string): Promise<{ child: ChildProcess; base: string }> {
  const child = spawn(process.execPath, [join(ROOT, 'bin/scent.js'), 'serve', '--database', url, '--host', '127.0.0.1', '--port', '0', '--log-level', 'warn', '--jwt-secret', SECRET],
    { stdio: ['ignore', 'pipe', 'inherit'] });
  for await (const line of createInterface({ input: child.stdout! })) {
    const m = /(http:\/\/127\.0\.0\.1:\d+)/.exec(line);
    if (m) {
      child.stdout!.resume();
      return { child, base: m[1] };
    }
  }
  throw new Error('the server did not start');
}

/** A deterministic random source, so two runs ask the same questions. */
function rng(seed: number) {
  let s = seed >>> 0;
  return (n: number) => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return Math.floor((s / 4294967296) * n);
  };
}

/** The bench's cases: each request different (random entities, lists, prefixes, pairs), the same sequence every run. */
export function exploreCases(n: number, tierZeroGroups: readonly string[]) {
  const rand = rng(42);
  const ofKind = (kind: string) => {
    for (;;) {
      const i = 10 + rand(n - 10);
      if (kindOf(i) === kind) return i;
    }
  };
  const lists: Array<[string, string, string]> = [
    ['users', 'User', 'memberships'], ['users', 'User', 'controllers'], ['users', 'User', 'controllables'], ['users', 'User', 'admin-rights'],
    ['groups', 'Group', 'members'], ['groups', 'Group', 'memberships'], ['computers', 'Computer', 'sessions'], ['computers', 'Computer', 'admin-users'],
    ['ous', 'OU', 'users'], ['computers', 'Computer', 'controllers'],
  ];
  const cases: Array<{ name: string; path: () => string; target?: string }> = [
    { name: 'entity-info', path: () => `/api/v2/users/${objectIdOf(ofKind('User'))}`, target: 'p99 <= 50 ms' },
    {
      name: 'related-list', target: 'p99 <= 25 ms',
      path: () => {
        const [type, kind, list] = lists[rand(lists.length)];
        return `/api/v2/${type}/${encodeURIComponent(objectIdOf(ofKind(kind)))}/${list}?skip=0&limit=10`;
      },
    },
    {
      name: 'search', target: 'p99 <= 20 ms',
      path: () => {
        const full = nameOf(ofKind(['User', 'Computer', 'Group'][rand(3)]));
        return `/api/v2/search?q=${encodeURIComponent(full.slice(0, 5 + rand(6)))}`;
      },
    },
    {
      name: 'shortest-path', target: 'p99 <= 100 ms, >= 0.25 of the floor',
      path: () => `/api/v2/graphs/shortest-path?start_node=${objectIdOf(ofKind('User'))}&end_node=${encodeURIComponent(tierZeroGroups[rand(tierZeroGroups.length)])}`,
    },
  ];
  return { cases, ofKind, rand };
}

export async function run(args: string[]): Promise<void> {
  const database = option(args, 'database', 'sqlite') as 'sqlite' | 'postgres';
  const scale = option(args, 'scale', 'small') as ExploreScale;
  const duration = Number(option(args, 'duration', '10'));
  const connections = Number(option(args, 'connections', '8'));
  const label = option(args, 'label', '');
  const loadAtStart = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
  const manifest = await ensureExploreDataset(database, scale, args.includes('--rebuild'), log);
  const n = EXPLORE_SCALES[scale];

  const db = createDb(manifest.url);
  const name = `explore-bench-${Date.now()}`;
  const user = await createUser(db, { principalName: name, email: `${name}@bench.test`, roleName: 'Read-Only' });
  const { token } = await issueSession(db, testConfig({ jwtSecret: SECRET }), { userId: user.id }, 24 * 3600, 'bench');
  await db.close();

  const { child, base } = await startServer(manifest.url);
  const pid = child.pid!;
  const headers = { authorization: `Bearer ${token}` };
  try {
    const idle = rssMb(pid);
    let t = performance.now();
    // The server loads the graph once it listens (--graph-preload): the first graph answer waits for
    // the rest of that load; a request whose deadline passes first answers 504 while the load goes on,
    // and the next one waits for the same load. Meanwhile other requests are answered: timed here.
    const firstGraph = (async () => {
      let res = await fetch(`${base}/api/v2/groups/${objectIdOf(2)}/members?limit=1`, { headers });
      for (let tries = 1; res.status === 504 && tries < 10; tries++) res = await fetch(`${base}/api/v2/groups/${objectIdOf(2)}/members?limit=1`, { headers });
      return res;
    })();
    let graphDone = false;
    void firstGraph.finally(() => (graphDone = true));
    const duringLoad: number[] = [];
    while (!graphDone && duringLoad.length < 100) {
      const s = performance.now();
      await (await fetch(`${base}/api/v2/self`, { headers })).arrayBuffer();
      duringLoad.push(performance.now() - s);
      await new Promise((r) => setTimeout(r, 100));
    }
    const first = await firstGraph;
    const firstMs = Math.round(performance.now() - t);
    const selfDuringLoad = duringLoad.length ? `${duringLoad.length} GET /api/v2/self answered meanwhile, slowest ${Math.round(Math.max(...duringLoad))} ms` : 'no other request made meanwhile';
    if (first.status !== 200) throw new Error(`first graph answer: ${first.status} ${await first.text()}`);
    const loaded = rssMb(pid);
    log(`first graph answer (engine load) in ${firstMs} ms (${selfDuringLoad}); server RSS ${idle.rss} → ${loaded.rss} MB`);

    const { cases, ofKind, rand } = exploreCases(n, manifest.tierZeroGroups);
    const results: Array<Record<string, unknown>> = [];
    for (const c of cases) {
      const cpuBefore = cpuMs(pid);
      const r = await autocannon({
        url: base, connections, pipelining: 1, timeout: 60, duration,
        requests: [{ method: 'GET', headers, setupRequest: (req) => ({ ...req, path: c.path() }) }],
      });
      const rss = rssMb(pid);
      const row = { case: c.name, rps: Math.round(r.requests.average), p50: r.latency.p50, p99: r.latency.p99, max: r.latency.max,
        requests: r.requests.total, non2xx: r.non2xx, errors: r.errors + r.timeouts, serverRssMb: rss.rss,
        // The server's own CPU per answer: what the machine's load changes least (latency also counts waiting for a core).
        cpuMsPerRequest: Number(((cpuMs(pid) - cpuBefore) / Math.max(1, r.requests.total)).toFixed(2)), target: c.target ?? '' };
      log(JSON.stringify(row));
      results.push(row);
    }
    const after = rssMb(pid);

    // The floor: the same questions, in-process, plain BFS over typed arrays from the same database.
    const floor = await loadFloor(manifest.url);
    log(`floor loaded ${floor.nodes} ids / ${floor.edges} edges in ${Math.round(floor.loadMs)} ms`);
    const pairs = Array.from({ length: 200 }, () => [ofKind('User'), Number(manifest.tierZeroGroups.length ? [2, 5, 6][rand(3)] : 2)] as const);
    t = performance.now();
    let found = 0;
    for (const [s, d] of pairs) if (floor.shortest(s, d) > 0) found++;
    const floorPathOps = pairs.length / ((performance.now() - t) / 1000);
    const groups = Array.from({ length: 200 }, () => ofKind('Group'));
    t = performance.now();
    for (const g of groups) floor.members(g);
    const floorMemberOps = groups.length / ((performance.now() - t) / 1000);
    const path = results.find((r) => r.case === 'shortest-path')!;
    const ratio = Number(path.rps) / floorPathOps;
    log(`floor: shortest path ${floorPathOps.toFixed(1)} ops/s (${found}/${pairs.length} with a path), members ${floorMemberOps.toFixed(1)} ops/s; server/floor ${ratio.toFixed(2)}`);

    mkdirSync(join(ROOT, 'bench/results'), { recursive: true });
    const date = new Date().toISOString().slice(0, 10);
    const file = join(ROOT, `bench/results/explore-${date}-${database}-${scale}${label ? `-${label}` : ''}.md`);
    const loadAtEnd = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
    const lines = [
      `# Graph routes: ${database}, ${scale} (${manifest.nodes} nodes, ${manifest.edges} edges), ${new Date().toISOString()}`,
      '',
      `Command: \`npm run bench -- explore --database ${database} --scale ${scale} --duration ${duration} --connections ${connections}${label ? ` --label ${label}` : ''}\``,
      `Load average (1, 5, 15 min) at the start: ${loadAtStart}; at the end: ${loadAtEnd}`,
      '',
      `First graph answer after the start (the engine's full load, begun when the server listened): ${firstMs} ms; ${selfDuringLoad}. Server RSS: ${idle.rss} MB idle, ${loaded.rss} MB with the graph loaded, ${after.rss} MB after the run (peak ${after.hwm} MB).`,
      '',
      '| case | requests/s | p50 ms | p99 ms | max ms | requests | non-2xx | errors | server CPU ms / request | server RSS MB | target |',
      '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|',
      ...results.map((r) => `| ${r.case} | ${r.rps} | ${r.p50} | ${r.p99} | ${r.max} | ${r.requests} | ${r.non2xx} | ${r.errors} | ${r.cpuMsPerRequest} | ${r.serverRssMb} | ${r.target} |`),
      '',
      `Floor (plain BFS over typed arrays, in-process, one thread): shortest path ${floorPathOps.toFixed(1)} ops/s (${found} of ${pairs.length} pairs have a path), group members ${floorMemberOps.toFixed(1)} ops/s; loaded in ${Math.round(floor.loadMs)} ms.`,
      `Shortest path, server requests/s over floor ops/s: ${ratio.toFixed(2)} (target >= 0.25). Non-2xx on shortest-path are 404s (no path).`,
    ];
    writeFileSync(file, lines.join('\n') + '\n');
    writeFileSync(file.replace(/\.md$/, '.json'), JSON.stringify({
      database, scale, nodes: manifest.nodes, edges: manifest.edges, at: new Date().toISOString(), duration, connections, loadAtStart, loadAtEnd,
      firstAnswerMs: firstMs, selfDuringLoadMs: duringLoad, rssMb: { idle: idle.rss, loaded: loaded.rss, after: after.rss, peak: after.hwm }, cases: results,
      floor: { shortestPathOps: floorPathOps, membersOps: floorMemberOps, pairsWithPath: found, pairs: pairs.length, loadMs: floor.loadMs },
      shortestPathOverFloor: ratio,
    }, null, 2) + '\n');
    log(`wrote ${file}`);
  } finally {
    child.kill('SIGTERM');
  }
}
