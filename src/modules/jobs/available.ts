/**
 * GET /api/v2/jobs/available: the calling client's ready, due jobs, with an ETag that is computed
 * without building the answer, so that a 304 revalidation is cheap.
 *
 * The ETag hashes (query string, clients.jobs_version, number of ready jobs due now, graph stamp):
 * - jobs_version is bumped in the same transaction as every write that changes the client's jobs or
 *   its name (insertJob, start, end, cancel, event delete, scheduler, rename);
 * - with the version fixed the set of ready jobs is fixed, and the due subset only grows with time,
 *   so its size identifies it;
 * - the graph stamp covers the hydrated OU / domain references (nodes.last_seen is set by every
 *   ingest write; a node appearing or vanishing changes the count and id sum).
 * The stamp is read before the rows: a write in between can only make the ETag stale (one more 200
 * later), never make a 304 hide a change.
 */
import { hash } from 'node:crypto';
import { sql, type CompiledQuery, type Kysely } from 'kysely';
import type { Database } from '../../db/database.ts';
import type { Db } from '../../db/create-db.ts';
import { Admission, VersionedCache } from '../../http/bounded-cache.ts';
import { markKept } from '../../http/compression.ts';
import { keptBytes, sentBytes, wrapJoined } from '../../http/kept-bytes.ts';
import { nowMicros } from '../../db/time.ts';
import { prepared } from '../../db/prepared.ts';
import { applyFilters, applySort, type ParsedQuery } from '../../http/query/index.ts';
import { JobStatus } from './job-status.ts';
import { availableQuery } from './jobs.query.ts';
import { JOB_COLUMNS, jobsSelect, targetIds } from './jobs.repository.ts';
import { evaluateQuery } from '../../http/query/evaluate.ts';
import { toWireJob, type Hydration, type JobWithClient } from './jobs.schema.ts';
import { STAMP_INLINE, graphStamp, graphStampExpr, knownObjectIds, resolveObjectIds, variants } from './targets.repository.ts';

type Q = Kysely<Database>;

/**
 * Distinct target objectids of a client's ready jobs at a jobs_version (immutable for that version),
 * the latest per client. With a hit the graph stamp rides along in the first statement.
 */
const targetCache = new WeakMap<Q, Map<string, { version: number; ids: string[]; all: string[] }>>();
const TARGET_CACHE_MAX = 20_000;

function cacheOf(db: Q) {
  let cache = targetCache.get(db);
  if (!cache) targetCache.set(db, (cache = new Map()));
  return cache;
}

async function readyTargets(db: Q, clientId: string, version: number): Promise<string[]> {
  const rows = await db.selectFrom('client_jobs').select(['ous', 'domains'])
    .where('client_id', '=', clientId).where('status', '=', JobStatus.ready).execute();
  const ids = [...targetIds(rows, true, true)];
  const cache = cacheOf(db);
  if (cache.size >= TARGET_CACHE_MAX) cache.clear();
  cache.set(clientId, { version, ids, all: variants(ids) });
  return ids;
}

interface StampRow {
  jobs_version: number;
  due: number;
  graph: string;
}

/**
 * The stamp statement: the client's jobs_version, its number of ready jobs due now and (when the
 * targets are known) the graph stamp. Polled on every request, so it is built and compiled by Kysely
 * once per number of objectids, with sentinel values whose places then receive the real parameters.
 */
const CLIENT = '\u0000client';
const NOW = -0.5;
const ID = '\u0000id:';
const stampTemplates = new WeakMap<Q, Map<number, CompiledQuery>>();

