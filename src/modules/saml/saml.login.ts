/**
 * SAML sign-in, Scent as the service provider, through `@node-saml/node-saml` (no hand-written
 * signature checks). Start: an AuthnRequest signed with Scent's SP key, sent by HTTP-Redirect when the
 * IdP offers it, else by an auto-submitting HTTP-POST form (as BloodHound). The ACS accepts a response
 * only when:
 *   - it has no DOCTYPE / entity declarations;
 *   - the Response or the Assertion is signed by a certificate of the provider's stored metadata (one
 *     assertion only: no wrapping), issued by the metadata's entity id;
 *   - the audience is this provider's SP entity id; the Response's Destination and the subject
 *     confirmation's Recipient are this provider's ACS;
 *   - Conditions and SubjectConfirmationData are within their time window (60 s skew);
 *   - it answers an AuthnRequest Scent made for this provider within 10 minutes, on any instance that
 *     shares the database, and no earlier response answered it (IdP-initiated logins are refused,
 *     unlike BloodHound);
 *   - its assertion id was never accepted before (on any instance).
 */
import { randomUUID } from 'node:crypto';
import type { CacheProvider, Profile } from '@node-saml/node-saml';

/** node-saml (and its XML stack, ~0.1 s to load) is loaded on the first SAML request, not at startup. */
let nodeSamlModule: typeof import('@node-saml/node-saml') | undefined;
async function nodeSaml() {
  return (nodeSamlModule ??= await import('@node-saml/node-saml'));
}
import type { Config } from '../../config.ts';
import type { Db } from '../../db/create-db.ts';
import type { UserRow } from '../../db/database.ts';
import { isUniqueViolation } from '../../db/errors.ts';
import { nowMicros } from '../../db/time.ts';
import { issueSession } from '../../auth/sessions.ts';
import { touchLastLogin } from '../users/users.repository.ts';
import { findUsersByEmail, provisionUser, roleIdExists, roleIdsByName } from '../oidc/oidc.repository.ts';
import { rolesFromClaim } from '../oidc/oidc.service.ts';
import type { SsoConfig } from '../sso-providers/sso-providers.schema.ts';
import { spKeyPair } from './saml.keys.ts';
import { hasDoctype, parseIdpMetadata, parseXml, type IdpMetadata } from './saml.metadata.ts';
import { consumeRequest, findRequest, findSamlBySlug, recordAssertion, saveRequest, type SamlProviderFull } from './saml.repository.ts';
import { spUris } from './saml.schema.ts';

/** A sign-in failure: `code` goes to the UI as `?error=<code>`, `reason` to the log and the audit entry. */
export class SamlFailure extends Error {
  constructor(readonly code: string, readonly reason: string = code) {
    super(reason);
  }
}

export const REQUEST_TTL_SECONDS = 600;
export const CLOCK_SKEW_MS = 60_000;
const EMAIL_FORMAT = 'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress';
const DEFAULT_PRINCIPAL_ATTRIBUTES = ['urn:oid:0.9.2342.19200300.100.1.3', 'http://schemas.xmlsoap.org/ws/2005/05/identity/claims/emailaddress'];
export const ROLE_ATTRIBUTE = 'http://schemas.microsoft.com/ws/2008/06/identity/claims/role';
const GIVEN_NAME = 'http://schemas.xmlsoap.org/ws/2005/05/identity/claims/givenname';
const SURNAME = 'http://schemas.xmlsoap.org/ws/2005/05/identity/claims/surname';

/** node-saml's request-id cache, kept in the database (shared by every instance); the ACS takes the request itself. */
function requestStore(db: Db, ssoProviderId: number): CacheProvider {
  return {
    async saveAsync(key, value) {
      await saveRequest(db.kysely, key, ssoProviderId, REQUEST_TTL_SECONDS);
      return { value, createdAt: Date.now() };
    },
    async getAsync(key) {
      const row = await findRequest(db.kysely, key);
      return row ? new Date(row.created_at / 1000).toISOString() : null;
    },
    removeAsync: async (key) => key,
  };
}

