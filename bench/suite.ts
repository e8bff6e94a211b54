/**
 * The unified benchmark: `npm run bench -- [--database sqlite|postgres] [--scale small|large] [--only NAME[,NAME]]
 *   [--duration S] [--warmup S] [--connections K] [--writes N] [--accept-encoding gzip] [--client autocannon|wrk] [--rebuild] [--no-build]
 *   [--label NAME]`
 *
 * `--accept-encoding gzip` sends that header with every request, as browsers and most HTTP clients do: the
 * captured (and replayed) bytes are then the compressed ones, and results carry `-accept-gzip` in their name.
 * `--client wrk` runs the timed GET loads with wrk (Debian package `wrk`) instead of autocannon; see wrkLoad.
 *
 * 1. Builds or reuses the dataset of (database, scale) (bench/dataset.ts).
 * 2. Starts the real server (`bin/scent.js serve`, compiled dist/, rebuilt first when older than src/)
 *    in its own process on loopback; captures the exact response bytes of every spec endpoint; starts
 *    the baseline (bench/replay.ts: bare Fastify replaying those bytes) in another process.
 * 3. For every case: warm-up of both, then the baseline and the endpoint, each for `duration` seconds
 *    at `connections` concurrency with autocannon from this process: requests/s, p50/p99/max latency,
 *    errors and non-2xx, server RSS (/proc/<pid>/status) and server CPU per request (/proc/<pid>/stat;
 *    a cost figure the other load on a shared machine does not distort). Writes (SSO provider create
 *    and delete) are bounded: `writes` requests each, against the endpoint and against the replay.
 * 4. limit=0 over the tag (streamed; server RSS sampled every 10 ms), ingest (bench/ingest.bench.ts, the
 *    ingest engineer's `scent import` benchmark, at this scale's size), cold start
 *    (`scent serve` on the existing database to the first 200 on /health, 5 times, median).
 * 5. Writes bench/results/<date>-<database>-<scale>.md and .json.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import autocannon from 'autocannon';
import { issueSession } from '../src/auth/sessions.ts';
import { testConfig } from '../src/config.ts';
import { createDb } from '../src/db/create-db.ts';
import { migrateToLatest } from '../src/db/migrate.ts';
import { createUser } from '../src/modules/users/users.service.ts';
import { DATA_DIR, SHAPES, ensureDataset, type Database, type Manifest, type ScaleName } from './dataset.ts';
import { databaseShare, ensureEvents, memberNames, varyCases, type VaryTarget } from './vary.ts';

const ROOT = new URL('../', import.meta.url).pathname;
const BIN = join(ROOT, 'bin/scent.js');
const RESULTS = join(ROOT, 'bench/results');
const SECRET = 'bench-secret-that-is-long-enough-for-hs256!!';
// With SCENT_BENCH_SERVER_STDOUT, stamped with the same clock as that file's lines.
const log = (s: string) => console.log(`[bench]${process.env.SCENT_BENCH_SERVER_STDOUT ? ` ${(Date.now() / 1000).toFixed(3)}` : ''} ${s}`);

function option(args: string[], name: string, fallback: string): string {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && args[i + 1] !== undefined ? args[i + 1] : fallback;
}

// ---------------------------------------------------------------------------------------------- processes

function procStatus(pid: number): { rssMb: number; hwmMb: number } {
  try {
    const s = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(s)?.[1] ?? 0);
    return { rssMb: +(kb('VmRSS') / 1024).toFixed(1), hwmMb: +(kb('VmHWM') / 1024).toFixed(1) };
  } catch {
    return { rssMb: 0, hwmMb: 0 };
  }
}

function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/**
 * The CPU of the process's main thread alone (/proc/<pid>/task/<pid>/stat): JavaScript, and everything a CPU profile
 * sees. The rest of cpuSeconds is other threads' (V8's concurrent marking and sweeping, libuv's pool), which a
 * profile of the main thread does not show.
 */
function mainThreadCpuSeconds(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/task/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return 0;
  }
}

function loadAverage(): string {
  return readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
}

/** Other engineers' full test runs on the machine (they distort every figure). */
function testRunsInProgress(): number {
  const r = spawnSync('pgrep', ['-f', 'scripts/test.mjs'], { encoding: 'utf8' });
  return r.stdout.split('\n').filter(Boolean).length;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

function serveArgs(url: string, port: number): string[] {
  return [BIN, 'serve', '--database', url, '--host', '127.0.0.1', '--port', String(port), '--log-level', 'warn', '--jwt-secret', SECRET];
}

async function startApp(url: string): Promise<{ child: ChildProcess; base: string }> {
  // SCENT_BENCH_CPU_PROF=DIR: the server writes a V8 CPU profile there when it stops (for `--only` runs).
  const profile = process.env.SCENT_BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.SCENT_BENCH_CPU_PROF}`] : [];
  // SCENT_BENCH_NODE_FLAGS='--trace-gc …': more flags for the server's node; SCENT_BENCH_SERVER_STDOUT=FILE: what the
  // server prints after its banner (--trace-gc's lines) goes there instead of nowhere.
  const flags = (process.env.SCENT_BENCH_NODE_FLAGS ?? '').split(' ').filter(Boolean);
  const child = spawn(process.execPath, [...profile, ...flags, ...serveArgs(url, 0)], { stdio: ['ignore', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout! });
  const out = process.env.SCENT_BENCH_SERVER_STDOUT ? createWriteStream(process.env.SCENT_BENCH_SERVER_STDOUT) : undefined;
  const base = await new Promise<string | undefined>((resolve) => {
    let found: string | undefined;
    lines.on('line', (line) => {
      if (found) return void out?.write(`${(Date.now() / 1000).toFixed(3)} ${line}\n`);
      const m = /serving the BloodHound v2 API at (http:\/\/\S+)/.exec(line);
      if (!m) return;
      resolve((found = m[1]));
      if (!out) {
        lines.close();
        child.stdout!.resume();
      }
    });
    lines.once('close', () => {
      out?.end();
      resolve(undefined);
    });
  });
  if (base) return { child, base };
  throw new Error('the server did not start');
}

/**
 * Waits until the server is idle: once it listens, `scent serve` loads the graph and builds the response
 * serializers in the background (seconds at large scale), which the first case would otherwise share the CPU with.
 */
async function settle(pid: number): Promise<void> {
  const started = performance.now();
  for (let quiet = 0; quiet < 2 && performance.now() - started < 120_000;) {
    const before = cpuSeconds(pid);
    await new Promise((r) => setTimeout(r, 250));
    quiet = cpuSeconds(pid) - before < 0.02 ? quiet + 1 : 0;
  }
  log(`server idle ${((performance.now() - started) / 1000).toFixed(1)} s after it listened (graph preload, serializers)`);
}

async function startReplay(dir: string): Promise<{ child: ChildProcess; base: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'bench/replay.ts'), dir], { stdio: ['ignore', 'pipe', 'inherit'] });
  for await (const line of createInterface({ input: child.stdout! })) {
    const m = /^listening (\d+)$/.exec(line);
    if (m) return { child, base: `http://127.0.0.1:${m[1]}` };
  }
  throw new Error('the replay server did not start');
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
  await exited;
  clearTimeout(timer);
}

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs);
  }
  return newest;
}

