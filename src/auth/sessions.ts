import { createSecretKey, randomBytes, randomUUID, type KeyObject } from 'node:crypto';
import { SignJWT, errors as joseErrors, jwtVerify, type JWTPayload } from 'jose';
import type { Kysely } from 'kysely';
import type { Config } from '../config.ts';
import type { Db } from '../db/create-db.ts';
import type { Database, UserRow } from '../db/database.ts';
import { prepared } from '../db/prepared.ts';
import { rootOf } from '../db/joined-transaction.ts';
import { VersionedCache } from '../http/bounded-cache.ts';
import { nowMicros } from '../db/time.ts';
import { ApiError, Messages, unauthorized } from '../http/errors.ts';
import type { Principal } from './principal.ts';

/**
 * Bearer JWT sessions (CONTRACT §2): HS256, claims sub/jti/iat/exp/iss (+ `pt` = "user"|"client").
 * A token is valid only while its session row exists and has not expired, so deleting the row
 * revokes it at once on every instance that shares the database.
 */
const ISSUER = 'scent';
const SETTING_KEY = 'jwt_signing_key';
const keys = new WeakMap<Db, KeyObject>();

/** The HS256 key as a KeyObject (built once: jose would otherwise import raw bytes on every call). */
export async function signingKey(db: Db, config: Config): Promise<KeyObject> {
  const cached = keys.get(rootOf(db));
  if (cached) return cached;
  let secret = config.jwtSecret;
  if (!secret) {
    const fresh = randomBytes(48).toString('base64url');
    await db.kysely
      .insertInto('settings')
      .values({ key: SETTING_KEY, value: fresh, updated_at: nowMicros() })
      .onConflict((oc) => oc.column('key').doNothing())
      .execute();
    const row = await db.kysely.selectFrom('settings').select('value').where('key', '=', SETTING_KEY).executeTakeFirstOrThrow();
    secret = row.value;
  }
  const key = createSecretKey(Buffer.from(secret, 'utf8'));
  keys.set(rootOf(db), key);
  return key;
}

export type SessionSubject = { userId: string } | { clientId: string };

export interface IssuedSession {
  token: string;
  sessionId: string;
  expiresAt: number;
}

export async function issueSession(
  db: Db,
  config: Config,
  subject: SessionSubject,
  ttlSeconds: number,
  authMethod: string,
): Promise<IssuedSession> {
  const sessionId = randomUUID();
  const now = nowMicros();
  const expiresAt = now + ttlSeconds * 1_000_000;
  const isUser = 'userId' in subject;
  await db.kysely
    .insertInto('sessions')
    .values({
      id: sessionId,
      user_id: isUser ? subject.userId : null,
      client_id: isUser ? null : subject.clientId,
      auth_method: authMethod,
      expires_at: expiresAt,
      created_at: now,
    })
    .execute();
  const token = await new SignJWT({ pt: isUser ? 'user' : 'client' })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(isUser ? subject.userId : subject.clientId)
    .setJti(sessionId)
    .setIssuer(ISSUER)
    .setIssuedAt(Math.floor(now / 1_000_000))
    .setExpirationTime(Math.floor(expiresAt / 1_000_000))
    .sign(await signingKey(db, config));
  return { token, sessionId, expiresAt };
}

/**
 * Tokens whose signature and claims verified already (per database, whose key is fixed), so that
 * polling clients do not pay an HMAC through WebCrypto on every request. `exp` is re-checked on each
 * use; revocation is the session row's business (verifyBearer).
 */
const verified = new WeakMap<Db, Map<string, JWTPayload>>();
const VERIFIED_MAX = 10_000;

async function verifiedClaims(db: Db, config: Config, token: string): Promise<JWTPayload> {
  let cache = verified.get(db);
  if (!cache) verified.set(db, (cache = new Map()));
  const hit = cache.get(token);
  if (hit && (hit.exp as number) * 1000 > Date.now()) return hit;
  let claims: JWTPayload;
  try {
    ({ payload: claims } = await jwtVerify(token, await signingKey(db, config), {
      algorithms: ['HS256'],
      issuer: ISSUER,
      requiredClaims: ['sub', 'jti', 'exp', 'iat'],
    }));
  } catch (err) {
    if (err instanceof joseErrors.JOSEError || err instanceof TypeError) throw unauthorized();
    throw err;
  }
  if (cache.size >= VERIFIED_MAX) cache.delete(cache.keys().next().value as string);
  cache.set(token, claims);
  return claims;
}

/**
 * Principals by token, valid while none of the tables they were read from has changed (see
 * src/db/data-versions.ts: a logout, disable, role change or session deletion anywhere retires every
 * entry) and while the session has not expired. Saves the session read on each request.
 */
const PRINCIPAL_TABLES = ['sessions', 'users', 'users_roles', 'auth_secrets'] as const;
const principals = new WeakMap<Db, VersionedCache<Principal>>();
/** About 10,000 principals (each counted as 1 kB). */
const PRINCIPALS_BYTES = VERIFIED_MAX * 1024;

function principalCache(db: Db): VersionedCache<Principal> {
  let cache = principals.get(db);
  if (!cache) principals.set(db, (cache = new VersionedCache<Principal>(db.versions, PRINCIPALS_BYTES, () => 1024)));
  return cache;
}

/** The principal of a bearer token from the cache, when it is known and still current. */
export function cachedBearer(db: Db, token: string): Principal | undefined {
  return principalCache(db).get(token, PRINCIPAL_TABLES);
}

