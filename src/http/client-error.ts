import { randomUUID } from 'node:crypto';
import type { Socket } from 'node:net';
import { errorBody } from './envelope.ts';
import { Messages } from './errors.ts';

/**
 * Requests that Node's HTTP parser rejects before Fastify sees them (oversized request line or
 * headers, malformed HTTP) still get the contract's envelope, with a request id, and the connection
 * is closed.
 */
export function clientErrorHandler(err: Error & { code?: string }, socket: Socket): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const tooLarge = err.code === 'HPE_HEADER_OVERFLOW';
  const status = tooLarge ? 431 : 400;
  const id = randomUUID();
  const body = JSON.stringify(errorBody(status, id, [tooLarge ? Messages.headersTooLarge : Messages.malformedRequest]));
  socket.end(
    `HTTP/1.1 ${status} ${tooLarge ? 'Request Header Fields Too Large' : 'Bad Request'}\r\n` +
      `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
      `X-Request-Id: ${id}\r\nConnection: close\r\n\r\n${body}`,
  );
}
