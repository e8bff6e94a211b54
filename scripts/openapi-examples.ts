/**
 * Records the success examples of the OpenAPI document from real answers: a fresh in-memory server with the
 * sample data (samples/esc1) answers the README walkthrough's requests and a few more; each answer is kept in
 * src/modules/docs/examples.ts under "<method> <OpenAPI path> <status>". Run after changing an answer's
 * shape:  node --import tsx scripts/openapi-examples.ts
 * (src/modules/docs/docs.test.ts checks every kept example against its route's response schema.)
 */
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildApp } from '../src/app.ts';
import { issueSession } from '../src/auth/sessions.ts';
import { testConfig } from '../src/config.ts';
import { createDb } from '../src/db/create-db.ts';
import { migrateToLatest } from '../src/db/migrate.ts';
import { ingestFiles } from '../src/graph/ingest/ingest.service.ts';
import { analyzeGraph } from '../src/modules/data-quality/analysis.service.ts';
import { createUser } from '../src/modules/users/users.service.ts';

const ROOT = join(import.meta.dirname, '..');
const SAMPLES = join(ROOT, 'samples/esc1');
const SID = 'S-1-5-21-909015691-3030120388-2582151266';
const TEMPLATE = 'F4E6A8B0-A2B0-4F7B-9A5E-FB6E1B5C8E2A';

const db = createDb('sqlite::memory:');
await migrateToLatest(db);
await ingestFiles(db, readdirSync(SAMPLES).map((f) => ({ path: join(SAMPLES, f) })));
await analyzeGraph(db);
const config = testConfig({ jwtSecret: 'openapi-examples-secret-long-enough-for-hs256!!', ingestInterval: 0, schedulerInterval: 0 });
const app = await buildApp({ config, db });
await app.ready();
const admin = await createUser(db, { principalName: 'admin', email: 'admin@example.com', roleName: 'Administrator', password: 'correct horse battery staple' });
const token = (await issueSession(db, config, { userId: admin.id }, 3600, 'examples')).token;

const examples: Record<string, unknown> = {};
async function record(method: string, path: string, url: string, options: { body?: unknown; token?: string } = {}) {
  const res = await app.inject({
    method: method as 'GET',
    url,
    headers: { authorization: `Bearer ${options.token ?? token}`, ...(options.body !== undefined ? { 'content-type': 'application/json' } : {}) },
    payload: options.body === undefined ? undefined : JSON.stringify(options.body),
  });
  if (res.statusCode >= 300) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`);
  if (res.body) examples[`${method.toLowerCase()} ${path} ${res.statusCode}`] = res.json();
  return res.body ? res.json() : undefined;
}

const template = (await db.kysely.selectFrom('nodes').select('objectid').where('name', '=', 'ESC1@ESC1.LOCAL').executeTakeFirstOrThrow()).objectid ?? TEMPLATE;

await record('GET', '/api/version', '/api/version');
await record('GET', '/api/v2/self', '/api/v2/self');
await record('GET', '/api/v2/platform/{platform_id}/data-quality-stats', '/api/v2/platform/ad/data-quality-stats?limit=1');
await record('GET', '/api/v2/ad-domains/{domain_id}/data-quality-stats', `/api/v2/ad-domains/${SID}/data-quality-stats?limit=1`);
await record('GET', '/api/v2/certtemplates/{object_id}', `/api/v2/certtemplates/${template}`);
await record('GET', '/api/v2/certtemplates/{object_id}/controllers', `/api/v2/certtemplates/${template}/controllers?sort_by=name&limit=2`);
await record('GET', '/api/v2/asset-group-tags', '/api/v2/asset-group-tags');
const selector = await record('POST', '/api/v2/asset-group-tags/{asset_group_tag_id}/selectors', '/api/v2/asset-group-tags/1/selectors', {
  body: { name: 'Domain Admins', seeds: [{ type: 1, value: `${SID}-512` }] },
});
await record('GET', '/api/v2/asset-group-tags/{asset_group_tag_id}/selectors/{selector_id}', `/api/v2/asset-group-tags/1/selectors/${selector.data.id}`);
await record('GET', '/api/v2/asset-group-tags/{asset_group_tag_id}/members', '/api/v2/asset-group-tags/1/members?sort_by=name&limit=2');
await record('GET', '/api/v2/domains/{object_id}', `/api/v2/domains/${SID}`);
await record('GET', '/api/v2/groups/{object_id}/members', `/api/v2/groups/${SID}-512/members?sort_by=name&limit=2`);
await record('GET', '/api/v2/search', '/api/v2/search?q=admin&limit=2');
await record('GET', '/api/v2/available-domains', '/api/v2/available-domains');
await record('POST', '/api/v2/graphs/cypher', '/api/v2/graphs/cypher', { body: { query: "MATCH (n:Group) WHERE n.name STARTS WITH 'DOMAIN ADMINS' RETURN n", include_properties: false } });
const client = await record('POST', '/api/v2/clients', '/api/v2/clients', { body: { name: 'dc01-collector', type: 'sharphound' } });
const event = await record('POST', '/api/v2/events', '/api/v2/events', {
  body: { client_id: client.data.id, title: 'nightly', rrule: 'RRULE:FREQ=DAILY', ad_structure_collection: true, ous: ['1AEEE963-F4C8-49DA-BBE6-A6107F42CAF0'], domains: [SID] },
});
await record('GET', '/api/v2/events/{event_id}', `/api/v2/events/${event.data.id}`);
await record('GET', '/api/v2/clients/{client_id}', `/api/v2/clients/${client.data.id}`);
const clientToken = (await issueSession(db, config, { clientId: client.data.id }, 3600, 'examples')).token;
await record('GET', '/api/v2/jobs/available', '/api/v2/jobs/available', { token: clientToken });
const provider = await record('POST', '/api/v2/sso-providers/oidc', '/api/v2/sso-providers/oidc', {
  body: { name: 'Okta', issuer: 'https://example.okta.com', client_id: 'scent', config: { auto_provision: { enabled: false } } },
});
await record('GET', '/api/v2/sso-providers', '/api/v2/sso-providers');
await record('DELETE', '/api/v2/sso-providers/{sso_provider_id}', `/api/v2/sso-providers/${provider.data.sso_provider_id}`);
await record('POST', '/api/v2/file-upload/start', '/api/v2/file-upload/start');
await record('GET', '/api/v2/file-upload', '/api/v2/file-upload?limit=1');
await record('GET', '/api/v2/file-upload/accepted-types', '/api/v2/file-upload/accepted-types');

await app.close();
await db.close();
writeFileSync(
  join(ROOT, 'src/modules/docs/examples.ts'),
  '/** Real answers of the sample data, written by scripts/openapi-examples.ts (do not edit by hand). */\n' +
    `export const EXAMPLES: Record<string, unknown> = ${JSON.stringify(examples, null, 1)};\n`,
);
process.stdout.write(`${Object.keys(examples).length} examples written to src/modules/docs/examples.ts\n`);
