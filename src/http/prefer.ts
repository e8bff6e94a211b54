import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Deadline, requestScope } from '../db/deadline.ts';
import { FOREIGN_PROBE_MS } from '../db/data-versions.ts';
import { errorBody } from './envelope.ts';
import { Messages, badRequest } from './errors.ts';
import { JSON_TYPE } from './json-body.ts';

/**
 * The Prefer header (CONTRACT §4, RFC 7240): a comma-separated list of preferences, each
 * `name[=value]` with optional `;parameters`. Only `wait` is acted on; any other preference is ignored
 * (RFC 7240 §2: a server ignores preferences it does not support), as BloodHound does. The `wait` value
 * must match `-1|[0-9]+` (the seed's pattern); when it is given more than once the first counts (§2).
 * `wait=N` sets the request deadline (default 30 s; 0 = default); `wait=-1` removes it only when the
 * operator allowed that. The deadline covers the whole request: on expiry the database work is cancelled
 * (see db/deadline.ts) and the answer is 504.
 */
export const DEFAULT_WAIT_SECONDS = 30;
const MAX_WAIT_SECONDS = 2_147_483; // setTimeout's ceiling, in seconds
const WAIT_VALUE = /^(-1|[0-9]+)$/;
const BAD_WAIT = "expected 'wait=N' where N is -1 or a non-negative integer";
export const UNLIMITED_WAIT_DISABLED =
  'failed to bypass limits: feature disabled (wait=-1 is honoured only when the server runs with --allow-unlimited-wait)';

export function parsePrefer(header: string | undefined, allowUnlimited: boolean): number {
  if (header === undefined) return DEFAULT_WAIT_SECONDS;
  const value = preferenceValue(header, 'wait');
  if (value === undefined) return DEFAULT_WAIT_SECONDS;
  const m = value === null ? null : WAIT_VALUE.exec(value);
  if (!m) throw badRequest(Messages.badPrefer(BAD_WAIT));
  const wait = Number(m[1]);
  if (wait === -1) {
    if (!allowUnlimited) throw badRequest(Messages.badPrefer(UNLIMITED_WAIT_DISABLED));
    return -1;
  }
  if (wait > MAX_WAIT_SECONDS) throw badRequest(Messages.badPrefer(`wait may not exceed ${MAX_WAIT_SECONDS} seconds`));
  return wait === 0 ? DEFAULT_WAIT_SECONDS : wait;
}

/**
 * The value of the first preference called `name` (case-insensitive) in a Prefer header: its text
 * (quotes removed), null when it has no `=value`, undefined when it is absent. Commas and semicolons
 * inside quoted strings do not split.
 */
export function preferenceValue(header: string, name: string): string | null | undefined {
  for (const preference of splitOutsideQuotes(header, ',')) {
    const head = splitOutsideQuotes(preference, ';')[0].trim();
    if (head === '') continue;
    const eq = head.indexOf('=');
    const key = (eq < 0 ? head : head.slice(0, eq)).trim().toLowerCase();
    if (key !== name) continue;
    if (eq < 0) return null;
    const raw = head.slice(eq + 1).trim();
    return raw.length >= 2 && raw.startsWith('"') && raw.endsWith('"') ? raw.slice(1, -1).replace(/\\(.)/g, '$1') : raw;
  }
  return undefined;
}

function splitOutsideQuotes(text: string, separator: string): string[] {
  const parts: string[] = [];
  let start = 0;
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted && c === '\\') i++;
    else if (c === '"') quoted = !quoted;
    else if (!quoted && c === separator) {
      parts.push(text.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(text.slice(start));
  return parts;
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