function stampQuery(db: Q, clientId: string, now: number, ids: string[]): CompiledQuery {
  let templates = stampTemplates.get(db);
  if (!templates) stampTemplates.set(db, (templates = new Map()));
  let template = templates.get(ids.length);
  if (!template) {
    const slots = ids.map((_, k) => `${ID}${k}`);
    template = db
      .selectFrom('clients')
      .select((eb) => [
        'jobs_version',
        eb.selectFrom('client_jobs').select(sql<number>`count(*)`.as('n'))
          .where('client_id', '=', CLIENT).where('status', '=', JobStatus.ready).where('execution_time', '<=', NOW)
          .as('due'),
        (slots.length ? graphStampExpr(slots) : sql<string>`'-'`).as('graph'),
      ])
      .where('id', '=', CLIENT)
      .compile();
    templates.set(ids.length, template);
  }
  const parameters = template.parameters.map((p) => {
    if (p === CLIENT) return clientId;
    if (p === NOW) return now;
    if (typeof p === 'string' && p.startsWith(ID)) return ids[Number(p.slice(ID.length))];
    return p;
  });
  return { ...template, parameters };
}

export interface AvailablePlan {
  etag: string;
  now: number;
}

export async function availableEtag(db: Q, clientId: string, parsed: ParsedQuery, rawQuery: string): Promise<AvailablePlan> {
  const now = nowMicros();
  const hydrate = parsed.params.hydrate_ous !== false || parsed.params.hydrate_domains !== false;
  const guess = hydrate ? cacheOf(db).get(clientId) : undefined;
  const all = guess?.all ?? [];
  const inline = all.length > 0 && all.length <= STAMP_INLINE;
  const { rows } = await db.executeQuery<StampRow>(stampQuery(db, clientId, now, inline ? all : []));
  const stamp = rows[0];
  const version = Number(stamp?.jobs_version ?? -1);
  let graph = '-';
  if (hydrate && stamp) {
    if (guess?.version === version) graph = inline ? stamp.graph : await graphStamp(db, guess.ids);
    else graph = await graphStamp(db, await readyTargets(db, clientId, version));
  }
  const material = `${rawQuery}\n${version}\n${Number(stamp?.due ?? 0)}\n${graph}`;
  return { etag: etagOf(material), now };
}

/** The ETag of a stamp's material: SHA-256, base64url, 27 characters (one-shot: no Hash object per poll). */
function etagOf(material: string): string {
  return `"${hash('sha256', material, 'base64url').slice(0, 27)}"`;
}

/** The answer's bytes (serialised here: the schema's OU/domain unions are slow in fast-json-stringify). */
export async function availableBody(db: Db, clientId: string, parsed: ParsedQuery, plan: AvailablePlan, viewsMb: number): Promise<string> {
  const flags = { ous: parsed.params.hydrate_ous !== false, domains: parsed.params.hydrate_domains !== false };
  // From the client's kept ready jobs when the query's meaning does not depend on the database (evaluate.ts).
  const view = db.versions.usable() && viewsMb > 0 ? await (await readyView(db, viewsMb))(clientId) : undefined;
  const kept = view ? evaluateQuery(view.rows.filter((r) => r.execution_time !== null && Number(r.execution_time) <= plan.now), availableQuery, parsed, TEXT_RANKS) : null;
  let rows = kept;
  if (!rows) {
    let qb = jobsSelect(db.kysely)
      .where('client_jobs.client_id', '=', clientId)
      .where('client_jobs.status', '=', JobStatus.ready)
      .where('client_jobs.execution_time', '<=', plan.now);
    qb = applySort(applyFilters(qb, availableQuery, parsed), availableQuery, parsed);
    rows = await qb.execute();
  }
  const wire = view && kept ? view.json[(flags.ous ? 2 : 0) + (flags.domains ? 1 : 0)] : undefined;
  const missing = wire ? rows.filter((r) => !wire.has(r.id)) : rows;
  const ids = targetIds(missing, flags.ous, flags.domains);
  return render(rows, wire, { ...flags, resolved: ids.size ? await resolveObjectIds(db.kysely, ids, db.versions) : new Map() });
}

/**
 * Ready jobs have not ended, so they carry no domain results. As JSON.stringify({ data: jobs }), each job's text
 * kept with the view (it changes only with the tables the view is kept by).
 */