function distIsFresh(): boolean {
  try {
    return statSync(join(ROOT, 'dist/.built')).mtimeMs >= newestMtime(join(ROOT, 'src'));
  } catch {
    return false;
  }
}

// ---------------------------------------------------------------------------------------------- loading

interface Load {
  rps: number;
  p50: number;
  p99: number;
  max: number;
  requests: number;
  errors: number;
  non2xx: number;
  bytesPerResponse: number;
  serverRssMb: number;
  serverPeakRssMb: number;
  serverCpuMicrosPerRequest: number;
  /** Of serverCpuMicrosPerRequest, the main thread's (the rest: V8's GC helper threads, libuv's pool). */
  serverMainThreadCpuMicrosPerRequest?: number;
}

interface Target {
  method: 'GET' | 'POST' | 'DELETE';
  path: string;
  /** Header sets used round-robin, one per request. */
  headers: Array<Record<string, string>>;
  /** Per-request body / path (n counts from 0 within one load). */
  body?: (n: number) => string;
  pathFor?: (n: number) => string;
}

/** Which load generator runs the timed GET loads (writes always use autocannon: per-request bodies). */
type LoadClient = 'autocannon' | 'wrk';

async function load(base: string, pid: number, t: Target, opts: { duration?: number; amount?: number; connections: number; client?: LoadClient }): Promise<Load> {
  if (opts.client === 'wrk' && opts.duration && !t.body && !t.pathFor) return wrkLoad(base, pid, t, opts.duration, opts.connections);
  let next = 0;
  const cpu0 = cpuSeconds(pid);
  const main0 = mainThreadCpuSeconds(pid);
  // Bounded runs (`amount`) end on autocannon's 1-second tick, so their rate is timed here: first request
  // set up to last response received.
  let first = 0;
  let last = 0;
  const r = await autocannon({
    url: base, connections: opts.connections, pipelining: 1, timeout: 30,
    ...(opts.amount ? { amount: opts.amount } : { duration: opts.duration }),
    requests: [{
      method: t.method, path: t.path,
      onResponse: () => {
        last = performance.now();
      },
      setupRequest: (req) => {
        const n = next++;
        if (n === 0) first = performance.now();
        const headers = { ...req.headers, ...t.headers[n % t.headers.length], ...(t.body ? { 'content-type': 'application/json' } : {}) };
        return { ...req, headers, path: t.pathFor ? t.pathFor(n) : t.path, ...(t.body ? { body: t.body(n) } : {}) };
      },
    }],
  });
  const seconds = (last - first) / 1000;
  const cpu = cpuSeconds(pid) - cpu0;
  const mainCpu = mainThreadCpuSeconds(pid) - main0;
  const { rssMb, hwmMb } = procStatus(pid);
  const requests = r.requests.total;
  return {
    rps: Math.round(opts.amount ? requests / seconds : r.requests.average),
    p50: r.latency.p50, p99: r.latency.p99, max: r.latency.max, requests,
    errors: r.errors + r.timeouts, non2xx: r.non2xx,
    bytesPerResponse: Math.round(r.throughput.total / Math.max(1, requests)),
    serverRssMb: rssMb, serverPeakRssMb: hwmMb,
    serverCpuMicrosPerRequest: Math.round((cpu * 1e6) / Math.max(1, requests)),
    serverMainThreadCpuMicrosPerRequest: Math.round((mainCpu * 1e6) / Math.max(1, requests)),
  };
}

/**
 * The same load with wrk (C, one thread, as autocannon's one): it parses responses without turning bodies into strings, which
 * autocannon does (UTF-8 decoding every body: costly for binary, e.g. gzip, bodies; the bare replay of
 * 46 kB of gzip bytes runs 4× slower under autocannon than the replay of the 246 kB they decode to).
 * A Lua script rotates the header sets and prints the figures as JSON.
 */
