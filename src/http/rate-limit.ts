import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ApiError, Messages } from './errors.ts';

/**
 * Optional rate limiting (SCENT_RATE_LIMIT requests per minute; 0 = off): one fixed one-minute
 * window per client IP, checked before authentication, and one per authenticated principal, checked
 * after it. Counters live in this process; instances sharing a database limit independently.
 */
export function registerRateLimit(app: FastifyInstance, perMinute: number): void {
  if (perMinute <= 0) return;
  let windowStart = Date.now();
  let counts = new Map<string, number>();
  const hit = (key: string) => {
    const now = Date.now();
    if (now - windowStart >= 60_000) {
      windowStart = now;
      counts = new Map();
    }
    const n = (counts.get(key) ?? 0) + 1;
    counts.set(key, n);
    if (n > perMinute) throw new ApiError(429, Messages.tooManyRequests);
  };
  app.addHook('onRequest', async (request: FastifyRequest) => hit(`ip:${request.ip}`));
  app.addHook('preHandler', async (request: FastifyRequest) => {
    const p = request.principal;
    if (p) hit(p.kind === 'user' ? `user:${p.user.id}` : `client:${p.clientId}`);
  });
}
