import { Type } from '@sinclair/typebox';
import { DataEnvelope, PageEnvelope, errorResponses } from '../../http/envelope.ts';
import { notFound } from '../../http/errors.ts';
import { applyFilters, applyPaging, applySort, defineQuery } from '../../http/query/index.ts';
import { route } from '../../http/route.ts';
import { audited } from '../../audit/audit.ts';
import { flushCheckins } from './clients.repository.ts';
import { ClientSchema, ClientTokenSchema, CreateClientBody, UpdateClientBody } from './clients.schema.ts';
import { createClient, editClient, getClient, issueClientToken, removeClient, wireClients } from './clients.service.ts';
import { ClientJobSchema } from '../jobs/jobs.schema.ts';
import { finishedJobsPage } from '../jobs/jobs.repository.ts';
import { finishedQuery } from '../jobs/jobs.query.ts';
import { findClient } from './clients.repository.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const Params = Type.Object({ client_id: Type.String({ description: 'client id (UUID)' }) });
type P = { Params: { client_id: string } };
/** A path id that is not a UUID names no client. */
const clientId = (raw: string) => {
  if (!UUID.test(raw)) throw notFound();
  return raw.toLowerCase();
};

const text = (column: string) => ({ kind: 'string' as const, column: `clients.${column}` });
const listQuery = defineQuery({
  filters: {
    id: { kind: 'uuid', column: 'clients.id' },
    name: text('name'),
    type: { kind: 'string', column: 'clients.type', predicates: ['eq', 'neq'] },
    ip_address: text('ip_address'),
    hostname: text('hostname'),
    version: text('version'),
    domain_controller: text('domain_controller'),
    current_job_id: { kind: 'integer', column: 'clients.current_job_id', nullable: true },
    last_checkin: { kind: 'timestamp', column: 'clients.last_checkin', nullable: true },
    created_at: { kind: 'timestamp', column: 'clients.created_at' },
    updated_at: { kind: 'timestamp', column: 'clients.updated_at' },
  },
  sortable: {
    id: 'clients.id', name: 'clients.name', type: 'clients.type', ip_address: 'clients.ip_address', hostname: 'clients.hostname',
    version: 'clients.version', domain_controller: 'clients.domain_controller', current_job_id: 'clients.current_job_id',
    last_checkin: 'clients.last_checkin', created_at: 'clients.created_at', updated_at: 'clients.updated_at',
  },
  defaultSort: [{ column: 'name' }],
  tieBreaker: 'clients.id',
  paging: { defaultLimit: 100 },
  params: {
    hydrate_ous: { type: 'boolean', default: true, description: "true: the events' and current job's OU references with name, type, exists; false: objectids" },
    hydrate_domains: { type: 'boolean', default: true, description: 'the same for domain references' },
  },
});

const tags = ['clients'];
const Client = Type.Ref(ClientSchema);

export const clientRoutes = [
  route({
    method: 'GET',
    url: '/api/v2/clients',
    config: { access: { permissions: ['clients/Read'] }, enterprise: true, query: listQuery },
    schema: { tags, summary: 'List collection clients', response: { 200: PageEnvelope(Type.Array(Client)), ...errorResponses(400, 401, 403) } },
    handler: async (request) => {
      const db = request.server.db.kysely;
      await flushCheckins(db);
      const parsed = request.parsedQuery;
      const filtered = applyFilters(db.selectFrom('clients'), listQuery, parsed);
      const { count } = await filtered.select((eb) => eb.fn.countAll<number>().as('count')).executeTakeFirstOrThrow();
      const rows = await applyPaging(applySort(filtered.selectAll(), listQuery, parsed), parsed).execute();
      const flags = { ous: parsed.params.hydrate_ous !== false, domains: parsed.params.hydrate_domains !== false };
      return { count: Number(count), skip: parsed.skip, limit: parsed.limit, data: await wireClients(db, rows, flags) };
    },
  }),
  route<{ Body: CreateClientBody }>({
    method: 'POST',
    url: '/api/v2/clients',
    config: { access: { permissions: ['clients/Manage'] }, enterprise: true, audit: { action: 'CreateClient' } },
    schema: { tags, summary: 'Create a collection client', body: CreateClientBody, response: { 200: DataEnvelope(Client), ...errorResponses(400, 401, 403, 409) } },
    handler: async (request) => ({ data: await audited(request, (db) => createClient(db, request.body)) }),
  }),
  route<P>({
    method: 'GET',
    url: '/api/v2/clients/:client_id',
    config: { access: { permissions: ['clients/Read'] }, enterprise: true },
    schema: { tags, summary: 'Get a collection client', params: Params, response: { 200: DataEnvelope(Client), ...errorResponses(401, 403, 404) } },
    handler: async (request) => ({ data: await getClient(request.server.db, clientId(request.params.client_id)) }),
  }),
  route<P>({
    method: 'GET',
    url: '/api/v2/clients/:client_id/completed-jobs',
    config: { access: { permissions: ['clients/Read'] }, enterprise: true, query: finishedQuery },
    schema: {
      tags, summary: "A client's finished jobs (complete, canceled, timed out, failed, partially complete), paged; filters as GET /jobs",
      params: Params, response: { 200: PageEnvelope(Type.Array(Type.Ref(ClientJobSchema))), ...errorResponses(400, 401, 403, 404) },
    },
    handler: async (request) => {
      const db = request.server.db.kysely;
      const id = clientId(request.params.client_id);
      if (!(await findClient(db, id))) throw notFound();
      return finishedJobsPage(db, request.parsedQuery, id);
    },
  }),
  route<P & { Body: UpdateClientBody }>({
    method: 'PUT',
    url: '/api/v2/clients/:client_id',
    config: { access: { permissions: ['clients/Manage'] }, enterprise: true, audit: { action: 'UpdateClient' } },
    schema: { tags, summary: 'Rename a collection client', params: Params, body: UpdateClientBody, response: { 200: DataEnvelope(Client), ...errorResponses(400, 401, 403, 404, 409) } },
    handler: async (request) => ({ data: await audited(request, (db) => editClient(db, clientId(request.params.client_id), request.body)) }),
  }),
  route<P>({
    method: 'DELETE',
    url: '/api/v2/clients/:client_id',
    config: { access: { permissions: ['clients/Manage'] }, enterprise: true, audit: { action: 'DeleteClient' } },
    schema: { tags, summary: 'Delete a client with its events and jobs; its tokens stop working', params: Params, response: { 200: DataEnvelope(Client), ...errorResponses(401, 403, 404) } },
    handler: async (request) => ({ data: await audited(request, (db) => removeClient(db, clientId(request.params.client_id))) }),
  }),
  route<P>({
    method: 'PUT',
    url: '/api/v2/clients/:client_id/token',
    config: { access: { permissions: ['clients/Manage'] }, enterprise: true, audit: { action: 'ReplaceClientToken' } },
    schema: { tags, summary: "Issue the client's bearer token (earlier tokens are revoked)", params: Params, response: { 200: DataEnvelope(Type.Ref(ClientTokenSchema)), ...errorResponses(401, 403, 404) } },
    handler: async (request) => {
      const { config } = request.server;
      return { data: await audited(request, (db) => issueClientToken(db, config, clientId(request.params.client_id), { replace: true })) };
    },
  }),
];
