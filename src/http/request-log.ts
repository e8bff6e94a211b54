import pino from 'pino';
import { LogController, type FastifyReply, type FastifyRequest, type FastifyServerOptions } from 'fastify';
import type { Config } from '../config.ts';

/**
 * Logs: JSON lines on stderr (stdout is the command's own output: the start-up lines and the first-start
 * banner with the admin password stay out of the log stream). Concise: the level as a word, ISO time, no pid
 * or host name; at `info` one line per request, when its answer is sent; at `warn` and above none.
 */
export function loggerOptions(config: Config): Pick<FastifyServerOptions, 'logger' | 'logController'> {
  if (config.logLevel === 'silent') return { logger: false };
  return {
    logger: {
      level: config.logLevel,
      base: undefined,
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label: string) => ({ level: label }) },
      stream: pino.destination({ dest: 2, sync: false }),
    } as FastifyServerOptions['logger'],
    logController: new RequestLog(),
  };
}

/** Fastify's request lines, one per request instead of two: `GET /api/v2/self 401 1.2 ms`, status and duration. */
class RequestLog extends LogController {
  override incomingRequest() {}

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply) {
    if (!error && !infoEnabled(request)) return; // at `warn` and above: nothing to make
    const ms = Math.round(reply.elapsedTime * 10) / 10;
    const line = `${request.method} ${request.url} ${reply.statusCode} ${ms} ms`;
    if (error) request.log.error({ status: reply.statusCode, ms, err: error }, line);
    else request.log.info({ status: reply.statusCode, ms }, line);
  }
}

function infoEnabled(request: FastifyRequest): boolean {
  const log = request.log as { isLevelEnabled?: (level: string) => boolean };
  return log.isLevelEnabled ? log.isLevelEnabled('info') : true;
}
