import { randomUUID } from 'node:crypto';
import Fastify, { type FastifyInstance, type RouteOptions } from 'fastify';
import swagger from '@fastify/swagger';
import { guardFor } from './auth/guard.ts';
import type { Config } from './config.ts';
import type { Db } from './db/create-db.ts';
import { ErrorSchema } from './http/envelope.ts';
import { registerErrorHandling } from './http/error-handler.ts';
import { clientErrorHandler } from './http/client-error.ts';
import { registerGracefulClose, registerRequestContext } from './http/prefer.ts';
import { loggerOptions } from './http/request-log.ts';
import { registerJsonBody } from './http/json-body.ts';
import { registerRateLimit } from './http/rate-limit.ts';
import { registerResponseCache } from './http/response-cache.ts';
import { registerCompression } from './http/compression.ts';
import { learnForeignKeyActions } from './db/data-versions.ts';
import { defineQuery, parseQuery, querystringSchema, type CompiledQuery } from './http/query/index.ts';
import { toArray, type Access, type Route } from './http/route.ts';
import { validatorCompiler } from './http/validation.ts';
import { lazySerializers } from './http/lazy-serializer.ts';
import { authRoutes } from './modules/auth/auth.routes.ts';
import { docsRoutes } from './modules/docs/docs.routes.ts';
import { finishOpenApi } from './modules/docs/openapi.ts';
import { healthRoutes } from './modules/health/health.routes.ts';
import { ssoProviderRoutes } from './modules/sso-providers/sso-providers.routes.ts';
import { assetGroupTagRoutes } from './modules/asset-group-tags/tags.routes.ts';
import { certTemplateRoutes } from './modules/cert-templates/cert-templates.routes.ts';
import { tokenRoutes } from './modules/tokens/tokens.routes.ts';
import { oidcRoutes } from './modules/oidc/oidc.routes.ts';
import { samlRoutes } from './modules/saml/saml.routes.ts';
import { registerFormBodies } from './http/form-body.ts';
import { versionRoutes } from './modules/version/version.routes.ts';
import { registerSignedRequests, signatureSecurityScheme } from './auth/signed-requests.ts';
import { ssoSchemas } from './modules/sso-providers/sso-providers.schema.ts';
import { clientRoutes } from './modules/clients/clients.routes.ts';
import { clientSchemas } from './modules/clients/clients.schema.ts';
import { eventRoutes } from './modules/events/events.routes.ts';
import { eventSchemas } from './modules/events/events.schema.ts';
import { registerScheduler } from './modules/events/scheduler.ts';
import { jobClientRoutes } from './modules/jobs/jobs-client.routes.ts';
import { jobRoutes } from './modules/jobs/jobs.routes.ts';
import { jobSchemas } from './modules/jobs/jobs.schema.ts';
import { userSchemas } from './modules/users/users.schema.ts';
import { userRoutes } from './modules/users/users.routes.ts';
import { appConfigRoutes } from './modules/app-config/app-config.routes.ts';
import { gatedBy } from './modules/app-config/feature-gate.ts';
import { datapipeRoutes } from './modules/file-upload/datapipe.routes.ts';
import { dataQualityRoutes } from './modules/data-quality/data-quality.routes.ts';
import { dataQualitySchemas } from './modules/data-quality/data-quality.schema.ts';
import { fileUploadRoutes, registerUploadBodies } from './modules/file-upload/file-upload.routes.ts';
import { fileUploadSchemas } from './modules/file-upload/file-upload.schema.ts';
import { registerIngestWorker } from './modules/file-upload/ingest.worker.ts';
import { graphExportRoutes } from './modules/graph-export/graph-export.routes.ts';
import { clearDatabaseRoutes } from './modules/database/clear-database.routes.ts';
import { cypherRoutes } from './modules/cypher/cypher.routes.ts';
import { savedQueryRoutes } from './modules/saved-queries/saved-queries.routes.ts';
import { savedQuerySharingRoutes } from './modules/saved-queries/sharing.routes.ts';
import { savedQueryTransferRoutes } from './modules/saved-queries/transfer.routes.ts';
import { consoleRoutes } from './modules/console/console.routes.ts';
import { entityRoutes } from './modules/entities/entities.routes.ts';
import { searchRoutes } from './modules/search/search.routes.ts';
import { graphRoutes } from './modules/graphs/graphs.routes.ts';
import { azureRoutes } from './modules/azure/azure.routes.ts';
import { registerAudit, type AuditDeclaration } from './audit/audit.ts';
import { auditRoutes } from './modules/audit/audit.routes.ts';
import { AuditLogSchema } from './modules/audit/audit.schema.ts';

/** Every route of the server, in one visible list. Each declares its own access. */
const ROUTES: Route[] = [
  ...healthRoutes,
  ...docsRoutes,
  ...authRoutes,
  ...userRoutes,
  ...appConfigRoutes,
  ...datapipeRoutes,
  ...ssoProviderRoutes,
  ...oidcRoutes,
  ...samlRoutes,
  ...gatedBy('tier_management_engine', assetGroupTagRoutes),
  ...certTemplateRoutes,
  ...clientRoutes,
  ...eventRoutes,
  ...jobRoutes,
  ...jobClientRoutes,
  ...versionRoutes,
  ...tokenRoutes,
  ...dataQualityRoutes,
  ...fileUploadRoutes,
  ...graphExportRoutes,
  ...clearDatabaseRoutes,
  ...cypherRoutes,
  ...savedQueryRoutes,
  ...savedQuerySharingRoutes,
  ...savedQueryTransferRoutes,
  ...consoleRoutes,
  ...entityRoutes,
  ...searchRoutes,
  ...graphRoutes,
  ...azureRoutes,
  ...auditRoutes,
];

