/**
 * Test harness: the same suite runs on SQLite and PostgreSQL (SCENT_TEST_DIALECT = sqlite | postgres,
 * set by scripts/test.mjs). Each test database is isolated: SQLite in memory, PostgreSQL in a fresh
 * schema of the `test` database that is dropped on close.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { buildApp } from '../app.ts';
import { testConfig, type Config } from '../config.ts';
import { createDb, type Db, type DialectName } from '../db/create-db.ts';
import { migrateToLatest } from '../db/migrate.ts';
import { issueSession } from '../auth/sessions.ts';
import type { RoleName } from '../auth/permissions.ts';
import type { Route } from '../http/route.ts';
import { createUser } from '../modules/users/users.service.ts';

export const DIALECT = (process.env.SCENT_TEST_DIALECT ?? 'sqlite') as DialectName;
export const PG_URL = process.env.SCENT_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

export interface TestDb extends Db {
  /** The URL another process/connection can open to reach the same data. */
  url: string;
}

/** A fresh, empty database (not migrated) on the dialect under test. */
export async function createEmptyTestDb(): Promise<TestDb> {
  if (DIALECT === 'sqlite') return Object.assign(createDb('sqlite::memory:'), { url: 'sqlite::memory:' });
  const schema = `t_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client(PG_URL);
  await admin.connect();
  try {
    await admin.query(`create schema ${schema}`);
  } finally {
    await admin.end();
  }
  const url = `${PG_URL}${PG_URL.includes('?') ? '&' : '?'}options=-c%20search_path%3D${schema}`;
  const db = createDb(url, { poolSize: 5 });
  const close = db.close.bind(db);
  return Object.assign(db, {
    url,
    async close() {
      await close();
      const cleanup = new pg.Client(PG_URL);
      await cleanup.connect();
      try {
        await cleanup.query(`drop schema ${schema} cascade`);
      } finally {
        await cleanup.end();
      }
    },
  });
}

/** A fresh database with every migration applied. */
export async function createTestDb(): Promise<TestDb> {
  const db = await createEmptyTestDb();
  await migrateToLatest(db);
  return db;
}

/**
 * One database opened twice, as two instances of Scent share it: a file on SQLite (so both handles reach it), a
 * test database on PostgreSQL; migrated, and both handles listening for each other's changes before it returns.
 */
export async function sharedTestDb(): Promise<{ url: string; a: Db; b: Db; close(): Promise<void> }> {
  let url: string;
  let holder: TestDb | null = null;
  let dir: string | null = null;
  if (DIALECT === 'postgres') {
    holder = await createTestDb();
    url = holder.url;
  } else {
    dir = mkdtempSync(join(tmpdir(), 'scent-shared-'));
    url = `sqlite:${join(dir, 'db.sqlite')}`;
  }
  const a = createDb(url);
  if (DIALECT === 'sqlite') await migrateToLatest(a);
  const b = createDb(url);
  for (const db of [a, b]) {
    for (let i = 0; i < 100 && !db.versions.usable(); i++) await new Promise((r) => setTimeout(r, 50));
    if (!db.versions.usable()) throw new Error('a handle on the shared test database does not listen for changes');
  }
  return {
    url, a, b,
    async close() {
      await b.close();
      await a.close();
      await holder?.close();
      if (dir) rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface TestApp {
  app: FastifyInstance;
  db: TestDb;
  config: Config;
  /** Creates a user with the role and returns a bearer token (and the user's id). */
  login(role: RoleName, options?: { name?: string; ssoProviderName?: string }): Promise<{ token: string; userId: string }>;
  /** app.inject with JSON helpers. */
  request(options: InjectOptions): Promise<LightMyRequestResponse>;
  close(): Promise<void>;
}

export interface InjectOptions {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'HEAD' | 'OPTIONS';
  url: string;
  token?: string;
  body?: unknown;
  headers?: Record<string, string>;
  query?: Record<string, string | string[]>;
}

let counter = 0;

export async function createTestApp(overrides: Partial<Config> = {}, extraRoutes: Route[] = []): Promise<TestApp> {
  const db = await createTestDb();
  const config = testConfig({ jwtSecret: 'test-secret-that-is-long-enough-for-hs256!!', ...overrides });
  const app = await buildApp({ config, db, extraRoutes });
  await app.ready();
  return {
    app,
    db,
    config,
    async login(role, options = {}) {
      const name = options.name ?? `${role.toLowerCase().replace(/[^a-z]/g, '')}-${++counter}`;
      const user = await createUser(db, { principalName: name, email: `${name}@example.test`, roleName: role, ssoProviderName: options.ssoProviderName });
      const { token } = await issueSession(db, config, { userId: user.id }, 3600, 'test');
      return { token, userId: user.id };
    },
    async request({ method, url, token, body, headers = {}, query }) {
      const res = await app.inject({
        method,
        url,
        query,
        headers: {
          ...(token ? { authorization: `Bearer ${token}` } : {}),
          ...(body !== undefined && typeof body !== 'string' ? { 'content-type': 'application/json' } : {}),
          ...headers,
        },
        payload: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
      });
      assertJsonType(res, `${method} ${url}`);
      return res;
    },
    async close() {
      await app.close();
      await db.close();
    },
  };
}

/**
 * The wire rule of CONTRACT §1, checked on every answer a test receives through `request`: a JSON
 * answer says `application/json`, exactly (BloodHound's clients compare the header literally).
 */
export function assertJsonType(res: { headers: Record<string, unknown> }, label: string): void {
  const type = res.headers['content-type'];
  if (typeof type === 'string' && /json/i.test(type) && type !== 'application/json') {
    throw new Error(`${label}: Content-Type is "${type}", not exactly application/json`);
  }
}

/** Asserts an error envelope exactly (status, messages, request id echo, timestamp shape). */
export function errorOf(res: LightMyRequestResponse): { status: number; messages: string[] } {
  const body = res.json();
  const keys = Object.keys(body).sort().join(',');
  if (keys !== 'errors,http_status,request_id,timestamp') throw new Error(`not an error envelope: ${res.body}`);
  if (body.http_status !== res.statusCode) throw new Error(`http_status ${body.http_status} != ${res.statusCode}`);
  if (body.request_id !== res.headers['x-request-id']) throw new Error('request_id does not match X-Request-Id');
  if (Number.isNaN(Date.parse(body.timestamp))) throw new Error(`bad timestamp ${body.timestamp}`);
  for (const e of body.errors) if (e.context !== '') throw new Error(`unexpected context ${e.context}`);
  return { status: res.statusCode, messages: body.errors.map((e: { message: string }) => e.message) };
}
