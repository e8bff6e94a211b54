/**
 * BloodHound's own JavaScript client against Scent: every call `BHEAPIClient`
 * (packages/javascript/js-client-library/src/client.ts in SpecterOps/BloodHound) makes on the routes
 * around the seed's resources, made as it makes it (axios.create, the same URLs, params, bodies,
 * headers and body-less POST/PUTs), and every answer checked against the TypeScript type the client
 * reads it as (`responses.ts`, `types.ts`), written as data (src/test/shape.ts).
 *
 * Where the seed speaks, its shape wins over BloodHound's type; those fields are written as the seed
 * has them and marked SEED (the README's table of remaining differences lists them):
 *   - `deleted_at` is `{time, valid}` (BloodHound: `{Time, Valid}`, or a plain value on tags);
 *   - a job's `event_id` is the nullable int32 wrapper (BloodHound's type: a number).
 * The calls and their results are printed at the end (the client-call list of the issue).
 */
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { AxiosInstance, AxiosResponse } from 'axios';
import { createClientApp, type ClientApp } from '../test/http-client.ts';
import { nullable, optional, shapeProblems, type Shape } from '../test/shape.ts';
import { createUser } from '../modules/users/users.service.ts';
import { ingestFiles } from '../graph/ingest/ingest.service.ts';
import { FIXTURES } from '../test/fixture-path.ts';
import { analyzeGraph } from '../modules/data-quality/analysis.service.ts';
import { upsertNodes } from '../graph/store.repository.ts';
import { runIngestOnce } from '../modules/file-upload/ingest.worker.ts';

const DOMAIN = 'S-1-5-21-909015691-3030120388-2582151266';
const TEMPLATE = '72F15D5F-C7B4-4FD9-ADCE-302F0D3DC91A';
const TENANT = '6C12B0B0-B2CC-4A73-8252-0B94BFCA2145';
const PASSWORD = 'a-Password-1234!';

let c: ClientApp;
let api: AxiosInstance;
before(async () => {
  c = await createClientApp({ schedulerInterval: 0, ingestInterval: 0 });
  await createUser(c.db, { principalName: 'bhe-client', email: 'bhe-client@example.test', roleName: 'Administrator', password: PASSWORD });
  await ingestFiles(c.db, ['domains.json', 'users.json', 'groups.json', 'computers.json', 'certtemplates.json', 'enterprisecas.json', 'rootcas.json',
    'aiacas.json', 'ntauthstores.json', 'issuancepolicies.json', 'containers.json', 'ous.json', 'gpos.json'].map((f) => ({ path: FIXTURES + f })));
  await upsertNodes(c.db.kysely, [
    { objectid: TENANT, kinds: ['AZTenant', 'AZBase'], name: 'CONTOSO', environmentId: TENANT, properties: { name: 'CONTOSO', collected: true } },
  ]);
  await analyzeGraph(c.db);
});
after(() => c.close());

/* ---------- the client's types, as data ---------- */

const SEED_DELETED_AT = { time: 'datetime', valid: 'boolean' }; // SEED: BloodHound's TimestampFields say {Time, Valid}
const TIMESTAMPS = { created_at: 'datetime', updated_at: 'datetime', deleted_at: SEED_DELETED_AT };
const paginated = (data: Shape): Shape => ({ count: 'integer', limit: 'integer', skip: 'integer', data, start: '?string', end: '?string' });
const basic = (data: Shape): Shape => ({ data });

const OuDetails = { objectid: 'string', name: '?string', exists: '?boolean', distinguishedname: '?string', type: '?string' };
const DomainDetails = { objectid: 'string', name: 'string', exists: 'boolean', type: 'string' };
const COUNT_FIELDS = ['user_count', 'group_count', 'computer_count', 'gpo_count', 'ou_count', 'container_count', 'aiaca_count',
  'rootca_count', 'enterpriseca_count', 'ntauthstore_count', 'certtemplate_count', 'deleted_count'];
