import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { DeadlineError, ApiError, Messages } from './errors.ts';
import { errorBody } from './envelope.ts';
import { FORMAT_NAMES } from './validation.ts';
import { JSON_TYPE } from './json-body.ts';

/** The ONE renderer of the wire error envelope, for thrown errors, unknown routes and wrong methods. */
export function registerErrorHandling(app: FastifyInstance, allowedMethods: (url: string) => string[]): void {
  app.setErrorHandler((err: FastifyError, request, reply) => {
    const { status, messages } = classify(err);
    if (status >= 500) {
      if (status === 500) request.log.error({ err }, 'unhandled error');
      else request.log.warn({ err: { message: err.message, code: err.code } }, messages[0]);
    }
    if (reply.sent) return;
    return sendError(request, reply, status, messages);
  });

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0];
    const allowed = allowedMethods(path).filter((m) => m !== request.method);
    if (allowed.length) {
      reply.header('Allow', allowed.join(', '));
      return sendError(request, reply, 405, [Messages.methodNotAllowed]);
    }
    return sendError(request, reply, 404, [Messages.notFound]);
  });
}

export function sendError(request: FastifyRequest, reply: FastifyReply, status: number, messages: string[]) {
  reply.header('X-Request-Id', request.id);
  return reply
    .code(status)
    .header('Content-Type', JSON_TYPE)
    .send(JSON.stringify(errorBody(status, request.id, messages)));
}

function classify(err: FastifyError): { status: number; messages: string[] } {
  if (err instanceof ApiError) return { status: err.status, messages: err.messages };
  if (err instanceof DeadlineError) return { status: 504, messages: [Messages.timedOut] };
  if (err.validation) return { status: 400, messages: validationMessages(err) };
  switch (err.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return { status: 400, messages: [Messages.contentType] };
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return { status: 413, messages: [Messages.tooLarge] };
  }
  if (err.code?.startsWith('FST_ERR_CTP') || (err instanceof SyntaxError && err.statusCode === 400)) {
    return { status: 400, messages: [Messages.decodePayload] };
  }
  if (isDatabaseUnavailable(err)) return { status: 503, messages: [Messages.dbUnavailable] };
  // PostgreSQL refuses text it cannot store (a NUL character): the input was bad, not the server.
  if (err.code === '22021' || err.code === '22P05') return { status: 400, messages: [Messages.invalidCharacters] };
  if (err.statusCode && err.statusCode >= 400 && err.statusCode < 500) {
    return { status: err.statusCode, messages: [err.statusCode === 413 ? Messages.tooLarge : err.message] };
  }
  return { status: 500, messages: [Messages.internal] };
}

const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOTFOUND', 'EPIPE',
  '57P01', '57P02', '57P03', '53300', 'SQLITE_CANTOPEN', 'SQLITE_IOERR', 'SQLITE_BUSY', 'SQLITE_LOCKED',
  'SQLITE_FULL', 'SQLITE_READONLY',
]);

/** True for failures that mean "the database cannot be reached right now". */
export function isDatabaseUnavailable(err: unknown): boolean {
  const e = err as { code?: string; message?: string; errors?: unknown[] };
  if (typeof e?.code === 'string') {
    if (UNAVAILABLE_CODES.has(e.code) || e.code.startsWith('08') || e.code.startsWith('SQLITE_IOERR')) return true;
  }
  if (Array.isArray(e?.errors) && e.errors.some(isDatabaseUnavailable)) return true; // AggregateError
  const message = e?.message ?? '';
  return /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|connect ECONNREFUSED|database is closed|The database connection is not open/i.test(message);
}

interface AjvError {
  keyword: string;
  instancePath: string;
  params: Record<string, unknown>;
  message?: string;
}

/** One readable message per failing body field. */
function validationMessages(err: FastifyError): string[] {
  const seen = new Set<string>();
  for (const e of err.validation as unknown as AjvError[]) {
    const path = e.instancePath.split('/').filter(Boolean).join('.');
    const field = (name: string) => (path ? `${path}.${name}` : name);
    let message: string;
    switch (e.keyword) {
      case 'required':
        message = `${field(String(e.params.missingProperty))} is required`;
        break;
      case 'type':
        message = path ? `${path} must be ${e.params.type}` : `request body must be ${e.params.type}`;
        break;
      case 'minLength':
        message = `${path} must not be empty`;
        break;
      case 'format':
        message = `${path} must be ${FORMAT_NAMES[String(e.params.format)] ?? `a valid ${e.params.format}`}`;
        break;
      default:
        message = `${path || 'request body'} ${e.message ?? 'is invalid'}`;
    }
    seen.add(message);
  }
  return [...seen];
}
