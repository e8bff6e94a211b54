import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { markKept } from '../../http/compression.ts';
import { notFound } from '../../http/errors.ts';
import { route } from '../../http/route.ts';
import { JSON_TYPE } from '../../http/json-body.ts';
import { faviconIco } from './favicon.ts';

/** The OpenAPI document generated from the route schemas, and an interactive viewer for it. */
const require = createRequire(import.meta.url);
const assetDir = dirname(require.resolve('swagger-ui-dist/package.json'));
const ASSETS = new Map<string, string>([
  ['swagger-ui.css', 'text/css; charset=utf-8'],
  ['swagger-ui-bundle.js', 'application/javascript; charset=utf-8'],
  ['swagger-ui-standalone-preset.js', 'application/javascript; charset=utf-8'],
]);
const cache = new Map<string, Buffer>();
const specCache = new WeakMap<object, Buffer>();

const PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Scent API</title>
<link rel="icon" href="/favicon.ico">
<link rel="stylesheet" href="/api/v2/docs/swagger-ui.css"></head>
<body><div id="ui"></div>
<script src="/api/v2/docs/swagger-ui-bundle.js"></script>
<script>window.ui = SwaggerUIBundle({ url: '/api/v2/spec', dom_id: '#ui', persistAuthorization: true });</script>
</body></html>`;

const hidden = { hide: true } as const;
let favicon: Buffer | undefined;

export const docsRoutes = [
  route({
    method: 'GET',
    url: '/api/v2/spec',
    config: { access: { public: true } },
    schema: { ...hidden },
    handler: async (request, reply) => {
      // The document is fixed once the app is ready: build, serialise (and compress) it once per app.
      let body = specCache.get(request.server);
      if (!body) specCache.set(request.server, (body = markKept(Buffer.from(JSON.stringify(request.server.swagger())))));
      return reply.type(JSON_TYPE).send(body);
    },
  }),
  route({
    method: 'GET',
    url: '/api/v2/docs',
    config: { access: { public: true } },
    schema: { ...hidden },
    handler: async (_request, reply) => reply.type('text/html; charset=utf-8').send(PAGE),
  }),
  route<{ Params: { asset: string } }>({
    method: 'GET',
    url: '/api/v2/docs/:asset',
    config: { access: { public: true } },
    schema: { ...hidden },
    handler: async (request, reply) => {
      const { asset } = request.params;
      const type = ASSETS.get(asset);
      if (!type) throw notFound();
      let body = cache.get(asset);
      if (!body) cache.set(asset, (body = markKept(readFileSync(join(assetDir, asset)))));
      return reply.type(type).header('Cache-Control', 'public, max-age=86400').send(body);
    },
  }),
  route({
    method: 'GET',
    url: '/favicon.ico',
    config: { access: { public: true } },
    schema: { ...hidden },
    handler: async (_request, reply) =>
      reply.type('image/x-icon').header('Cache-Control', 'public, max-age=86400').send((favicon ??= markKept(faviconIco()))),
  }),
];