/** Verifies a bearer JWT and its live session; returns the principal or throws 401/403. */
export async function verifyBearer(db: Db, config: Config, token: string): Promise<Principal> {
  const cache = principalCache(db);
  const known = cache.get(token, PRINCIPAL_TABLES);
  if (known) return known;
  const keep = cache.prepare(token, PRINCIPAL_TABLES);
  const { principal, expiresAt } = await readPrincipal(db, config, token);
  keep(principal, expiresAt);
  return principal;
}

async function readPrincipal(db: Db, config: Config, token: string): Promise<{ principal: Principal; expiresAt: number }> {
  const claims = await verifiedClaims(db, config, token);
  // One read for the session and (for users) its user.
  const [row] = await sessionWithUser(db.kysely, [String(claims.jti)]);
  if (!row || row.session_expires_at <= nowMicros()) throw unauthorized();
  const expiresAt = row.session_expires_at;
  if (claims.pt === 'client') {
    if (!row.session_client_id || row.session_client_id !== claims.sub) throw unauthorized();
    return { principal: { kind: 'client', sessionId: row.session_id, clientId: row.session_client_id }, expiresAt };
  }
  if (!row.session_user_id || row.session_user_id !== claims.sub || row.id === null) throw unauthorized();
  const { session_id, session_user_id: _u, session_client_id: _c, session_expires_at: _e, session_auth_method, secret_expires_at, ...user } = row;
  const principal = await userPrincipal(db.kysely, session_id, user as UserRow);
  if (session_auth_method !== 'secret') return { principal, expiresAt };
  // A password session, as BloodHound: the password gone → 401; expired (a one-time or reset password)
  // → only auth/ManageSelf until a new one is set (PUT /api/v2/bloodhound-users/{id}/secret).
  if (secret_expires_at === null) throw unauthorized();
  if (secret_expires_at <= nowMicros()) return { principal: passwordExpired(principal), expiresAt };
  return { principal, expiresAt: Math.min(expiresAt, secret_expires_at) };
}

function passwordExpired(principal: Principal): Principal {
  if (principal.kind !== 'user') return principal;
  const permissions = new Set(principal.permissions.has('auth/ManageSelf') ? ['auth/ManageSelf'] : []);
  return { ...principal, permissions };
}

const sessionWithUser = prepared((db) =>
  db
    .selectFrom('sessions')
    .leftJoin('users', 'users.id', 'sessions.user_id')
    .leftJoin('auth_secrets', 'auth_secrets.user_id', 'sessions.user_id')
    .selectAll('users')
    .select([
      'sessions.auth_method as session_auth_method',
      'auth_secrets.expires_at as secret_expires_at',
      'sessions.id as session_id',
      'sessions.user_id as session_user_id',
      'sessions.client_id as session_client_id',
      'sessions.expires_at as session_expires_at',
    ])
    .where('sessions.id', '=', ''),
);

const roleIdsOf = prepared((db) => db.selectFrom('users_roles').select('role_id').where('user_id', '=', ''));

export async function loadUserPrincipal(db: Kysely<Database>, sessionId: string, userId: string): Promise<Principal> {
  const user = await db.selectFrom('users').selectAll().where('id', '=', userId).executeTakeFirst();
  if (!user) throw unauthorized();
  return userPrincipal(db, sessionId, user);
}

async function userPrincipal(db: Kysely<Database>, sessionId: string, user: UserRow): Promise<Principal> {
  if (user.deleted_at !== null) throw unauthorized();
  if (user.is_disabled) throw new ApiError(403, Messages.userDisabled);
  const roles = await roleIdsOf(db, [user.id]);
  const byRole = await rolePermissions(db);
  const permissions = new Set<string>();
  for (const { role_id } of roles) for (const p of byRole.get(role_id) ?? []) permissions.add(p);
  return { kind: 'user', sessionId, user, permissions };
}

/**
 * Role → permissions, read once per database handle. Roles and their permissions are defined by
 * the migrations (no route changes them), so the map cannot go stale while the process runs.
 */
const rolePermissionCache = new WeakMap<Kysely<Database>, Promise<Map<number, string[]>>>();

function rolePermissions(db: Kysely<Database>): Promise<Map<number, string[]>> {
  let cached = rolePermissionCache.get(db);
  if (!cached) {
    cached = db
      .selectFrom('roles_permissions')
      .innerJoin('permissions', 'permissions.id', 'roles_permissions.permission_id')
      .select(['roles_permissions.role_id', 'permissions.authority', 'permissions.name'])
      .execute()
      .then((rows) => {
        const map = new Map<number, string[]>();
        for (const r of rows) {
          const list = map.get(r.role_id) ?? [];
          list.push(`${r.authority}/${r.name}`);
          map.set(r.role_id, list);
        }
        return map;
      });
    cached.catch(() => rolePermissionCache.delete(db));
    rolePermissionCache.set(db, cached);
  }
  return cached;
}

/** Revokes sessions at once (logout, disable, SSO-provider deletion, client deletion). */
export async function revokeSessions(db: Kysely<Database>, where: { userIds?: string[]; sessionId?: string; clientId?: string }) {
  if (where.sessionId) await db.deleteFrom('sessions').where('id', '=', where.sessionId).execute();
  if (where.clientId) await db.deleteFrom('sessions').where('client_id', '=', where.clientId).execute();
  if (where.userIds?.length) await db.deleteFrom('sessions').where('user_id', 'in', where.userIds).execute();
}
