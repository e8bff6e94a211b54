import { timingSafeEqual, type Hmac } from 'node:crypto';
import { Transform } from 'node:stream';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { signatureDigester } from '../client/signature.ts';
import { parseRfc3339 } from '../db/time.ts';
import { badRequest, unauthorized } from '../http/errors.ts';
import { findToken, touchToken } from '../modules/tokens/tokens.repository.ts';
import { registerAuthScheme } from './guard.ts';
import type { Principal } from './principal.ts';
import { loadUserPrincipal } from './sessions.ts';
import { openTokenKey } from './token-keys.ts';

/**
 * `Authorization: bhesignature <token id>` + `RequestDate` + `Signature` (BloodHound's signed
 * requests; algorithm in client/signature.ts). The guard (onRequest) checks the headers, the token,
 * the clock window and the user, and starts the HMAC chain over METHOD + request.raw.url + date.
 * The body link is fed while the body streams (preParsing tee) and compared when it ends; a
 * request whose body was not read (GET, empty body) is compared in preValidation with no body.
 * Nothing reaches a handler before the comparison, except a body that a handler itself streams:
 * then the stream fails with the 401 at its end.
 */
const MAX_SKEW_MICROS = 3600 * 1_000_000;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const BODYLESS = new Set(['GET', 'HEAD', 'TRACE']);
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

interface SignedRequest {
  tokenId: string;
  expected: Buffer;
  digester: Hmac;
  bytes: number;
  /** null until the body link is finished. */
  ok: boolean | null;
}

declare module 'fastify' {
  interface FastifyRequest {
    signedRequest: SignedRequest | null;
  }
}

function finish(signed: SignedRequest): boolean {
  if (signed.ok === null) {
    const actual = signed.digester.digest();
    signed.ok = actual.length === signed.expected.length && timingSafeEqual(actual, signed.expected);
  }
  return signed.ok;
}

function header(request: FastifyRequest, name: string): string {
  const value = request.headers[name];
  return (Array.isArray(value) ? value[0] : value ?? '').trim();
}

async function bheSignature(request: FastifyRequest, credentials: string): Promise<Principal> {
  const tokenId = credentials.trim();
  if (!UUID.test(tokenId)) throw badRequest('Token ID is malformed.');
  const rawDate = header(request, 'requestdate');
  if (!rawDate) throw badRequest('no request date header');
  const date = parseRfc3339(rawDate);
  if (!date || rawDate[10] !== 'T') throw badRequest('malformed request date');
  const signature = header(request, 'signature');
  if (!signature) throw badRequest('no signature header');
  if (!BASE64.test(signature)) throw badRequest('malformed signature header');

  const { db, config } = request.server;
  const token = await findToken(db.kysely, tokenId.toLowerCase());
  if (!token) throw unauthorized();
  if (Math.abs(Date.now() * 1000 - date.micros) > MAX_SKEW_MICROS) throw unauthorized();
  // As BloodHound: a disabled owner answers 403 (user is disabled) before the digest is checked.
  const principal = await loadUserPrincipal(db.kysely, token.id, token.user_id);
  const key = await openTokenKey(db, config, token.id, token.key_sealed);
  if (key === null) throw unauthorized();
  request.signedRequest = {
    tokenId: token.id,
    expected: Buffer.from(signature, 'base64'),
    digester: signatureDigester(key, request.raw.method ?? '', request.raw.url ?? '', rawDate),
    bytes: 0,
    ok: null,
  };
  return principal;
}

/** The signed-request scheme and its two body hooks. Called once per app by buildApp. */
export function registerSignedRequests(app: FastifyInstance): void {
  registerAuthScheme('bhesignature', bheSignature);
  app.decorateRequest('signedRequest', null);

  app.addHook('preParsing', (request, _reply, payload, done) => {
    const signed = request.signedRequest;
    if (!signed || BODYLESS.has(request.raw.method ?? '')) return done(null, payload);
    const tee = new Transform({
      transform(chunk: Buffer, _encoding, callback) {
        signed.digester.update(chunk);
        signed.bytes += chunk.length;
        (tee as unknown as { receivedEncodedLength: number }).receivedEncodedLength =
          (payload as unknown as { receivedEncodedLength?: number }).receivedEncodedLength ?? signed.bytes;
        callback(null, chunk);
      },
      flush(callback) {
        if (!finish(signed)) return callback(unauthorized());
        touchToken(request.server.db.kysely, signed.tokenId).then(() => callback(), callback);
      },
    });
    tee.on('error', () => {}); // whoever reads the body sees the error; nobody reading must not crash
    payload.on('error', (err) => tee.destroy(err));
    done(null, payload.pipe(tee));
  });

  app.addHook('preValidation', (request, _reply, done) => {
    const signed = request.signedRequest;
    if (!signed || signed.ok === true) return done();
    if (signed.ok === false) return done(unauthorized());
    if (signed.bytes > 0 || request.body !== undefined) return done(); // a handler streams the body; flush decides
    if (!finish(signed)) return done(unauthorized());
    touchToken(request.server.db.kysely, signed.tokenId).then(() => done(), done);
  });
}

/** OpenAPI description of the scheme (components.securitySchemes.bheSignature). */
export const signatureSecurityScheme = {
  type: 'apiKey',
  in: 'header',
  name: 'Authorization',
  description: '`bhesignature <API token id>` with `RequestDate` (RFC 3339) and `Signature` (base64 HMAC-SHA256 chain over '
    + 'METHOD + request target, the date to the hour, and the body; see README "Signed requests").',
} as const;
