import { Readable } from 'node:stream';
import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { DataEnvelope, errorResponses } from '../../http/envelope.ts';
import { ApiError, badRequest, Messages } from '../../http/errors.ts';
import { defineQuery } from '../../http/query/index.ts';
import { route } from '../../http/route.ts';
import { audited } from '../../audit/audit.ts';
import { DuplicateName, insertQueries, visibleQueries, type Scope } from './saved-queries.repository.ts';
import { callerId, DUPLICATE, queryId, SCOPES, visibleQuery } from './saved-queries.routes.ts';
import { parseQueryJson, parseQueryZip, queryFile, queryFileName, TransferError, uniqueNames, type TransferableQuery } from './transfer.ts';
import { zipFiles } from '../../http/zip.ts';

const exportQuery = defineQuery({ params: { scope: { type: 'string', description: 'owned, shared, public or all (required)' } } });

const ZIP_TYPES = ['application/zip', 'application/x-zip-compressed', 'application/zip-compressed'];

declare module 'fastify' {
  interface FastifyRequest {
    importedBody?: { type: string; data: Buffer };
  }
}

const mediaType = (request: FastifyRequest) => String(request.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();

const download = (name: string) => ({ 'content-type': 'application/octet-stream', 'content-disposition': `attachment; filename="${name}"` });

export const savedQueryTransferRoutes = [
  route<{ Params: { saved_query_id: string } }>({
    method: 'GET',
    url: '/api/v2/saved-queries/:saved_query_id/export',
    config: { access: { permissions: ['saved_queries/Read'] } },
    schema: {
      tags: ['saved-queries'], summary: 'Download one saved query as BloodHound\'s JSON file ({query, name, description})',
      params: Type.Object({ saved_query_id: Type.String() }),
      response: { 200: Type.String({ description: 'the file (application/octet-stream)' }), ...errorResponses(400, 401, 403, 404) },
    },
    handler: async (request, reply) => {
      const row = await visibleQuery(request, queryId(request.params.saved_query_id));
      if (!row) throw new ApiError(404, 'query does not exist');
      return reply.headers(download(queryFileName(row.name))).send(Buffer.from(queryFile(row)));
    },
  }),
  route({
    method: 'GET',
    url: '/api/v2/saved-queries/export',
    config: { access: { permissions: ['saved_queries/Read'] }, query: exportQuery },
    schema: {
      tags: ['saved-queries'], summary: 'Download the saved queries of a scope (owned, shared, public, all) as a zip of JSON files',
      response: { 200: Type.String({ description: 'exported_queries.zip (application/octet-stream)' }), ...errorResponses(400, 401, 403) },
    },
    handler: async (request, reply) => {
      const raw = request.parsedQuery.params.scope as string | undefined;
      if (raw === undefined || raw === '') throw badRequest('scope query parameter cannot be empty');
      const scope = raw.toLowerCase() as Scope;
      if (!SCOPES.includes(scope)) throw badRequest(`invalid scope param: ${raw}`);
      const rows = await visibleQueries(request.server.db.kysely, callerId(request), scope).selectAll('saved_queries').orderBy('saved_queries.id').execute();
      const zip = zipFiles(rows.map((r) => ({ name: queryFileName(r.name), data: queryFile(r) })));
      return reply.headers(download('exported_queries.zip')).send(zip);
    },
  }),
  route({
    method: 'POST',
    url: '/api/v2/saved-queries/import',
    bodyLimit: Number.MAX_SAFE_INTEGER, // enforced while reading: config.bodyLimit
    config: { access: { permissions: ['saved_queries/Write'] }, audit: { action: 'ImportSavedQueries' } },
    schema: {
      tags: ['saved-queries'],
      summary: 'Import saved queries: a JSON file ({query, name, description}, or an array of them such as the Query Library\'s Queries.json, where a repeated name gets its platforms appended) or a zip of such files',
      response: { 201: DataEnvelope(Type.String()), ...errorResponses(400, 401, 403, 413, 415) },
    },
    preParsing: async (request, _reply, payload) => {
      const type = mediaType(request);
      if (type !== 'application/json' && !ZIP_TYPES.includes(type)) {
        const header = request.headers['content-type'] ?? '';
        throw new ApiError(415, `invalid content-type: [${header}]; Content type must be application/json or application/zip`);
      }
      const limit = request.server.config.bodyLimit;
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const chunk of payload as AsyncIterable<Buffer>) {
        size += chunk.length;
        if (size > limit) throw new ApiError(413, Messages.tooLarge);
        chunks.push(chunk);
      }
      request.importedBody = { type, data: Buffer.concat(chunks) };
      // Bytes as received (a Content-Encoding decoder before this hook reports them), for Content-Length.
      const empty = Readable.from([]) as Readable & { receivedEncodedLength?: number };
      empty.receivedEncodedLength = (payload as { receivedEncodedLength?: number }).receivedEncodedLength ?? size;
      return empty;
    },
    handler: async (request, reply) => {
      const userId = callerId(request);
      const body = request.importedBody;
      if (!body || body.data.length === 0) throw badRequest('import cypher query request body cannot be empty');
      let queries: TransferableQuery[];
      try {
        // A JSON array (Scent's extension, e.g. the Query Library's Queries.json) may repeat a name across platforms.
        queries = body.type === 'application/json' ? uniqueNames(parseQueryJson(body.data.toString('utf8'))) : await parseQueryZip(body.data);
      } catch (err) {
        if (err instanceof TransferError) throw badRequest(err.message);
        throw err;
      }
      if (queries.some((q) => q.name === '' || q.query === '')) throw badRequest('the name and/or query field is empty');
      try {
        await audited(request, (db) => insertQueries(db.kysely, queries.map((q) => ({ userId, name: q.name, query: q.query, description: q.description }))));
      } catch (err) {
        if (err instanceof DuplicateName) throw badRequest(DUPLICATE);
        throw err;
      }
      return reply.code(201).send({ data: `imported ${queries.length} queries` });
    },
  }),
];