const DomainResult = {
  job_id: 'integer', domain_name: 'string', success: 'boolean', message: 'string', id: 'integer', ...TIMESTAMPS,
  ...Object.fromEntries(COUNT_FIELDS.map((f) => [f, 'integer'])),
};
const SWITCHES = Object.fromEntries(['session_collection', 'local_group_collection', 'ad_structure_collection', 'cert_services_collection',
  'ca_registry_collection', 'dc_registry_collection', 'all_trusted_domains'].map((f) => [f, 'boolean']));
const scheduledJob = (ous: Shape, domains: Shape): Shape => ({
  id: 'integer', client_id: 'uuid', client_name: 'string',
  event_id: { int32: 'integer', valid: 'boolean' }, // SEED 2.8 (BloodHound's type: number)
  execution_time: 'datetime', start_time: 'datetime', end_time: 'datetime', status: 'integer', status_message: 'string',
  ...SWITCHES, domain_controller: 'string', ous, domains, domain_results: [DomainResult],
});
const ScheduledJobDisplay = scheduledJob([OuDetails], [DomainDetails]);
/** With hydrate_ous / hydrate_domains false (getFinishedJobs' default) the references are object ids. */
const ScheduledJobIds = scheduledJob(['string'], ['string']);
const ClientEvent = { id: 'integer', client_id: 'uuid', ...SWITCHES, ous: [OuDetails], domains: [DomainDetails], rrule: 'string' };
const Client = {
  configured_user: 'string', events: [ClientEvent], hostname: 'string', id: 'uuid', ip_address: 'string',
  last_checkin: 'datetime|null', name: 'string', token: 'any|null', current_job_id: 'integer|null', current_task_id: 'integer|null',
  current_job: nullable(ScheduledJobDisplay), current_task: nullable(ScheduledJobDisplay), completed_job_count: 'integer',
  completed_task_count: 'integer', domain_controller: 'any', version: 'string', user_sid: 'string', type: 'string',
  issuer_address: 'string', issuer_address_override: 'string',
};
const TagCounts = { selectors: 'integer', custom_selectors: 'integer', default_selectors: 'integer', disabled_selectors: 'integer', members: 'integer' };
const AssetGroupTag = {
  id: 'integer', name: 'string', kind_id: 'integer', type: 'integer', position: 'integer|null', require_certify: 'boolean|null',
  description: 'string', analysis_enabled: 'boolean|null', glyph: 'string|null', counts: optional(TagCounts),
  created_at: 'datetime', created_by: 'string', updated_at: 'datetime', updated_by: 'string',
  deleted_at: SEED_DELETED_AT, // SEED (BloodHound's type: string | null)
  deleted_by: 'string|null',
};
const Selector = {
  id: 'integer', asset_group_tag_id: 'integer|null', name: 'string', description: 'string', is_default: 'boolean',
  allow_disable: 'boolean', auto_certify: 'integer', seeds: [{ selector_id: 'integer', type: 'integer', value: 'string' }],
  counts: optional({ members: 'integer' }), created_at: 'datetime', created_by: 'string', updated_at: 'datetime', updated_by: 'string',
  disabled_at: 'datetime|null', disabled_by: 'string|null',
};
const Member = { asset_group_tag_id: 'integer', id: 'integer', primary_kind: 'string', object_id: 'string', name: 'string', source: 'integer' };
const MemberInfo = { ...Member, properties: 'object', selectors: [Selector] };
const FileIngestJob = {
  end_time: 'datetime', failed_files: 'integer', id: 'integer', last_ingest: 'datetime', start_time: 'datetime', status_message: 'string',
  status: 'integer', total_files: 'integer', user_email_address: 'string', user_id: 'string', ...TIMESTAMPS,
};
const AD_STAT = Object.fromEntries(['users', 'computers', 'groups', 'ous', 'gpos', 'aiacas', 'rootcas', 'enterprisecas', 'ntauthstores',
  'certtemplates', 'issuancepolicies', 'acls', 'relationships', 'sessions', 'local_group_completeness', 'session_completeness'].map((f) => [f, 'integer']));
