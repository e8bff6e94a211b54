import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { ApiError, Messages, forbidden, notFound, unauthorized } from '../http/errors.ts';
import type { Access } from '../http/route.ts';
import type { Principal } from './principal.ts';
import { cachedBearer, verifyBearer } from './sessions.ts';

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

/** A bearer token's principal when the session cache knows it (no promise, no database). */
function knownPrincipal(request: FastifyRequest): Principal | undefined {
  const header = request.headers.authorization;
  if (!header || header.length < 8 || header.slice(0, 7).toLowerCase() !== 'bearer ') return undefined;
  return cachedBearer(request.server.db, header.slice(7).trim());
}

/**
 * Returns the onRequest hook that enforces a route's declared access: `admit` throws when the
 * principal may not call the route. Callback-style, so that a caller whose session is cached costs
 * no promise.
 */
export function guardFor(access: Access) {
  if ('public' in access) return (_request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction) => done();
  const admit = 'client' in access ? admitClient : admitUser(access.permissions);
  return (request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction) => {
    const known = knownPrincipal(request);
    if (known) {
      request.identity = known;
      try {
        request.principal = admit(known);
      } catch (err) {
        return done(err as Error);
      }
      return done();
    }
    authenticate(request)
      .then((principal) => {
        request.identity = principal;
        return admit(principal);
      })
      .then((principal) => {
        request.principal = principal;
        done();
      }, done);
  };
}

function admitClient(principal: Principal): Principal {
  // A user on a client-only route sees the same 404 as for a route that does not exist.
  if (principal.kind !== 'client') throw notFound();
  return principal;
}

function admitUser(required: readonly string[]) {
  return (principal: Principal): Principal => {
    if (principal.kind !== 'user') throw forbidden();
    if (principal.user.is_disabled) throw new ApiError(403, Messages.userDisabled);
    for (const permission of required) {
      if (!principal.permissions.has(permission)) throw forbidden();
    }
    return principal;
  };
}
