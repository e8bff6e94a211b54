import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { DataEnvelope, errorResponses } from '../../http/envelope.ts';
import { route } from '../../http/route.ts';
import { audited } from '../../audit/audit.ts';
import { recordCheckin } from '../clients/clients.repository.ts';
import { availableAnswer, keptAvailableAnswer, matchesIfNoneMatch } from './available.ts';
import { EndJobBody, StartJobBody } from './jobs.body.ts';
import { availableQuery } from './jobs.query.ts';
import { ClientJobSchema } from './jobs.schema.ts';
import { currentJob, endJob, startJob } from './jobs.service.ts';
import { JSON_TYPE } from '../../http/json-body.ts';
import { acceptsGzip } from '../../http/compression.ts';

/** The collection client's side: poll, claim, report. Every call records the client's check-in (written behind). */
function checkIn(request: FastifyRequest): string {
  const principal = request.principal;
  if (principal?.kind !== 'client') throw new Error('client route without a client principal');
  recordCheckin(request.server.db.kysely, principal.clientId, request.ip, request.headers['user-agent']);
  return principal.clientId;
}

const tags = ['jobs'];
const Job = Type.Ref(ClientJobSchema);
const clientOnly = { client: true } as const;

export const jobClientRoutes = [
  route({
    method: 'GET',
    url: '/api/v2/jobs/available',
    config: { access: clientOnly, enterprise: true, query: availableQuery },
    schema: {
      tags,
      summary: "The calling client's ready and due jobs (spec 4.5); ETag / If-None-Match",
      response: { 200: DataEnvelope(Type.Array(Job)), 304: Type.Null({ description: 'not modified' }), ...errorResponses(400, 401, 404) },
    },
    handler: (request, reply) => {
      const clientId = checkIn(request);
      const q = request.url.indexOf('?');
      const rawQuery = q < 0 ? '' : request.url.slice(q + 1);
      const { db, config } = request.server;
      const keepMb = config.responseCacheMb / 4;
      // Answered synchronously (no promise) when what it needs is kept; else (or for the body only) read.
      const kept = keptAvailableAnswer(db, clientId, request.parsedQuery, rawQuery, keepMb);
      if (kept) {
        reply.header('etag', kept.etag).header('cache-control', 'private, no-cache');
        if (matchesIfNoneMatch(request.headers['if-none-match'], kept.etag)) {
          kept.keep();
          reply.code(304).send();
          return undefined; // answered: not `reply`, which Fastify would send again
        }
        const body = kept.body(acceptsGzip(request));
        if (body !== undefined) {
          reply.type(JSON_TYPE).send(body);
          return undefined;
        }
      }
      return (async () => {
        const answer = await availableAnswer(db, clientId, request.parsedQuery, rawQuery, keepMb);
        reply.header('etag', answer.etag).header('cache-control', 'private, no-cache');
        if (matchesIfNoneMatch(request.headers['if-none-match'], answer.etag)) return reply.code(304).send();
        // Serialised by availableBody (and kept): the schema's OU/domain unions are slow in fast-json-stringify.
        return reply.type(JSON_TYPE).send(await answer.body(acceptsGzip(request)));
      })();
    },
  }),
  route<{ Body: StartJobBody }>({
    method: 'POST',
    url: '/api/v2/jobs/start',
    config: { access: clientOnly, enterprise: true, audit: { action: 'StartJob' } },
    schema: { tags, summary: 'Claim a ready job: it becomes running', body: StartJobBody, response: { 200: DataEnvelope(Job), ...errorResponses(400, 401, 404) } },
    handler: async (request) => {
      const clientId = checkIn(request);
      return { data: await audited(request, (db) => startJob(db, clientId, request.body.id)) };
    },
  }),
  route<{ Body: EndJobBody }>({
    method: 'POST',
    url: '/api/v2/jobs/end',
    config: { access: clientOnly, enterprise: true, audit: { action: 'EndJob' } },
    schema: { tags, summary: 'Report the end of the running job', body: EndJobBody, response: { 200: DataEnvelope(Job), ...errorResponses(400, 401, 404) } },
    handler: async (request) => {
      const clientId = checkIn(request);
      return { data: await audited(request, (db) => endJob(db, clientId, request.body)) };
    },
  }),
  route({
    method: 'GET',
    url: '/api/v2/jobs/current',
    config: { access: clientOnly, enterprise: true },
    schema: { tags, summary: "The calling client's running job (404 when none)", response: { 200: DataEnvelope(Job), ...errorResponses(401, 404) } },
    handler: async (request) => ({ data: await currentJob(request.server.db, checkIn(request)) }),
  }),
];
