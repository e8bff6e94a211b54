/**
 * A listening server for benchmarks, in its own process:
 *   serve.ts app <sqlite path> <jwt secret>   the real application on that database
 *   serve.ts replay <file>                    a bare Fastify route answering GET /replay with the file's bytes
 * Prints `listening <port>` once ready.
 */
import { readFileSync } from 'node:fs';
import Fastify from 'fastify';
import { buildApp } from '../src/app.ts';
import { testConfig } from '../src/config.ts';
import { createDb } from '../src/db/create-db.ts';

const [mode, arg, secret] = process.argv.slice(2);
let port: number;
if (mode === 'replay') {
  const bytes = readFileSync(arg);
  const app = Fastify({ logger: false });
  app.get('/replay', (_request, reply) => reply.type('application/json; charset=utf-8').send(bytes));
  await app.listen({ host: '127.0.0.1', port: 0 });
  port = (app.server.address() as { port: number }).port;
} else {
  const db = createDb(`sqlite:${arg}`);
  const app = await buildApp({ config: testConfig({ databaseUrl: `sqlite:${arg}`, jwtSecret: secret }), db });
  await app.listen({ host: '127.0.0.1', port: 0 });
  port = (app.server.address() as { port: number }).port;
}
console.log(`listening ${port}`);