const ActiveDirectoryQualityStat = { ...AD_STAT, containers: '?integer', domains: '?integer', ...TIMESTAMPS };
const AzureDataQualityStat = {
  run_id: 'string', tenants: '?integer', tenantid: '?string', ...TIMESTAMPS,
  ...Object.fromEntries(['relationships', 'users', 'groups', 'apps', 'service_principals', 'devices', 'management_groups', 'subscriptions',
    'resource_groups', 'vms', 'key_vaults', 'automation_accounts', 'container_registries', 'function_apps', 'logic_apps', 'managed_clusters',
    'vm_scale_sets', 'web_apps'].map((f) => [f, 'integer'])),
};
const Environment = { type: 'string', impactValue: '?number' /* BloodHound Enterprise only */, name: 'string', id: 'string', collected: 'boolean' };
const SSOProvider = {
  id: 'integer', name: 'string', slug: 'string', type: 'string', details: 'object', login_uri: 'string', callback_uri: 'string',
  config: { auto_provision: { enabled: 'boolean', default_role_id: 'integer', role_provision: 'boolean' } },
};
const OIDCProviderInfo = { id: 'integer', client_id: 'string', issuer: 'string', sso_provider_id: 'integer', created_at: 'datetime', updated_at: 'datetime' };
const StyledGraphNode = {
  color: 'string', data: 'object', border: { color: 'string' }, fontIcon: { text: 'string' },
  label: { backgroundColor: 'string', center: 'boolean', fontSize: 'number', text: 'string' }, size: 'number',
};
const StyledGraphEdge = { color: 'string', data: optional('object'), end2: optional({ arrow: 'boolean' }), id1: 'string', id2: 'string', label: { text: 'string' } };
const EntityListItem = { objectID: 'string', name: 'string', label: 'string' };

/** FlatGraphResponse = Record<string, StyledGraphNode | StyledGraphEdge>. */
function flatGraphProblems(value: unknown): string[] {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return ['$: expected a flat graph map'];
  return Object.entries(value).flatMap(([key, entry]) => shapeProblems(entry, key.startsWith('rel_') ? StyledGraphEdge : StyledGraphNode, `$.${key}`));
}

/* ---------- calls, as BHEAPIClient makes them ---------- */

interface Checked { call: string; request: string; status: number; result: string }
const checked: Checked[] = [];

async function call(name: string, request: Promise<AxiosResponse>, status: number, shape?: Shape | ((data: unknown) => string[])): Promise<AxiosResponse> {
  const res = await request;
  const problems = res.status !== status
    ? [`status ${res.status}: ${JSON.stringify(res.data).slice(0, 300)}`]
    : shape === undefined ? [] : typeof shape === 'function' ? shape(res.data) : shapeProblems(res.data, shape);
  const line = `${res.config.method?.toUpperCase()} ${res.config.url}${res.config.params ? ` ${JSON.stringify(res.config.params)}` : ''}`;
  checked.push({ call: name, request: line, status: res.status, result: problems.length ? problems.join('; ') : 'ok' });
  assert.deepEqual(problems, [], `${name}: ${line}`);
  return res;
}