async function client(db: Db, config: Config, found: SamlProviderFull, meta: IdpMetadata, binding: 'HTTP-Redirect' | 'HTTP-POST') {
  const keys = await spKeyPair(db, config);
  const sp = spUris(config.rootUrl, found.provider.slug);
  const { SAML, ValidateInResponseTo } = await nodeSaml();
  return new SAML({
    issuer: sp.issuer,
    callbackUrl: sp.acs,
    audience: sp.issuer,
    idpCert: meta.certificates,
    idpIssuer: meta.entityId,
    entryPoint: binding === 'HTTP-Redirect' ? meta.ssoRedirectUrl! : meta.ssoPostUrl,
    authnRequestBinding: binding,
    skipRequestCompression: binding === 'HTTP-POST', // the POST binding carries the request base64 only, not deflated
    privateKey: keys.key,
    publicCert: keys.cert,
    signatureAlgorithm: 'sha256',
    digestAlgorithm: 'sha256',
    identifierFormat: EMAIL_FORMAT,
    disableRequestedAuthnContext: true,
    wantAuthnResponseSigned: false, // the response OR the assertion must be signed (node-saml requires one)
    wantAssertionsSigned: false,
    validateInResponseTo: ValidateInResponseTo.always,
    requestIdExpirationPeriodMs: REQUEST_TTL_SECONDS * 1000,
    acceptedClockSkewMs: CLOCK_SKEW_MS,
    cacheProvider: requestStore(db, found.provider.id),
    generateUniqueId: () => `_${randomUUID()}`,
  });
}

async function providerOrFail(db: Db, slug: string) {
  const found = await findSamlBySlug(db.kysely, slug);
  if (!found) throw new SamlFailure('provider_not_found');
  try {
    return { found, meta: parseIdpMetadata(found.saml.metadata) };
  } catch (err) {
    throw new SamlFailure('provider_misconfigured', `stored metadata no longer reads: ${(err as Error).message}`);
  }
}

/** Starts a sign-in: a redirect URL (HTTP-Redirect) or an auto-submitting form page (HTTP-POST). */
export async function startSamlLogin(db: Db, config: Config, slug: string): Promise<{ redirect: string } | { html: string }> {
  const { found, meta } = await providerOrFail(db, slug);
  if (meta.ssoRedirectUrl) {
    return { redirect: await (await client(db, config, found, meta, 'HTTP-Redirect')).getAuthorizeUrlAsync('', undefined, {}) };
  }
  return { html: await (await client(db, config, found, meta, 'HTTP-POST')).getAuthorizeFormAsync('') };
}

export async function spMetadata(db: Db, config: Config, slug: string): Promise<string | undefined> {
  const found = await findSamlBySlug(db.kysely, slug);
  if (!found) return undefined;
  const keys = await spKeyPair(db, config);
  const sp = spUris(config.rootUrl, slug);
  const { generateServiceProviderMetadata } = await nodeSaml();
  return generateServiceProviderMetadata({
    issuer: sp.issuer, callbackUrl: sp.acs, identifierFormat: EMAIL_FORMAT, publicCerts: keys.cert, privateKey: keys.key,
    signatureAlgorithm: 'sha256', wantAssertionsSigned: false, // AuthnRequestsSigned="true" with the signing certificate
  });
}