function wrkLoad(base: string, pid: number, t: Target, duration: number, connections: number): Load {
  const lua = (v: string) => JSON.stringify(v); // a JSON string is a valid Lua string literal here (ASCII)
  const sets = t.headers.map((h) => `{${Object.entries(h).map(([k, v]) => `[${lua(k)}]=${lua(v)}`).join(',')}}`);
  const script = [
    `local sets = {${sets.join(',')}}`,
    'local n = 0',
    sets.length === 1
      ? `for k, v in pairs(sets[1]) do wrk.headers[k] = v end\nwrk.method = ${lua(t.method)}\nwrk.path = ${lua(t.path)}`
      : `request = function() n = n + 1; return wrk.format(${lua(t.method)}, ${lua(t.path)}, sets[(n % #sets) + 1]) end`,
    'done = function(s, l, r)',
    '  io.write(string.format("WRK {\\"requests\\":%d,\\"us\\":%d,\\"bytes\\":%d,\\"p50\\":%.3f,\\"p99\\":%.3f,\\"max\\":%.3f,\\"status\\":%d,\\"errors\\":%d}\\n",',
    '    s.requests, s.duration, s.bytes, l:percentile(50) / 1000, l:percentile(99) / 1000, l.max / 1000, s.errors.status,',
    '    s.errors.connect + s.errors.read + s.errors.write + s.errors.timeout))',
    'end',
  ].join('\n');
  const file = join(DATA_DIR, 'wrk-load.lua');
  writeFileSync(file, script);
  const cpu0 = cpuSeconds(pid);
  const r = spawnSync('wrk', ['-t1', `-c${connections}`, `-d${duration}s`, '--timeout', '30s', '-s', file, base], { encoding: 'utf8' });
  if (r.error || r.status !== 0) throw new Error(`wrk failed (install it: apt-get install wrk): ${r.error?.message ?? r.stderr}`);
  const line = /^WRK (\{.*\})$/m.exec(r.stdout)?.[1];
  if (!line) throw new Error(`wrk printed no figures: ${r.stdout}`);
  const w = JSON.parse(line) as { requests: number; us: number; bytes: number; p50: number; p99: number; max: number; status: number; errors: number };
  const cpu = cpuSeconds(pid) - cpu0;
  const { rssMb, hwmMb } = procStatus(pid);
  return {
    rps: Math.round(w.requests / (w.us / 1e6)), p50: +w.p50.toFixed(1), p99: +w.p99.toFixed(1), max: Math.round(w.max), requests: w.requests,
    errors: w.errors, non2xx: w.status, bytesPerResponse: Math.round(w.bytes / Math.max(1, w.requests)),
    serverRssMb: rssMb, serverPeakRssMb: hwmMb, serverCpuMicrosPerRequest: Math.round((cpu * 1e6) / Math.max(1, w.requests)),
  };
}

// ---------------------------------------------------------------------------------------------- cases

interface Row {
  name: string;
  request: string;
  kind: 'read' | 'write';
  status: number;
  bytes: number;
  endpoint: Load;
  baseline: Load;
  ratio: number;
  loadAverage: string;
  targets: { ratio: boolean | null; p99: boolean | null };
  /** --vary: distinct requests (bench/vary.ts). */
  vary?: {
    shape: string; sent: number; distinct: number; replayCpuMicros: number; cpuRatio: number;
    dbMicros?: number; statements?: number; inProcessMicros?: number; inProcessCpuMicros?: number; dbShare?: number; target: VaryTarget['target']; met: boolean;
  };
}

interface Results {
  database: Database;
  scale: ScaleName;
  shape: (typeof SHAPES)[ScaleName];
  date: string;
  node: string;
  connections: number;
  duration: number;
  warmup: number;
  dist: string;
  loadAverageStart: string;
  loadAverageEnd?: string;
  testRunsAtStart: number;
  testRunsAtEnd?: number;
  rows: Row[];
  stream?: Record<string, number | string | boolean>;
  ingest?: Record<string, number | string | boolean>;
  coldStart?: Record<string, number | string | boolean | number[]>;
  postgresVsSqlite?: Array<{ name: string; sqliteRps: number; postgresRps: number; factor: number; sqliteP99: number; postgresP99: number; met: boolean }>;
  notes: string[];
  /** The Accept-Encoding header sent with every request (empty: none). */
  acceptEncoding: string;
  /** The load generator of the timed GET loads. */
  client: LoadClient;
  /** --vary: distinct requests per case (bench/vary.ts). */
  vary?: boolean;
}

interface Captured {
  status: number;
  contentType: string | null;
  contentEncoding: string | null;
  body: Buffer;
}

