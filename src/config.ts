/**
 * Configuration is read once from flags and environment into a frozen, typed Config. Every flag
 * has an environment twin; flags win. The README's configuration table mirrors FIELDS below.
 */
import { readFileSync } from 'node:fs';

export type Edition = 'enterprise' | 'community';

export interface Config {
  readonly databaseUrl: string;
  readonly host: string;
  readonly port: number;
  readonly edition: Edition;
  /** HS256 signing key; when absent one is generated once and stored in the database. */
  readonly jwtSecret: string | undefined;
  /** Allow `Prefer: wait=-1` to remove the request deadline. */
  readonly allowUnlimitedWait: boolean;
  readonly logLevel: string;
  /** Session (JWT) lifetime for logins, in seconds. */
  readonly sessionTtlSeconds: number;
  /** Request body limit in bytes (uploads have their own). */
  readonly bodyLimit: number;
  /** Requests per minute per principal / IP; 0 = off. */
  readonly rateLimit: number;
  /** Root URL clients reach this server at (login and callback URIs). */
  readonly rootUrl: string;
  /** Seconds between passes of the collection scheduler (enterprise); 0 = off. */
  readonly schedulerInterval: number;
  /** Seconds between passes of the ingest worker over ended upload jobs; 0 = this instance ingests nothing. */
  readonly ingestInterval: number;
  /** Largest uploaded file (POST /api/v2/file-upload/{id}), bytes. */
  readonly uploadLimit: number;
  /** Memory for cached GET answers (src/http/response-cache.ts), MB; 0 = off. */
  readonly responseCacheMb: number;
  /** Cypher updating clauses (CREATE, SET, DELETE, REMOVE) allowed on POST /graphs/cypher (then graphdb/Mutate is required). */
  readonly cypherMutations: boolean;
  /** Most nodes + edges one graph answer (graph map, path, list page) may hold; more is a 400 naming it. */
  readonly graphResultLimit: number;
  /** `serve` loads the graph engine's snapshot right after it starts listening (the first graph answer does not wait for it). */
  readonly graphPreload: boolean;
  /** SAML service-provider certificate and key (PEM text read from the files named); absent: generated once, kept in the database. */
  readonly samlSpCert: string | undefined;
  readonly samlSpKey: string | undefined;
}

export interface Field {
  key: keyof Config;
  flag: string;
  env: string;
  default: string | undefined;
  parse: (raw: string) => unknown;
  help: string;
  /** A switch: `--flag` alone means true (its environment twin still takes true/false). */
  switch?: true;
}

const int = (name: string, min: number, max: number) => (raw: string) => {
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    throw new ConfigError(`${name} must be an integer between ${min} and ${max}, got "${raw}"`);
  }
  return Number(raw);
};
const bool = (name: string) => (raw: string) => {
  if (/^(1|true|yes|on)$/i.test(raw)) return true;
  if (/^(0|false|no|off|)$/i.test(raw)) return false;
  throw new ConfigError(`${name} must be true or false, got "${raw}"`);
};
const pemFile = (name: string, label: RegExp) => (raw: string) => {
  let text: string;
  try {
    text = readFileSync(raw, 'utf8');
  } catch {
    throw new ConfigError(`${name} must name a readable PEM file, got "${raw}"`);
  }
  if (!label.test(text)) throw new ConfigError(`${name} must name a PEM file of the right kind, got "${raw}"`);
  return text;
};
const duration = (name: string) => (raw: string) => {
  const seconds = parseDuration(raw);
  if (seconds === null || seconds <= 0) throw new ConfigError(`${name} must be a duration like 8h, 30m or 3600s, got "${raw}"`);
  return seconds;
};

