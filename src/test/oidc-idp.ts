/**
 * A real OpenID provider (the `oidc-provider` package) on loopback, for the sign-in tests. The test
 * chooses who signs in next (`idp.nextAccount`); the login interaction completes at once.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair } from 'jose';
// @ts-expect-error oidc-provider ships no type declarations
import Provider from 'oidc-provider';

export interface TestAccount {
  sub: string;
  email?: string;
  email_verified?: boolean;
  given_name?: string;
  family_name?: string;
  roles?: string[];
}

export interface TestIdp {
  issuer: string;
  accounts: Map<string, TestAccount>;
  nextAccount: string;
  /** Lifetime of authorization codes, seconds. */
  codeTtl: number;
  close(): Promise<void>;
}

async function testSigningKey() {
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  return { ...(await exportJWK(privateKey)), alg: 'RS256', use: 'sig', kid: 'test' };
}

export async function startTestIdp(clientId: string, redirectUris: string[]): Promise<TestIdp> {
  const server: Server = createServer();
  // Scent's fetches keep connections to the provider alive: a 5 s server-side idle close racing a reused
  // connection (a slow machine between two steps of a sign-in) resets it. Keep them open for the test.
  server.keepAliveTimeout = 120_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const idp: TestIdp = {
    issuer,
    accounts: new Map(),
    nextAccount: '',
    codeTtl: 60,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
  const provider = new Provider(issuer, {
    clients: [{
      client_id: clientId, token_endpoint_auth_method: 'none', redirect_uris: redirectUris,
      grant_types: ['authorization_code'], response_types: ['code'],
    }],
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['given_name', 'family_name', 'roles'] },
    async findAccount(_ctx: unknown, id: string) {
      const account = idp.accounts.get(id);
      return account && { accountId: id, claims: async () => ({ ...account }) };
    },
    interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}` },
    // First-party test client: consent is implied.
    async loadExistingGrant(ctx: { oidc: { provider: any; client: { clientId: string }; session: { accountId: string } } }) {
      const grant = new ctx.oidc.provider.Grant({ clientId: ctx.oidc.client.clientId, accountId: ctx.oidc.session.accountId });
      grant.addOIDCScope('openid email profile');
      await grant.save();
      return grant;
    },
    ttl: {
      AuthorizationCode: () => idp.codeTtl, AccessToken: 300, IdToken: 300, Interaction: 300, Grant: 300, Session: 300,
    },
    cookies: { keys: ['scent-test-idp-cookie-key'] },
    jwks: { keys: [await testSigningKey()] },
    features: { devInteractions: { enabled: false } },
  });
  const callback = provider.callback();
  server.on('request', async (req, res) => {
    if (req.url?.startsWith('/interaction/')) {
      try {
        await provider.interactionDetails(req, res);
        await provider.interactionFinished(req, res, { login: { accountId: idp.nextAccount } }, { mergeWithLastSubmission: false });
      } catch (err) {
        res.statusCode = 500;
        res.end(String(err));
      }
      return;
    }
    callback(req, res);
  });
  return idp;
}

/**
 * A browser for the provider's side: follows redirects on the provider with its cookies until the
 * provider sends the browser back to `until` (Scent's callback), and returns that URL.
 */
export async function followProvider(start: string, until: string): Promise<URL> {
  const jar = new Map<string, string>();
  let url = new URL(start);
  for (let hop = 0; hop < 10; hop++) {
    if (url.href.startsWith(until)) return url;
    const res = await fetch(url, { redirect: 'manual', headers: { cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; ') } });
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(';');
      const eq = pair.indexOf('=');
      jar.set(pair.slice(0, eq), pair.slice(eq + 1));
    }
    const location = res.headers.get('location');
    if (!location) throw new Error(`provider stopped at ${url.href}: ${res.status} ${await res.text()}`);
    url = new URL(location, url);
  }
  throw new Error('too many redirects');
}
