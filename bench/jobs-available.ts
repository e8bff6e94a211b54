/**
 * `npm run bench -- jobs [--clients 1000] [--jobs 100000] [--ready 10] [--duration 10] [--connections 32] [--db PATH]`
 *
 * Seeds a SQLite database with `clients` collection clients and `jobs` jobs spread evenly over them
 * (per client `ready` jobs ready and due with 2 OUs + 1 domain each, the rest finished), plus the OU and
 * domain nodes in the graph; starts the real server (`bin/scent.js serve`) in another process and
 * drives GET /api/v2/jobs/available with autocannon over loopback, every request as a client picked
 * round-robin: first full answers, then revalidations with If-None-Match (304).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import { createInterface } from 'node:readline';
import autocannon from 'autocannon';
import { issueSession } from '../src/auth/sessions.ts';
import { testConfig } from '../src/config.ts';
import { createDb } from '../src/db/create-db.ts';
import { migrateToLatest } from '../src/db/migrate.ts';
import { nowMicros } from '../src/db/time.ts';

const SECRET = 'bench-secret-that-is-long-enough-for-hs256!!';
const BIN = new URL('../bin/scent.js', import.meta.url).pathname;

function option(args: string[], name: string, fallback: string): string {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && args[i + 1] !== undefined ? args[i + 1] : fallback;
}

async function seed(path: string, clients: number, jobs: number, ready: number): Promise<string[]> {
  for (const suffix of ['', '-wal', '-shm']) rmSync(path + suffix, { force: true });
  const db = createDb(`sqlite:${path}`);
  await migrateToLatest(db);
  const config = testConfig({ databaseUrl: `sqlite:${path}`, jwtSecret: SECRET });
  const now = nowMicros();
  const stamp = { created_at: now, updated_at: now, deleted_at: null };
  const ids = Array.from({ length: clients }, () => randomUUID());
  const ous = Array.from({ length: 200 }, (_, i) => `OU-${String(i).padStart(4, '0')}-0000-4000-8000-000000000000`);
  const domains = Array.from({ length: 20 }, (_, i) => `S-1-5-21-1000-2000-${3000 + i}`);
  const off = { session_collection: 0, local_group_collection: 1, ad_structure_collection: 1, cert_services_collection: 0, ca_registry_collection: 0, dc_registry_collection: 0, all_trusted_domains: 0 } as const;
  await db.kysely.transaction().execute(async (trx) => {
    const nodes = [
      ...ous.map((o, i) => ({ objectid: o, kind: 'OU', kinds: '["OU","Base"]', name: `OU${i}@CORP.LOCAL`, environment_id: domains[0], properties: JSON.stringify({ name: `OU${i}@CORP.LOCAL`, distinguishedname: `OU=OU${i},DC=CORP,DC=LOCAL` }), source_kind: 'Base', is_placeholder: 0 as const, last_seen: now })),
      ...domains.map((d, i) => ({ objectid: d, kind: 'Domain', kinds: '["Domain","Base"]', name: `D${i}.LOCAL`, environment_id: d, properties: '{}', source_kind: 'Base', is_placeholder: 0 as const, last_seen: now })),
    ];
    for (let i = 0; i < nodes.length; i += 200) await trx.insertInto('nodes').values(nodes.slice(i, i + 200)).execute();
    for (let i = 0; i < clients; i += 200) {
      await trx.insertInto('clients').values(ids.slice(i, i + 200).map((id, k) => ({
        id, name: `collector-${i + k}`, type: 'sharphound', domain_controller: 'dc01.corp.local', ip_address: '', hostname: '',
        last_checkin: null, current_job_id: null, ...stamp,
      }))).execute();
    }
    const perClient = Math.floor(jobs / clients);
    let batch: Array<Record<string, unknown>> = [];
    for (let c = 0; c < clients; c++) {
      for (let j = 0; j < perClient; j++) {
        const isReady = j < ready;
        const at = now - (perClient - j) * 3_600_000_000;
        batch.push({
          client_id: ids[c], event_id: null, event_title: '', execution_time: at,
          start_time: isReady ? null : at + 1_000_000, end_time: isReady ? null : at + 60_000_000, last_ingest: null,
          status: isReady ? 0 : 2, status_message: isReady ? '' : 'done', log_path: null, domain_controller: 'dc01.corp.local',
          ous: JSON.stringify([ous[(c + j) % ous.length], ous[(c + j + 7) % ous.length]]), domains: JSON.stringify([domains[c % domains.length]]),
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
  const tokens: string[] = [];
  for (const id of ids) tokens.push((await issueSession(db, config, { clientId: id }, 4 * 3600, 'bench')).token);
  await db.close();
  return tokens;
}

async function start(path: string): Promise<{ child: ChildProcess; base: string }> {
  const child = spawn(process.execPath, [BIN, 'serve', '--database', `sqlite:${path}`, '--port', '0', '--log-level', 'warn',
    '--jwt-secret', SECRET, '--scheduler-interval', '0'], { stdio: ['ignore', 'pipe', 'inherit'] });
  for await (const line of createInterface({ input: child.stdout! })) {
    const m = /serving the BloodHound v2 API at (http:\/\/\S+)/.exec(line);
    if (m) return { child, base: m[1] };
  }
  throw new Error('server did not start');
}

/** CPU seconds (user + system) the server process has used: a cost measure that other load on the machine does not distort. */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** `unique`: every request gets its own query string (an always-true filter), so no cached body can answer it. */
async function load(base: string, pid: number, headerSets: Array<Record<string, string>>, duration: number, connections: number, unique = false) {
  let next = 0;
  const cpu0 = cpuSeconds(pid);
  const r = await autocannon({
    url: `${base}/api/v2/jobs/available`, duration, connections, pipelining: 1,
    requests: [{
      setupRequest: (req) => {
        const n = next++;
        const path = unique ? `/api/v2/jobs/available?execution_time=lte:2999-12-31T23:59:59.${String(n % 1e9).padStart(9, '0')}Z` : req.path;
        return { ...req, path, headers: { ...req.headers, ...headerSets[n % headerSets.length] } };
      },
    }],
  });
  const perReq = (r.throughput.average / Math.max(1, r.requests.average));
  const cpuMicrosPerRequest = Math.round(((cpuSeconds(pid) - cpu0) * 1e6) / Math.max(1, r.requests.total));
  return { cpuMicrosPerRequest, p50: r.latency.p50, p90: r.latency.p90, p99: r.latency.p99, max: r.latency.max, rps: r.requests.average, bytesPerResponse: Math.round(perReq), status2xx: r['2xx'], non2xx: r.non2xx, errors: r.errors };
}

