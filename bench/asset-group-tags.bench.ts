/**
 * `npm run bench -- asset-group-tags [--nodes N] [--members M] [--controllers C] [--noise E]
 *   [--duration S] [--connections K] [--db PATH] [--rebuild]`
 * Builds (or reuses) a generated SQLite graph, starts the application and a bare Fastify replay of the
 * first page's bytes in two other processes, and drives both with autocannon from this process.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import autocannon from 'autocannon';
import { createDb } from '../src/db/create-db.ts';
import { issueSession } from '../src/auth/sessions.ts';
import { testConfig } from '../src/config.ts';
import { createUser } from '../src/modules/users/users.service.ts';
import { generateGraph, TEMPLATE_OBJECTID } from './graph-generate.ts';

const SECRET = 'bench-secret-that-is-long-enough-for-hs256!!';

function option(args: string[], name: string, fallback: string): string {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && args[i + 1] !== undefined ? args[i + 1] : fallback;
}

async function start(args: string[]): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(process.execPath, ['--import', 'tsx', new URL('./serve.ts', import.meta.url).pathname, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  for await (const line of createInterface({ input: child.stdout! })) {
    const m = /^listening (\d+)$/.exec(line);
    if (m) return { child, port: Number(m[1]) };
  }
  throw new Error('server did not start');
}

async function load(url: string, headers: Record<string, string>, duration: number, connections: number) {
  const r = await autocannon({ url, headers, duration, connections, pipelining: 1 });
  return { p50: r.latency.p50, p99: r.latency.p99, rps: r.requests.average, non2xx: r.non2xx, errors: r.errors };
}

export async function run(args: string[]): Promise<void> {
  const nodes = Number(option(args, 'nodes', '1000000'));
  const members = Number(option(args, 'members', '200000'));
  const controllers = Number(option(args, 'controllers', '10000'));
  const noise = Number(option(args, 'noise', String(nodes)));
  const duration = Number(option(args, 'duration', '10'));
  const connections = Number(option(args, 'connections', '16'));
  const path = option(args, 'db', `/tmp/scent-bench-${nodes}.sqlite`);
  if (args.includes('--rebuild') || !existsSync(path)) {
    for (const suffix of ['', '-wal', '-shm']) rmSync(path + suffix, { force: true });
    await generateGraph(path, { nodes, tagMembers: members, controllers, noise }, (s) => console.log(s));
  }
  const db = createDb(`sqlite:${path}`);
  const config = testConfig({ databaseUrl: `sqlite:${path}`, jwtSecret: SECRET });
  const user = await createUser(db, { principalName: `bench-${Date.now()}`, email: `bench-${Date.now()}@example.test`, roleName: 'Read-Only' });
  const { token } = await issueSession(db, config, { userId: user.id }, 3600 * 4, 'bench');
  await db.close();
  const headers = { authorization: `Bearer ${token}` };

  const app = await start(['app', path, SECRET]);
  const base = `http://127.0.0.1:${app.port}`;
  const deep = Math.max(0, members - 10_000);
  const cases: Array<[string, string]> = [
    ['members first page', `${base}/api/v2/asset-group-tags/1/members`],
    ['members name=~eq: page', `${base}/api/v2/asset-group-tags/1/members?name=~eq:user12345`],
    [`members skip=${deep}`, `${base}/api/v2/asset-group-tags/1/members?skip=${deep}`],
    [`controllers first page (${controllers})`, `${base}/api/v2/certtemplates/${TEMPLATE_OBJECTID}/controllers`],
    // The floor every authenticated route pays (JWT + session + user + permissions) plus one tiny read.
    ['floor: GET /asset-group-tags/1', `${base}/api/v2/asset-group-tags/1`],
  ];
  for (const [name, url] of cases) {
    const res = await fetch(url, { headers });
    const body = await res.text();
    console.log(`${name}: ${res.status}, ${body.length} bytes${'count' in JSON.parse(body) ? `, count ${JSON.parse(body).count}` : ''}`);
  }
  const firstPage = await (await fetch(cases[0][1], { headers })).arrayBuffer();
  const replayFile = `${path}.first-page.json`;
  writeFileSync(replayFile, Buffer.from(firstPage));
  const replay = await start(['replay', replayFile]);
  try {
    const rows: Array<Record<string, string | number>> = [];
    const baseline = await load(`http://127.0.0.1:${replay.port}/replay`, {}, duration, connections);
    rows.push({ case: 'baseline: bare Fastify replaying the first page', ...baseline });
    for (const [name, url] of cases) {
      const r = await load(url, headers, duration, connections);
      rows.push({ case: name, ...r, 'rps/baseline': (r.rps / baseline.rps).toFixed(2) });
    }
    console.log(`\n${nodes} nodes, tag of ${members} members, template with ${controllers} controllers; ${connections} connections, ${duration} s each`);
    console.table(rows);
  } finally {
    app.child.kill();
    replay.child.kill();
  }
}