function render(rows: JobWithClient[], wire: Map<number, string> | undefined, h: Hydration): string {
  const parts = rows.map((r) => {
    let text = wire?.get(r.id);
    if (text === undefined) {
      text = JSON.stringify(toWireJob(r, [], h));
      wire?.set(r.id, text);
    }
    return text;
  });
  return wrapJoined('{"data":[', parts, ']}');
}

/**
 * availableBody's answer from the client's kept view, when the query is evaluated in process and what the references
 * of jobs not rendered yet resolve to is known: no statement, no promise. Undefined otherwise (availableBody reads).
 */
function bodyFromView(db: Db, view: ReadyView, parsed: ParsedQuery, plan: AvailablePlan): string | undefined {
  const rows = evaluateQuery(view.rows.filter((r) => r.execution_time !== null && Number(r.execution_time) <= plan.now), availableQuery, parsed, TEXT_RANKS);
  if (!rows) return undefined;
  const flags = { ous: parsed.params.hydrate_ous !== false, domains: parsed.params.hydrate_domains !== false };
  const wire = view.json[(flags.ous ? 2 : 0) + (flags.domains ? 1 : 0)];
  const ids = targetIds(rows.filter((r) => !wire.has(r.id)), flags.ous, flags.domains);
  const resolved = ids.size ? knownObjectIds(ids, db.versions) : new Map();
  return resolved && render(rows, wire, { ...flags, resolved });
}

/**
 * A client's ready jobs as the ETag needs them (jobs_version, each ready job's execution time, the graph stamp of
 * their targets), read in one statement (plus the graph stamp's) and kept while the tables they come from are
 * unchanged: a poll then computes its ETag, its due count and its next due time without the database.
 */
interface ReadyView {
  /** clients.jobs_version; -1 when there is no such client. */
  version: number;
  times: number[];
  /** graphStamp of every ready job's OU and domain targets ('-' when none). */
  graph: string;
  /** The ready jobs as jobsSelect reads them (with the client's name), for answers evaluateQuery can make. */
  rows: JobWithClient[];
  /** Each ready job's JSON by id, one map per hydrate_ous × hydrate_domains (2 × ous + domains), made on first use. */
  json: [Map<number, string>, Map<number, string>, Map<number, string>, Map<number, string>];
}
const views = new WeakMap<Db, VersionedCache<ReadyView>>();

/**
 * At most `keepMb` of views (each counted as 3 kB per ready job: the row and its JSON forms), evicted at random when
 * full: clients poll in a cycle, where the oldest view is the next one asked (see Eviction).
 */
async function readyView(db: Db, keepMb: number): Promise<(clientId: string) => Promise<ReadyView>> {
  let cache = views.get(db);
  if (!cache) views.set(db, (cache = new VersionedCache<ReadyView>(db.versions, keepMb * 1024 * 1024, (v) => 64 + v.times.length * 8 + v.graph.length + v.rows.length * 3072, 'random')));
  const kept = cache;
  return async (clientId) => {
    const hit = kept.get(clientId, ANSWER_READS);
    if (hit) return hit;
    const keep = kept.prepare(clientId, ANSWER_READS);
    const rows = await readyRows(db.kysely, [JobStatus.ready, clientId]);
    const ready = rows.filter((r) => r.id !== null) as unknown as JobWithClient[];
    for (const r of ready as unknown as Array<Record<string, unknown>>) for (const rank of Object.values(TEXT_RANKS)) r[rank] = Number(r[rank]);
    const view: ReadyView = {
      version: rows.length ? Number(rows[0].jobs_version) : -1,
      times: ready.filter((r) => r.execution_time !== null).map((r) => Number(r.execution_time)),
      graph: ready.length ? await graphStamp(db.kysely, [...targetIds(ready, true, true)]) : '-',
      rows: ready,
      json: [new Map(), new Map(), new Map(), new Map()],
    };
    keep(view);
    return view;
  };
}

/**
 * The text columns a poll may sort by, each with the field of its rank in the database's order over the client's
 * ready jobs (evaluate.ts TextRanks): a sort by them is then made in process, with the database's collation.
 */
