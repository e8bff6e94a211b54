import { createHmac, type Hmac } from 'node:crypto';

/**
 * BloodHound's request signature (`Authorization: bhesignature <token id>`), used by the server to
 * verify and by the client to sign. Three chained HMAC-SHA256 links:
 *   k1  = HMAC(token key,  METHOD + request target)   target = path AND query string, as sent
 *   k2  = HMAC(k1,         first 13 chars of RequestDate)   "YYYY-MM-DDTHH", the date to the hour
 *   sig = HMAC(k2,         body bytes)                  nothing written for an empty body
 * `Signature` = standard base64 of sig. The token key is used as the bytes of its UTF-8 text.
 */
export const HMAC_METHOD = 'hmac-sha2-256';

/** The last link of the chain, ready to be fed the body (in as many chunks as it arrives). */
export function signatureDigester(key: string, method: string, target: string, requestDate: string): Hmac {
  const operation = createHmac('sha256', key).update(method + target).digest();
  const date = createHmac('sha256', operation).update(requestDate.slice(0, 13)).digest();
  return createHmac('sha256', date);
}

export interface SignInput {
  key: string;
  method: string;
  /** Path and query string exactly as they go on the request line, e.g. `/api/v2/x?name=a%20b`. */
  target: string;
  /** RFC 3339, e.g. `2026-01-02T03:04:05Z`. */
  requestDate: string;
  body?: string | Uint8Array;
}

/** The `Signature` header value for a request. */
export function signRequest({ key, method, target, requestDate, body }: SignInput): string {
  const digester = signatureDigester(key, method, target, requestDate);
  if (body !== undefined && body.length > 0) digester.update(body);
  return digester.digest('base64');
}

/** Now as RFC 3339 in UTC, whole seconds (`2026-01-02T03:04:05Z`). */
export function formatRequestDate(now: Date = new Date()): string {
  return `${now.toISOString().slice(0, 19)}Z`;
}

/** The three headers of a signed request. */
export function signedHeaders(tokenId: string, input: Omit<SignInput, 'requestDate'> & { requestDate?: string }) {
  const requestDate = input.requestDate ?? formatRequestDate();
  return {
    Authorization: `bhesignature ${tokenId}`,
    RequestDate: requestDate,
    Signature: signRequest({ ...input, requestDate }),
  };
}
