/** Table types of enterprise collection (migration 0004-collection). */
import type { ColumnType, Generated, Selectable } from 'kysely';
import type { Bool, Timestamps } from '../../db/database.ts';
import type { Micros } from '../../db/time.ts';

/** The collection switches of spec 2.12, shared by events and jobs. */
export interface CollectionSwitches {
  session_collection: Bool;
  local_group_collection: Bool;
  ad_structure_collection: Bool;
  cert_services_collection: Bool;
  ca_registry_collection: Bool;
  dc_registry_collection: Bool;
  all_trusted_domains: Bool;
}

export const SWITCH_NAMES = [
  'session_collection', 'local_group_collection', 'ad_structure_collection', 'cert_services_collection',
  'ca_registry_collection', 'dc_registry_collection', 'all_trusted_domains',
] as const satisfies ReadonlyArray<keyof CollectionSwitches>;

export interface ClientTable extends Timestamps {
  /** UUID. */
  id: string;
  name: string;
  /** 'sharphound' | 'azurehound' */
  type: string;
  domain_controller: string;
  ip_address: string;
  hostname: string;
  last_checkin: Micros | null;
  current_job_id: number | null;
  /** Bumped with every write that changes what the client's job listings show (ETag of jobs/available). */
  jobs_version: Generated<number>;
  /** The collector's version from its User-Agent at check-in (migration 0021). */
  version: Generated<string>;
}

export interface ClientEventTable extends Timestamps, CollectionSwitches {
  id: Generated<number>;
  client_id: string;
  title: string;
  /** Normalised RFC 5545 text: DTSTART line + RRULE line. */
  rrule: string;
  /** JSON array text of objectids. */
  ous: string;
  domains: string;
  /** Next occurrence not yet turned into a job; null when the rule has no further occurrence. */
  next_run_at: Micros | null;
}

export interface ClientJobTable extends Timestamps, CollectionSwitches {
  id: Generated<number>;
  client_id: string;
  event_id: number | null;
  event_title: string;
  execution_time: Micros;
  start_time: Micros | null;
  end_time: Micros | null;
  last_ingest: Micros | null;
  status: number;
  status_message: string;
  log_path: string | null;
  domain_controller: string;
  ous: string;
  domains: string;
  /** The log text the client sent when it ended the job (migration 0021). */
  log: ColumnType<string | null, string | null | undefined, string | null>;
}

export interface ClientJobDomainResultTable extends Timestamps {
  id: Generated<number>;
  job_id: number;
  domain_name: string;
  success: Bool;
  message: string;
  /** JSON object text of the twelve counters of spec 2.9. */
  counts: string;
}

export interface CollectionTables {
  clients: ClientTable;
  client_events: ClientEventTable;
  client_jobs: ClientJobTable;
  client_job_domain_results: ClientJobDomainResultTable;
}

export type ClientRow = Selectable<ClientTable>;
export type ClientEventRow = Selectable<ClientEventTable>;
export type ClientJobRow = Selectable<ClientJobTable>;
export type DomainResultRow = Selectable<ClientJobDomainResultTable>;