test('BHEAPIClient against Scent: auth, SSO providers and data quality', async () => {
  const anon = c.http();
  const login = await call('login', anon.post('/api/v2/login', { login_method: 'secret', username: 'bhe-client', secret: PASSWORD }), 200,
    basic({ user_id: 'uuid', auth_expired: 'boolean', eula_accepted: 'boolean', session_token: 'string', user_name: 'string' }));
  api = c.http(login.data.data.session_token);
  await call('getSelf', api.get('/api/v2/self'), 200, basic({ id: 'uuid', principal_name: 'string', roles: [{ id: 'integer', name: 'string', permissions: [{ authority: 'string', name: 'string' }] }] }));
  await call('listSSOProviders (anonymous)', anon.get('/api/v2/sso-providers'), 200, { data: nullable([SSOProvider]) });
  const oidc = await call('createOIDCProvider', api.post('/api/v2/sso-providers/oidc', {
    name: 'BHE OIDC', issuer: 'https://idp.example.test', client_id: 'bhe', config: { auto_provision: { enabled: false, default_role_id: 3, role_provision: false } },
  }), 200, basic(OIDCProviderInfo));
  await call('listSSOProviders', api.get('/api/v2/sso-providers'), 200, basic([SSOProvider]));
  if (c.app.routeTable.some((r) => r.method === 'PATCH' && r.url === '/api/v2/sso-providers/:sso_provider_id')) {
    await call('updateOIDCProvider', api.patch(`/api/v2/sso-providers/${oidc.data.data.sso_provider_id}`, { name: 'BHE OIDC 2' }), 200);
  }
  // SEED 4.2: {data: {affected_users}} (BloodHound answers it bare).
  await call('deleteSSOProvider', api.delete(`/api/v2/sso-providers/${oidc.data.data.sso_provider_id}`), 200, basic({ affected_users: [{ id: 'uuid', principal_name: 'string' }] }));

  const window = (start: Date, end: Date, limit?: number, sort_by?: string) => ({ params: { start: start.toISOString(), end: end.toISOString(), limit, sort_by } });
  const since = new Date(Date.now() - 24 * 3600e3);
  const until = new Date(Date.now() + 3600e3);
  await call('getPlatformQualityStats(ad)', api.get('/api/v2/platform/ad/data-quality-stats', window(since, until, 1)), 200, paginated([ActiveDirectoryQualityStat]));
  await call('getPlatformQualityStats(azure)', api.get('/api/v2/platform/azure/data-quality-stats', window(since, until, 1)), 200, paginated([AzureDataQualityStat]));
  const ad = await call('getADQualityStats', api.get(`/api/v2/ad-domains/${DOMAIN}/data-quality-stats`, window(since, until, 1, '-created_at')), 200, paginated([ActiveDirectoryQualityStat]));
  assert.equal(ad.data.data.length, 1);
  await call('getAzureQualityStats', api.get(`/api/v2/azure-tenants/${TENANT}/data-quality-stats`, window(since, until)), 200, paginated([AzureDataQualityStat]));
  const envs = await call('getAvailableEnvironments', api.get('/api/v2/available-domains'), 200, basic([Environment]));
  assert.deepEqual(envs.data.data.map((e: { id: string }) => e.id).sort(), [TENANT, DOMAIN]);
});

