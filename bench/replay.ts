/**
 * The baseline server: a bare Fastify (same version, same process type as the application) answering
 * GET/POST/DELETE /replay/<name> with the exact bytes, status, content type and content encoding the application returned
 * for that case, captured in <dir>/<name>.body + <dir>/<name>.meta.json. JSON request bodies are parsed
 * by Fastify's default parser, as the application's are. Prints `listening <port>` once ready.
 *   node --import tsx bench/replay.ts <dir>
 */
import { readdirSync, readFileSync } from 'node:fs';
import Fastify from 'fastify';

const dir = process.argv[2];
const app = Fastify({ logger: false });
for (const file of readdirSync(dir)) {
  if (!file.endsWith('.meta.json')) continue;
  const name = file.slice(0, -'.meta.json'.length);
  const meta = JSON.parse(readFileSync(`${dir}/${name}.meta.json`, 'utf8')) as { status: number; contentType: string | null; contentEncoding?: string | null };
  const bytes = readFileSync(`${dir}/${name}.body`);
  app.route({
    method: ['GET', 'POST', 'DELETE'],
    url: `/replay/${name}`,
    handler: (_request, reply) => {
      reply.code(meta.status);
      if (meta.contentType) reply.type(meta.contentType);
      if (meta.contentEncoding) reply.header('content-encoding', meta.contentEncoding).header('vary', 'Accept-Encoding');
      return reply.send(bytes.length ? bytes : undefined);
    },
  });
}
await app.listen({ host: '127.0.0.1', port: 0 });
console.log(`listening ${(app.server.address() as { port: number }).port}`);
