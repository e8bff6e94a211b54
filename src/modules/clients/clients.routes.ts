import { Type } from '@sinclair/typebox';
import { DataEnvelope, PageEnvelope, errorResponses } from '../../http/envelope.ts';
import { notFound } from '../../http/errors.ts';
import { applyFilters, applyPaging, applySort, defineQuery } from '../../http/query/index.ts';
import { route } from '../../http/route.ts';
import { audited } from '../../audit/audit.ts';
import { flushCheckins } from './clients.repository.ts';
import { ClientSchema, ClientTokenSchema, CreateClientBody, UpdateClientBody, toWireClient } from './clients.schema.ts';
import { createClient, editClient, getClient, issueClientToken, removeClient } from './clients.service.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const Params = Type.Object({ client_id: Type.String({ description: 'client id (UUID)' }) });
type P = { Params: { client_id: string } };
/** A path id that is not a UUID names no client. */
const clientId = (raw: string) => {
  if (!UUID.test(raw)) throw notFound();
  return raw.toLowerCase();
};

const listQuery = defineQuery({
  filters: {
    name: { kind: 'string', column: 'clients.name' },
    type: { kind: 'string', column: 'clients.type', predicates: ['eq', 'neq'] },
    last_checkin: { kind: 'timestamp', column: 'clients.last_checkin', nullable: true },
    created_at: { kind: 'timestamp', column: 'clients.created_at' },
  },
  sortable: { name: 'clients.name', type: 'clients.type', last_checkin: 'clients.last_checkin', created_at: 'clients.created_at' },
  defaultSort: [{ column: 'name' }],
  tieBreaker: 'clients.id',
  paging: { defaultLimit: 100 },
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
      return { count: Number(count), skip: parsed.skip, limit: parsed.limit, data: rows.map(toWireClient) };
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