export const FIELDS: Field[] = [
  { key: 'databaseUrl', flag: '--database', env: 'SCENT_DATABASE_URL', default: 'sqlite:./data/scent.sqlite',
    parse: (raw) => {
      if (!/^(sqlite:|postgres(ql)?:\/\/)/.test(raw)) {
        throw new ConfigError(`database URL must be sqlite:PATH, sqlite::memory: or postgres://..., got "${raw}"`);
      }
      return raw;
    }, help: 'sqlite:PATH, sqlite::memory: or postgres://user@host:5432/db' },
  { key: 'host', flag: '--host', env: 'SCENT_HOST', default: '127.0.0.1', parse: (raw) => raw, help: 'address to listen on' },
  { key: 'port', flag: '--port', env: 'SCENT_PORT', default: '8080', parse: int('port', 0, 65535), help: 'TCP port' },
  { key: 'edition', flag: '--edition', env: 'SCENT_EDITION', default: 'enterprise',
    parse: (raw) => {
      if (raw !== 'enterprise' && raw !== 'community') throw new ConfigError(`edition must be enterprise or community, got "${raw}"`);
      return raw;
    }, help: 'enterprise serves every route; community answers 404 on enterprise-only routes' },
  { key: 'jwtSecret', flag: '--jwt-secret', env: 'SCENT_JWT_SECRET', default: undefined,
    parse: (raw) => {
      if (raw.length < 32) throw new ConfigError('JWT secret must be at least 32 characters');
      return raw;
    }, help: 'HS256 signing key (>= 32 chars); default: generated once and kept in the database' },
  { key: 'allowUnlimitedWait', flag: '--allow-unlimited-wait', env: 'SCENT_ALLOW_UNLIMITED_WAIT', default: 'false',
    parse: bool('allow-unlimited-wait'), help: 'honour Prefer: wait=-1 (no request deadline)', switch: true },
  { key: 'logLevel', flag: '--log-level', env: 'SCENT_LOG_LEVEL', default: 'info',
    parse: (raw) => {
      if (!['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].includes(raw)) {
        throw new ConfigError(`log level must be one of fatal, error, warn, info, debug, trace, silent; got "${raw}"`);
      }
      return raw;
    }, help: 'pino log level' },
  { key: 'sessionTtlSeconds', flag: '--session-ttl', env: 'SCENT_SESSION_TTL', default: '8h',
    parse: duration('session-ttl'), help: 'lifetime of login sessions' },
  { key: 'bodyLimit', flag: '--body-limit', env: 'SCENT_BODY_LIMIT', default: String(10 * 1024 * 1024),
    parse: int('body-limit', 1024, 2 ** 31 - 1), help: 'largest JSON request body, bytes' },
  { key: 'rateLimit', flag: '--rate-limit', env: 'SCENT_RATE_LIMIT', default: '0',
    parse: int('rate-limit', 0, 1_000_000), help: 'requests per minute per principal and per IP; 0 = off' },
  { key: 'rootUrl', flag: '--root-url', env: 'SCENT_ROOT_URL', default: '',
    parse: (raw) => raw.replace(/\/+$/, ''), help: 'public URL of this server (default http://HOST:PORT)' },
  { key: 'schedulerInterval', flag: '--scheduler-interval', env: 'SCENT_SCHEDULER_INTERVAL', default: '30s',
    parse: (raw) => {
      const seconds = parseDuration(raw);
      if (seconds === null) throw new ConfigError(`scheduler-interval must be a duration like 30s or 5m (0 = off), got "${raw}"`);
      return seconds;
    }, help: 'seconds between collection-scheduler passes (enterprise); 0 = off' },
  { key: 'ingestInterval', flag: '--ingest-interval', env: 'SCENT_INGEST_INTERVAL', default: '2s',
    parse: (raw) => {
      const seconds = parseDuration(raw);
      if (seconds === null) throw new ConfigError(`ingest-interval must be a duration like 2s or 1m (0 = off), got "${raw}"`);
      return seconds;
    }, help: 'seconds between ingest-worker passes over ended upload jobs; 0 = this instance ingests nothing' },
  { key: 'uploadLimit', flag: '--upload-limit', env: 'SCENT_UPLOAD_LIMIT', default: String(4 * 1024 ** 3),
    parse: int('upload-limit', 1024, 2 ** 45), help: 'largest uploaded file (file-upload), bytes' },
  { key: 'responseCacheMb', flag: '--response-cache-mb', env: 'SCENT_RESPONSE_CACHE_MB', default: '64',
    parse: int('response-cache-mb', 0, 65_536), help: 'memory for cached GET answers (retired by the writes they depend on), MB; 0 = no answer is kept' },
  { key: 'cypherMutations', flag: '--cypher-mutations', env: 'SCENT_CYPHER_MUTATIONS', default: 'false',
    parse: bool('cypher-mutations'), help: 'allow Cypher updating clauses on POST /api/v2/graphs/cypher (callers also need graphdb/Mutate)', switch: true },
  { key: 'graphResultLimit', flag: '--graph-result-limit', env: 'SCENT_GRAPH_RESULT_LIMIT', default: '100000',
    parse: int('graph-result-limit', 1, 100_000_000), help: 'most nodes + edges in one graph answer (graph maps, paths, list pages); a larger one is a 400 naming this bound' },
  { key: 'graphPreload', flag: '--graph-preload', env: 'SCENT_GRAPH_PRELOAD', default: 'true',
    parse: bool('graph-preload'), help: 'load the graph into memory once serve listens, instead of on the first graph request; false = on first use' },
  { key: 'samlSpCert', flag: '--saml-sp-cert', env: 'SCENT_SAML_SP_CERT', default: undefined,
    parse: pemFile('saml-sp-cert', /-----BEGIN CERTIFICATE-----/), help: 'PEM file: the SAML service-provider certificate (with --saml-sp-key); default: generated once and kept in the database' },
  { key: 'samlSpKey', flag: '--saml-sp-key', env: 'SCENT_SAML_SP_KEY', default: undefined,
    parse: pemFile('saml-sp-key', /-----BEGIN (RSA )?PRIVATE KEY-----/), help: 'PEM file: the private key of --saml-sp-cert' },
];

export class ConfigError extends Error {}

/** Parses "8h", "30m", "45s", "2d" or a bare number of seconds. */
export function parseDuration(raw: string): number | null {
  const m = /^(\d+)(s|m|h|d)?$/.exec(raw.trim());
  if (!m) return null;
  const unit = { s: 1, m: 60, h: 3600, d: 86400 }[(m[2] ?? 's') as 's' | 'm' | 'h' | 'd'];
  return Number(m[1]) * unit;
}

/** Builds the Config from flag values (by flag name) over the environment over the defaults. */
export function loadConfig(flags: Record<string, string | undefined> = {}, env: NodeJS.ProcessEnv = process.env): Config {
  const out: Record<string, unknown> = {};
  for (const field of FIELDS) {
    const raw = flags[field.flag] ?? env[field.env] ?? field.default;
    out[field.key] = raw === undefined ? undefined : field.parse(raw);
  }
  if ((out.samlSpCert === undefined) !== (out.samlSpKey === undefined)) throw new ConfigError('saml-sp-cert and saml-sp-key go together: give both or neither');
  if (!out.rootUrl) out.rootUrl = `http://${out.host === '0.0.0.0' ? '127.0.0.1' : out.host}:${out.port}`;
  return Object.freeze(out) as unknown as Config;
}

/** A config for tests and embedding: defaults plus overrides, ignoring the environment. */
export function testConfig(overrides: Partial<Config> = {}): Config {
  return Object.freeze({ ...loadConfig({}, {}), databaseUrl: 'sqlite::memory:', logLevel: 'silent', ...overrides });
}