/** The checks node-saml leaves to its caller: Destination, Recipient, the (signed) assertion's Issuer, its id and lifetime. */
function checkAddressing(response: Element, assertionXml: string, acs: string, expectedIssuer: string) {
  const destination = response.getAttribute('Destination');
  if (destination !== acs) throw new SamlFailure('saml_response_invalid', `Destination is not this provider's ACS: ${destination ?? '(none)'}`);
  const assertion = (parseXml(assertionXml) as unknown as { documentElement: Element }).documentElement;
  const confirmations = Array.from(assertion.getElementsByTagNameNS('urn:oasis:names:tc:SAML:2.0:assertion', 'SubjectConfirmationData'));
  const recipients = confirmations.map((c) => c.getAttribute('Recipient'));
  if (!recipients.length || recipients.some((r) => r !== acs)) {
    throw new SamlFailure('saml_response_invalid', `Recipient is not this provider's ACS: ${recipients.join(', ') || '(none)'}`);
  }
  const issuer = Array.from(assertion.getElementsByTagNameNS('urn:oasis:names:tc:SAML:2.0:assertion', 'Issuer'))[0]?.textContent?.trim();
  if (issuer !== expectedIssuer) throw new SamlFailure('saml_response_invalid', `Unknown SAML issuer. Expected: ${expectedIssuer} Received: ${issuer ?? '(none)'}`);
  const id = assertion.getAttribute('ID');
  if (!id) throw new SamlFailure('saml_response_invalid', 'the assertion has no ID');
  const ends = [
    ...Array.from(assertion.getElementsByTagNameNS('urn:oasis:names:tc:SAML:2.0:assertion', 'Conditions')),
    ...confirmations,
  ].map((e) => Date.parse(e.getAttribute('NotOnOrAfter') ?? '')).filter((n) => Number.isFinite(n));
  // Kept until it could no longer pass the time checks, and at least as long as the request it answers.
  const until = Math.max(...ends, Date.now() + REQUEST_TTL_SECONDS * 1000) + CLOCK_SKEW_MS;
  return { assertionId: id, keepUntil: until * 1000 };
}

function failureOf(err: unknown): SamlFailure {
  if (err instanceof SamlFailure) return err;
  const message = err instanceof Error ? err.message : String(err);
  // node-saml is loaded whenever one of its errors exists
  if (nodeSamlModule && err instanceof nodeSamlModule.SamlStatusError) return new SamlFailure('provider_error', message); // the IdP refused (e.g. the user cancelled)
  if (/InResponseTo/.test(message)) return new SamlFailure('invalid_state', message);
  return new SamlFailure('saml_response_invalid', message);
}

/**
 * The ACS: validates the POSTed SAMLResponse and returns a session token. `transact` runs the database
 * change (assertion recorded, request taken, user found or provisioned, session) as one unit.
 */
export async function finishSamlLogin(
  db: Db,
  config: Config,
  slug: string,
  samlResponse: string | undefined,
  transact: <T>(change: (db: Db) => Promise<T>) => Promise<T> = (change) => change(db),
  onUser: (user: UserRow) => void = () => {},
): Promise<string> {
  const { found, meta } = await providerOrFail(db, slug);
  if (!samlResponse) throw new SamlFailure('saml_response_invalid', 'no SAMLResponse in the form');
  const xml = Buffer.from(samlResponse, 'base64').toString('utf8');
  if (hasDoctype(xml)) throw new SamlFailure('saml_response_invalid', 'XML with a DOCTYPE or entity declarations is not accepted');
  let response: Element;
  try {
    response = (parseXml(xml) as unknown as { documentElement: Element }).documentElement;
  } catch {
    throw new SamlFailure('saml_response_invalid', 'the SAMLResponse is not well-formed XML');
  }
  if (response.localName !== 'Response' || response.namespaceURI !== 'urn:oasis:names:tc:SAML:2.0:protocol') {
    throw new SamlFailure('saml_response_invalid', 'the SAMLResponse is not a SAML 2.0 Response');
  }
  let profile: Profile;
  let checked: { assertionId: string; keepUntil: number };
  try {
    const saml = await client(db, config, found, meta, 'HTTP-POST');
    const result = await saml.validatePostResponseAsync({ SAMLResponse: samlResponse });
    if (!result.profile) throw new SamlFailure('saml_response_invalid', 'the response carries no assertion');
    profile = result.profile;
    checked = checkAddressing(response, profile.getAssertionXml!(), spUris(config.rootUrl, slug).acs, meta.entityId);
  } catch (err) {
    throw failureOf(err);
  }
  const requestId = String(profile.inResponseTo ?? '');
  return transact(async (tx) => {
    if (!(await recordAssertion(tx.kysely, meta.entityId, checked.assertionId, checked.keepUntil))) {
      throw new SamlFailure('assertion_replayed', `assertion ${checked.assertionId} was accepted before`);
    }
    if (!(await consumeRequest(tx.kysely, requestId, found.provider.id))) {
      throw new SamlFailure('invalid_state', `request ${requestId} was answered before or is not this provider's`);
    }
    const user = await resolveUser(tx, found, profile);
    onUser(user);
    const session = await issueSession(tx, config, { userId: user.id }, config.sessionTtlSeconds, 'saml');
    await touchLastLogin(tx.kysely, user.id);
    return session.token;
  });
}

