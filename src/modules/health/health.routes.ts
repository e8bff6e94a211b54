import { Type } from '@sinclair/typebox';
import { route } from '../../http/route.ts';

/** GET /health: process up and database reachability (200 when reachable, 503 when not). */
export const healthRoutes = [
  route({
    method: 'GET',
    url: '/health',
    config: { access: { public: true } },
    schema: {
      tags: ['meta'],
      summary: 'Liveness and database reachability',
      security: [],
      response: {
        200: Type.Object({ status: Type.String(), database: Type.String(), dialect: Type.String() }),
        503: Type.Object({ status: Type.String(), database: Type.String(), dialect: Type.String() }),
      },
    },
    handler: async (request, reply) => {
      const { db } = request.server;
      const up = await db.ping();
      return reply.code(up ? 200 : 503).send({ status: up ? 'ok' : 'degraded', database: up ? 'reachable' : 'unreachable', dialect: db.dialect });
    },
  }),
];
