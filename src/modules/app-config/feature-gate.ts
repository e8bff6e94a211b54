import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import type { Db } from '../../db/create-db.ts';
import { notFound } from '../../http/errors.ts';
import type { Route } from '../../http/route.ts';

/**
 * Routes a feature flag turns off, as BloodHound's `CheckFeatureFlag` middleware: while the flag is
 * disabled they answer 404 `resource not found`, as a route that does not exist. The flag is read
 * once per change of `feature_flags` (data versions), not on every request.
 */
const TABLES = ['feature_flags'] as const;
const known = new WeakMap<Db, Map<string, { snapshot: string; enabled: boolean }>>();

export async function flagEnabled(db: Db, flag: string): Promise<boolean> {
  let memo = known.get(db);
  if (!memo) known.set(db, (memo = new Map()));
  const usable = db.versions.usable();
  const snapshot = db.versions.snapshot(TABLES);
  const hit = memo.get(flag);
  if (usable && hit && hit.snapshot === snapshot) return hit.enabled;
  const row = await db.kysely.selectFrom('feature_flags').select('enabled').where('key', '=', flag).executeTakeFirst();
  const enabled = !row || row.enabled === 1;
  if (usable) memo.set(flag, { snapshot, enabled });
  return enabled;
}

/** The flag's kept value when it is still current (no promise, no database), else undefined. */
function knownFlag(db: Db, flag: string): boolean | undefined {
  const hit = known.get(db)?.get(flag);
  return hit && db.versions.usable() && hit.snapshot === db.versions.snapshot(TABLES) ? hit.enabled : undefined;
}

export function gatedBy(flag: string, routes: Route[]): Route[] {
  // Callback-style: a kept flag costs no promise.
  const gate = (request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction) => {
    const { db } = request.server;
    const enabled = knownFlag(db, flag);
    if (enabled !== undefined) return done(enabled ? undefined : notFound());
    flagEnabled(db, flag).then((on) => done(on ? undefined : notFound()), done);
  };
  return routes.map((r) => ({ ...r, preValidation: [gate, ...(r.preValidation ? [r.preValidation].flat() : [])] } as Route));
}