test('BHEAPIClient against Scent: clients, events, jobs (enterprise collection)', async () => {
  const client = await call('createClient', api.post('/api/v2/clients', { name: 'bhe-collector', type: 'sharphound', domain_controller: 'dc01.esc1.local' }), 200, basic(Client));
  const id = client.data.data.id as string;
  await call('getClients', api.get('/api/v2/clients', { params: { skip: 0, limit: 10, hydrate_domains: undefined, hydrate_ous: undefined } }), 200, paginated([Client]));
  await call('updateClient', api.put(`/api/v2/clients/${id}`, { name: 'bhe-collector-1', domain_controller: 'dc01.esc1.local' }), 200, basic(Client));
  const token = await call('regenerateClientToken (body-less PUT)', api.put(`/api/v2/clients/${id}/token`, undefined), 200, basic({ client_id: 'uuid', token: 'string', expires_at: 'datetime' }));
  const collector = c.http(token.data.data.token);

  const event = await call('createEvent', api.post('/api/v2/events', {
    client_id: id, rrule: 'DTSTART:20300101T000000Z\nRRULE:FREQ=DAILY', session_collection: true, ad_structure_collection: true, domains: [DOMAIN],
  }, { params: { hydrate_ous: false, hydrate_domains: false } }), 200, basic({ ...ClientEvent, ous: ['string'], domains: ['string'] }));
  const eventId = event.data.data.id as number;
  await call('getEvents', api.get('/api/v2/events', { params: { hydrate_domains: undefined, hydrate_ous: undefined } }), 200, basic([ClientEvent]));
  await call('getEvent', api.get(`/api/v2/events/${eventId}`), 200, basic(ClientEvent));
  await call('updateEvent', api.put(`/api/v2/events/${eventId}`, { client_id: id, rrule: 'DTSTART:20300101T000000Z\nRRULE:FREQ=WEEKLY', domains: [DOMAIN] }), 200, basic(ClientEvent));

  const job = await call('createScheduledJob', api.post(`/api/v2/clients/${id}/jobs`, { session_collection: true, domains: [DOMAIN] }), 200, basic(ScheduledJobDisplay));
  await call('getJobs', api.get('/api/v2/jobs', { params: { hydrate_domains: undefined, hydrate_ous: undefined } }), 200, paginated([ScheduledJobDisplay]));
  await call('getJob', api.get(`/api/v2/jobs/${job.data.data.id}`), 200, basic(ScheduledJobDisplay));
  // The collector runs it and ends it with its log.
  assert.equal((await collector.post('/api/v2/jobs/start', { id: job.data.data.id })).status, 200);
  const running = await call('getClient (a job running)', api.get(`/api/v2/clients/${id}`), 200, basic(Client));
  assert.equal(running.data.data.current_job.id, job.data.data.id);
  assert.equal((await collector.post('/api/v2/jobs/end', { status: 2, message: 'ok', log: 'done\n', domain_results: [{ domain_name: 'ESC1.LOCAL', success: true, user_count: 14 }] })).status, 200);
  const other = await call('createScheduledJob', api.post(`/api/v2/clients/${id}/jobs`, {}), 200, basic(ScheduledJobDisplay));
  await call('cancelScheduledJob (body-less PUT)', api.put(`/api/v2/jobs/${other.data.data.id}/cancel`, undefined), 200, basic(ScheduledJobDisplay));

  const finished = await call('getFinishedJobs', api.get('/api/v2/jobs/finished', { params: { skip: 0, limit: 10, hydrate_domains: false, hydrate_ous: false } }), 200, paginated([ScheduledJobIds]));
  assert.equal(finished.data.count, 2);
  const filtered = await call('getFinishedJobs (filters)', api.get('/api/v2/jobs/finished', {
    params: { skip: 0, limit: 10, hydrate_domains: false, hydrate_ous: false, status: 'eq:2', start_time: `gte:${new Date(Date.now() - 3600e3).toISOString()}`,
      end_time: `lte:${new Date(Date.now() + 3600e3).toISOString()}`, client_id: `eq:${id}`, session_collection: 'eq:true' },
  }), 200, paginated([ScheduledJobIds]));
  assert.deepEqual(filtered.data.data.map((j: { id: number }) => j.id), [job.data.data.id]);
  assert.equal(filtered.data.data[0].domain_results[0].user_count, 14);
  await call('getClientCompletedJobs', api.get(`/api/v2/clients/${id}/completed-jobs`, { params: { skip: 0, limit: 10 } }), 200, paginated([ScheduledJobDisplay]));
  const log = await call('getJobLogFile', api.get(`/api/v2/jobs/${job.data.data.id}/log`), 200, basic({ log: 'string' }));
  assert.equal(log.data.data.log, 'done\n');
  const got = await call('getClient', api.get(`/api/v2/clients/${id}`), 200, basic(Client));
  assert.deepEqual([got.data.data.completed_job_count, got.data.data.current_job, got.data.data.events.length], [2, null, 1]);

  await call('deleteEvent', api.delete(`/api/v2/events/${eventId}`), 200, basic(ClientEvent));
  await call('deleteClient', api.delete(`/api/v2/clients/${id}`), 200, basic(Client));
});

