import { signedHeaders } from './signature.ts';
import type {
  AdDataQualityRecord, ApiVersion, AssetGroupTagMember, AuthToken, AzureDataQualityRecord, ClientJob, CollectionEvent,
  ControllerEntry, CreateOidcProviderBody, LoginResult, OidcProvider, Page, Query, User,
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
    this.#fetch = options.fetch ?? fetch;
    this.#wait = options.wait;
  }

  /** Any call: `path` like `/api/v2/...`. Signs with the API token when one is configured. */
  async request<T>(method: string, path: string, options: { query?: Query; body?: unknown } = {}): Promise<T> {
    const url = new URL(`${path.replace(/^\//, '')}${queryString(options.query)}`, this.#base);
    const body = options.body === undefined ? undefined : JSON.stringify(options.body);
    const headers: Record<string, string> = { accept: 'application/json' };
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (this.#wait !== undefined) headers.prefer = `wait=${this.#wait}`;
    const creds = this.credentials;
    if (creds && 'bearer' in creds) headers.authorization = `Bearer ${creds.bearer}`;
    if (creds && 'tokenId' in creds) {
      // The signed target is exactly what goes on the request line: the URL's path and query.
      Object.assign(headers, signedHeaders(creds.tokenId, { key: creds.tokenKey, method, target: url.pathname + url.search, body }));
    }
    const res = await this.#fetch(url, { method, headers, body });
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
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
