/**
 * `npm run bench -- --vary`: distinct requests in the UI's own shapes, so that no answer is reused (the response
 * cache stays on, as users run it). Every case draws its URLs from a seeded generator that keeps running across the
 * warm-up and the timed load (no URL of the warm-up comes back in the timed load); the harness counts the distinct
 * URLs it sent in the timed load.
 *
 *   tag-members          25 per page, skip anywhere in the tag, sort_by name / -name / objectid; a third of the
 *                        requests with name=~eq:<a 3–6 character piece of a member's name that ≥ 50 members hold>
 *                        (skip within its matches)
 *   tag-members-deep     sort_by=-name, name=~eq:<a piece every member has> (user, bench, local … in any case), skip
 *                        in the last 2,000 matches, limit 20–30 (200,000-member tag at large scale)
 *   template-controllers random skip (whole list), limit 1–100, sort_by name / objectid / label, ascending or not
 *   dq-ad-limit1         limit=1, a random 30-day range ending in the last 30 days (the UI's own call)
 *   dq-ad, dq-azure      the default page (1,000 records; 500 at small scale, the whole table) of a 30-day range ending
 *                        at a random second of the last 12 hours
 *   event                the bench's events (ensured: 25,000) in a shuffled order, each pass over them with the next
 *                        of the four hydrate_ous / hydrate_domains combinations (100,000 distinct requests)
 *   jobs-available       a random client of the fleet, execution_time=lt:<random second of the last 2 days>, a random
 *                        sort and one random boolean filter
 *
 * The database's own share: the same requests (other draws of the same generators) injected into an in-process
 * application on the same database (buildApp, no HTTP), every statement timed by Kysely's query log.
 */
import { sql } from 'kysely';
import { buildApp } from '../src/app.ts';
import { testConfig } from '../src/config.ts';
import { createDb, type Db } from '../src/db/create-db.ts';
import type { Manifest } from './dataset.ts';
import { DOMAIN } from './graph-generate.ts';

export interface VaryTarget {
  method: 'GET';
  /** The request shape, for the report. */
  path: string;
  headers: Array<Record<string, string>>;
  pathFor: (n: number) => string;
  /** URLs sent since the last reset (distinctness of the timed load). */
  sent: { total: number; urls: Set<string> };
  /** What the case is held to. */
  target: 'x4-replay' | 'cpu-1ms' | 'p99-25ms';
}

/** mulberry32: a small seeded generator (the same run twice draws the same requests). */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const int = (r: () => number, lo: number, hi: number) => lo + Math.floor(r() * (hi - lo + 1)); // inclusive
const pick = <T>(r: () => number, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)];
const iso = (micros: number) => new Date(Math.floor(micros / 1000)).toISOString().replace(/\.\d{3}Z$/, 'Z');
const DAY = 86_400_000_000;

function target(path: string, headers: Array<Record<string, string>>, seed: number, aim: VaryTarget['target'], draw: (r: () => number) => string): VaryTarget {
  const r = rng(seed);
  const sent = { total: 0, urls: new Set<string>() };
  return {
    method: 'GET', path, headers, sent, target: aim,
    pathFor: () => {
      const url = draw(r);
      sent.total++;
      sent.urls.add(url);
      return url;
    },
  };
}