/** One request, its body as sent on the wire (node:http: no automatic decompression, unlike fetch). */
async function capture(base: string, t: Target, n = 0): Promise<Captured> {
  const body = t.body?.(n);
  return new Promise((resolve, reject) => {
    const req = httpRequest(base + (t.pathFor ? t.pathFor(n) : t.path), {
      method: t.method, headers: { ...t.headers[0], ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', reject);
      res.on('end', () => resolve({
        status: res.statusCode ?? 0, contentType: res.headers['content-type'] ?? null,
        contentEncoding: res.headers['content-encoding'] ?? null, body: Buffer.concat(chunks),
      }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

export async function run(args: string[]): Promise<void> {
  const database = option(args, 'database', 'sqlite') as Database;
  const scale = option(args, 'scale', 'small') as ScaleName;
  if (!['sqlite', 'postgres'].includes(database) || !['small', 'large'].includes(scale)) {
    throw new Error('usage: npm run bench -- [--database sqlite|postgres] [--scale small|large] [--only NAME[,NAME]] [--duration S] [--accept-encoding gzip] [--client autocannon|wrk] [--rebuild]');
  }
  const only = option(args, 'only', '').split(',').filter(Boolean);
  const want = (name: string) => only.length === 0 || only.some((o) => name === o || name.startsWith(`${o}`));
  const duration = Number(option(args, 'duration', '5'));
  const warmup = Number(option(args, 'warmup', '2'));
  const connections = Number(option(args, 'connections', '32'));
  const writes = Number(option(args, 'writes', scale === 'large' ? '5000' : '2000'));
  const acceptEncoding = option(args, 'accept-encoding', '');
  const client = option(args, 'client', 'autocannon') as LoadClient;
  if (!['autocannon', 'wrk'].includes(client)) throw new Error('--client autocannon|wrk');
  const date = new Date().toISOString().slice(0, 10);
  const vary = args.includes('--vary');
  if (vary && client === 'wrk') throw new Error('--vary runs its loads with autocannon (per-request URLs); drop --client wrk');

  let dist = 'fresh';
  if (!distIsFresh()) {
    if (args.includes('--no-build')) dist = 'stale: sources run through tsx';
    else {
      log('dist/ is older than src/: npm run build');
      spawnSync(process.execPath, [join(ROOT, 'scripts/build.mjs')], { cwd: ROOT, stdio: 'inherit' });
      dist = distIsFresh() ? 'rebuilt by this run' : 'build failed: sources run through tsx';
    }
  }
  const results: Results = {
    database, scale, shape: SHAPES[scale], date, node: process.version, connections, duration, warmup, dist,
    loadAverageStart: loadAverage(), testRunsAtStart: testRunsInProgress(), rows: [], notes: [], acceptEncoding, client, vary,
  };
  log(`load average ${results.loadAverageStart}; full test runs in progress: ${results.testRunsAtStart}; dist: ${dist}`);

  const manifest = await ensureDataset(database, scale, args.includes('--rebuild'), log);
  const endpointCases = ['dq-ad', 'dq-azure', 'jobs-available', 'event', 'tag-members', 'template-controllers', 'sso-create', 'sso-delete'];
  // --vary: the distinct-request read cases only (writes, limit=0, ingest and cold start are the plain run's).
  if (vary) await endpoints(manifest, results, { want, duration, warmup, connections, writes, acceptEncoding, client, vary });
  else if (endpointCases.some(want) || want('members-stream')) await endpoints(manifest, results, { want, duration, warmup, connections, writes, acceptEncoding, client, vary });
  if (!vary && want('ingest')) results.ingest = await ingest(database, scale);
  if (!vary && want('cold-start')) results.coldStart = await coldStart(manifest.url, !args.includes('--no-build'));
  results.loadAverageEnd = loadAverage();
  results.testRunsAtEnd = testRunsInProgress();
  if (database === 'postgres') results.postgresVsSqlite = compareWithSqlite(results);
  // --label NAME: appended to the result files' names (keeps a run apart from the tracked results of the same command).
  const label = option(args, 'label', '');
  write(results, `${vary ? '-vary' : ''}${only.length ? `-only-${only.join('+')}` : ''}${loadSuffix(results)}${label ? `-${label.replace(/[^a-z0-9.-]+/gi, '-')}` : ''}`);
}

/** What a result file's name says about how the load was made (none for the defaults). */
function loadSuffix(r: Pick<Results, 'acceptEncoding' | 'client'>): string {
  return `${r.acceptEncoding ? `-accept-${r.acceptEncoding.replace(/[^a-z0-9]+/gi, '-')}` : ''}${r.client === 'wrk' ? '-wrk' : ''}`;
}

async function endpoints(m: Manifest, results: Results, o: { want: (n: string) => boolean; duration: number; warmup: number; connections: number; writes: number; acceptEncoding: string; client: LoadClient; vary: boolean }) {
  const encoding: Record<string, string> = o.acceptEncoding ? { 'accept-encoding': o.acceptEncoding } : {};
  // Tokens: an Administrator session for the user endpoints, one session per collection client.
  const db = createDb(m.url);
  let admin: Record<string, string>;
  let clients: Array<Record<string, string>>;
  let eventIds: number[] = [];
  let names: string[] = [];
  try {
    await migrateToLatest(db);
    const config = testConfig({ databaseUrl: m.url, jwtSecret: SECRET });
    const stamp = `${Date.now()}`;
    const user = await createUser(db, { principalName: `bench-${stamp}`, email: `bench-${stamp}@example.test`, roleName: 'Administrator' });
    admin = { ...encoding, authorization: `Bearer ${(await issueSession(db, config, { userId: user.id }, 4 * 3600, 'bench')).token}` };
    clients = [];
    for (const id of m.clientIds) clients.push({ ...encoding, authorization: `Bearer ${(await issueSession(db, config, { clientId: id }, 4 * 3600, 'bench')).token}` });
    if (o.vary) {
      eventIds = await ensureEvents(db, m);
      names = await memberNames(db, m);
    }
  } finally {
    await db.close();
  }

  const app = await startApp(m.url);
  const pid = app.child.pid!;
  await settle(pid);
  const replayDir = join(DATA_DIR, `replay-${m.database}-${m.scale}`);
  rmSync(replayDir, { recursive: true, force: true });
  mkdirSync(replayDir, { recursive: true });
  const run = `${Date.now().toString(36)}`;
  const oidcBody = (n: number) => JSON.stringify({ name: `bench-${run}-${n}`, issuer: 'https://idp.bench.test/realms/bench', client_id: `scent-${n}`, config: { auto_provision: { enabled: false } } });
  let reads: Array<[string, Target]> = [
    ['dq-ad', { method: 'GET', path: '/api/v2/platform/ad/data-quality-stats', headers: [admin] }],
    ['dq-azure', { method: 'GET', path: '/api/v2/platform/azure/data-quality-stats', headers: [admin] }],
    ['jobs-available', { method: 'GET', path: '/api/v2/jobs/available', headers: clients }],
    ['event', { method: 'GET', path: `/api/v2/events/${m.eventId}`, headers: [admin] }],
    ['tag-members', { method: 'GET', path: `/api/v2/asset-group-tags/${m.tagId}/members`, headers: [admin] }],
    ['template-controllers', { method: 'GET', path: `/api/v2/certtemplates/${m.templateObjectId}/controllers`, headers: [admin] }],
  ];
  let replay: { child: ChildProcess; base: string } | undefined;
  try {
    if (o.vary) {
      log('vary: drawing the request generators (tag-member fragment counts from the server)');
      reads = (await varyCases(app.base, m, admin, clients, eventIds, names)).filter(([name]) => o.want(name));
    }
    // Capture: one request per case, its bytes become the replay's answer.
    const captured = new Map<string, { status: number; bytes: number }>();
    const keep = async (name: string, c: Captured) => {
      writeFileSync(join(replayDir, `${name}.body`), c.body);
      writeFileSync(join(replayDir, `${name}.meta.json`), JSON.stringify({ status: c.status, contentType: c.contentType, contentEncoding: c.contentEncoding }));
      captured.set(name, { status: c.status, bytes: c.body.length });
      log(`captured ${name}: ${c.status}, ${c.body.length} bytes${c.contentEncoding ? ` (${c.contentEncoding})` : ''}`);
      if (c.status >= 300) results.notes.push(`${name}: the endpoint answered ${c.status}: ${c.body.toString('utf8', 0, 300)}`);
    };
    for (const [name, t] of reads) if (o.want(name)) await keep(name, await capture(app.base, t));
    const writesWanted = !o.vary && (o.want('sso-create') || o.want('sso-delete'));
    if (writesWanted) {
      const created = await capture(app.base, { method: 'POST', path: '/api/v2/sso-providers/oidc', headers: [admin], body: () => oidcBody(-1) });
      await keep('sso-create', created);
      const id = JSON.parse(created.body.toString()).data?.id;
      await keep('sso-delete', await capture(app.base, { method: 'DELETE', path: `/api/v2/sso-providers/${id}`, headers: [admin] }));
    }
    replay = await startReplay(replayDir);
    const replayPid = replay.child.pid!;

    const record = (name: string, t: Target, kind: 'read' | 'write', endpoint: Load, baseline: Load) => {
      const c = captured.get(name)!;
      const ratio = +(endpoint.rps / Math.max(1, baseline.rps)).toFixed(2);
      const row: Row = {
        name, request: `${t.method} ${t.path}`, kind, status: c.status, bytes: c.bytes, endpoint, baseline, ratio, loadAverage: loadAverage(),
        targets: kind === 'read' ? { ratio: ratio >= 0.5, p99: endpoint.p99 <= 25 } : { ratio: null, p99: null },
      };
      results.rows.push(row);
      log(`${name}: ${endpoint.rps} req/s (baseline ${baseline.rps}, ratio ${ratio}), p50 ${endpoint.p50} p99 ${endpoint.p99} max ${endpoint.max} ms, ` +
        `non-2xx ${endpoint.non2xx}, errors ${endpoint.errors}, server ${endpoint.serverCpuMicrosPerRequest} µs CPU/request, RSS ${endpoint.serverRssMb} MB`);
    };

    for (const [name, t] of reads) {
      if (!o.want(name)) continue;
      const r: Target = { method: 'GET', path: `/replay/${name}`, headers: [encoding] };
      // Warm-up: one request per header set first (every collection client polls once, as a fleet does), then time-based.
      if (t.headers.length > 1) await load(app.base, pid, t, { amount: t.headers.length, connections: o.connections });
      const timed = { connections: o.connections, client: o.client };
      if (o.warmup > 0) {
        await load(replay.base, replayPid, r, { duration: o.warmup, ...timed });
        await load(app.base, pid, t, { duration: o.warmup, ...timed });
      }
      const baseline = await load(replay.base, replayPid, r, { duration: o.duration, ...timed });
      const v = t as Partial<VaryTarget>;
      if (v.sent) {
        v.sent.total = 0;
        v.sent.urls.clear();
      }
      if (process.env.SCENT_BENCH_SERVER_STDOUT) log(`${name}: timed load begins`);
      const endpoint = await load(app.base, pid, t, { duration: o.duration, ...timed });
      record(name, t, 'read', endpoint, baseline);
      if (v.sent && v.target) {
        const row = results.rows.at(-1)!;
        const cpuRatio = +(endpoint.serverCpuMicrosPerRequest / Math.max(1, baseline.serverCpuMicrosPerRequest)).toFixed(1);
        row.request = `GET ${v.path}`;
        row.vary = {
          shape: v.path!, sent: v.sent.total, distinct: v.sent.urls.size, replayCpuMicros: baseline.serverCpuMicrosPerRequest, cpuRatio, target: v.target,
          met: v.target === 'cpu-1ms' ? endpoint.serverCpuMicrosPerRequest <= 1000
            : v.target === 'p99-25ms' ? endpoint.p99 <= 25 : cpuRatio <= 4 && endpoint.p99 <= 25,
        };
        log(`${name}: replay ${baseline.serverCpuMicrosPerRequest} µs CPU/request (endpoint/replay ${cpuRatio}); ${v.sent.urls.size} distinct of ${v.sent.total} URLs sent; ` +
          `main thread ${endpoint.serverMainThreadCpuMicrosPerRequest} µs (replay ${baseline.serverMainThreadCpuMicrosPerRequest}), other threads ${endpoint.serverCpuMicrosPerRequest - (endpoint.serverMainThreadCpuMicrosPerRequest ?? 0)} µs (replay ${baseline.serverCpuMicrosPerRequest - (baseline.serverMainThreadCpuMicrosPerRequest ?? 0)})`);
      }
    }
    if (o.vary) {
      const samples = m.scale === 'large' ? 100 : 200;
      log(`vary: the database's own share (${samples} requests per case in process)`);
      const share = await databaseShare(m.url, SECRET, reads.filter(([name]) => o.want(name)) as Array<[string, VaryTarget]>, samples);
      for (const row of results.rows) {
        const s = share.get(row.name);
        if (row.vary && s) Object.assign(row.vary, s);
        if (s) log(`${row.name}: in process ${s.inProcessCpuMicros} µs CPU, ${s.inProcessMicros} µs wall per request, ${s.dbMicros} µs of it in ${s.statements} statements (${Math.round(s.dbShare * 100)} %)`);
      }
    }

    if (writesWanted) {
      // Bounded: `writes` creations (unique names), then the deletion of exactly those providers.
      const create: Target = { method: 'POST', path: '/api/v2/sso-providers/oidc', headers: [admin], body: oidcBody };
      const createReplay: Target = { method: 'POST', path: '/replay/sso-create', headers: [encoding], body: oidcBody };
      const baseline = await load(replay.base, replayPid, createReplay, { amount: o.writes, connections: o.connections });
      const endpoint = await load(app.base, pid, create, { amount: o.writes, connections: o.connections });
      if (o.want('sso-create')) record('sso-create', create, 'write', endpoint, baseline);
      const list = await (await fetch(`${app.base}/api/v2/sso-providers`, { headers: admin })).json() as { data: Array<{ id: number; name: string }> };
      const ids = list.data.filter((p) => p.name.startsWith(`bench-${run}-`)).map((p) => p.id);
      if (ids.length !== o.writes) results.notes.push(`sso-delete: ${ids.length} of ${o.writes} created providers found to delete`);
      const del: Target = { method: 'DELETE', path: '/api/v2/sso-providers/{id}', headers: [admin], pathFor: (n) => `/api/v2/sso-providers/${ids[n] ?? 0}` };
      const delReplay: Target = { method: 'DELETE', path: '/replay/sso-delete', headers: [encoding] };
      const delBaseline = await load(replay.base, replayPid, delReplay, { amount: ids.length, connections: o.connections });
      const delEndpoint = await load(app.base, pid, del, { amount: ids.length, connections: o.connections });
      if (o.want('sso-delete')) record('sso-delete', del, 'write', delEndpoint, delBaseline);
    }

    if (!o.vary && o.want('members-stream')) results.stream = await stream(app.base, pid, admin, m);
  } finally {
    await stop(app.child);
    if (replay) await stop(replay.child);
  }
}

/** One GET ...members?limit=0 read as it streams, the server's RSS sampled every 10 ms. */
async function stream(base: string, pid: number, headers: Record<string, string>, m: Manifest) {
  global.gc?.();
  const before = procStatus(pid).rssMb;
  let peak = before;
  const timer = setInterval(() => (peak = Math.max(peak, procStatus(pid).rssMb)), 10);
  const t0 = performance.now();
  const res = await fetch(`${base}/api/v2/asset-group-tags/${m.tagId}/members?limit=0`, { headers });
  let bytes = 0;
  let firstByteMs = 0;
  const reader = res.body!.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (!firstByteMs) firstByteMs = performance.now() - t0;
    bytes += value.length;
  }
  const totalMs = performance.now() - t0;
  clearInterval(timer);
  peak = Math.max(peak, procStatus(pid).rssMb);
  const out = {
    status: res.status, chunked: res.headers.get('transfer-encoding') === 'chunked', members: m.shape.tagMembers, bytes,
    firstByteMs: Math.round(firstByteMs), totalMs: Math.round(totalMs), rssBeforeMb: before, rssPeakMb: peak,
    rssGrowthMb: +(peak - before).toFixed(1), met: res.status === 200 && peak - before < 100,
  };
  log(`members limit=0: ${out.status}, ${bytes} bytes in ${out.totalMs} ms (first byte ${out.firstByteMs} ms), server RSS ${before} → peak ${peak} MB (+${out.rssGrowthMb})`);
  return out;
}

/**
 * The ingest engineer's benchmark (bench/ingest.bench.ts: `scent import` of generated SharpHound files into a
 * fresh database in its own process), run at this scale's size; its result file is folded into this run's.
 */
async function ingest(database: Database, scale: ScaleName): Promise<Record<string, number | string | boolean>> {
  const users = SHAPES[scale].ingestUsers;
  if (!existsSync(join(ROOT, 'bench/ingest.bench.ts'))) return { skipped: 'bench/ingest.bench.ts is missing' };
  const started = Date.now();
  const bench = (await import('./ingest.bench.ts')) as { run(args: string[]): Promise<void> };
  await bench.run(['--users', String(users), '--database', database]);
  const suffix = `-${database}-${users}.json`;
  const file = readdirSync(RESULTS).filter((f) => f.startsWith('ingest-') && f.endsWith(suffix))
    .map((f) => join(RESULTS, f)).filter((f) => statSync(f).mtimeMs >= started).sort((x, y) => statSync(y).mtimeMs - statSync(x).mtimeMs)[0];
  if (!file) return { skipped: 'bench/ingest.bench.ts wrote no result' };
  const r = JSON.parse(readFileSync(file, 'utf8')) as Record<string, number | string | boolean>;
  const met = r.exitCode === 0 && Number(r.elementsPerSecond) >= (database === 'sqlite' ? 100_000 : 50_000) && Number(r.peakRssMb) < 400;
  log(`ingest: ${r.elementsPerSecond} elements/s, peak RSS ${r.peakRssMb} MB (${r.inputMb} MB input; ${file.slice(ROOT.length)})`);
  return { ...r, resultFile: file.slice(ROOT.length), met };
}

/** `scent serve` (bin/scent.js) on the existing database to the first 200 on /health, 5 times. */
async function coldStart(url: string, build: boolean) {
  // Other engineers edit src/ during a run; bin/scent.js then falls back to tsx. Rebuild right before.
  if (build && !distIsFresh()) spawnSync(process.execPath, [join(ROOT, 'scripts/build.mjs')], { cwd: ROOT, stdio: 'ignore' });
  const freshBefore = distIsFresh();
  const times: number[] = [];
  for (let i = 0; i < 5; i++) {
    const port = await freePort();
    const t0 = performance.now();
    const child = spawn(process.execPath, serveArgs(url, port), { stdio: 'ignore' });
    let ms = 0;
    while (performance.now() - t0 < 30_000) {
      try {
        const res = await fetch(`http://127.0.0.1:${port}/health`);
        await res.arrayBuffer();
        if (res.status === 200) {
          ms = performance.now() - t0;
          break;
        }
      } catch {
        // not listening yet
      }
      await new Promise((r) => setTimeout(r, 5));
    }
    await stop(child);
    times.push(Math.round(ms));
  }
  const sorted = [...times].sort((a, b) => a - b);
  const median = sorted[2];
  const dist = freshBefore && distIsFresh() ? 'compiled dist/ (fresh throughout)' : 'NOT the compiled dist/: src/ changed, bin/scent.js ran the sources through tsx';
  log(`cold start: ${times.join(', ')} ms (median ${median}); ${dist}`);
  return { runsMs: times, medianMs: median, dist, met: median > 0 && median < 1500 };
}

function compareWithSqlite(results: Results) {
  const suffix = `-sqlite-${results.scale}${loadSuffix(results)}.json`;
  const file = join(RESULTS, `${results.date}${suffix}`); // full runs only (partial runs carry -only-)
  const candidates = existsSync(RESULTS) ? readdirSync(RESULTS).filter((f) => /^\d{4}-\d{2}-\d{2}-sqlite-/.test(f) && f.endsWith(suffix)).sort() : [];
  const path = existsSync(file) ? file : candidates.length ? join(RESULTS, candidates.at(-1)!) : undefined;
  if (!path) return undefined;
  const sqlite = JSON.parse(readFileSync(path, 'utf8')) as Results;
  results.notes.push(`PostgreSQL vs SQLite: compared with ${path.slice(ROOT.length)}`);
  return results.rows.flatMap((r) => {
    const s = sqlite.rows.find((x) => x.name === r.name);
    if (!s) return [];
    const factor = +(s.endpoint.rps / Math.max(1, r.endpoint.rps)).toFixed(2);
    return [{ name: r.name, sqliteRps: s.endpoint.rps, postgresRps: r.endpoint.rps, factor, sqliteP99: s.endpoint.p99, postgresP99: r.endpoint.p99, met: factor <= 2 }];
  });
}

// ---------------------------------------------------------------------------------------------- report

const yes = (b: boolean | null | undefined) => (b === null || b === undefined ? '–' : b ? 'yes' : '**no**');

const AIMS: Record<VaryTarget['target'], string> = { 'x4-replay': 'CPU ≤ 4× replay, p99 ≤ 25 ms', 'cpu-1ms': 'CPU ≤ 1,000 µs', 'p99-25ms': 'p99 ≤ 25 ms' };

const mainThread = (l: Load) => (l.serverMainThreadCpuMicrosPerRequest === undefined ? '' : ` (${l.serverMainThreadCpuMicrosPerRequest})`);

/** --vary: per case, the distinct-request figures and the database's own share. */
function varyLines(r: Results): string[] {
  return [
    '## Distinct requests (`--vary`, bench/vary.ts: every request differs; the response cache is on)',
    '',
    '| case | requests | distinct URLs | mean bytes | req/s | p50 ms | p99 ms | server CPU µs/req (main thread) | replay CPU µs/req (main thread) | server / replay CPU | in-process: statements\' share of the time (statements/req) | in-process: CPU µs/req, wall µs/req, of it in statements | non-2xx | target | met |',
    '|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|',
    ...r.rows.filter((x) => x.vary).map((x) => {
      const v = x.vary!;
      return `| ${x.name} | \`${v.shape}\` | ${v.distinct} of ${v.sent} | ${x.endpoint.bytesPerResponse} | ${x.endpoint.rps} | ${x.endpoint.p50} | ${x.endpoint.p99} | ${x.endpoint.serverCpuMicrosPerRequest}${mainThread(x.endpoint)} | ${v.replayCpuMicros}${mainThread(x.baseline)} | ${v.cpuRatio} | ${v.dbShare === undefined ? '–' : `${Math.round(v.dbShare * 100)} %`} (${v.statements ?? '–'}) | ${v.inProcessCpuMicros ?? '–'}, ${v.inProcessMicros ?? '–'}, ${v.dbMicros ?? '–'} | ${x.endpoint.non2xx} | ${AIMS[v.target]} | ${yes(v.met)} |`;
    }),
    '',
    'The replay answers one captured response of the case (the first drawn request) from a bare Fastify process. Server CPU is the whole process\'s (/proc/<pid>/stat); in parentheses its main thread\'s alone (what a CPU profile sees; the rest is V8\'s GC helper threads and libuv\'s pool). "In-process": the same kind of requests injected into an application in the bench process on the same database (no HTTP); the statements\' wall time comes from Kysely\'s query log, and their share of the in-process wall time is the database\'s own part of the work (wall times stretch with the load on the machine; the share much less). Server CPU counts the Scent process only: on PostgreSQL the database server\'s own CPU is not in it.',
    '',
  ];
}

function write(r: Results, suffix: string): void {
  mkdirSync(RESULTS, { recursive: true });
  const base = join(RESULTS, `${r.date}-${r.database}-${r.scale}${suffix}`);
  writeFileSync(`${base}.json`, JSON.stringify(r, null, 2));
  const s = r.shape;
  const lines = [
    `# Bench: ${r.database}, ${r.scale} scale, ${r.date}`,
    '',
    `Command: \`npm run bench -- --database ${r.database} --scale ${r.scale}${r.vary ? ' --vary' : ''}${r.acceptEncoding ? ` --accept-encoding ${r.acceptEncoding}` : ''}${r.client === 'wrk' ? ' --client wrk' : ''}\` — concurrency ${r.connections}, ${r.duration} s per measured load after ${r.warmup} s of warm-up (each of endpoint and baseline), loopback, ${r.client === 'wrk' ? 'GET loads by wrk (one thread), writes by autocannon in the bench process' : 'autocannon in the bench process'}, server in its own process (\`bin/scent.js serve\`, dist: ${r.dist}), Node ${r.node}.`,
    '',
    `Dataset: ${s.nodes.toLocaleString('en')} nodes, ${s.edges.toLocaleString('en')} edges, tag of ${s.tagMembers.toLocaleString('en')} members, template with ${s.controllers.toLocaleString('en')} controllers, ${s.dataQuality.toLocaleString('en')} data-quality records, ${(s.clients * s.jobsPerClient).toLocaleString('en')} jobs over ${s.clients.toLocaleString('en')} clients.`,
    '',
    `Machine: 2 cores shared with other work. Load average at start ${r.loadAverageStart}, at end ${r.loadAverageEnd}; full test runs (scripts/test.mjs) in progress: ${r.testRunsAtStart} at start, ${r.testRunsAtEnd} at end.`,
    '',
    ...(r.vary ? varyLines(r) : []),
    '## Endpoints (endpoint / replay baseline of the same bytes)',
    '',
    '| case | request | status, bytes | req/s | p50 ms | p99 ms | max ms | non-2xx / errors | server RSS MB | server CPU µs/req | baseline req/s | baseline p99 ms | ratio | ≥ 0.5 | p99 ≤ 25 ms |',
    '|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|',
    ...r.rows.map((x) => `| ${x.name} | \`${x.request}\` | ${x.status}, ${x.bytes} | ${x.endpoint.rps} | ${x.endpoint.p50} | ${x.endpoint.p99} | ${x.endpoint.max} | ${x.endpoint.non2xx} / ${x.endpoint.errors} | ${x.endpoint.serverRssMb} | ${x.endpoint.serverCpuMicrosPerRequest} | ${x.baseline.rps} | ${x.baseline.p99} | ${x.ratio} | ${yes(x.targets.ratio)} | ${yes(x.targets.p99)} |`),
    '',
    `Writes (sso-create, sso-delete) are bounded runs of ${r.rows.find((x) => x.kind === 'write')?.endpoint.requests ?? 0} requests each (create N providers with unique names, then delete exactly those); their baseline replays the captured response bytes of one create / one delete; no target applies.`,
    '',
  ];
  if (r.stream) {
    const x = r.stream;
    lines.push('## limit=0 over the tag (streamed)', '', '| status | chunked | members | bytes | first byte ms | total ms | server RSS before MB | peak MB | growth MB | < 100 MB |', '|---|---|---:|---:|---:|---:|---:|---:|---:|---|',
      `| ${x.status} | ${x.chunked} | ${x.members} | ${x.bytes} | ${x.firstByteMs} | ${x.totalMs} | ${x.rssBeforeMb} | ${x.rssPeakMb} | ${x.rssGrowthMb} | ${yes(x.met as boolean)} |`, '');
  }
  if (r.ingest) {
    const x = r.ingest;
    lines.push('## Ingest (`npm run bench -- ingest`: `scent import` of generated SharpHound files into a fresh database)', '');
    if (x.skipped) lines.push(`Skipped: ${x.skipped}`, '');
    else {
      lines.push('| users | input MB | nodes | edges | ingest s | elements/s | analysis s | elements per CPU-s | peak RSS MB | target met |', '|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|',
        `| ${x.users} | ${x.inputMb} | ${x.nodes} | ${x.edges} | ${x.ingestSeconds} | ${x.elementsPerSecond} | ${x.analysisSeconds} | ${x.elementsPerCpuSecond} | ${x.peakRssMb} | ${yes(x.met as boolean)} |`, '',
        `Target: ≥ ${r.database === 'sqlite' ? '100,000' : '50,000'} elements/s, peak RSS < 400 MB (for ~1 GB input: large scale). Full record: \`${x.resultFile}\`.`, '');
    }
  }
  if (r.coldStart) {
    const x = r.coldStart;
    lines.push('## Cold start (`bin/scent.js serve` on this database → first 200 on /health)', '', `Runs: ${(x.runsMs as number[]).join(', ')} ms; median **${x.medianMs} ms** (target < 1500 ms: ${yes(x.met as boolean)}); ran ${x.dist}.`, '');
  }
  if (r.postgresVsSqlite) {
    lines.push('## PostgreSQL vs SQLite (target: within 2×)', '', '| case | SQLite req/s | PostgreSQL req/s | SQLite / PostgreSQL | SQLite p99 | PostgreSQL p99 | within 2× |', '|---|---:|---:|---:|---:|---:|---|',
      ...r.postgresVsSqlite.map((x) => `| ${x.name} | ${x.sqliteRps} | ${x.postgresRps} | ${x.factor} | ${x.sqliteP99} | ${x.postgresP99} | ${yes(x.met)} |`), '');
  }
  if (r.notes.length) lines.push('## Notes', '', ...r.notes.map((n) => `- ${n}`), '');
  writeFileSync(`${base}.md`, lines.join('\n'));
  log(`wrote ${base.slice(ROOT.length)}.md and .json`);
}
