import type { FastifyInstance } from 'fastify';
import { FIELDS, loadConfig } from '../config.ts';
import type { Db } from '../db/create-db.ts';
import { createDb } from '../db/create-db.ts';
import { migrateDownAll, migrateToLatest } from '../db/migrate.ts';
import { configFlags, type Command, type OptionSpec } from './command.ts';
import { databaseOption, openDatabase } from './database.ts';
import { startBanner } from './banner.ts';
import { confirm } from './confirm.ts';

export { databaseOption, openDatabase };

/** Every setting of config.ts is a flag of `serve`, described from the same table. */
const serveOptions: Record<string, OptionSpec> = Object.fromEntries(
  FIELDS.map((f) => [f.flag.slice(2), {
    type: f.switch ? 'boolean' : 'string',
    description: `${f.help} (env ${f.env}${f.default ? `, default ${f.default}` : ''})`,
  } satisfies OptionSpec]),
);

export const serveCommand: Command = {
  path: ['serve'],
  summary: 'migrate the database, then serve the API',
  usage: '[--host H] [--port P] [--database URL] [--edition enterprise|community] [more settings below]',
  options: serveOptions,
  async run({ values }) {
    const { config, db } = await openDatabase(values, { create: true });
    try {
      // The application graph loads only for `serve`, keeping every other command quick to start.
      const { buildApp } = await import('../app.ts');
      const { bootstrapAdmin } = await import('../modules/users/users.service.ts');
      const app = await buildApp({ config, db });
      const bootstrap = await bootstrapAdmin(db, config);
      await app.listen({ host: config.host, port: config.port }).catch(async (err) => {
        await app.close();
        throw err;
      });
      const host = config.host.includes(':') ? `[${config.host}]` : config.host;
      const address = `http://${host}:${(app.server.address() as { port: number }).port}`;
      process.stdout.write(startBanner(config, db, address, bootstrap));
      if (config.graphPreload) preloadGraph(app, db);
      // Response serializers are built on first use (a faster start); the rest are built now, between requests.
      app.compileSerializers().catch((err: unknown) => app.log.error({ err }, 'a response serializer failed to build'));
      await new Promise<void>((resolve) => {
        const stop = (signal: string) => {
          process.stderr.write(`received ${signal}: finishing in-flight requests\n`);
          const force = setTimeout(() => process.exit(1), 10_000);
          force.unref();
          app.close().then(resolve, resolve);
        };
        process.once('SIGINT', () => stop('SIGINT'));
        process.once('SIGTERM', () => stop('SIGTERM'));
      });
      return 0;
    } finally {
      await db.close();
    }
  },
};

/**
 * Loads the graph engine's snapshot in the background once the server listens, so the first graph
 * answer does not wait for a full read of the edges (seconds at millions of edges). Other requests
 * are answered meanwhile (on SQLite the load reads on a connection of its own, turning the event
 * loop); a graph request arriving during the load waits for this same load.
 */
function preloadGraph(app: FastifyInstance, db: Db): void {
  const started = performance.now();
  void import('../graph/engine/index.ts')
    .then(({ graphEngine }) => graphEngine(db).view())
    .then(
      (view) => app.log.info({ nodes: view.nodeCount, edges: view.edgeCount, ms: Math.round(performance.now() - started) },
        `graph loaded: ${view.nodeCount} nodes, ${view.edgeCount} edges in ${Math.round(performance.now() - started)} ms`),
      (err) => app.log.warn({ err }, 'graph preload failed: the first graph request loads it'),
    );
}

export const migrateCommand: Command = {
  path: ['migrate'],
  summary: 'bring the database schema up to date (or --down to remove it)',
  usage: '[--database URL] [--down [--yes]]',
  options: {
    ...databaseOption,
    down: { type: 'boolean', description: 'undo every migration: drops every Scent table and all it holds (asks first)' },
    yes: { type: 'boolean', description: 'with --down: do not ask (for scripts)' },
  },
  async run({ values }) {
    const config = loadConfig(configFlags({ database: values.database }));
    if (values.down && !values.yes) {
      const ok = await confirm(
        `This removes every Scent table in ${config.databaseUrl.replace(/:\/\/([^:@/]*):[^@/]*@/, '://$1:***@')}, and everything stored in them.\n` +
        'Type "yes" to go on: ',
      );
      if (!ok) {
        process.stderr.write('scent migrate: nothing removed (answer "yes", or pass --yes in scripts)\n');
        return 1;
      }
    }
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
