/**
 * `scent/client`: a small typed client for Scent (and BloodHound's v2 API) that authenticates with
 * a bearer token or signs every request with an API token (`bhesignature`).
 *
 *   import { ScentClient } from 'scent/client';
 *   const bh = new ScentClient({ baseUrl: 'http://127.0.0.1:8080', credentials: { tokenId, tokenKey } });
 *   const { API } = await bh.version();
 */
export { ScentClient, ScentApiError, queryString, type ClientOptions, type Credentials } from './client.ts';
export { signRequest, signedHeaders, signatureDigester, formatRequestDate, HMAC_METHOD, type SignInput } from './signature.ts';
export { SIGNATURE_VECTORS, type SignatureVector } from './signature-vectors.ts';
export type * from './types.ts';
