import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction, RouteOptions } from 'fastify';
import type { Database } from '../db/database.ts';
import type { DataVersions } from '../db/data-versions.ts';
import { VersionedCache } from './bounded-cache.ts';
import { toArray } from './route.ts';

/**
 * Cached GET answers. A route opts in with `config.cache: { reads: [tables] }`, naming every table
 * its answer is computed from; the answer's bytes are kept with the versions of those tables taken
 * before the handler read them (src/db/data-versions.ts) and served again, byte for byte, while the
 * versions are unchanged. So a write anywhere (this instance, another process on the SQLite file,
 * another instance on the PostgreSQL database) to a table an answer depends on retires it. Only
 * 200 answers with a string or Buffer body are kept; streamed ones (limit=0) never are.
 *
 * The key is method + URL (path and raw query string) + `scope(request)` when the answer depends on
 * the caller (access is checked before, by the route's guard, on every request). Answers that
 * depend on the clock must not opt in. Bounded by bytes; the oldest entry goes first.
 */
export interface CacheSpec {
  reads: ReadonlyArray<keyof Database & string>;
  scope?: (request: FastifyRequest) => string;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    cache?: CacheSpec;
  }
  interface FastifyRequest {
    /** Keeps this request's answer (set by the lookup on a miss). */
    cacheFill: ((entry: { body: Buffer; contentType: string }) => void) | null;
  }
}

interface Entry {
  body: Buffer;
  contentType: string;
}

/** Adds the lookup (last preHandler) and the fill (onSend) to every route declaring `cache`. */
export function registerResponseCache(app: FastifyInstance, versions: DataVersions, maxMb: number): void {
  app.decorateRequest('cacheFill', null);
  if (maxMb <= 0) return;
  const cache = new VersionedCache<Entry>(versions, maxMb * 1024 * 1024, (e) => e.body.length);
  app.addHook('onRoute', (options: RouteOptions) => {
    const spec = options.config?.cache;
    if (!spec) return;
    const methods = Array.isArray(options.method) ? options.method : [options.method];
    if (methods.some((m) => m !== 'GET' && m !== 'HEAD')) throw new Error(`route ${options.url}: only GET answers can be cached`);
    const lookup = (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => {
      const key = `${request.method} ${spec.scope ? spec.scope(request) : ''} ${request.url}`;
      const hit = cache.get(key, spec.reads);
      if (hit) {
        reply.type(hit.contentType).send(hit.body); // answered: done() is not called
        return;
      }
      request.cacheFill = cache.prepare(key, spec.reads);
      done();
    };
    const fill = (request: FastifyRequest, reply: FastifyReply, payload: unknown, done: (err: null, payload: unknown) => void) => {
      const keep = request.cacheFill;
      if (keep && reply.statusCode === 200 && (typeof payload === 'string' || Buffer.isBuffer(payload))) {
        const contentType = reply.getHeader('content-type');
        if (typeof contentType === 'string') keep({ body: Buffer.isBuffer(payload) ? payload : Buffer.from(payload), contentType });
      }
      done(null, payload);
    };
    options.preHandler = [...toArray(options.preHandler), lookup];
    options.onSend = [...toArray(options.onSend), fill];
  });
}
