/**
 * GET /api/v2/graphs/export: the whole graph as BloodHound OpenGraph JSON, streamed from one
 * consistent snapshot (src/graph/export/). `scent import` reads it back (docs: ingest-and-analysis).
 * The request deadline (Prefer: wait) is checked before every page: a stream that outlives it is cut
 * off, so large graphs are exported with a longer wait or with `scent export`.
 */
import { Readable } from 'node:stream';
import { Type } from '@sinclair/typebox';
import { errorResponses } from '../../http/envelope.ts';
import { DeadlineError } from '../../http/errors.ts';
import { JSON_TYPE } from '../../http/json-body.ts';
import { defineQuery } from '../../http/query/index.ts';
import { route } from '../../http/route.ts';
import { exportOpenGraph, openSnapshot } from '../../graph/export/opengraph-export.ts';

const exportQuery = defineQuery({});

export const graphExportRoutes = [
  route({
    method: 'GET',
    url: '/api/v2/graphs/export',
    config: { access: { permissions: ['graphdb/Read'] }, query: exportQuery },
    schema: {
      tags: ['graph'],
      summary: 'The whole graph as OpenGraph JSON (streamed)',
      description: 'Nodes `{id, kinds, properties}` and edges `{start: {match_by: "id", value}, end: {...}, kind, properties}` '
        + 'as in BloodHound\'s graph fixtures; tag members carry the kind `Tag_<tag name>` (Tier Zero members also '
        + '`system_tags: "admin_tier_0"`). `scent import` reads the file back.',
      response: {
        200: Type.Object({
          metadata: Type.Object({ source_kind: Type.String() }),
          graph: Type.Object({ nodes: Type.Array(Type.Unknown()), edges: Type.Array(Type.Unknown()) }),
        }),
        ...errorResponses(400, 401, 403),
      },
    },
    handler: async (request, reply) => {
      const snapshot = await openSnapshot(request.server.db);
      reply.raw.once('close', () => void snapshot.close());
      const deadline = request.deadline;
      const checkpoint = () => {
        if (deadline.aborted || Date.now() >= deadline.at) throw new DeadlineError();
      };
      reply.type(JSON_TYPE);
      return reply.send(Readable.from(exportOpenGraph(snapshot, { checkpoint })));
    },
  }),
];