const TEXT_RANKS = { domain_controller: 'rank_domain_controller', log_path: 'rank_log_path', event_title: 'rank_event_title' } as const;

/**
 * The client (one row even without ready jobs) and its ready jobs as jobsSelect reads them, with the ranks of their
 * text columns (TEXT_RANKS), in one statement.
 */
const readyRows = prepared((k) => k.selectFrom('clients')
  .leftJoin('client_jobs', (j) => j.onRef('client_jobs.client_id', '=', 'clients.id').on('client_jobs.status', '=', JobStatus.ready))
  .select(JOB_COLUMNS.map((c) => `client_jobs.${c}` as const))
  .select(['clients.name as client_name', 'clients.jobs_version'])
  .select(Object.entries(TEXT_RANKS).map(([column, rank]) => sql<number>`dense_rank() over (order by ${sql.ref(`client_jobs.${column}`)})`.as(rank)))
  .where('clients.id', '=', ''));

/** The ETag from a kept view (the same material as availableEtag's), and when the next ready job falls due. */
function planFrom(view: ReadyView, parsed: ParsedQuery, rawQuery: string): AvailablePlan & { dueAt: number } {
  const now = nowMicros();
  const hydrate = parsed.params.hydrate_ous !== false || parsed.params.hydrate_domains !== false;
  let due = 0;
  let dueAt = Infinity;
  for (const t of view.times) {
    if (t <= now) due++;
    else if (t < dueAt) dueAt = t;
  }
  const graph = hydrate && view.version !== -1 ? view.graph : '-';
  const material = `${rawQuery}\n${view.version}\n${due}\n${graph}`;
  return { etag: etagOf(material), now, dueAt };
}

/**
 * The whole answer (ETag and, on demand, body) per (client, query string), kept while the tables it
 * is computed from are unchanged (src/db/data-versions.ts) and until the client's next ready job
 * falls due: with both fixed, the stamp above cannot change. A poll that hits it reads nothing; one
 * that misses it reads only its jobs (the ETag comes from the client's kept ready view).
 */
const ANSWER_READS = ['client_jobs', 'clients', 'nodes'] as const;
type KeptAnswer = { dueAt: number; plan: AvailablePlan; body: Buffer | null };
const answers = new WeakMap<Db, VersionedCache<KeptAnswer>>();
/** What a kept answer is counted as before its body is built (the ETag, the plan). */
const ANSWER_OVERHEAD = 256;

/** `keepMb`: the memory for kept answers, and twice that for the clients' ready views (0 = none: the database answers). */
export async function availableAnswer(db: Db, clientId: string, parsed: ParsedQuery, rawQuery: string, keepMb = 16) {
  let cache = answers.get(db);
  if (!cache) answers.set(db, (cache = new VersionedCache<KeptAnswer>(db.versions, keepMb * 1024 * 1024, (a) => ANSWER_OVERHEAD + (a.body?.length ?? 0))));
  const key = `${clientId} ${rawQuery}`;
  const keep = keepMb > 0 ? cache.prepare(key, ANSWER_READS) : () => {};
  let entry = keepMb > 0 ? cache.get(key, ANSWER_READS) : undefined;
  let once = false;
  if (!entry) {
    if (keepMb > 0 && db.versions.usable()) {
      const { dueAt, ...plan } = planFrom(await (await readyView(db, 2 * keepMb))(clientId), parsed, rawQuery);
      entry = { dueAt, plan, body: null };
    } else {
      const plan = await availableEtag(db.kysely, clientId, parsed, rawQuery);
      const next = await db.kysely.selectFrom('client_jobs').select((eb) => eb.fn.min<number>('execution_time').as('t'))
        .where('client_id', '=', clientId).where('status', '=', JobStatus.ready).where('execution_time', '>', plan.now)
        .executeTakeFirst();
      entry = { dueAt: next?.t == null ? Infinity : Number(next.t), plan, body: null };
    }
    once = keepMb > 0 && !keptNow(db, cache, clientId, entry.plan.etag);
    if (!once) keep(entry, entry.dueAt);
  }
  const found = entry;
  return {
    etag: found.plan.etag,
    body: async (gzip: boolean): Promise<Buffer> => {
      if (found.body !== null) return markKept(found.body);
      const text = await availableBody(db, clientId, parsed, found.plan, 2 * keepMb);
      if (keepMb <= 0) return Buffer.from(text);
      if (once) return sentBytes(text);
      found.body = keptAnswerBytes(text, gzip);
      keep(found, found.dueAt); // counted again, with its body
      return found.body;
    },
  };
}

