import type { FastifyInstance, FastifyRequest } from 'fastify';
import { badRequest, Messages } from './errors.ts';

/** The one Content-Type of every JSON answer (CONTRACT §1): no charset, as BloodHound's clients compare it literally. */
export const JSON_TYPE = 'application/json';

/** What Fastify writes on its own for JSON (and for JSON-typed strings): rewritten to JSON_TYPE. */
const JSON_WITH_CHARSET = /^application\/json\s*;\s*charset="?utf-8"?$/i;

/**
 * The wire rules of request and answer bodies, registered once by buildApp before every other
 * onSend hook (so the response cache keeps, and compression sends, the header as the client sees it):
 *
 * - An EMPTY body is no body, whatever its Content-Type says: axios in Node sends
 *   `application/x-www-form-urlencoded` on body-less POST/PUT, many clients send
 *   `application/json` on every request. A request that announces no bytes (Content-Length 0, no
 *   Transfer-Encoding) loses its Content-Type before parsing; a chunked one that turns out empty is
 *   no body too.
 * - A non-empty body that is not JSON: 400 `content type must be application/json` on a route that
 *   reads a body; ignored (drained) on one that does not, as BloodHound's handlers ignore it.
 * - JSON bodies: Fastify's parser (prototype-poisoning safe) for any `application/json` type.
 * - Every JSON answer (data, errors, cached, gzipped, streamed) goes out as `application/json`.
 */
export function registerJsonBody(app: FastifyInstance): void {
  app.addHook('onRequest', (request, _reply, done) => {
    const headers = request.headers;
    if (headers['content-type'] !== undefined && headers['transfer-encoding'] === undefined &&
      (headers['content-length'] === undefined || headers['content-length'] === '0')) {
      delete headers['content-type'];
    }
    done();
  });

  const parse = app.getDefaultJsonParser('error', 'error');
  app.removeAllContentTypeParsers(); // Fastify's text/plain one included: text is not JSON
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if (typeof body === 'string' && body.trim() === '') return done(null, undefined);
    parse(request, body as string, done);
  });
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (request, body, done) => {
    if ((body as Buffer).length === 0 || !readsBody(request)) return done(null, undefined);
    done(badRequest(Messages.contentType), undefined);
  });

  app.addHook('onSend', (_request, reply, payload, done) => {
    const type = reply.getHeader('content-type');
    if (typeof type === 'string' && JSON_WITH_CHARSET.test(type)) reply.header('content-type', JSON_TYPE);
    done(null, payload);
  });
}

export function readsBody(request: FastifyRequest): boolean {
  return (request.routeOptions.schema as { body?: unknown } | undefined)?.body !== undefined;
}
