import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction, RouteOptions } from 'fastify';
import type { Database } from '../db/database.ts';
import type { DataVersions } from '../db/data-versions.ts';
import { Admission, VersionedCache } from './bounded-cache.ts';
import { acceptsGzip, markKept } from './compression.ts';
import { keptBytes } from './kept-bytes.ts';
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
 * depend on the clock must not opt in. Bounded by bytes; the oldest entry goes first. Once full, a new
 * answer is kept only at its second time (bounded-cache.ts Admission): under distinct requests each
 * fill evicted an answer for one most likely never asked again, and moved its entry to V8's old
 * generation, to be marked and compacted again and again for nothing.
 *
 * The fill is an app-wide onSend hook, registered before compression's (src/http/compression.ts),
 * so it keeps identity bytes. Most distinct answers are never asked again, so a fill costs as little
 * as it can: a string body's bytes are written into a shared slab (src/http/kept-bytes.ts: no backing
 * store per answer) and that Buffer is what is sent; it is marked kept (its gzip form computed once,
 * then reused by every hit) when the client takes gzip, else at its first hit (marking each costs a
 * WeakMap entry).
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

/** Adds the lookup (last preHandler) to every route declaring `cache`, and the fill (onSend). */
export function registerResponseCache(app: FastifyInstance, versions: DataVersions, maxMb: number): void {
  app.decorateRequest('cacheFill', null);
  if (maxMb <= 0) return;
  const cache = new VersionedCache<Entry>(versions, maxMb * 1024 * 1024, (e) => e.body.length);
  const admission = new Admission();
  app.addHook('onRoute', (options: RouteOptions) => {
    const spec = options.config?.cache;
    if (!spec) return;
    const methods = Array.isArray(options.method) ? options.method : [options.method];
    if (methods.some((m) => m !== 'GET' && m !== 'HEAD')) throw new Error(`route ${options.url}: only GET answers can be cached`);
    const lookup = (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => {
      const key = `${request.method} ${spec.scope ? spec.scope(request) : ''} ${request.url}`;
      const hit = cache.get(key, spec.reads);
      if (hit) {
        reply.type(hit.contentType).send(markKept(hit.body)); // answered: done() is not called
        return;
      }
      // Full: a new answer is kept at its second time only (bounded-cache.ts Admission).
      request.cacheFill = cache.full && !admission.seenBefore(key) ? null : cache.prepare(key, spec.reads);
      done();
    };
    options.preHandler = [...toArray(options.preHandler), lookup];
  });
  app.addHook('onSend', (request, reply, payload, done) => {
    const keep = request.cacheFill;
    if (keep && reply.statusCode === 200 && (typeof payload === 'string' || Buffer.isBuffer(payload))) {
      const contentType = reply.getHeader('content-type');
      if (typeof contentType === 'string') {
        // Marked kept (its gzip form memoised) when a client that takes gzip asks: now, or at its first hit.
        const body = Buffer.isBuffer(payload) ? payload : keptBytes(payload);
        if (acceptsGzip(request)) markKept(body);
        keep({ body, contentType });
        return done(null, body);
      }
    }
    done(null, payload);
  });
}