/** What a registered route declares about itself (for the permission walk and tooling). */
export interface RouteEntry {
  method: string;
  url: string;
  access: Access;
  enterprise: boolean;
  query: CompiledQuery | undefined;
  audit: AuditDeclaration | undefined;
}

declare module 'fastify' {
  interface FastifyInstance {
    routeTable: readonly RouteEntry[];
    /** Builds the response serializers not built yet (they are built on first use; see http/lazy-serializer.ts). */
    compileSerializers(): Promise<number>;
  }
}

export interface AppOptions {
  config: Config;
  db: Db;
  /** Extra routes (tests); subject to the same access rules. */
  extraRoutes?: Route[];
}

export async function buildApp({ config, db, extraRoutes = [] }: AppOptions): Promise<FastifyInstance> {
  const serializers = lazySerializers();
  const app = Fastify({
    ...loggerOptions(config),
    schemaController: { compilersFactory: { buildSerializer: serializers.buildSerializer } },
    genReqId: () => randomUUID(),
    bodyLimit: config.bodyLimit,
    return503OnClosing: true,
    forceCloseConnections: 'idle',
    clientErrorHandler,
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 1000 },
  });
  app.decorate('db', db);
  app.decorate('config', config);
  app.decorate('compileSerializers', serializers.compileAll);
  app.decorateRequest('principal', null);
  app.decorateRequest('identity', null);
  app.decorateRequest('parsedQuery', null as never);
  app.setValidatorCompiler(validatorCompiler);
  for (const schema of [ErrorSchema, ...userSchemas, ...ssoSchemas, ...clientSchemas, ...eventSchemas, ...jobSchemas, ...dataQualitySchemas, ...fileUploadSchemas, AuditLogSchema]) app.addSchema(schema);

  // Secure by default: a route must say who may call it; its guard and query parsing come from that.
  const patterns: Array<{ methods: string[]; regex: RegExp }> = [];
  const routeTable: RouteEntry[] = [];
  app.decorate('routeTable', routeTable);
  app.addHook('onRoute', (options: RouteOptions) => {
    const access = options.config?.access;
    if (!access) throw new Error(`route ${options.method} ${options.url} declares no access (public or permissions)`);
    options.onRequest = [guardFor(access), ...toArray(options.onRequest)];
    // An API route that declares no query parameters takes none: any is a 400 (CONTRACT §3), never ignored.
    const query = options.config?.query ?? (takesNoQuery(options) ? NO_QUERY : undefined);
    if (query) {
      options.schema = { ...options.schema, querystring: querystringSchema(query) };
      options.preHandler = [
        (request, _reply, done) => {
          try {
            request.parsedQuery = parseQuery(query, request.query as Record<string, unknown>);
          } catch (err) {
            return done(err as Error);
          }
          done();
        },
        ...toArray(options.preHandler),
      ];
    }
    const methods = toArray(options.method).map(String);
    patterns.push({ methods, regex: urlPattern(options.url) });
    for (const method of methods) {
      routeTable.push({ method, url: options.url, access, enterprise: options.config?.enterprise === true, query, audit: options.config?.audit });
    }
  });
  // A path can match several routes (`/jobs/available` and `/jobs/{job_id}`): each method once.
  const allowedMethods = (path: string) => [...new Set(patterns.filter((p) => p.regex.test(path)).flatMap((p) => p.methods))];

  registerRequestContext(app);
  registerGracefulClose(app);
  registerJsonBody(app);
  registerAudit(app); // its onSend reads error answers before the cache and compression see them
  registerUploadBodies(app);
  registerFormBodies(app);
  registerErrorHandling(app, allowedMethods);
  registerRateLimit(app, config.rateLimit);
  registerSignedRequests(app);
  await learnForeignKeyActions(db.versions, db.kysely, db.dialect);
  registerResponseCache(app, db.versions, config.responseCacheMb);
  registerCompression(app); // after these two: signatures cover the body as sent, the cache keeps identity bodies
  if (config.edition === 'enterprise') registerScheduler(app, db, config.schedulerInterval);
  registerIngestWorker(app, db, config.ingestInterval);
  await app.register(swagger, {
    openapi: {
      openapi: '3.0.3',
      info: {
        title: 'Scent — BloodHound v2 API',
        version: '2',
        description: 'Request bodies may be sent with `Content-Encoding: gzip` (or `x-gzip`, `deflate`); answers of 1 KiB or more, and streamed ones, are gzipped for clients that send `Accept-Encoding: gzip`.',
      },
      components: {
        securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' }, bheSignature: signatureSecurityScheme },
      },
      security: [{ bearerAuth: [] }, { bheSignature: [] }],
    },
    refResolver: { buildLocalReference: (json, _base, _frag, i) => String(json.$id ?? `def-${i}`) },
    transformObject: (documents) => finishOpenApi((documents as { openapiObject: Record<string, unknown> }).openapiObject) as never,
  });

  for (const r of [...ROUTES, ...extraRoutes]) {
    if (r.config.enterprise && config.edition !== 'enterprise') continue;
    app.route(r);
  }
  return app;
}

const NO_QUERY = defineQuery({});

/** An /api/ route without a query declaration and without a querystring schema of its own. */
function takesNoQuery(options: RouteOptions): boolean {
  return options.url.startsWith('/api/') && !(options.schema as { querystring?: unknown } | undefined)?.querystring;
}

function urlPattern(url: string): RegExp {
  const source = url
    .split('/')
    .map((part) => (part.startsWith(':') ? '[^/]+' : part === '*' ? '.*' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('/');
  return new RegExp(`^${source}/?$`);
}
