/**
 * Soak run: `npm run soak -- [--minutes 2] [--rate 400] [--database URL]`.
 * Starts `scent serve` in its own process on a fresh database (SQLite by default), creates a few
 * providers, then drives a steady mix of reads and writes over loopback  for the
 * given minutes (its own paced keep-alive workers), sampling the server's RSS every 5 s. Fails (exit 1) on any non-2xx/4xx-by-design
 * answer or when RSS keeps growing (last third of the run more than 15% above the first third).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    minutes: { type: 'string', default: '2' },
    rate: { type: 'string', default: '400' },
    database: { type: 'string' },
  },
});
const minutes = Number(values.minutes);
const dir = mkdtempSync(join(tmpdir(), 'scent-soak-'));
const database = values.database ?? `sqlite:${join(dir, 'soak.sqlite')}`;

const server = spawn(process.execPath, [join(import.meta.dirname, '../bin/scent.js'), 'serve', '--port', '0', '--database', database, '--log-level', process.env.SOAK_LOG ?? 'warn'], {
  stdio: ['ignore', 'pipe', process.env.SOAK_LOG ? 'pipe' : 'inherit'],
});
let out = '';
server.stdout!.on('data', (c) => (out += c));
const ready = await new Promise<{ base: string; token: string }>((resolve, reject) => {
  const timer = setTimeout(() => reject(new Error(`server did not start: ${out}`)), 60_000);
  server.stdout!.on('data', () => {
    const base = /serving the BloodHound v2 API at (\S+)/.exec(out)?.[1];
    const token = /bearer token \([^)]*\): (\S+)/.exec(out)?.[1];
    if (base && token) {
      clearTimeout(timer);
      resolve({ base, token });
    }
  });
});
const headers = { authorization: `Bearer ${ready.token}`, 'content-type': 'application/json' };
for (let i = 0; i < 20; i++) {
  await fetch(`${ready.base}/api/v2/sso-providers/oidc`, {
    method: 'POST', headers,
    body: JSON.stringify({ name: `Soak ${i}`, issuer: 'https://idp.example.test', client_id: `c${i}`, config: {} }),
  });
}

const rss: number[] = [];
const sampler = setInterval(() => {
  const status = readFileSync(`/proc/${server.pid}/status`, 'utf8');
  rss.push(Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024);
}, 5000);

// The load: WORKERS loops on keep-alive connections, paced to RATE requests/s in total.
const WORKERS = 8;
const rate = Number(values.rate);
const until = Date.now() + minutes * 60_000;
const stats = { total: 0, ok: 0, expected4xx: 0, unexpected: [] as string[], latencies: [] as number[] };
let counter = 0;
const authOnly = { authorization: headers.authorization };
function next(): { method: string; path: string; body?: string; expect: number } {
  const n = counter++ % 6;
  if (n === 0) return { method: 'GET', path: '/health', expect: 200 };
  if (n === 1) return { method: 'GET', path: '/api/v2/self', expect: 200 };
  if (n === 2) return { method: 'GET', path: '/api/v2/sso-providers?name=~eq:soak&sort_by=-name', expect: 200 };
  if (n === 3) return { method: 'GET', path: '/api/v2/sso-providers?name=gt:x', expect: 400 }; // a 400 by design
  if (n === 4) {
    const body = JSON.stringify({ name: `Churn ${counter}`, issuer: 'https://idp.example.test', client_id: 'c', config: {} });
    return { method: 'POST', path: '/api/v2/sso-providers/oidc', body, expect: 200 };
  }
  return { method: 'GET', path: '/api/v2/spec', expect: 200 };
}
async function worker(): Promise<void> {
  const interval = (1000 * WORKERS) / rate;
  let due = Date.now();
  while (Date.now() < until) {
    const r = next();
    const started = performance.now();
    try {
      const res = await fetch(`${ready.base}${r.path}`, {
        method: r.method, body: r.body, headers: r.body ? headers : authOnly, signal: AbortSignal.timeout(10_000),
      });
      await res.arrayBuffer();
      stats.latencies.push(performance.now() - started);
      if (res.status === r.expect) (r.expect === 200 ? stats.ok++ : stats.expected4xx++);
      else stats.unexpected.push(`${r.method} ${r.path} → ${res.status}`);
    } catch (err) {
      stats.unexpected.push(`${r.method} ${r.path} → ${(err as Error).message}`);
    }
    stats.total++;
    due += interval;
    const wait = due - Date.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
  }
}
await Promise.all(Array.from({ length: WORKERS }, worker));
clearInterval(sampler);
server.kill('SIGTERM');
await new Promise((r) => server.once('exit', r));
rmSync(dir, { recursive: true, force: true });

stats.latencies.sort((a, b) => a - b);
const third = Math.max(1, Math.floor(rss.length / 3));
const avg = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
const early = avg(rss.slice(0, third));
const late = avg(rss.slice(-third));
console.log(JSON.stringify({
  minutes, requests: stats.total, rps: +(stats.total / (minutes * 60)).toFixed(1),
  p50_ms: +stats.latencies[Math.floor(stats.latencies.length * 0.5)].toFixed(2),
  p99_ms: +stats.latencies[Math.floor(stats.latencies.length * 0.99)].toFixed(2),
  ok: stats.ok, expected_400: stats.expected4xx, unexpected: stats.unexpected.length,
  rss_mb: { first: rss[0]?.toFixed(1), early: early.toFixed(1), late: late.toFixed(1), max: Math.max(...rss).toFixed(1) },
}, null, 2));
const growing = late > early * 1.15;
if (stats.unexpected.length > 0 || growing) {
  console.error(`soak FAILED: ${stats.unexpected.length} unexpected answers ${stats.unexpected.slice(0, 5).join('; ')}; RSS ${early.toFixed(1)} → ${late.toFixed(1)} MB`);
  process.exit(1);
}
console.log('soak passed');
