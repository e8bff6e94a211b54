import type { FastifyRequest } from 'fastify';
import type { Db } from '../../db/create-db.ts';
import { notFound } from '../../http/errors.ts';
import type { Route } from '../../http/route.ts';

/** A flag's state as last read, valid while feature_flags is unchanged (src/db/data-versions.ts). */
const known = new WeakMap<Db, Map<string, { snapshot: string; off: boolean }>>();

async function flagOff(db: Db, flag: string): Promise<boolean> {
  const usable = db.versions.usable();
  const snapshot = usable ? db.versions.snapshot(['feature_flags']) : '';
  let flags = known.get(db);
  if (!flags) known.set(db, (flags = new Map()));
  const kept = flags.get(flag);
  if (usable && kept && kept.snapshot === snapshot) return kept.off;
  const row = await db.kysely.selectFrom('feature_flags').select('enabled').where('key', '=', flag).executeTakeFirst();
  const off = row !== undefined && row.enabled !== 1;
  if (usable) flags.set(flag, { snapshot, off });
  return off;
}

/**
 * Routes a feature flag turns off, as BloodHound's `CheckFeatureFlag` middleware: while the flag is
 * disabled they answer 404 `resource not found`, as a route that does not exist. The flag is read
 * once per change of the flags (a repeated request runs no statement for it).
 */
export function gatedBy(flag: string, routes: Route[]): Route[] {
  const gate = async (request: FastifyRequest) => {
    if (await flagOff(request.server.db, flag)) throw notFound();
  };
  return routes.map((r) => ({ ...r, preValidation: [gate, ...(r.preValidation ? [r.preValidation].flat() : [])] } as Route));
}
