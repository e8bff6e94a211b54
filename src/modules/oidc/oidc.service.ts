import type { Config } from '../../config.ts';
import type { Db } from '../../db/create-db.ts';
import type { UserRow } from '../../db/database.ts';
import { isUniqueViolation } from '../../db/errors.ts';
import { issueSession } from '../../auth/sessions.ts';
import { touchLastLogin } from '../users/users.repository.ts';
import { authorizationUrl, discover, exchangeCode, exchangeFailure, newLoginChecks, type Claims } from './oidc.client.ts';
import {
  consumeLoginState, findOidcBySlug, findUsersByEmail, provisionUser, replaceRoles, roleIdExists, roleIdsByName, saveLoginState,
  type OidcLoginProvider,
} from './oidc.repository.ts';

/** A sign-in failure; `code` goes to the UI as `?error=<code>`. */
export class OidcFailure extends Error {
  constructor(readonly code: string) {
    super(code);
  }
}

const STATE_TTL_SECONDS = 600;

export const callbackUri = (config: Config, slug: string) => `${config.rootUrl}/api/v2/sso/${encodeURIComponent(slug)}/callback`;

async function providerOrFail(db: Db, slug: string): Promise<OidcLoginProvider> {
  const provider = await findOidcBySlug(db.kysely, slug);
  if (!provider) throw new OidcFailure('provider_not_found');
  return provider;
}

async function discoverOrFail(provider: OidcLoginProvider) {
  try {
    return await discover(provider.issuer, provider.clientId);
  } catch {
    throw new OidcFailure('provider_unreachable');
  }
}

/** Starts a sign-in: returns the provider's authorization URL and the state to bind to the browser. */
export async function startLogin(db: Db, config: Config, slug: string): Promise<{ url: string; state: string }> {
  const provider = await providerOrFail(db, slug);
  const oidcConfig = await discoverOrFail(provider);
  const checks = await newLoginChecks();
  await saveLoginState(db.kysely, { ...checks, ssoProviderId: provider.id, ttlSeconds: STATE_TTL_SECONDS });
  const url = authorizationUrl(oidcConfig, { ...checks, redirectUri: callbackUri(config, slug) });
  return { url: url.href, state: checks.state };
}

/**
 * Finishes a sign-in from the callback's query: consumes the state, verifies the code and ID token,
 * finds or provisions the user, and returns a new session token.
 */
export async function finishLogin(
  db: Db,
  config: Config,
  slug: string,
  query: Record<string, string | undefined>,
  rawQuery: string,
  browserState: string | undefined,
  /** Runs the sign-in's database change (user, roles, session) as one unit (an audited transaction). */
  transact: <T>(change: (db: Db) => Promise<T>) => Promise<T> = (change) => change(db),
  onUser: (user: UserRow) => void = () => {},
): Promise<string> {
  if (!query.state || query.state !== browserState) throw new OidcFailure('invalid_state');
  const saved = await consumeLoginState(db.kysely, query.state);
  if (!saved) throw new OidcFailure('invalid_state'); // unknown, used, expired, or its provider was deleted
  const provider = await providerOrFail(db, slug);
  if (provider.id !== saved.sso_provider_id) throw new OidcFailure('invalid_state');
  if (query.error) throw new OidcFailure('provider_error');
  const oidcConfig = await discoverOrFail(provider);
  let claims: Claims;
  try {
    const url = new URL(`${callbackUri(config, slug)}${rawQuery}`);
    claims = await exchangeCode(oidcConfig, url, { state: saved.state, nonce: saved.nonce, codeVerifier: saved.code_verifier });
  } catch (err) {
    throw new OidcFailure(exchangeFailure(err));
  }
  return transact(async (tx) => {
    const user = await resolveUser(tx, provider, claims);
    onUser(user);
    const session = await issueSession(tx, config, { userId: user.id }, config.sessionTtlSeconds, 'oidc');
    await touchLastLogin(tx.kysely, user.id);
    return session.token;
  });
}

/** Role ids named by the `roles` claim: a role's name, or BloodHound's `bh-<name>` form (`bh-power-user`). */
export function rolesFromClaim(claim: unknown, roles: Map<string, number>): number[] {
  const values = (Array.isArray(claim) ? claim : typeof claim === 'string' ? [claim] : []).filter((v): v is string => typeof v === 'string');
  const byKey = new Map<string, number>();
  for (const [name, id] of roles) {
    byKey.set(name.toLowerCase(), id);
    byKey.set(`bh-${name.toLowerCase().replace(/ /g, '-')}`, id);
  }
  return [...new Set(values.map((v) => byKey.get(v.trim().toLowerCase())).filter((id): id is number => id !== undefined))];
}

async function resolveUser(db: Db, provider: OidcLoginProvider, claims: Claims): Promise<UserRow> {
  const email = typeof claims.email === 'string' ? claims.email.trim() : '';
  if (!email || claims.email_verified === false) throw new OidcFailure('missing_email');
  const { auto_provision: ap } = provider.config;
  return db.kysely.transaction().execute(async (trx) => {
    const claimed = ap.role_provision ? rolesFromClaim(claims.roles, await roleIdsByName(trx)) : [];
    const existing = await findUsersByEmail(trx, email);
    const user = existing.find((u) => u.sso_provider_id === provider.id) ?? existing[0];
    if (user) {
      if (user.sso_provider_id !== provider.id) throw new OidcFailure('user_not_linked');
      if (user.is_disabled) throw new OidcFailure('user_disabled');
      if (claimed.length) await replaceRoles(trx, user.id, claimed);
      return user;
    }
    if (!ap.enabled) throw new OidcFailure('user_not_found');
    const roleIds = claimed.length ? claimed : [ap.default_role_id];
    if (!(await roleIdExists(trx, roleIds[0]))) throw new OidcFailure('role_invalid');
    const name = (key: string) => (typeof claims[key] === 'string' && claims[key] ? (claims[key] as string) : null);
    try {
      return await provisionUser(trx, { email, firstName: name('given_name'), lastName: name('family_name'), ssoProviderId: provider.id }, roleIds);
    } catch (err) {
      if (isUniqueViolation(err)) throw new OidcFailure('user_conflict'); // principal name taken by another user
      throw err;
    }
  });
}
