import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Deadline, requestScope } from '../db/deadline.ts';
import { FOREIGN_PROBE_MS } from '../db/data-versions.ts';
import { errorBody } from './envelope.ts';
import { Messages, badRequest } from './errors.ts';
import { JSON_TYPE } from './json-body.ts';

/**
 * The Prefer header (CONTRACT §4): `wait=N` sets the request deadline (default 30 s; 0 = default);
 * `wait=-1` removes it only when the operator allowed that. The deadline covers the whole request:
 * on expiry the database work is cancelled (see db/deadline.ts) and the answer is 504.
 */
export const DEFAULT_WAIT_SECONDS = 30;
const MAX_WAIT_SECONDS = 2_147_483; // setTimeout's ceiling, in seconds
const PATTERN = /^wait=(-1|[0-9]+)$/;

export function parsePrefer(header: string | undefined, allowUnlimited: boolean): number {
  if (header === undefined) return DEFAULT_WAIT_SECONDS;
  const m = PATTERN.exec(header.trim());
  if (!m) throw badRequest(Messages.badPrefer("expected 'wait=N' where N is -1 or a non-negative integer"));
  const wait = Number(m[1]);
  if (wait === -1) {
    if (!allowUnlimited) throw badRequest(Messages.badPrefer('failed to bypass limits: feature disabled'));
    return -1;
  }
  if (wait > MAX_WAIT_SECONDS) throw badRequest(Messages.badPrefer(`wait may not exceed ${MAX_WAIT_SECONDS} seconds`));
  return wait === 0 ? DEFAULT_WAIT_SECONDS : wait;
}

declare module 'fastify' {
  interface FastifyRequest {
    deadline: Deadline;
    deadlineTimer: NodeJS.Timeout | null;
  }
}

/**
 * Registers, before routing-specific hooks: the request-id header, the deadline, and the data-version
 * probe (so that every cache consulted by this request sees the commits that finished before it began).
 */
export function registerRequestContext(app: FastifyInstance): void {
  app.decorateRequest('deadline', null as unknown as Deadline);
  app.decorateRequest('deadlineTimer', null);
  const clear = (request: FastifyRequest) => {
    if (request.deadlineTimer) clearTimeout(request.deadlineTimer);
  };
  app.addHook('onResponse', (request, _reply, done) => {
    clear(request);
    done();
  });
  app.addHook('onRequestAbort', (request, done) => {
    clear(request);
    done();
  });
  const { versions } = app.db;
  app.addHook('onRequest', (request: FastifyRequest, reply: FastifyReply, done: (err?: Error) => void) => {
    reply.header('X-Request-Id', request.id);
    const header = request.headers.prefer;
    let wait: number;
    try {
      wait = header === undefined ? DEFAULT_WAIT_SECONDS : parsePrefer(header as string, app.config.allowUnlimitedWait);
    } catch (err) {
      return done(err as Error);
    }
    reply.header('Preference-Applied', wait === DEFAULT_WAIT_SECONDS ? DEFAULT_APPLIED : `wait=${wait}`);
    const deadline = new Deadline(wait > 0 ? Date.now() + wait * 1000 : Infinity);
    request.deadline = deadline;
    if (wait > 0) {
      const timer = setTimeout(() => {
        deadline.abort();
        if (!reply.sent) {
          reply.code(504).header('Content-Type', JSON_TYPE)
            .send(JSON.stringify(errorBody(504, request.id, [Messages.timedOut])));
        }
      }, wait * 1000);
      timer.unref();
      request.deadlineTimer = timer;
    }
    versions.refresh(FOREIGN_PROBE_MS); // another process's commits: seen within that time
    requestScope.run(deadline, done);
  });
}

const DEFAULT_APPLIED = `wait=${DEFAULT_WAIT_SECONDS}`;

/**
 * Graceful shutdown: once close() has begun, responses still in flight tell the client to close its
 * keep-alive connection, so the server does not wait out idle keep-alive timers before exiting.
 */
export function registerGracefulClose(app: FastifyInstance): void {
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (closing) reply.header('Connection', 'close');
    done(null, payload);
  });
}
