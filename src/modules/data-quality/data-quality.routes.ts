import { Type } from '@sinclair/typebox';
import { errorResponses } from '../../http/envelope.ts';
import { badRequest, offsetPlusHint } from '../../http/errors.ts';
import { defineQuery, type ParsedQuery } from '../../http/query/index.ts';
import { route } from '../../http/route.ts';
import type { Db } from '../../db/create-db.ts';
import { VersionedCache } from '../../http/bounded-cache.ts';
import { Readable } from 'node:stream';
import { acceptsGzip, markKept, sendSegmented } from '../../http/compression.ts';
import { nowMicros, parseRfc3339, toRfc3339 } from '../../db/time.ts';
import { listRecords, rangeStableUntil, type RecordTable } from './data-quality.repository.ts';
import { recordsPage } from './records.index.ts';
import { AdAggregationSchema, AdStatSchema, AzureAggregationSchema, AzureStatSchema, rangeEnvelope, toWireRecord } from './data-quality.schema.ts';
import { JSON_TYPE } from '../../http/json-body.ts';

const THIRTY_DAYS = 30 * 24 * 3600 * 1_000_000;

export const statsQuery = defineQuery({
  sortable: { created_at: 'created_at', updated_at: 'updated_at' },
  defaultSort: [{ column: 'created_at', descending: true }],
  tieBreaker: 'id',
  paging: { defaultLimit: 1000 },
  params: {
    start: { type: 'string', description: 'range beginning, inclusive, RFC-3339 (default: now minus 30 days)' },
    end: { type: 'string', description: 'range end, exclusive, RFC-3339 (default: now)' },
  },
});

/** start/end of CONTRACT §6: RFC-3339, start inclusive, end exclusive, start not after end. */
export function timeRange(parsed: ParsedQuery): { start: number; end: number } {
  const read = (name: 'start' | 'end') => {
    const raw = parsed.params[name] as string | undefined;
    if (raw === undefined) return undefined;
    const instant = parseRfc3339(raw);
    if (!instant) throw badRequest(`invalid RFC-3339 datetime format: ${raw}${offsetPlusHint(raw)}`);
    return instant.micros;
  };
  const end = read('end') ?? nowMicros();
  const start = read('start') ?? end - THIRTY_DAYS;
  if (start > end) throw badRequest('start must be before end');
  return { start, end };
}

async function page(db: Parameters<typeof listRecords>[0], table: RecordTable, parsed: ParsedQuery, scope?: { column: 'domain_sid' | 'tenant_id'; value: string }) {
  const range = timeRange(parsed);
  const { rows, count } = await listRecords(db, table, statsQuery, parsed, range, scope);
  return { start: toRfc3339(range.start), end: toRfc3339(range.end), count, skip: parsed.skip, limit: parsed.limit, data: rows.map(toWireRecord) };
}

/**
 * A platform page as JSON text. The part after `start`/`end` is kept per (table, query string) while
 * the table is unchanged (src/db/data-versions.ts) and, when the range follows the clock (no `end`),
 * until the record set of the sliding range could change (rangeStableUntil); `start`/`end` are
 * rendered for each request. Bounded to a quarter of --response-cache-mb; the oldest entry goes first.
 * The page is sent as (head, kept part): its gzip form deflates the kept part once (sendSegmented).
 */
const pageCaches = new WeakMap<Db, VersionedCache<Buffer>>();

/**
 * From this size on, a page built from the in-memory records for a client that takes it uncompressed is sent as its
 * parts (head, slices of the held records) without being copied into one buffer or kept: half a megabyte allocated
 * per request made the collector run often, which costs in proportion to the heap (large indexes held).
 */
const SEND_PARTS_FROM = 64 * 1024;

