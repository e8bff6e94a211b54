import { defineQuery, type QueryDeclaration } from '../../http/query/index.ts';
import { JOB_STATUS_FILTER } from './job-status.ts';

/** Filters and sort columns of spec 4.5, shared by GET /jobs/available and GET /jobs. */
const bool = (column: string) => ({ kind: 'boolean' as const, column: `client_jobs.${column}` });
const time = (column: string, nullable = false) => ({ kind: 'timestamp' as const, column: `client_jobs.${column}`, nullable });

export const jobFilters: QueryDeclaration['filters'] = {
  log_path: { kind: 'string', column: 'client_jobs.log_path', nullable: true },
  domain_controller: { kind: 'string', column: 'client_jobs.domain_controller' },
  status: { kind: 'string', column: 'client_jobs.status', enum: JOB_STATUS_FILTER },
  event_title: { kind: 'string', column: 'client_jobs.event_title' },
  session_collection: bool('session_collection'),
  local_group_collection: bool('local_group_collection'),
  cert_services_collection: bool('cert_services_collection'),
  ca_registry_collection: bool('ca_registry_collection'),
  dc_registry_collection: bool('dc_registry_collection'),
  ad_structure_collection: bool('ad_structure_collection'),
  client_id: { kind: 'uuid', column: 'client_jobs.client_id' },
  event_id: { kind: 'integer', column: 'client_jobs.event_id', nullable: true },
  execution_time: time('execution_time'),
  start_time: time('start_time', true),
  end_time: time('end_time', true),
  last_ingest: time('last_ingest', true),
  created_at: time('created_at'),
  updated_at: time('updated_at'),
  deleted_at: time('deleted_at', true),
};

const SORTABLE = [
  'event_id', 'execution_time', 'status', 'start_time', 'end_time', 'log_path', 'domain_controller', 'event_title',
  'last_ingest', 'id', 'created_at', 'updated_at', 'deleted_at',
];
export const jobSortable = Object.fromEntries(SORTABLE.map((c) => [c, `client_jobs.${c}`]));

const hydrateParams: QueryDeclaration['params'] = {
  hydrate_ous: { type: 'boolean', default: true, description: 'true: OU references with name, type, exists; false: objectids' },
  hydrate_domains: { type: 'boolean', default: true, description: 'true: domain references with name, type, exists; false: objectids' },
};

export const availableQuery = defineQuery({
  filters: jobFilters,
  sortable: jobSortable,
  defaultSort: [{ column: 'execution_time' }],
  tieBreaker: 'client_jobs.id',
  params: hydrateParams,
});

export const listQuery = defineQuery({
  filters: jobFilters,
  sortable: jobSortable,
  defaultSort: [{ column: 'execution_time', descending: true }],
  tieBreaker: 'client_jobs.id',
  paging: { defaultLimit: 100 },
  params: hydrateParams,
});

/** GET /jobs/finished and GET /clients/{id}/completed-jobs: the filters of GET /jobs, newest end first. */
export const finishedQuery = defineQuery({
  filters: jobFilters,
  sortable: jobSortable,
  defaultSort: [{ column: 'end_time', descending: true }],
  tieBreaker: 'client_jobs.id',
  paging: { defaultLimit: 100 },
  params: hydrateParams,
});
