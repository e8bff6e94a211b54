import type { FastifyRequest } from 'fastify';
import { notFound } from '../../http/errors.ts';
import type { Route } from '../../http/route.ts';

/**
 * Routes a feature flag turns off, as BloodHound's `CheckFeatureFlag` middleware: while the flag is
 * disabled they answer 404 `resource not found`, as a route that does not exist.
 */
export function gatedBy(flag: string, routes: Route[]): Route[] {
  const gate = async (request: FastifyRequest) => {
    const row = await request.server.db.kysely.selectFrom('feature_flags').select('enabled').where('key', '=', flag).executeTakeFirst();
    if (row && row.enabled !== 1) throw notFound();
  };
  return routes.map((r) => ({ ...r, preValidation: [gate, ...(r.preValidation ? [r.preValidation].flat() : [])] } as Route));
}
