import type { FastifyInstance } from 'fastify';

/**
 * JSON bodies: Fastify's parser (prototype-poisoning safe), except that an EMPTY body with a JSON
 * content type means "no body". Many clients send `Content-Type: application/json` on every request,
 * DELETE and bodiless POSTs included; BloodHound accepts those.
 */
export function registerJsonBody(app: FastifyInstance): void {
  const parse = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if (body === '' || (typeof body === 'string' && body.trim() === '')) return done(null, undefined);
    parse(request, body as string, done);
  });
}
