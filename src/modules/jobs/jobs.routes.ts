import { Type } from '@sinclair/typebox';
import { DataEnvelope, PageEnvelope, errorResponses } from '../../http/envelope.ts';
import { notFound } from '../../http/errors.ts';
import { applyFilters, applyPaging, applySort } from '../../http/query/index.ts';
import { route } from '../../http/route.ts';
import { audited } from '../../audit/audit.ts';
import { NewJobBody } from './jobs.body.ts';
import { finishedQuery, listQuery } from './jobs.query.ts';
import { finishedJobsPage, jobLog, jobsSelect, toWireJobs } from './jobs.repository.ts';
import { ClientJobSchema } from './jobs.schema.ts';
import { cancelJob, createJob, getJob } from './jobs.service.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const JobParams = Type.Object({ job_id: Type.Integer({ format: 'int32' }) });
type P = { Params: { job_id: number } };
const tags = ['jobs'];
const Job = Type.Ref(ClientJobSchema);

/** Administrators' side of jobs. */
export const jobRoutes = [
  route<{ Params: { client_id: string }; Body: NewJobBody }>({
    method: 'POST',
    url: '/api/v2/clients/:client_id/jobs',
    config: { access: { permissions: ['collection/ManageJobs'] }, enterprise: true, audit: { action: 'CreateJob' } },
    schema: {
      tags, summary: 'Create a one-off job for a client', params: Type.Object({ client_id: Type.String() }), body: NewJobBody,
      response: { 200: DataEnvelope(Job), ...errorResponses(400, 401, 403, 404) },
    },
    handler: async (request) => {
      if (!UUID.test(request.params.client_id)) throw notFound();
      return { data: await audited(request, (db) => createJob(db, request.params.client_id.toLowerCase(), request.body)) };
    },
  }),
  route({
    method: 'GET',
    url: '/api/v2/jobs',
    config: { access: { permissions: ['clients/Read'] }, enterprise: true, query: listQuery },
    schema: { tags, summary: 'List jobs (filters and sort of spec 4.5, paging, count)', response: { 200: PageEnvelope(Type.Array(Job)), ...errorResponses(400, 401, 403) } },
    handler: async (request) => {
      const db = request.server.db.kysely;
      const parsed = request.parsedQuery;
      const filtered = applyFilters(db.selectFrom('client_jobs'), listQuery, parsed);
      const { count } = await filtered.select((eb) => eb.fn.countAll<number>().as('count')).executeTakeFirstOrThrow();
      const rows = await applyPaging(applySort(applyFilters(jobsSelect(db), listQuery, parsed), listQuery, parsed), parsed).execute();
      const flags = { ous: parsed.params.hydrate_ous !== false, domains: parsed.params.hydrate_domains !== false };
      return { count: Number(count), skip: parsed.skip, limit: parsed.limit, data: await toWireJobs(db, rows, flags) };
    },
  }),
  route({
    method: 'GET',
    url: '/api/v2/jobs/finished',
    config: { access: { permissions: ['clients/Read'] }, enterprise: true, query: finishedQuery },
    schema: {
      tags, summary: 'Finished jobs of every client (complete, canceled, timed out, failed, partially complete), paged; filters as GET /jobs',
      response: { 200: PageEnvelope(Type.Array(Job)), ...errorResponses(400, 401, 403) },
    },
    handler: async (request) => finishedJobsPage(request.server.db.kysely, request.parsedQuery),
  }),
  route<P>({
    method: 'GET',
    url: '/api/v2/jobs/:job_id/log',
    config: { access: { permissions: ['clients/Read'] }, enterprise: true },
    schema: {
      tags, summary: 'The log the client sent when it ended the job ("" when it sent none)', params: JobParams,
      response: { 200: DataEnvelope(Type.Object({ log: Type.String() })), ...errorResponses(400, 401, 403, 404) },
    },
    handler: async (request) => {
      const log = await jobLog(request.server.db.kysely, request.params.job_id);
      if (log === undefined) throw notFound();
      return { data: { log } };
    },
  }),
  route<P>({
    method: 'GET',
    url: '/api/v2/jobs/:job_id',
    config: { access: { permissions: ['clients/Read'] }, enterprise: true },
    schema: { tags, summary: 'Get a job', params: JobParams, response: { 200: DataEnvelope(Job), ...errorResponses(400, 401, 403, 404) } },
    handler: async (request) => ({ data: await getJob(request.server.db, request.params.job_id) }),
  }),
  route<P>({
    method: 'PUT',
    url: '/api/v2/jobs/:job_id/cancel',
    config: { access: { permissions: ['collection/ManageJobs'] }, enterprise: true, audit: { action: 'CancelJob' } },
    schema: { tags, summary: 'Cancel a ready or running job', params: JobParams, response: { 200: DataEnvelope(Job), ...errorResponses(400, 401, 403, 404) } },
    handler: async (request) => ({ data: await audited(request, (db) => cancelJob(db, request.params.job_id)) }),
  }),
];
