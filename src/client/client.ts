import { signedHeaders } from './signature.ts';
import type {
  AdDataQualityRecord, ApiVersion, AuditLog, AvailableDomain, AssetGroupTag, AzureEntityInfo, AzureNode, AssetGroupTagMember, AssetGroupTagSelector, AuthToken, AzureDataQualityRecord,
  ClientJob, CollectionClient, CypherResult, EntityInfo, CollectionEvent, ControllerEntry, CreateOidcProviderBody, CreateSelectorBody, EventBody, FileUploadJob,
  FileUploadTask, FlatGraph, LoginResult, MemberCounts, OidcProvider, Page, Query, SavedQuery, ScheduledEvent, SearchHit, SsoProvider, UnifiedGraph, UpdateSelectorBody, User,
} from './types.ts';

/** How the client authenticates: a bearer session/JWT, or an API token that signs every request. */
export type Credentials = { bearer: string } | { tokenId: string; tokenKey: string };

export interface ClientOptions {
  /** e.g. `https://scent.example.com` (a path prefix is kept). */
  baseUrl: string;
  credentials?: Credentials;
  /** Sent as `Prefer: wait=N` (seconds; -1 = no deadline when the server allows it). */
  wait?: number;
  fetch?: typeof fetch;
}

export interface RequestOptions {
  query?: Query;
  /** Sent as JSON. */
  body?: unknown;
  /** Sent as is (with `contentType`), e.g. an uploaded file. */
  rawBody?: string | Uint8Array | Blob;
  contentType?: string;
  headers?: Record<string, string>;
}

/** A non-2xx answer: the status and the messages of the error envelope. */
export class ScentApiError extends Error {
  constructor(readonly status: number, readonly messages: string[], readonly requestId: string | undefined, readonly body: unknown) {
    super(`HTTP ${status}: ${messages.join('; ') || 'no message'}`);
    this.name = 'ScentApiError';
  }
}

export function queryString(query: Query = {}): string {
  const parts: string[] = [];
  for (const [name, value] of Object.entries(query)) {
    if (value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) parts.push(`${encodeURIComponent(name)}=${encodeURIComponent(String(v))}`);
  }
  return parts.length ? `?${parts.join('&')}` : '';
}

export class ScentClient {
  credentials: Credentials | undefined;
  readonly #base: URL;
  readonly #fetch: typeof fetch;
  readonly #wait: number | undefined;

  constructor(options: ClientOptions) {
    this.#base = new URL(options.baseUrl.endsWith('/') ? options.baseUrl : `${options.baseUrl}/`);
    this.credentials = options.credentials;
    // A bound call: browsers refuse `fetch` invoked as a method of another object.
    this.#fetch = options.fetch ?? ((input, init) => fetch(input, init));
    this.#wait = options.wait;
  }