async function platformPage(db: Db, table: RecordTable, parsed: ParsedQuery, rawQuery: string, keepMb: number, identity: boolean): Promise<{ head: Buffer; rest: Buffer } | { head: Buffer; parts: Buffer[]; length: number }> {
  const range = timeRange(parsed);
  const head = Buffer.from(`{"start":${JSON.stringify(toRfc3339(range.start))},"end":${JSON.stringify(toRfc3339(range.end))},`);
  let pages = pageCaches.get(db);
  if (!pages) pageCaches.set(db, (pages = new VersionedCache<Buffer>(db.versions, keepMb * 1024 * 1024, (rest) => rest.length)));
  const key = `${table} ${rawQuery}`;
  const kept = keepMb > 0 ? pages.get(key, [table]) : undefined;
  if (kept) return { head, rest: kept };
  const keep = pages.prepare(key, [table]);
  const clocked = parsed.params.end === undefined;
  const window = parsed.params.start === undefined ? THIRTY_DAYS : null;
  // From the table's records in memory (records.index.ts) when it can, else from the database.
  const fromMemory = await recordsPage(db, table, parsed, range, window, clocked, keepMb * 1024 * 1024);
  let rest: Buffer;
  let stableUntil: number;
  if (fromMemory) {
    if (identity && fromMemory.length >= SEND_PARTS_FROM) return { head, parts: fromMemory.parts, length: head.length + fromMemory.length };
    rest = Buffer.concat(fromMemory.parts, fromMemory.length);
    stableUntil = fromMemory.stableUntil;
  } else {
    stableUntil = clocked ? await rangeStableUntil(db.kysely, table, range, window) : Infinity;
    const { rows, count } = await listRecords(db.kysely, table, statsQuery, parsed, range);
    rest = Buffer.from(JSON.stringify({ count, skip: parsed.skip, limit: parsed.limit, data: rows.map(toWireRecord) }).slice(1));
  }
  if (keepMb > 0) keep(markKept(rest), stableUntil);
  return { head, rest };
}

const PLATFORMS: Record<string, RecordTable> = { ad: 'ad_data_quality_aggregations', azure: 'azure_data_quality_aggregations' };

export const dataQualityRoutes = [
  route<{ Params: { platform_id: string } }>({
    method: 'GET',
    url: '/api/v2/platform/:platform_id/data-quality-stats',
    config: { access: { permissions: ['graphdb/Read'] }, query: statsQuery },
    schema: {
      tags: ['data-quality'],
      summary: 'Data-quality aggregations of a platform (ad or azure) over a time range',
      params: Type.Object({ platform_id: Type.String() }),
      response: {
        200: Type.Union([rangeEnvelope(Type.Ref(AdAggregationSchema)), rangeEnvelope(Type.Ref(AzureAggregationSchema))]),
        ...errorResponses(400, 401, 403),
      },
    },
    handler: async (request, reply) => {
      const table = Object.hasOwn(PLATFORMS, request.params.platform_id) ? PLATFORMS[request.params.platform_id] : undefined;
      if (!table) throw badRequest(`invalid platform id specified in url: ${request.params.platform_id}`);
      // The response schema is a union (ad | azure) for the documentation; serialising through it
      // validates the whole body on every answer. The mapper already emits the exact shape.
      const q = request.url.indexOf('?');
      const { db, config } = request.server;
      const page = await platformPage(db, table, request.parsedQuery, q < 0 ? '' : request.url.slice(q + 1), config.responseCacheMb / 4, !acceptsGzip(request));
      if ('parts' in page) return reply.type(JSON_TYPE).header('content-length', page.length).send(Readable.from([page.head, ...page.parts]));
      return sendSegmented(request, reply.type(JSON_TYPE), page.head, page.rest);
    },
  }),
  route<{ Params: { domain_id: string } }>({
    method: 'GET',
    url: '/api/v2/ad-domains/:domain_id/data-quality-stats',
    config: { access: { permissions: ['graphdb/Read'] }, query: statsQuery },
    schema: {
      tags: ['data-quality'],
      summary: 'Data-quality stats of one AD domain (by domain SID) over a time range',
      params: Type.Object({ domain_id: Type.String() }),
      response: { 200: rangeEnvelope(Type.Ref(AdStatSchema)), ...errorResponses(400, 401, 403) },
    },
    handler: async (request) =>
      page(request.server.db.kysely, 'ad_data_quality_stats', request.parsedQuery, { column: 'domain_sid', value: request.params.domain_id.toUpperCase() }),
  }),
  route<{ Params: { tenant_id: string } }>({
    method: 'GET',
    url: '/api/v2/azure-tenants/:tenant_id/data-quality-stats',
    config: { access: { permissions: ['graphdb/Read'] }, query: statsQuery },
    schema: {
      tags: ['data-quality'],
      summary: 'Data-quality stats of one Azure tenant over a time range',
      params: Type.Object({ tenant_id: Type.String() }),
      response: { 200: rangeEnvelope(Type.Ref(AzureStatSchema)), ...errorResponses(400, 401, 403) },
    },
    handler: async (request) =>
      page(request.server.db.kysely, 'azure_data_quality_stats', request.parsedQuery, { column: 'tenant_id', value: request.params.tenant_id.toUpperCase() }),
  }),
];
