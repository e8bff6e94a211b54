/**
 * The console (ui/, built into ui/dist by `npm install` / `npm run build:ui`) served at /ui/, same
 * origin as the API. `/` redirects there. Hashed assets are cached for a year; every other /ui/ path
 * is the single page (the console routes in the browser), sent with a Content-Security-Policy that
 * allows only this origin's scripts and styles (no inline script).
 */
import { readFileSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { FastifyReply } from 'fastify';
import { markKept } from '../../http/compression.ts';
import { notFound } from '../../http/errors.ts';
import { route } from '../../http/route.ts';

/** ui/dist beside src/ and dist/ (both are two levels below the repository root here). */
export const CONSOLE_DIR = fileURLToPath(new URL('../../../ui/dist/', import.meta.url));

export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "font-src 'self'",
  "connect-src 'self'",
  "worker-src 'self' blob:",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const NOT_BUILT = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Scent console</title></head>
<body><h1>The console is not built</h1><p>Run <code>npm run build:ui</code> (or <code>npm install</code>) in the Scent folder, then reload.</p></body></html>`;

interface Built { stamp: number; page: Buffer; assets: Map<string, Buffer> }
let built: Built | undefined;

/** The built console, re-read when ui/dist/build.json changes (a rebuild while serving). */
function load(): Built | undefined {
  let stamp: number;
  try {
    stamp = statSync(`${CONSOLE_DIR}build.json`).mtimeMs;
  } catch {
    return undefined;
  }
  if (built?.stamp !== stamp) {
    const names = (JSON.parse(readFileSync(`${CONSOLE_DIR}build.json`, 'utf8')) as { assets: string[] }).assets;
    const assets = new Map(names.map((name) => [name, markKept(readFileSync(`${CONSOLE_DIR}assets/${name}`))]));
    built = { stamp, page: markKept(readFileSync(`${CONSOLE_DIR}index.html`)), assets };
  }
  return built;
}

function securityHeaders(reply: FastifyReply): FastifyReply {
  return reply
    .header('Content-Security-Policy', CONTENT_SECURITY_POLICY)
    .header('X-Content-Type-Options', 'nosniff')
    .header('Referrer-Policy', 'no-referrer')
    .header('X-Frame-Options', 'DENY');
}

const TYPES: Record<string, string> = { js: 'text/javascript; charset=utf-8', css: 'text/css; charset=utf-8' };
const hidden = { hide: true } as const;

function sendPage(reply: FastifyReply) {
  const console = load();
  securityHeaders(reply).header('Cache-Control', 'no-cache').type('text/html; charset=utf-8');
  return console ? reply.send(console.page) : reply.code(503).send(NOT_BUILT);
}

export const consoleRoutes = [
  route({
    method: 'GET',
    url: '/',
    config: { access: { public: true } },
    schema: { ...hidden },
    handler: async (_request, reply) => reply.redirect('/ui/', 302),
  }),
  route({
    method: 'GET',
    url: '/ui',
    config: { access: { public: true } },
    schema: { ...hidden },
    handler: async (_request, reply) => sendPage(reply),
  }),
  route<{ Params: { '*': string } }>({
    method: 'GET',
    url: '/ui/*',
    config: { access: { public: true } },
    schema: { ...hidden },
    handler: async (request, reply) => {
      const path = request.params['*'];
      if (!path.startsWith('assets/')) return sendPage(reply);
      const name = path.slice('assets/'.length);
      const body = load()?.assets.get(name);
      if (!body) throw notFound();
      return securityHeaders(reply)
        .header('Cache-Control', 'public, max-age=31536000, immutable')
        .type(TYPES[name.split('.').pop()!] ?? 'application/octet-stream')
        .send(body);
    },
  }),
];
