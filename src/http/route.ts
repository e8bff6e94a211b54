import type { FastifyReply, FastifyRequest, RouteOptions, RouteGenericInterface } from 'fastify';
import type { Permission } from '../auth/permissions.ts';
import type { Principal } from '../auth/principal.ts';
import type { Config } from '../config.ts';
import type { Db } from '../db/create-db.ts';
import type { CompiledQuery, ParsedQuery } from './query/index.ts';
import type { CacheSpec } from './response-cache.ts';
import type { AuditDeclaration } from '../audit/audit.ts';

/**
 * Who may call a route. Every route must declare one (start-up fails otherwise):
 * - `{ public: true }`            anyone
 * - `{ permissions: [...] }`      a user holding every listed permission ([] = any signed-in user)
 * - `{ client: true }`            a collection client (a user gets 404, as for an unknown route)
 */
export type Access = { public: true } | { permissions: Permission[] } | { client: true };

declare module 'fastify' {
  interface FastifyContextConfig {
    access?: Access;
    /** Enterprise-only route: not registered at all in the community edition. */
    enterprise?: boolean;
    /** Filter / sort / paging declaration; the parsed result is `request.parsedQuery`. */
    query?: CompiledQuery;
  }
  interface FastifyRequest {
    /** The caller, once the route's guard admitted them. */
    principal: Principal | null;
    /** The authenticated caller, admitted or not (for the audit log of refused requests). */
    identity: Principal | null;
    parsedQuery: ParsedQuery;
  }
  interface FastifyInstance {
    db: Db;
    config: Config;
  }
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export interface Route<G extends RouteGenericInterface = any> extends Omit<RouteOptions, 'handler' | 'config'> {
  config: { access: Access; enterprise?: boolean; query?: CompiledQuery; cache?: CacheSpec; audit?: AuditDeclaration; form?: boolean };
  handler: (request: FastifyRequest<G>, reply: FastifyReply) => unknown;
}

/** Identity helper that types a route literal's request (Params, Body, ...). */
export function route<G extends RouteGenericInterface = RouteGenericInterface>(r: Route<G>): Route {
  return r as Route;
}

/** A Fastify option that may be one value or a list (hooks), as a list. */
export function toArray<T>(value: T | T[] | undefined): T[] {
  if (value === undefined) return [];
  return Array.isArray(value) ? value : [value];
}
