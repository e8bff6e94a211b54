import { loadConfig } from '../config.ts';
import { createDb } from '../db/create-db.ts';
import { migrateDownAll, migrateToLatest } from '../db/migrate.ts';
import { configFlags, type Command } from './command.ts';
import { databaseOption, openDatabase } from './database.ts';

export { databaseOption, openDatabase };

export const serveCommand: Command = {
  path: ['serve'],
  summary: 'migrate the database, then serve the API',
  usage: '[--host H] [--port P] [--database URL] [--edition enterprise|community]',
  options: {
    host: { type: 'string', description: 'address to listen on (env SCENT_HOST, default 127.0.0.1)' },
    port: { type: 'string', description: 'TCP port (env SCENT_PORT, default 8080)' },
    ...databaseOption,
    edition: { type: 'string', description: 'enterprise | community (env SCENT_EDITION, default enterprise)' },
    'jwt-secret': { type: 'string', description: 'HS256 key, >= 32 chars (env SCENT_JWT_SECRET)' },
    'allow-unlimited-wait': { type: 'boolean', description: 'honour Prefer: wait=-1 (env SCENT_ALLOW_UNLIMITED_WAIT)' },
    'log-level': { type: 'string', description: 'fatal..trace | silent (env SCENT_LOG_LEVEL, default info)' },
    'root-url': { type: 'string', description: 'public URL of this server (env SCENT_ROOT_URL)' },
    'session-ttl': { type: 'string', description: 'login session lifetime, e.g. 8h (env SCENT_SESSION_TTL)' },
    'body-limit': { type: 'string', description: 'largest JSON body in bytes (env SCENT_BODY_LIMIT)' },
    'rate-limit': { type: 'string', description: 'requests/minute per principal and IP, 0 = off (env SCENT_RATE_LIMIT)' },
    'scheduler-interval': { type: 'string', description: 'collection scheduler period, 0 = off (env SCENT_SCHEDULER_INTERVAL, default 30s)' },
    'ingest-interval': { type: 'string', description: 'ingest worker period over ended uploads, 0 = off (env SCENT_INGEST_INTERVAL, default 2s)' },
    'upload-limit': { type: 'string', description: 'largest uploaded file in bytes (env SCENT_UPLOAD_LIMIT, default 4 GiB)' },
  },
  async run({ values }) {
    const { config, db } = await openDatabase(values);
    // The application graph loads only for `serve`, keeping every other command quick to start.
    const { buildApp } = await import('../app.ts');
    const { bootstrapAdmin } = await import('../modules/users/users.service.ts');
    const app = await buildApp({ config, db });
    const bootstrap = await bootstrapAdmin(db, config);
    await app.listen({ host: config.host, port: config.port });
    const address = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${(app.server.address() as { port: number }).port}`;
    process.stdout.write(`Scent is serving the BloodHound v2 API at ${address} (${db.description}, ${config.edition} edition)\n`);
    process.stdout.write(`OpenAPI: ${address}/api/v2/spec   docs: ${address}/api/v2/docs\n`);
    if (bootstrap) {
      process.stdout.write(
        [
          '',
          'First start: created the user "admin" (Administrator).',
          `  one-time password: ${bootstrap.password}`,
          `  bearer token (${config.sessionTtlSeconds / 3600} h): ${bootstrap.token}`,
          '',
          `  curl -H "Authorization: Bearer $TOKEN" ${address}/api/v2/self`,
          '  More tokens: `npx scent tokens issue --user admin`; more users: `npx scent users create --help`.',
          '  This password is shown only once.',
          '',
        ].join('\n'),
      );
    }
    await new Promise<void>((resolve) => {
      const stop = (signal: string) => {
        process.stderr.write(`received ${signal}: finishing in-flight requests\n`);
        const force = setTimeout(() => process.exit(1), 10_000);
        force.unref();
        app.close().then(() => db.close()).then(resolve, resolve);
      };
      process.once('SIGINT', () => stop('SIGINT'));
      process.once('SIGTERM', () => stop('SIGTERM'));
    });
    return 0;
  },
};

export const migrateCommand: Command = {
  path: ['migrate'],
  summary: 'bring the database schema up to date (or --down to remove it)',
  usage: '[--database URL] [--down]',
  options: { ...databaseOption, down: { type: 'boolean', description: 'undo every migration (drops all Scent tables)' } },
  async run({ values }) {
    const config = loadConfig(configFlags({ database: values.database }));
    const db = createDb(config.databaseUrl);
    try {
      const lines = values.down ? await migrateDownAll(db) : await migrateToLatest(db);
      process.stdout.write(lines.length ? `${lines.join('\n')}\n` : 'database is up to date\n');
      return 0;
    } finally {
      await db.close();
    }
  },
};