/**
 * Once the kept answers fill their memory, an answer is kept from its second time on (bounded-cache.ts Admission): the
 * ones made once (a new filter, a new time bound) are most of what a fleet's distinct polls make; a client polling
 * the same query gets it kept at its second poll. Keyed by the client and the ETag (the query string, the client's
 * jobs version, its due count and graph stamp).
 */
const admissions = new WeakMap<Db, Admission>();

function keptNow(db: Db, cache: VersionedCache<KeptAnswer>, clientId: string, etag: string): boolean {
  if (!cache.full) return true;
  let admission = admissions.get(db);
  if (!admission) admissions.set(db, (admission = new Admission()));
  return admission.seenBefore(clientId, etag);
}

/**
 * A kept answer's bytes, in a shared slab (src/http/kept-bytes.ts). Sent again as this same Buffer, marked kept so
 * that its gzip form is made once (src/http/compression.ts): at once for a client that takes gzip, else when it is
 * sent again (most answers are not: marking each costs a WeakMap entry).
 */
function keptAnswerBytes(text: string, gzip: boolean): Buffer {
  const body = keptBytes(text);
  return gzip ? markKept(body) : body;
}

/**
 * availableAnswer's answer when it can be made from what is kept (the answer, or the client's ready view) without a
 * statement or a promise; undefined otherwise (availableAnswer makes it). Its `body()` is undefined when the body needs
 * a read. A new answer is kept once (when admitted: keptNow): with its body by `body()`, or without it (a read
 * follows, or the poll is answered 304) by `keep()`; one not admitted is sent from slabs of its own (sentBytes).
 */
export function keptAvailableAnswer(db: Db, clientId: string, parsed: ParsedQuery, rawQuery: string, keepMb = 16):
  { etag: string; body: (gzip: boolean) => Buffer | undefined; keep: () => void } | undefined {
  const cache = answers.get(db);
  if (keepMb <= 0 || !cache || !db.versions.usable()) return undefined;
  const key = `${clientId} ${rawQuery}`;
  const keep = cache.prepare(key, ANSWER_READS);
  let entry = cache.get(key, ANSWER_READS);
  let view: ReadyView | undefined;
  let unkept = false;
  let once = false;
  if (!entry) {
    view = views.get(db)?.get(clientId, ANSWER_READS);
    if (!view) return undefined;
    const { dueAt, ...plan } = planFrom(view, parsed, rawQuery);
    entry = { dueAt, plan, body: null };
    once = !keptNow(db, cache, clientId, plan.etag);
    unkept = !once;
  }
  const found = entry;
  const keepNow = () => {
    if (unkept) keep(found, found.dueAt);
    unkept = false;
  };
  return {
    etag: found.plan.etag,
    keep: keepNow,
    body: (gzip) => {
      if (found.body !== null) return markKept(found.body);
      view ??= views.get(db)?.get(clientId, ANSWER_READS);
      const made = view && bodyFromView(db, view, parsed, found.plan);
      if (made === undefined) {
        keepNow(); // availableAnswer finds it
        return undefined;
      }
      if (once) return sentBytes(made);
      found.body = keptAnswerBytes(made, gzip);
      unkept = true; // counted again, with its body
      keepNow();
      return found.body;
    },
  };
}

/** If-None-Match (weak comparison, RFC 9110 §13.1.2). */
export function matchesIfNoneMatch(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === '*') return true;
  return header.split(',').some((t) => t.trim().replace(/^W\//, '') === etag);
}