export async function run(args: string[]): Promise<void> {
  const clients = Number(option(args, 'clients', '1000'));
  const jobs = Number(option(args, 'jobs', '100000'));
  const ready = Number(option(args, 'ready', '10'));
  const duration = Number(option(args, 'duration', '10'));
  const connections = Number(option(args, 'connections', '32'));
  const path = option(args, 'db', '/tmp/scent-bench-jobs.sqlite');
  let t = Date.now();
  const tokens = await seed(path, clients, jobs, ready);
  console.log(`seeded ${clients} clients, ${jobs} jobs (${ready} ready per client) in ${Date.now() - t} ms`);
  const { child, base } = await start(path);
  try {
    const auth = tokens.map((token) => ({ authorization: `Bearer ${token}` }));
    // Warm up, and collect each client's ETag for the revalidation run.
    const etags: string[] = [];
    for (const h of auth) {
      const res = await fetch(`${base}/api/v2/jobs/available`, { headers: h });
      if (res.status !== 200) throw new Error(`warm-up: ${res.status} ${await res.text()}`);
      etags.push(res.headers.get('etag')!);
      await res.arrayBuffer();
    }
    t = Date.now();
    const pid = child.pid!;
    const full = await load(base, pid, auth, duration, connections, true);
    const repeat = await load(base, pid, auth, duration, connections);
    const revalidate = await load(base, pid, auth.map((h, i) => ({ ...h, 'if-none-match': etags[i] })), duration, connections);
    console.log(JSON.stringify({ connections, duration, full, repeat, revalidate }, null, 2));
    const line = (name: string, r: typeof full) =>
      `${name.padEnd(34)} p50 ${r.p50} ms  p99 ${r.p99} ms  ${Math.round(r.rps)} req/s  server CPU ${r.cpuMicrosPerRequest} µs/request`;
    console.log(line('full answer, built (unique query)', full));
    console.log(line('full answer, repeated poll', repeat));
    console.log(line('304 revalidation', revalidate));
    console.log(`304 cost / built full answer: ${(revalidate.cpuMicrosPerRequest / full.cpuMicrosPerRequest).toFixed(2)} by server CPU, ${(full.rps / revalidate.rps).toFixed(2)} by throughput; load average ${readFileSync('/proc/loadavg', 'utf8').split(' ')[0]}`);
  } finally {
    child.kill('SIGTERM');
  }
}
