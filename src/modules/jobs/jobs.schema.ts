import { Type, type Static } from '@sinclair/typebox';
import { toRfc3339 } from '../../db/time.ts';
import { NullInt32, Timestamp, nullInt32, recordFields, recordTimes } from '../../http/envelope.ts';
import { SWITCH_NAMES, type ClientJobRow, type CollectionSwitches, type DomainResultRow } from './collection.tables.ts';
import { domainRef, ouRef, type Resolved } from './targets.repository.ts';

/** A request string PostgreSQL can store (no NUL character). */
export const Text = (options: { minLength?: number; maxLength?: number; description?: string } = {}) =>
  Type.String({ pattern: '^[^\\u0000]*$', ...options });

/** Wire shapes of spec 2.8–2.11 (client job, domain result, OU and domain references). */
export const OuRefSchema = Type.Object(
  { objectid: Type.String(), name: Type.String(), exists: Type.Boolean(), distinguishedname: Type.String(), type: Type.String() },
  { $id: 'OUReference' },
);
export const DomainRefSchema = Type.Object(
  { objectid: Type.String(), name: Type.String(), exists: Type.Boolean(), type: Type.String() },
  { $id: 'DomainReference' },
);
/** Hydrated references, or plain objectids when hydrate_ous / hydrate_domains is false. */
export const OusField = Type.Array(Type.Union([Type.Ref(OuRefSchema), Type.String()]));
export const DomainsField = Type.Array(Type.Union([Type.Ref(DomainRefSchema), Type.String()]));

export const COUNT_NAMES = [
  'user_count', 'group_count', 'computer_count', 'gpo_count', 'ou_count', 'container_count',
  'aiaca_count', 'rootca_count', 'enterpriseca_count', 'ntauthstore_count', 'certtemplate_count', 'deleted_count',
] as const;
const counts = Object.fromEntries(COUNT_NAMES.map((n) => [n, Type.Integer()])) as Record<(typeof COUNT_NAMES)[number], ReturnType<typeof Type.Integer>>;

export const DomainResultSchema = Type.Object(
  {
    id: Type.Integer(),
    ...recordFields,
    job_id: Type.Integer(),
    domain_name: Type.String(),
    success: Type.Boolean(),
    message: Type.String(),
    ...counts,
  },
  { $id: 'DomainResult' },
);

export const switchFields = Object.fromEntries(SWITCH_NAMES.map((n) => [n, Type.Boolean()])) as Record<
  (typeof SWITCH_NAMES)[number], ReturnType<typeof Type.Boolean>>;

export const ClientJobSchema = Type.Object(
  {
    id: Type.Integer(),
    client_id: Type.String({ format: 'uuid' }),
    client_name: Type.String(),
    event_id: NullInt32,
    event_title: Type.String({ description: 'title of the event that scheduled the job ("" for a one-off job); a filter and sort column' }),
    execution_time: Timestamp,
    start_time: Timestamp,
    end_time: Timestamp,
    status: Type.Integer({ description: '-1 invalid, 0 ready, 1 running, 2 complete, 3 canceled, 4 timed out, 5 failed, 6 ingesting, 7 analyzing, 8 partially complete' }),
    status_message: Type.String(),
    ...switchFields,
    domain_controller: Type.String(),
    ous: OusField,
    domains: DomainsField,
    domain_results: Type.Array(Type.Ref(DomainResultSchema)),
  },
  { $id: 'ClientJob' },
);

export const jobSchemas = [OuRefSchema, DomainRefSchema, DomainResultSchema, ClientJobSchema];

export interface Hydration {
  ous: boolean;
  domains: boolean;
  resolved: Resolved;
}

/**
 * A stored id list (`ous` / `domains`, JSON text) as strings. The same texts come back with every answer that shows
 * an event or job (twice: its targets, then its wire form), so the parsed lists of recent texts are kept (frozen:
 * callers only read them).
 */
export function parseIds(text: string): readonly string[] {
  let ids = parsedIds.get(text);
  if (ids === undefined) {
    const v = JSON.parse(text);
    ids = Object.freeze(Array.isArray(v) ? v.map(String) : []);
    if (parsedIds.size >= PARSED_IDS_KEPT) parsedIds.clear();
    parsedIds.set(text, ids);
  }
  return ids;
}
const parsedIds = new Map<string, readonly string[]>();
const PARSED_IDS_KEPT = 10_000;

export function wireSwitches(row: CollectionSwitches) {
  const out = {} as Record<(typeof SWITCH_NAMES)[number], boolean>;
  for (const n of SWITCH_NAMES) out[n] = row[n] === 1;
  return out;
}

export function wireTargets(row: { ous: string; domains: string }, h: Hydration) {
  const ous = parseIds(row.ous);
  const domains = parseIds(row.domains);
  return {
    ous: h.ous ? ous.map((id) => ouRef(h.resolved, id)) : ous.slice(),
    domains: h.domains ? domains.map((id) => domainRef(h.resolved, id)) : domains.slice(),
  };
}

export function toWireDomainResult(row: DomainResultRow) {
  const c = JSON.parse(row.counts) as Record<string, number>;
  return {
    id: row.id,
    ...recordTimes(row),
    job_id: row.job_id,
    domain_name: row.domain_name,
    success: row.success === 1,
    message: row.message,
    ...Object.fromEntries(COUNT_NAMES.map((n) => [n, Number.isSafeInteger(c[n]) ? c[n] : 0])),
  };
}

export type JobWithClient = Omit<ClientJobRow, 'log'> & { client_name: string };

export function toWireJob(row: JobWithClient, results: DomainResultRow[], h: Hydration) {
  return {
    id: row.id,
    client_id: row.client_id,
    client_name: row.client_name,
    event_id: nullInt32(row.event_id),
    event_title: row.event_title,
    execution_time: toRfc3339(row.execution_time),
    start_time: toRfc3339(row.start_time),
    end_time: toRfc3339(row.end_time),
    status: row.status,
    status_message: row.status_message,
    ...wireSwitches(row),
    domain_controller: row.domain_controller,
    ...wireTargets(row, h),
    domain_results: results.map(toWireDomainResult),
  };
}
export type WireJob = Static<typeof ClientJobSchema>;