  /** Any call: `path` like `/api/v2/...`. Signs with the API token when one is configured. */
  async request<T>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
    const url = new URL(`${path.replace(/^\//, '')}${queryString(options.query)}`, this.#base);
    const body = options.rawBody ?? (options.body === undefined ? undefined : JSON.stringify(options.body));
    const headers: Record<string, string> = { accept: 'application/json', ...options.headers };
    if (body !== undefined) headers['content-type'] = options.contentType ?? 'application/json';
    if (this.#wait !== undefined) headers.prefer = `wait=${this.#wait}`;
    const creds = this.credentials;
    if (creds && 'bearer' in creds) headers.authorization = `Bearer ${creds.bearer}`;
    if (creds && 'tokenId' in creds) {
      // The signed target is exactly what goes on the request line: the URL's path and query.
      const signed = body instanceof Blob ? new Uint8Array(await body.arrayBuffer()) : body;
      Object.assign(headers, signedHeaders(creds.tokenId, { key: creds.tokenKey, method, target: url.pathname + url.search, body: signed }));
    }
    const res = await this.#fetch(url, { method, headers, body: body as BodyInit | undefined });
    const text = await res.text();
    const json = text ? safeJson(text) : undefined;
    if (!res.ok) {
      const errors = (json as { errors?: Array<{ message: string }> } | undefined)?.errors ?? [];
      throw new ScentApiError(res.status, errors.map((e) => e.message), res.headers.get('x-request-id') ?? undefined, json ?? text);
    }
    return json as T;
  }

  /** POST /api/v2/login; keeps the session token as this client's bearer credential. */
  async login(username: string, secret: string): Promise<LoginResult> {
    const { data } = await this.request<{ data: LoginResult }>('POST', '/api/v2/login', { body: { login_method: 'secret', username, secret } });
    this.credentials = { bearer: data.session_token };
    return data;
  }

  async version(): Promise<ApiVersion> {
    return (await this.request<{ data: ApiVersion }>('GET', '/api/version')).data;
  }

  async createToken(body: { token_name: string; user_id?: string }): Promise<AuthToken & { key: string }> {
    return (await this.request<{ data: AuthToken & { key: string } }>('POST', '/api/v2/tokens', { body })).data;
  }

  async listTokens(query?: Query): Promise<AuthToken[]> {
    return (await this.request<{ data: { tokens: AuthToken[] } }>('GET', '/api/v2/tokens', { query })).data.tokens;
  }

  async deleteToken(tokenId: string): Promise<void> {
    await this.request('DELETE', `/api/v2/tokens/${encodeURIComponent(tokenId)}`);
  }

  /* ---- The seed's seven endpoints ---- */

  async deleteSsoProvider(ssoProviderId: number): Promise<{ affected_users: User[] }> {
    return (await this.request<{ data: { affected_users: User[] } }>('DELETE', `/api/v2/sso-providers/${ssoProviderId}`)).data;
  }

  async createOidcProvider(body: CreateOidcProviderBody): Promise<OidcProvider> {
    return (await this.request<{ data: OidcProvider }>('POST', '/api/v2/sso-providers/oidc', { body })).data;
  }

  getDataQualityStats(platform: 'ad', query?: Query): Promise<Page<AdDataQualityRecord[]> & { start: string; end: string }>;
  getDataQualityStats(platform: 'azure', query?: Query): Promise<Page<AzureDataQualityRecord[]> & { start: string; end: string }>;
  async getDataQualityStats(platform: 'ad' | 'azure', query?: Query) {
    return this.request('GET', `/api/v2/platform/${encodeURIComponent(platform)}/data-quality-stats`, { query });
  }

  /** Enterprise; for a collection client (bearer client token). */
  async listAvailableJobs(query?: Query): Promise<ClientJob[]> {
    return (await this.request<{ data: ClientJob[] }>('GET', '/api/v2/jobs/available', { query })).data;
  }

  /** Enterprise. */
  async getEvent(eventId: number): Promise<CollectionEvent> {
    return (await this.request<{ data: CollectionEvent }>('GET', `/api/v2/events/${eventId}`)).data;
  }

  async listAssetGroupTagMembers(tagId: number, query?: Query): Promise<Page<{ members: AssetGroupTagMember[] }>> {
    return this.request('GET', `/api/v2/asset-group-tags/${tagId}/members`, { query });
  }

  async listCertTemplateControllers(objectId: string, query?: Query): Promise<Page<ControllerEntry[]>> {
    return this.request('GET', `/api/v2/certtemplates/${encodeURIComponent(objectId)}/controllers`, { query });
  }

  /* ---- Beyond the seed (the console's calls) ---- */

  async self(): Promise<User> {
    return (await this.request<{ data: User }>('GET', '/api/v2/self')).data;
  }
  async logout(): Promise<void> {
    await this.request('POST', '/api/v2/logout');
  }
  async listSsoProviders(query?: Query): Promise<SsoProvider[]> {
    return (await this.request<{ data: SsoProvider[] }>('GET', '/api/v2/sso-providers', { query })).data;
  }
  async listFileUploads(query?: Query): Promise<Page<FileUploadJob[]>> {
    return this.request('GET', '/api/v2/file-upload', { query });
  }
  async startFileUpload(): Promise<FileUploadJob> {
    return (await this.request<{ data: FileUploadJob }>('POST', '/api/v2/file-upload/start')).data;
  }
  /**
   * One file into a running upload job (JSON or zip, the body is the file). With `onProgress` in a
   * browser the bytes sent are reported as they go (XMLHttpRequest; fetch cannot report upload progress).
   */
  async uploadFile(jobId: number, body: Blob | Uint8Array | string, options: { fileName: string; contentType: string; onProgress?: (sent: number, total: number) => void }): Promise<void> {
    const path = `/api/v2/file-upload/${jobId}`;
    const creds = this.credentials;
    if (options.onProgress && Xhr && !(creds && 'tokenId' in creds)) {
      return this.#xhrUpload(new URL(path.slice(1), this.#base), body, options as Required<typeof options>);
    }
    await this.request('POST', path, { rawBody: body, contentType: options.contentType, headers: { 'x-file-upload-name': options.fileName } });
  }
  async endFileUpload(jobId: number): Promise<FileUploadJob> {
    return (await this.request<{ data: FileUploadJob }>('POST', `/api/v2/file-upload/${jobId}/end`)).data;
  }
  async listFileUploadTasks(jobId: number): Promise<FileUploadTask[]> {
    return (await this.request<{ data: FileUploadTask[] }>('GET', `/api/v2/file-upload/${jobId}/completed-tasks`)).data;
  }
  async listAssetGroupTags(query?: Query): Promise<AssetGroupTag[]> {
    return (await this.request<{ data: { tags: AssetGroupTag[] } }>('GET', '/api/v2/asset-group-tags', { query })).data.tags;
  }
  /** A tag's selectors, paged (`counts=true` adds each one's member count). */
  listSelectors(tagId: number, query?: Query): Promise<Page<{ selectors: AssetGroupTagSelector[] }>> {
    return this.request('GET', `/api/v2/asset-group-tags/${tagId}/selectors`, { query });
  }
  async updateSelector(tagId: number, selectorId: number, body: UpdateSelectorBody): Promise<AssetGroupTagSelector> {
    return (await this.request<{ data: AssetGroupTagSelector }>('PATCH', `/api/v2/asset-group-tags/${tagId}/selectors/${selectorId}`, { body })).data;
  }
  /** The members one selector selected, paged. */
  listSelectorMembers(tagId: number, selectorId: number, query?: Query): Promise<Page<{ members: AssetGroupTagMember[] }>> {
    return this.request('GET', `/api/v2/asset-group-tags/${tagId}/selectors/${selectorId}/members`, { query });
  }
  /** One member (by graph node id) with the selectors that selected it. */
  async getAssetGroupTagMember(tagId: number, memberId: number): Promise<AssetGroupTagMember & { selectors: AssetGroupTagSelector[] }> {
    return (await this.request<{ data: { member: AssetGroupTagMember & { selectors: AssetGroupTagSelector[] } } }>('GET', `/api/v2/asset-group-tags/${tagId}/members/${memberId}`)).data.member;
  }
  async createSelector(tagId: number, body: CreateSelectorBody): Promise<AssetGroupTagSelector> {
    return (await this.request<{ data: AssetGroupTagSelector }>('POST', `/api/v2/asset-group-tags/${tagId}/selectors`, { body })).data;
  }
  async deleteSelector(tagId: number, selectorId: number): Promise<void> {
    await this.request('DELETE', `/api/v2/asset-group-tags/${tagId}/selectors/${selectorId}`);
  }
  async getAssetGroupTagMemberCounts(tagId: number, query?: Query): Promise<MemberCounts> {
    return (await this.request<{ data: MemberCounts }>('GET', `/api/v2/asset-group-tags/${tagId}/members/counts`, { query })).data;
  }
  getDomainDataQualityStats(domainId: string, query?: Query): Promise<Page<AdDataQualityRecord[]>> {
    return this.request('GET', `/api/v2/ad-domains/${encodeURIComponent(domainId)}/data-quality-stats`, { query });
  }
  getTenantDataQualityStats(tenantId: string, query?: Query): Promise<Page<AzureDataQualityRecord[]>> {
    return this.request('GET', `/api/v2/azure-tenants/${encodeURIComponent(tenantId)}/data-quality-stats`, { query });
  }
  /** `type=graph`: BloodHound's flat graph map of the template and its controllers. */
  getCertTemplateControllersGraph(objectId: string): Promise<FlatGraph | UnifiedGraph> {
    return this.getEntityRelatedGraph('certtemplates', objectId, 'controllers');
  }
  /**
   * Entity routes (`GET /api/v2/<type>/<object id>`, e.g. type `certtemplates`): `props` and, with
   * counts, one number per related list.
   */
  async getEntity(type: string, objectId: string, query?: Query): Promise<EntityInfo> {
    return (await this.request<{ data: EntityInfo }>('GET', `/api/v2/${type}/${encodeURIComponent(objectId)}`, { query })).data;
  }
  /** A related list of an entity (`GET /api/v2/<type>/<object id>/<list>`), paged. */
  listEntityRelated(type: string, objectId: string, list: string, query?: Query): Promise<Page<ControllerEntry[]>> {
    return this.request('GET', `/api/v2/${type}/${encodeURIComponent(objectId)}/${list}`, { query: { ...query, type: 'list' } });
  }
  /** The same related list as a graph (`type=graph`): BloodHound's flat graph map, or a unified graph. */
  async getEntityRelatedGraph(type: string, objectId: string, list: string): Promise<FlatGraph | UnifiedGraph> {
    const answer = await this.request<FlatGraph | { data: FlatGraph }>('GET', `/api/v2/${type}/${encodeURIComponent(objectId)}/${list}`, { query: { type: 'graph' } });
    // BloodHound sends the map bare; a map wrapped in `data` (its only key) is unwrapped.
    const keys = Object.keys(answer);
    return keys.length === 1 && keys[0] === 'data' ? (answer as { data: FlatGraph | UnifiedGraph }).data : (answer as FlatGraph);
  }
  /**
   * `GET /api/v2/azure/<type>?object_id=`: an Azure node (kind, kinds, props) with its type's counts
   * (numbers, or `descendents.descendent_counts` / `Readers` objects).
   */
  async getAzureEntity(type: string, objectId: string): Promise<AzureEntityInfo> {
    return (await this.request<{ data: AzureEntityInfo }>('GET', `/api/v2/azure/${type}`, { query: { object_id: objectId } })).data;
  }
  /** One related list of an Azure node (`related_entity_type`), paged. */
  listAzureRelated(type: string, objectId: string, related: string, query?: Query): Promise<Page<AzureNode[]>> {
    return this.request('GET', `/api/v2/azure/${type}`, { query: { ...query, object_id: objectId, related_entity_type: related, type: 'list' } });
  }
  /** The same related list as BloodHound's flat graph map (`type=graph`). */
  getAzureRelatedGraph(type: string, objectId: string, related: string): Promise<FlatGraph> {
    return this.request('GET', `/api/v2/azure/${type}`, { query: { object_id: objectId, related_entity_type: related, type: 'graph' } });
  }
  /**
   * `POST /api/v2/graphs/cypher`: the unified graph of what the query returned, plus scalar columns
   * as `literals`. A query that returns nothing is a 404 (ScentApiError), as BloodHound.
   */
  async cypher(query: string, includeProperties = false): Promise<CypherResult> {
    return (await this.request<{ data: CypherResult }>('POST', '/api/v2/graphs/cypher', { body: { query, include_properties: includeProperties } })).data;
  }
  /** Saved queries; `scope` owned (default), shared, public or all. */
  listSavedQueries(query?: Query): Promise<Page<SavedQuery[]>> {
    return this.request('GET', '/api/v2/saved-queries', { query });
  }
  async createSavedQuery(body: { name: string; query: string; description?: string }): Promise<SavedQuery> {
    return (await this.request<{ data: SavedQuery }>('POST', '/api/v2/saved-queries', { body })).data;
  }
  async deleteSavedQuery(id: number): Promise<void> {
    await this.request('DELETE', `/api/v2/saved-queries/${id}`);
  }
  /** Imports `{name, query, description}` objects (one, or an array such as BloodHound's Query Library). */
  async importSavedQueries(queries: unknown): Promise<string> {
    return (await this.request<{ data: string }>('POST', '/api/v2/saved-queries/import', { body: queries })).data;
  }
  /** `GET /api/v2/search`: nodes by name or object id (exact, then prefix, then substring matches). */
  async search(q: string, query?: Query): Promise<SearchHit[]> {
    return (await this.request<{ data: SearchHit[] }>('GET', '/api/v2/search', { query: { ...query, q } })).data;
  }
  /** `GET /api/v2/graphs/shortest-path` between two object ids; no path is a 404 (ScentApiError). */
  async shortestPath(startNode: string, endNode: string, relationshipKinds?: string): Promise<UnifiedGraph> {
    const query = { start_node: startNode, end_node: endNode, relationship_kinds: relationshipKinds };
    return (await this.request<{ data: UnifiedGraph }>('GET', '/api/v2/graphs/shortest-path', { query })).data;
  }
  /** `GET /api/v2/available-domains`: the Domain and AZTenant nodes (`type` active-directory or azure). */
  async listAvailableDomains(query?: Query): Promise<AvailableDomain[]> {
    return (await this.request<{ data: AvailableDomain[] }>('GET', '/api/v2/available-domains', { query })).data;
  }
  /** `GET /api/v2/audit`: audit entries, newest first by default; `before`/`after` bound the window. */
  listAuditLogs(query?: Query): Promise<Page<{ logs: AuditLog[] }>> {
    return this.request('GET', '/api/v2/audit', { query });
  }
  /** Enterprise: collection clients, scheduled events, jobs. */
  listClients(query?: Query): Promise<Page<CollectionClient[]>> {
    return this.request('GET', '/api/v2/clients', { query });
  }
  async createClient(body: { name: string; type: 'sharphound' | 'azurehound'; domain_controller?: string }): Promise<CollectionClient> {
    return (await this.request<{ data: CollectionClient }>('POST', '/api/v2/clients', { body })).data;
  }
  async deleteClient(clientId: string): Promise<void> {
    await this.request('DELETE', `/api/v2/clients/${encodeURIComponent(clientId)}`);
  }
  async listEvents(query?: Query): Promise<ScheduledEvent[]> {
    return (await this.request<{ data: ScheduledEvent[] }>('GET', '/api/v2/events', { query })).data;
  }
  async createEvent(body: EventBody): Promise<ScheduledEvent> {
    return (await this.request<{ data: ScheduledEvent }>('POST', '/api/v2/events', { body })).data;
  }
  async deleteEvent(eventId: number): Promise<void> {
    await this.request('DELETE', `/api/v2/events/${eventId}`);
  }
  listJobs(query?: Query): Promise<Page<ClientJob[]>> {
    return this.request('GET', '/api/v2/jobs', { query });
  }
  async cancelJob(jobId: number): Promise<ClientJob> {
    return (await this.request<{ data: ClientJob }>('PUT', `/api/v2/jobs/${jobId}/cancel`)).data;
  }
  /** Every client's finished jobs (complete, canceled, timed out, failed, partially complete), newest end first. */
  listFinishedJobs(query?: Query): Promise<Page<ClientJob[]>> {
    return this.request('GET', '/api/v2/jobs/finished', { query });
  }
  /** One client's finished jobs. */
  listClientCompletedJobs(clientId: string, query?: Query): Promise<Page<ClientJob[]>> {
    return this.request('GET', `/api/v2/clients/${encodeURIComponent(clientId)}/completed-jobs`, { query });
  }
  /** The log the client sent when it ended the job ('' when none). */
  async getJobLog(jobId: number): Promise<string> {
    return (await this.request<{ data: { log: string } }>('GET', `/api/v2/jobs/${jobId}/log`)).data.log;
  }

  #xhrUpload(url: URL, body: Blob | Uint8Array | string, o: { fileName: string; contentType: string; onProgress: (sent: number, total: number) => void }): Promise<void> {
    return new Promise((resolve, reject) => {
      const xhr = new Xhr!();
      xhr.open('POST', url);
      xhr.setRequestHeader('accept', 'application/json');
      xhr.setRequestHeader('content-type', o.contentType);
      xhr.setRequestHeader('X-File-Upload-Name', o.fileName);
      const creds = this.credentials;
      if (creds && 'bearer' in creds) xhr.setRequestHeader('authorization', `Bearer ${creds.bearer}`);
      if (this.#wait !== undefined) xhr.setRequestHeader('prefer', `wait=${this.#wait}`);
      xhr.upload.onprogress = (e) => o.onProgress(e.loaded, e.total);
      xhr.onerror = () => reject(new ScentApiError(0, ['the upload could not reach the server'], undefined, undefined));
      xhr.onload = () => {
        if (xhr.status >= 200 && xhr.status < 300) return resolve();
        const json = xhr.responseText ? safeJson(xhr.responseText) : undefined;
        const errors = (json as { errors?: Array<{ message: string }> } | undefined)?.errors ?? [];
        reject(new ScentApiError(xhr.status, errors.map((e) => e.message), xhr.getResponseHeader('x-request-id') ?? undefined, json ?? xhr.responseText));
      };
      xhr.send(body);
    });
  }
}

/** The browser's XMLHttpRequest where there is one (typed here: the package compiles without the DOM library). */
interface XhrLike {
  status: number; responseText: string;
  upload: { onprogress: ((e: { loaded: number; total: number }) => void) | null };
  onerror: (() => void) | null; onload: (() => void) | null;
  open(method: string, url: URL): void; setRequestHeader(name: string, value: string): void;
  getResponseHeader(name: string): string | null; send(body: unknown): void;
}
const Xhr = (globalThis as { XMLHttpRequest?: new () => XhrLike }).XMLHttpRequest;

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