test('BHEAPIClient against Scent: asset group tags, selectors, members', async () => {
  // Tier Zero (tag 1) selects the domain's -512 group, its members with it (a name of its own: BloodHound's
  // default selectors, "Domain Admins" among them, are there from the start).
  await call('createAssetGroupTagSelector (Tier Zero)', api.post('/api/v2/asset-group-tags/1/selectors', {
    name: 'Domain Admins (client test)', description: 'the -512 group', auto_certify: 0, seeds: [{ type: 1, value: `${DOMAIN}-512` }],
  }), 201, basic(Selector));
  const listed = await call('getAssetGroupTags (counts)', api.get('/api/v2/asset-group-tags', { params: { counts: true } }), 200, basic({ tags: [AssetGroupTag] }));
  const tierZero = listed.data.data.tags.find((t: { type: number; position: number | null }) => t.type === 1 && t.position === 1);
  assert.ok(tierZero.counts.members > 0, 'the fixture set has Tier Zero members');
  await call('getAssetGroupTag', api.get(`/api/v2/asset-group-tags/${tierZero.id}`), 200, basic({ tag: AssetGroupTag }));
  const members = await call('getAssetGroupTagMembers', api.get(`/api/v2/asset-group-tags/${tierZero.id}/members`, {
    params: { environments: [DOMAIN], primary_kind: 'eq:Group', skip: 0, limit: 5, sort_by: 'name' }, paramsSerializer: { indexes: null },
  }), 200, paginated({ members: [Member] }));
  assert.ok(members.data.data.members.length > 0);
  await call('getAssetGroupTagMembersCount', api.get(`/api/v2/asset-group-tags/${tierZero.id}/members/counts`, {
    params: { environments: [DOMAIN] }, paramsSerializer: { indexes: null },
  }), 200, basic({ total_count: 'integer', counts: 'object' }));
  await call('getAssetGroupTagMemberInfo', api.get(`/api/v2/asset-group-tags/${tierZero.id}/members/${members.data.data.members[0].id}`), 200, basic({ member: MemberInfo }));
  const selectors = await call('getAssetGroupTagSelectors', api.get(`/api/v2/asset-group-tags/${tierZero.id}/selectors`, { paramsSerializer: { indexes: null } }), 200,
    paginated({ selectors: [Selector] }));

  const tag = await call('createAssetGroupTag', api.post('/api/v2/asset-group-tags', { name: 'BHE Label', type: 2, description: 'from the JS client' }), 201, basic(AssetGroupTag));
  const tagId = tag.data.data.id as number;
  await call('updateAssetGroupTag', api.patch(`/api/v2/asset-group-tags/${tagId}`, { description: 'changed' }), 200, basic(AssetGroupTag));
  const created = await call('createAssetGroupTagSelector', api.post(`/api/v2/asset-group-tags/${tagId}/selectors`, {
    name: 'domain admins', description: '', seeds: [{ type: 1, value: `${DOMAIN}-512` }],
  }), 201, basic(Selector));
  const ruleId = created.data.data.id as number;
  await call('getAssetGroupTagSelector', api.get(`/api/v2/asset-group-tags/${tagId}/selectors/${ruleId}`), 200, basic({ selector: Selector }));
  await call('updateAssetGroupTagSelector', api.patch(`/api/v2/asset-group-tags/${tagId}/selectors/${ruleId}`, { id: ruleId, description: 'the -512 group' }), 200, basic(Selector));
  const selected = await call('getAssetGroupTagSelectorMembers', api.get(`/api/v2/asset-group-tags/${tagId}/selectors/${ruleId}/members`, {
    params: { environments: undefined, primary_kind: undefined, skip: 0, limit: 10, sort_by: 'name' }, paramsSerializer: { indexes: null },
  }), 200, paginated({ members: [Member] }));
  assert.ok(selected.data.data.members.length > 1, 'the group and its members');
  await call('getAssetGroupTagRuleMembersCount', api.get(`/api/v2/asset-group-tags/${tagId}/selectors/${ruleId}/members/counts`, {
    params: { environments: [DOMAIN] }, paramsSerializer: { indexes: null },
  }), 200, basic({ total_count: 'integer', counts: 'object' }));
  await call('getAssetGroupTagSelectors (counts)', api.get(`/api/v2/asset-group-tags/${tagId}/selectors`, { params: { counts: true }, paramsSerializer: { indexes: null } }), 200,
    paginated({ selectors: [{ ...Selector, counts: { members: 'integer' } }] }));
  await call('deleteAssetGroupTagSelector', api.delete(`/api/v2/asset-group-tags/${tagId}/selectors/${ruleId}`), 204);
  await call('deleteAssetGroupTag', api.delete(`/api/v2/asset-group-tags/${tagId}`), 204);
  assert.ok(selectors.data.count >= 0);
});

