import * as oidc from 'openid-client';

/**
 * The provider's configuration from OIDC discovery, per (issuer, client id), kept five minutes.
 * Scent is a public client (BloodHound's OIDC providers have no client secret): PKCE S256 + state +
 * nonce. Plain-http issuers are accepted only on loopback (development and tests).
 */
const TTL_MS = 5 * 60_000;
const cache = new Map<string, { config: oidc.Configuration; expires: number }>();

export function isLoopback(url: URL): boolean {
  return url.hostname === 'localhost' || url.hostname === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(url.hostname);
}

export async function discover(issuer: string, clientId: string): Promise<oidc.Configuration> {
  const cacheKey = `${issuer}\n${clientId}`;
  const hit = cache.get(cacheKey);
  if (hit && hit.expires > Date.now()) return hit.config;
  const url = new URL(issuer);
  const config = await oidc.discovery(url, clientId, undefined, oidc.None(), {
    execute: url.protocol === 'http:' && isLoopback(url) ? [oidc.allowInsecureRequests] : [],
    timeout: 10,
  });
  cache.set(cacheKey, { config, expires: Date.now() + TTL_MS });
  return config;
}

export const SCOPE = 'openid profile email';

export async function newLoginChecks() {
  const codeVerifier = oidc.randomPKCECodeVerifier();
  return {
    state: oidc.randomState(),
    nonce: oidc.randomNonce(),
    codeVerifier,
    codeChallenge: await oidc.calculatePKCECodeChallenge(codeVerifier),
  };
}

export function authorizationUrl(
  config: oidc.Configuration,
  p: { redirectUri: string; state: string; nonce: string; codeChallenge: string },
): URL {
  return oidc.buildAuthorizationUrl(config, {
    redirect_uri: p.redirectUri, scope: SCOPE, state: p.state, nonce: p.nonce,
    code_challenge: p.codeChallenge, code_challenge_method: 'S256',
  });
}

export type Claims = Record<string, unknown>;

/** Code → tokens (ID token verified: signature, issuer, audience, nonce, expiry) → claims. */
export async function exchangeCode(
  config: oidc.Configuration,
  callbackUrl: URL,
  checks: { state: string; nonce: string; codeVerifier: string },
): Promise<Claims> {
  const tokens = await oidc.authorizationCodeGrant(config, callbackUrl, {
    expectedState: checks.state, expectedNonce: checks.nonce, pkceCodeVerifier: checks.codeVerifier, idTokenExpected: true,
  });
  const idClaims = tokens.claims() as Claims;
  // Claims the ID token leaves out (email, names, roles: many providers put them only in userinfo).
  let userinfo: Claims = {};
  if (config.serverMetadata().userinfo_endpoint && tokens.access_token) {
    userinfo = (await oidc.fetchUserInfo(config, tokens.access_token, String(idClaims.sub))) as Claims;
  }
  return { ...userinfo, ...idClaims };
}

/** Failures of the exchange as `error=` codes. */
export function exchangeFailure(err: unknown): string {
  if (err instanceof oidc.ResponseBodyError) return 'token_exchange_failed'; // e.g. invalid_grant: expired or used code
  if (err instanceof oidc.ClientError) return 'id_token_invalid'; // nonce, signature, issuer, audience, expiry
  return 'provider_unreachable';
}
