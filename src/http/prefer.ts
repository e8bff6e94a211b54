import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { requestScope } from '../db/deadline.ts';
import { errorBody } from './envelope.ts';
import { Messages, badRequest } from './errors.ts';

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
    deadline: AbortSignal;
    deadlineTimer: NodeJS.Timeout | null;
  }
}

/** Registers the request-id header and the deadline on every request, before routing-specific hooks. */
export function registerRequestContext(app: FastifyInstance): void {
  app.decorateRequest('deadline', null as unknown as AbortSignal);
  app.decorateRequest('deadlineTimer', null);
  const clear = async (request: FastifyRequest) => {
    if (request.deadlineTimer) clearTimeout(request.deadlineTimer);
  };
  app.addHook('onResponse', clear);
  app.addHook('onRequestAbort', clear);
  app.addHook('onRequest', (request: FastifyRequest, reply: FastifyReply, done: (err?: Error) => void) => {
    reply.header('X-Request-Id', request.id);
    const controller = new AbortController();
    request.deadline = controller.signal;
    let wait: number;
    try {
      wait = parsePrefer(request.headers.prefer as string | undefined, app.config.allowUnlimitedWait);
    } catch (err) {
      return done(err as Error);
    }
    reply.header('Preference-Applied', `wait=${wait}`);
    if (wait > 0) {
      const timer = setTimeout(() => {
        controller.abort();
        if (!reply.sent) {
          reply.code(504).header('Content-Type', 'application/json; charset=utf-8')
            .send(JSON.stringify(errorBody(504, request.id, [Messages.timedOut])));
        }
      }, wait * 1000);
      timer.unref();
      request.deadlineTimer = timer;
    }
    const deadlineAt = wait > 0 ? Date.now() + wait * 1000 : Infinity;
    requestScope.run({ signal: controller.signal, deadlineAt }, () => done());
  });
}

/**
 * Graceful shutdown: once close() has begun, responses still in flight tell the client to close its
 * keep-alive connection, so the server does not wait out idle keep-alive timers before exiting.
 */
export function registerGracefulClose(app: FastifyInstance): void {
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onSend', async (_request, reply, payload) => {
    if (closing) reply.header('Connection', 'close');
    return payload;
  });
}
