/**
 * The typed client (scent/client) can sign requests with an API token using node:crypto. The
 * console never does: it signs in and sends its session as a bearer token. The build points
 * node:crypto here so the bundle carries no Node code; reaching this is a programming error.
 */
export interface Hmac {
  update(data: string | Uint8Array): Hmac;
  digest(): Uint8Array;
  digest(encoding: 'base64'): string;
}

export function createHmac(_algorithm: string, _key: string | Uint8Array): Hmac {
  throw new Error('API-token request signing is not available in the console (it uses a session)');
}