/** Before the server starts: the bench's events (idempotent; the dataset holds one). */
export async function ensureEvents(db: Db, m: Manifest): Promise<number[]> {
  const want = 25_000;
  const have = Number((await db.kysely.selectFrom('client_events').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);
  if (have < want) {
    const now = Date.now() * 1000;
    const ous = Array.from({ length: 200 }, (_, i) => `OU-${String(i).padStart(4, '0')}-0000-4000-8000-000000000000`);
    const off = { session_collection: 0, local_group_collection: 1, ad_structure_collection: 1, cert_services_collection: 0, ca_registry_collection: 0, dc_registry_collection: 0, all_trusted_domains: 0 };
    await db.kysely.transaction().execute(async (trx) => {
      for (let i = have; i < want; i += 500) {
        const rows = Array.from({ length: Math.min(500, want - i) }, (_, k) => {
          const n = i + k;
          return {
            client_id: m.clientIds[n % m.clientIds.length], title: `bench-${n}`, rrule: 'DTSTART:20240101T020000Z\nRRULE:FREQ=DAILY;INTERVAL=1',
            ous: JSON.stringify([ous[n % 200], ous[(n * 7 + 3) % 200], ous[(n * 13 + 5) % 200]]), domains: JSON.stringify([DOMAIN]),
            // A year ahead: the scheduler never runs them during a bench.
            next_run_at: now + 365 * DAY, ...off, created_at: now, updated_at: now, deleted_at: null,
          };
        });
        await trx.insertInto('client_events').values(rows as never).execute();
      }
    });
  }
  const rows = await db.kysely.selectFrom('client_events').select('id').where('deleted_at', 'is', null).orderBy('id').execute();
  return rows.map((r) => Number(r.id));
}

/** A sample of the tag's member names (every k-th in node order). */
export async function memberNames(db: Db, m: Manifest): Promise<string[]> {
  const step = Math.max(1, Math.floor(m.shape.tagMembers / 200));
  const rows = await db.kysely.selectFrom('asset_group_tag_members').select('name')
    .where('tag_id', '=', m.tagId).where(sql<boolean>`ord % ${step} = 0`).execute();
  return rows.map((r) => r.name);
}

async function matches(base: string, headers: Record<string, string>, m: Manifest, fragment: string): Promise<number> {
  const res = await fetch(`${base}/api/v2/asset-group-tags/${m.tagId}/members?limit=1&name=~eq:${encodeURIComponent(fragment)}`, { headers });
  const body = (await res.json()) as { count?: number };
  if (res.status !== 200) throw new Error(`members ~eq ${fragment}: ${res.status} ${JSON.stringify(body)}`);
  return body.count ?? 0;
}

/** The varied cases, once the server runs (fragment match counts are asked of it). */
export async function varyCases(
  base: string, m: Manifest, admin: Record<string, string>, clients: Array<Record<string, string>>, eventIds: number[], names: string[],
): Promise<Array<[string, VaryTarget]>> {
  const tag = `/api/v2/asset-group-tags/${m.tagId}/members`;
  const total = m.shape.tagMembers;
  // Pieces of real names (3–6 characters, random case), with how many members hold them.
  const r = rng(7);
  const pieces: Array<[string, number]> = [];
  for (let tries = 0; pieces.length < 40 && tries < 400; tries++) {
    const name = pick(r, names);
    const len = int(r, 3, 6);
    const at = int(r, 0, Math.max(0, name.length - len));
    let piece = name.slice(at, at + len);
    if (r() < 0.5) piece = piece.toLowerCase();
    const count = await matches(base, admin, m, piece);
    if (count >= 50) pieces.push([piece, count]);
  }
  const broad: Array<[string, number]> = [];
  for (const piece of ['user', 'USER', 'User', 'bench', 'BENCH', 'Bench', 'local', 'LOCAL', '@bench', 'h.loc']) broad.push([piece, await matches(base, admin, m, piece)]);
  const dq = (platform: string) => `/api/v2/platform/${platform}/data-quality-stats`;
  const now = Date.now() * 1000;
  const page1000 = (rr: () => number, platform: string) => {
    const end = now - int(rr, 0, 12 * 3600) * 1_000_000;
    return `${dq(platform)}?start=${iso(end - 30 * DAY)}&end=${iso(end)}`;
  };
  // Events: a shuffled walk (Fisher–Yates with the seeded generator).
  const shuffled = [...eventIds];
  for (let i = shuffled.length - 1; i > 0; i--) {
    const j = Math.floor(r() * (i + 1));
    [shuffled[i], shuffled[j]] = [shuffled[j], shuffled[i]];
  }
  let eventWalk = 0;
  const bools = ['session_collection', 'local_group_collection', 'ad_structure_collection', 'cert_services_collection', 'ca_registry_collection', 'dc_registry_collection'];
  const jobSorts = ['execution_time', '-execution_time', 'id', '-id', 'created_at', 'domain_controller'];
  return [
    ['tag-members', target(`${tag}?limit=25&skip=…&sort_by=name,-name,objectid[&name=~eq:…]`, [admin], 11, 'x4-replay', (rr) => {
      const sort = pick(rr, ['name', '-name', 'objectid']);
      if (rr() < 1 / 3) {
        const [piece, count] = pick(rr, pieces);
        return `${tag}?limit=25&skip=${int(rr, 0, Math.max(0, count - 25))}&sort_by=${sort}&name=~eq:${encodeURIComponent(piece)}`;
      }
      return `${tag}?limit=25&skip=${int(rr, 0, total - 25)}&sort_by=${sort}`;
    })],
    ['tag-members-deep', target(`${tag}?skip=<last 2,000 matches>&limit=20–30&sort_by=-name&name=~eq:user,bench,local…`, [admin], 13, 'p99-25ms', (rr) => {
      const [piece, count] = pick(rr, broad);
      return `${tag}?limit=${int(rr, 20, 30)}&skip=${int(rr, Math.max(0, count - 2000), Math.max(0, count - 25))}&sort_by=-name&name=~eq:${encodeURIComponent(piece)}`;
    })],
    ['template-controllers', target(`/api/v2/certtemplates/${m.templateObjectId}/controllers?skip=…&limit=1–100&sort_by=…`, [admin], 17, 'x4-replay', (rr) =>
      `/api/v2/certtemplates/${m.templateObjectId}/controllers?skip=${int(rr, 0, m.shape.controllers - 1)}&limit=${int(rr, 1, 100)}&sort_by=${pick(rr, ['', '-'])}${pick(rr, ['name', 'objectid', 'label'])}`)],
    ['dq-ad-limit1', target(`${dq('ad')}?start=…&end=start+30d&limit=1`, [admin], 19, 'x4-replay', (rr) => {
      const end = now - int(rr, 0, 30 * 86_400) * 1_000_000;
      return `${dq('ad')}?start=${iso(end - 30 * DAY)}&end=${iso(end)}&limit=1`;
    })],
    ['dq-ad', target(`${dq('ad')}?start=end-30d&end=<last 12 h>`, [admin], 23, 'cpu-1ms', (rr) => page1000(rr, 'ad'))],
    ['dq-azure', target(`${dq('azure')}?start=end-30d&end=<last 12 h>`, [admin], 29, 'cpu-1ms', (rr) => page1000(rr, 'azure'))],
    ['event', target('/api/v2/events/<each>?hydrate_ous=…&hydrate_domains=…', [admin], 31, 'x4-replay', () => {
      const k = eventWalk++;
      const pass = Math.floor(k / shuffled.length) % 4;
      return `/api/v2/events/${shuffled[k % shuffled.length]}?hydrate_ous=${pass % 2 === 0}&hydrate_domains=${pass < 2}`;
    })],
    ['jobs-available', target('/api/v2/jobs/available?execution_time=lt:…&sort_by=…&<bool>=eq:…', clients, 37, 'x4-replay', (rr) =>
      `/api/v2/jobs/available?execution_time=lt:${iso(now - int(rr, 0, 2 * 86_400) * 1_000_000)}&sort_by=${pick(rr, jobSorts)}&${pick(rr, bools)}=eq:${rr() < 0.5}`)],
  ];
}

/**
 * The database's own share per case: `samples` requests of the case's generator injected into an in-process
 * application on the same database; µs per request spent in statements (Kysely's query log) and in the whole
 * in-process handling (no HTTP, no socket).
 */
export interface Share {
  /** Wall time in statements per request (Kysely's query log: from the call to its result). */
  dbMicros: number;
  statements: number;
  /** Wall time of the whole in-process handling per request. */
  inProcessMicros: number;
  /** This process's CPU per request (SQLite's statements run in it; PostgreSQL's do not). */
  inProcessCpuMicros: number;
  /** dbMicros / inProcessMicros: the statements' share of the handling, which load on the machine distorts least. */
  dbShare: number;
}

export async function databaseShare(url: string, secret: string, cases: Array<[string, VaryTarget]>, samples: number): Promise<Map<string, Share>> {
  let ms = 0;
  let statements = 0;
  const db = createDb(url, { log: (e) => {
    if (e.level === 'query') {
      ms += e.queryDurationMillis;
      statements++;
    }
  } });
  const app = await buildApp({ config: testConfig({ databaseUrl: url, jwtSecret: secret }), db });
  const out = new Map<string, Share>();
  try {
    await app.ready();
    for (const [name, t] of cases) {
      // Warm: statement caches, the graph snapshot, per-table indexes.
      for (let i = 0; i < Math.min(50, samples); i++) await app.inject({ method: 'GET', url: t.pathFor(i), headers: t.headers[i % t.headers.length] });
      ms = 0;
      statements = 0;
      const t0 = performance.now();
      const cpu0 = process.cpuUsage();
      for (let i = 0; i < samples; i++) {
        const res = await app.inject({ method: 'GET', url: t.pathFor(i), headers: t.headers[i % t.headers.length] });
        if (res.statusCode !== 200) throw new Error(`${name}: in-process ${res.statusCode} ${res.body.slice(0, 300)}`);
      }
      const wall = performance.now() - t0;
      const cpu = process.cpuUsage(cpu0);
      out.set(name, {
        dbMicros: Math.round((ms * 1000) / samples), statements: +(statements / samples).toFixed(1), inProcessMicros: Math.round((wall * 1000) / samples),
        inProcessCpuMicros: Math.round((cpu.user + cpu.system) / samples), dbShare: +(ms / wall).toFixed(2),
      });
    }
  } finally {
    await app.close();
    await db.close();
  }
  return out;
}
