import type { FastifyRequest } from 'fastify';
import { ApiError, Messages, forbidden, notFound, unauthorized } from '../http/errors.ts';
import type { Access } from '../http/route.ts';
import type { Principal } from './principal.ts';
import { verifyBearer } from './sessions.ts';

/**
 * Authorization schemes by lower-cased name. `bearer` (JWT sessions) is built in; other modules may
 * add one (e.g. signed requests) with registerAuthScheme.
 */
export type AuthScheme = (request: FastifyRequest, credentials: string) => Promise<Principal>;
const schemes = new Map<string, AuthScheme>([
  ['bearer', (request, token) => verifyBearer(request.server.db, request.server.config, token)],
]);

export function registerAuthScheme(name: string, scheme: AuthScheme): void {
  schemes.set(name.toLowerCase(), scheme);
}

export async function authenticate(request: FastifyRequest): Promise<Principal> {
  const header = request.headers.authorization;
  if (!header) throw unauthorized();
  const space = header.indexOf(' ');
  if (space <= 0) throw unauthorized();
  const scheme = schemes.get(header.slice(0, space).toLowerCase());
  const credentials = header.slice(space + 1).trim();
  if (!scheme || !credentials) throw unauthorized();
  return scheme(request, credentials);
}

/** Returns the onRequest hook that enforces a route's declared access. */
export function guardFor(access: Access) {
  if ('public' in access) return async () => {};
  if ('client' in access) {
    return async (request: FastifyRequest) => {
      const principal = await authenticate(request);
      // A user on a client-only route sees the same 404 as for a route that does not exist.
      if (principal.kind !== 'client') throw notFound();
      request.principal = principal;
    };
  }
  const required = access.permissions;
  return async (request: FastifyRequest) => {
    const principal = await authenticate(request);
    if (principal.kind !== 'user') throw forbidden();
    if (principal.user.is_disabled) throw new ApiError(403, Messages.userDisabled);
    for (const permission of required) {
      if (!principal.permissions.has(permission)) throw forbidden();
    }
    request.principal = principal;
  };
}
