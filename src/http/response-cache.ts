import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction, RouteOptions } from 'fastify';
import type { Database } from '../db/database.ts';
import type { DataVersions } from '../db/data-versions.ts';
import { VersionedCache } from './bounded-cache.ts';
import { acceptsGzip, markKept } from './compression.ts';
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
 *
 * The fill is an app-wide onSend hook, registered before compression's (src/http/compression.ts),
 * so it keeps identity bytes. Most distinct answers are never asked again, so a fill costs as little
 * as it can: a string body is kept as the string the handler made (sent as it is: Node encodes it in
 * its write), and becomes a Buffer at its first hit (answers are then the same Buffer, whose gzip
 * form is computed once and reused: marked kept); for a client that takes gzip the fill makes the
 * Buffer and marks it at once. (A copy into a Buffer of its own at every fill was ≈ 5 % of the
 * server's time under distinct requests: a backing store per answer, and the collector's.)
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
    cacheFill: ((entry: { body: Buffer | string; contentType: string }) => void) | null;
  }
}

interface Entry {
  /** The answer's bytes; as the handler's string until its first hit. */
  body: Buffer | string;
  contentType: string;
}

/** The entry's body as a Buffer kept with it (made once, at its first hit). */
function keptBody(entry: Entry): Buffer {
  if (typeof entry.body === 'string') entry.body = Buffer.from(entry.body);
  return entry.body;
}

/** Adds the lookup (last preHandler) to every route declaring `cache`, and the fill (onSend). */
export function registerResponseCache(app: FastifyInstance, versions: DataVersions, maxMb: number): void {
  app.decorateRequest('cacheFill', null);
  if (maxMb <= 0) return;
  // A string is counted by its length (its bytes in V8 for the usual one-byte JSON; a Buffer made from it later is
  // not counted again: counting is at the fill).
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
        reply.type(hit.contentType).send(markKept(keptBody(hit))); // answered: done() is not called
        return;
      }
      request.cacheFill = cache.prepare(key, spec.reads);
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
        if (!acceptsGzip(request)) {
          keep({ body: payload, contentType });
          return done(null, payload);
        }
        const body = markKept(Buffer.isBuffer(payload) ? payload : Buffer.from(payload));
        keep({ body, contentType });
        return done(null, body);
      }
    }
    done(null, payload);
  });
}
