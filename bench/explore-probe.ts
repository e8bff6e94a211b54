/**
 * Profiling aid for the graph benchmark: the explore bench's requests answered one at a time
 * in-process (buildApp + inject, no sockets), with per-case service times:
 * `[PROBE_PROFILE=out.cpuprofile] node --import tsx bench/explore-probe.ts <database url> [cases] [count]`
 * (cases: comma-separated of entity-info, related-list, search, shortest-path; the profile covers
 * the cases only, not the engine's load).
 * The dataset must exist (npm run bench -- explore --scale large builds it).
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { buildApp } from '../src/app.ts';
import { issueSession } from '../src/auth/sessions.ts';
import { testConfig } from '../src/config.ts';
import { createDb } from '../src/db/create-db.ts';
import { createUser } from '../src/modules/users/users.service.ts';
import { exploreCases } from './explore.bench.ts';
import { EXPLORE_SCALES } from './explore-dataset.ts';

const [url, only = '', countArg = '200'] = process.argv.slice(2);
const SECRET = 'bench-secret-that-is-long-enough-for-hs256!!';
const db = createDb(url);
const app = await buildApp({ config: testConfig({ databaseUrl: url, jwtSecret: SECRET }), db });
const name = `explore-probe-${Date.now()}`;
const user = await createUser(db, { principalName: name, email: `${name}@bench.test`, roleName: 'Read-Only' });
const { token } = await issueSession(db, testConfig({ jwtSecret: SECRET }), { userId: user.id }, 3600, 'bench');
const headers = { authorization: `Bearer ${token}` };
const tierZero = ['S-1-5-21-4000-5000-6000-512', 'S-1-5-21-4000-5000-6000-519', 'BENCH.LOCAL-S-1-5-32-544'];
let t = performance.now();
const first = await app.inject({ method: 'GET', url: '/api/v2/groups/S-1-5-21-4000-5000-6000-512/members?limit=1', headers });
console.log(`first answer ${first.statusCode} in ${Math.round(performance.now() - t)} ms, rss ${Math.round(process.memoryUsage().rss / 2 ** 20)} MB`);
// PROBE_PROFILE=<file.cpuprofile>: a CPU profile of the cases only (after the load and the first answer).
const profile = process.env.PROBE_PROFILE;
const session = profile ? new Session() : null;
if (session) {
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.start');
}
const n = url.includes('small') ? EXPLORE_SCALES.small : EXPLORE_SCALES.large;
for (const c of exploreCases(n, tierZero).cases) {
  if (only && !only.split(',').includes(c.name)) continue;
  const times: Array<[number, string, number]> = [];
  for (let i = 0; i < Number(countArg); i++) {
    const path = c.path();
    t = performance.now();
    const r = await app.inject({ method: 'GET', url: path, headers });
    times.push([performance.now() - t, path, r.statusCode]);
  }
  const sorted = times.map((x) => x[0]).sort((a, b) => a - b);
  const q = (f: number) => sorted[Math.min(sorted.length - 1, Math.floor(f * sorted.length))].toFixed(1);
  console.log(`${c.name}: p50 ${q(0.5)} p90 ${q(0.9)} p99 ${q(0.99)} max ${q(1)} ms; mean ${(sorted.reduce((a, b) => a + b, 0) / sorted.length).toFixed(1)}`);
  for (const [ms, path, status] of times.sort((a, b) => b[0] - a[0]).slice(0, 3)) console.log(`  ${ms.toFixed(1)} ms ${status} ${path}`);
}
if (session) writeFileSync(profile!, JSON.stringify((await session.post('Profiler.stop')).profile));
await app.close();
await db.close();
