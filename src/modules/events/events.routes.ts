import { Type } from '@sinclair/typebox';
import { DataEnvelope, errorResponses } from '../../http/envelope.ts';
import { applyFilters, applySort, defineQuery, type ParsedQuery } from '../../http/query/index.ts';
import { route } from '../../http/route.ts';
import { audited } from '../../audit/audit.ts';
import { EventBody, EventSchema } from './events.schema.ts';
import { JSON_TYPE } from '../../http/json-body.ts';
import { createEvent, getEvent, keptEventText, removeEvent, replaceEvent, toWireEvents } from './events.service.ts';

const hydrateParams = {
  hydrate_ous: { type: 'boolean', default: true, description: 'true: OU references with name, type, exists; false: objectids' },
  hydrate_domains: { type: 'boolean', default: true, description: 'true: domain references; false: objectids' },
} as const;
const oneQuery = defineQuery({ params: hydrateParams });
const listQuery = defineQuery({
  filters: {
    client_id: { kind: 'uuid', column: 'client_events.client_id' },
    title: { kind: 'string', column: 'client_events.title' },
    created_at: { kind: 'timestamp', column: 'client_events.created_at' },
  },
  sortable: { id: 'client_events.id', title: 'client_events.title', created_at: 'client_events.created_at', updated_at: 'client_events.updated_at' },
  defaultSort: [{ column: 'id' }],
  tieBreaker: 'client_events.id',
  params: hydrateParams,
});

const flags = (q: ParsedQuery) => ({ ous: q.params.hydrate_ous !== false, domains: q.params.hydrate_domains !== false });
const Params = Type.Object({ event_id: Type.Integer({ format: 'int32' }) });
type P = { Params: { event_id: number } };
const tags = ['events'];
const Event = Type.Ref(EventSchema);

/** An event answer: the event rows and the graph nodes its OU / domain references are resolved against. */
const EVENT_READS = ['client_events', 'clients', 'nodes'] as const;

export const eventRoutes = [
  route({
    method: 'GET',
    url: '/api/v2/events',
    config: { access: { permissions: ['clients/Read'] }, enterprise: true, query: listQuery, cache: { reads: EVENT_READS } },
    schema: { tags, summary: 'List scheduled collection events', response: { 200: DataEnvelope(Type.Array(Event)), ...errorResponses(400, 401, 403) } },
    handler: async (request) => {
      const { kysely: db, versions } = request.server.db;
      const qb = applySort(applyFilters(db.selectFrom('client_events').selectAll(), listQuery, request.parsedQuery), listQuery, request.parsedQuery);
      return { data: await toWireEvents(db, await qb.execute(), flags(request.parsedQuery), versions) };
    },
  }),
  route<{ Body: EventBody }>({
    method: 'POST',
    url: '/api/v2/events',
    config: { access: { permissions: ['clients/Manage'] }, enterprise: true, query: oneQuery, audit: { action: 'CreateEvent' } },
    schema: { tags, summary: 'Schedule a recurring collection', body: EventBody, response: { 200: DataEnvelope(Event), ...errorResponses(400, 401, 403) } },
    handler: async (request) => ({ data: await audited(request, (db) => createEvent(db, request.body, flags(request.parsedQuery))) }),
  }),
  route<P>({
    method: 'GET',
    url: '/api/v2/events/:event_id',
    config: { access: { permissions: ['clients/Read'] }, enterprise: true, query: oneQuery, cache: { reads: EVENT_READS } },
    schema: { tags, summary: 'Get a scheduled collection event (spec 4.8)', params: Params, response: { 200: DataEnvelope(Event), ...errorResponses(400, 401, 403, 404) } },
    handler: (request, reply) => {
      // Answered synchronously (no promise, no serializer) when the event and its references are kept; else read.
      const { db } = request.server;
      const hydrate = flags(request.parsedQuery);
      const kept = keptEventText(db, request.params.event_id, hydrate);
      if (kept !== undefined) return reply.type(JSON_TYPE).send(kept);
      return getEvent(db, request.params.event_id, hydrate).then((data) => ({ data }));
    },
  }),
  route<P & { Body: EventBody }>({
    method: 'PUT',
    url: '/api/v2/events/:event_id',
    config: { access: { permissions: ['clients/Manage'] }, enterprise: true, query: oneQuery, audit: { action: 'UpdateEvent' } },
    schema: { tags, summary: 'Replace a scheduled collection event', params: Params, body: EventBody, response: { 200: DataEnvelope(Event), ...errorResponses(400, 401, 403, 404) } },
    handler: async (request) => ({
      data: await audited(request, (db) => replaceEvent(db, request.params.event_id, request.body, flags(request.parsedQuery))),
    }),
  }),
  route<P>({
    method: 'DELETE',
    url: '/api/v2/events/:event_id',
    config: { access: { permissions: ['clients/Manage'] }, enterprise: true, audit: { action: 'DeleteEvent' } },
    schema: { tags, summary: 'Delete a scheduled collection event (its jobs stay)', params: Params, response: { 200: DataEnvelope(Event), ...errorResponses(400, 401, 403, 404) } },
    handler: async (request) => ({ data: await audited(request, (db) => removeEvent(db, request.params.event_id)) }),
  }),
];