/** The first value of an attribute (values typed xs:string are plain strings in node-saml's profile). */
function attribute(profile: Profile, name: string): string | undefined {
  const raw = (profile.attributes as Record<string, unknown> | undefined)?.[name];
  const values = (Array.isArray(raw) ? raw : [raw]).filter((v): v is string => typeof v === 'string' && v.trim() !== '');
  return values[0]?.trim();
}

function attributeValues(profile: Profile, name: string): string[] {
  const raw = (profile.attributes as Record<string, unknown> | undefined)?.[name];
  return (Array.isArray(raw) ? raw : [raw]).filter((v): v is string => typeof v === 'string');
}

/** The principal (an email): the provider's mapped attributes, else BloodHound's two defaults, else an email-format NameID. */
export function principalOf(profile: Profile, mappings: string[] | null): string | undefined {
  for (const name of mappings?.length ? mappings : DEFAULT_PRINCIPAL_ATTRIBUTES) {
    const value = attribute(profile, name);
    if (value) return value;
  }
  return profile.nameIDFormat === EMAIL_FORMAT && profile.nameID ? profile.nameID.trim() : undefined;
}

async function resolveUser(db: Db, found: SamlProviderFull, profile: Profile): Promise<UserRow> {
  const mappings = found.saml.principal_attribute_mappings ? (JSON.parse(found.saml.principal_attribute_mappings) as string[]) : null;
  const email = principalOf(profile, mappings);
  if (!email) throw new SamlFailure('missing_email', 'Invalid assertion: no valid email address found');
  const { auto_provision: ap } = JSON.parse(found.provider.config) as SsoConfig;
  const existing = await findUsersByEmail(db.kysely, email);
  const user = existing.find((u) => u.sso_provider_id === found.provider.id) ?? existing[0];
  if (user) {
    if (user.sso_provider_id !== found.provider.id) throw new SamlFailure('user_not_linked');
    if (user.is_disabled) throw new SamlFailure('user_disabled');
    if (user.saml_provider_id !== found.saml.id) {
      await db.kysely.updateTable('users').set({ saml_provider_id: found.saml.id, updated_at: nowMicros() }).where('id', '=', user.id).execute();
    }
    return { ...user, saml_provider_id: found.saml.id };
  }
  if (!ap.enabled) throw new SamlFailure('user_not_found');
  // BloodHound: exactly one valid role from the role attribute, otherwise the default role.
  const claimed = ap.role_provision ? rolesFromClaim(attributeValues(profile, ROLE_ATTRIBUTE), await roleIdsByName(db.kysely)) : [];
  const roleId = claimed.length === 1 ? claimed[0] : ap.default_role_id;
  if (!(await roleIdExists(db.kysely, roleId))) throw new SamlFailure('role_invalid');
  try {
    const created = await provisionUser(db.kysely, {
      email, firstName: attribute(profile, GIVEN_NAME) ?? email, lastName: attribute(profile, SURNAME) ?? 'Last name not found',
      ssoProviderId: found.provider.id,
    }, [roleId]);
    await db.kysely.updateTable('users').set({ saml_provider_id: found.saml.id }).where('id', '=', created.id).execute();
    return { ...created, saml_provider_id: found.saml.id };
  } catch (err) {
    if (isUniqueViolation(err)) throw new SamlFailure('user_conflict'); // principal name taken by another user
    throw err;
  }
}
