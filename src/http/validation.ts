import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';
import { ApiError, Messages } from './errors.ts';

/**
 * Validation per request part:
 * - body: JSON Schema (TypeBox) through Ajv, strict types (no coercion), every error reported;
 * - params: integer path ids must be int32 decimals (400 `id is malformed`), converted to numbers;
 * - querystring: validated by the shared query engine (http/query) from the route's declaration;
 *   the schema only documents it.
 */
const ajv = new Ajv.default({ allErrors: true, coerceTypes: false, useDefaults: true, removeAdditional: false, strict: false });
addFormats.default(ajv);
// An issuer / IdP URL: absolute https, or plain http only on loopback (development and tests): a sign-in whose
// discovery and tokens travel unencrypted over a network is refused, as docs/security.md says.
const LOOPBACK = /^(localhost|127(?:\.\d{1,3}){3}|\[::1\])$/i;
ajv.addFormat('http-url', (value: string) => {
  try {
    const url = new URL(value);
    if (url.hostname === '') return false;
    return url.protocol === 'https:' || (url.protocol === 'http:' && LOOPBACK.test(url.hostname));
  } catch {
    return false;
  }
});

// A graph object id: a SID, a GUID, a domain-prefixed well-known SID (ESC1.LOCAL-S-1-5-32-544). Never
// spaces or angle brackets, so a documentation placeholder such as "<OU objectid>" is refused, not stored.
ajv.addFormat('object-id', /^[A-Za-z0-9][A-Za-z0-9._-]*$/);

/** How a failing `format` reads in an error message. */
export const FORMAT_NAMES: Record<string, string> = {
  'http-url': 'an absolute https URL (http only on loopback: localhost, 127.0.0.1, [::1])',
  uuid: 'a UUID',
  'date-time': 'an RFC-3339 date-time',
  'object-id': 'an object id (a SID or GUID such as S-1-5-21-…-512 or 1AEEE963-F4C8-49DA-BBE6-A6107F42CAF0)',
};

const INT32 = /^-?\d{1,10}$/;

interface ObjectSchema {
  properties?: Record<string, { type?: string }>;
}

export const validatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) => {
  if (httpPart === 'querystring' || httpPart === 'headers') return () => true;
  if (httpPart === 'params') {
    const integers = Object.entries((schema as ObjectSchema).properties ?? {})
      .filter(([, s]) => s.type === 'integer')
      .map(([name]) => name);
    return (params: unknown) => {
      const p = params as Record<string, unknown>;
      // No stored id contains NUL (PostgreSQL cannot even hold one): such an id is malformed.
      for (const value of Object.values(p)) {
        if (typeof value === 'string' && value.includes('\u0000')) return { error: new ApiError(400, Messages.idMalformed) };
      }
      for (const name of integers) {
        const raw = String(p[name]);
        const value = Number(raw);
        if (!INT32.test(raw) || value > 2147483647 || value < -2147483648) {
          return { error: new ApiError(400, Messages.idMalformed) };
        }
        p[name] = value;
      }
      return { value: p };
    };
  }
  return ajv.compile(schema as object) as ReturnType<FastifySchemaCompiler<unknown>>;
};