test('BHEAPIClient against Scent: certificate templates and file upload', async () => {
  await call('getCertTemplateV2', api.get(`/api/v2/certtemplates/${TEMPLATE}`, { params: { counts: undefined } }), 200, basic({ props: 'object' }));
  const list = await call('getCertTemplateControllersV2 (list)', api.get(`/api/v2/certtemplates/${TEMPLATE}/controllers`, { params: { skip: 0, limit: 10, type: 'list' } }), 200,
    paginated([EntityListItem]));
  assert.ok(list.data.count > 0);
  const graph = await call('getCertTemplateControllersV2 (graph)', api.get(`/api/v2/certtemplates/${TEMPLATE}/controllers`, { params: { skip: undefined, limit: undefined, type: 'graph' } }), 200,
    flatGraphProblems);
  assert.ok(Object.keys(graph.data).some((k) => k.startsWith('rel_')));
  await call('getCertTemplatePublishedToCAsV2', api.get(`/api/v2/certtemplates/${TEMPLATE}/published-to-cas`, { params: { skip: 0, limit: 10, type: 'list' } }), 200,
    paginated([EntityListItem]));

  await call('listFileTypesForIngest', api.get('/api/v2/file-upload/accepted-types'), 200, basic(['string']));
  const started = await call('startFileIngest (body-less POST)', api.post('/api/v2/file-upload/start'), 201, basic(FileIngestJob));
  const jobId = started.data.data.id as number;
  const body = readFileSync(FIXTURES + 'users.json');
  await call('uploadFileToIngestJob', api.post(`/api/v2/file-upload/${jobId}`, body, { headers: { 'Content-Type': 'application/json', 'X-File-Upload-Name': 'users.json' } }), 202);
  const refused = await call('uploadFileToIngestJob (not JSON)', api.post(`/api/v2/file-upload/${jobId}`, 'hello', { headers: { 'Content-Type': 'application/json', 'X-File-Upload-Name': 'notes.txt' } }), 400);
  assert.deepEqual(refused.data.errors.map((e: { message: string }) => e.message), ['Error saving ingest file: file is not valid json']);
  const listedRunning = await call('listFileIngestJobs', api.get('api/v2/file-upload', { params: { skip: 0, limit: 10, sort_by: '-id' } }), 200, paginated([FileIngestJob]));
  assert.deepEqual([listedRunning.data.data[0].id, listedRunning.data.data[0].total_files], [jobId, 1]);
  await call('endFileIngest (body-less POST)', api.post(`/api/v2/file-upload/${jobId}/end`), 200);
  assert.equal(await runIngestOnce(c.db), jobId);
  await call('listFileIngestJobs (filters)', api.get('api/v2/file-upload', { params: { skip: 0, limit: 10, status: 'eq:2', user_id: undefined, start_time: `gte:${new Date(Date.now() - 3600e3).toISOString()}` } }), 200,
    paginated([FileIngestJob]));
  const tasks = await call('getFileUpload (completed tasks)', api.get(`/api/v2/file-upload/${jobId}/completed-tasks`), 200,
    basic([{ errors: ['string'], warnings: ['string'], file_name: 'string', id: 'integer', parent_file_name: 'string', ...TIMESTAMPS }]));
  assert.equal(tasks.data.data[0].file_name, 'users.json');

  await call('logout (body-less POST)', api.post('/api/v2/logout'), 200);
});

test('every call checked (the client-call list)', () => {
  console.log(['| BHEAPIClient call | request | status | result |', '|---|---|---|---|',
    ...checked.map((r) => `| ${r.call} | \`${r.request}\` | ${r.status} | ${r.result} |`)].join('\n'));
  assert.ok(checked.length >= 50, `${checked.length} calls`);
  assert.ok(checked.every((r) => r.result === 'ok'));
});
