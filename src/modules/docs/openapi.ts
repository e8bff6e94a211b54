/**
 * The served OpenAPI document, finished from what @fastify/swagger derives from the route schemas:
 * - every error status is a named response (components.responses) with what it means and an example
 *   envelope whose message is the server's own text (src/modules/docs/docs.test.ts asks the server for
 *   each one and compares);
 * - the statuses every route can answer are listed on every operation: 400 (a query parameter or the
 *   Prefer header), 401 on routes that need credentials, 500, 503 (database unreachable), 504 (deadline);
 * - success responses say what they are instead of "Default Response", and many carry an example: a real
 *   answer on the sample data (examples.ts, written by scripts/openapi-examples.ts), kept only while it is
 *   valid against the route's response schema (an answer that changed shape drops its stale example);
 * - header parameters: `Prefer` on every operation, `If-None-Match` where the route answers 304,
 *   `X-File-Upload-Name` on the file upload;
 * - the file upload's request body: JSON or a zip archive (binary), so the docs page offers a file picker;
 *   the SAML provider form (multipart, the metadata file) and the SAML ACS form likewise.
 */
import Ajv from 'ajv';
import { Messages } from '../../http/errors.ts';
import { UNLIMITED_WAIT_DISABLED } from '../../http/prefer.ts';
import { ACCEPTED_TYPES } from '../file-upload/file-upload.schema.ts';
import { EXAMPLES } from './examples.ts';

type Json = Record<string, unknown>;
interface Operation {
  parameters?: Json[];
  responses?: Record<string, Json>;
  requestBody?: Json;
  security?: unknown[];
}

const EXAMPLE_ID = '5f0c2a9e-3b1d-4e7a-9c55-0a1b2c3d4e5f';
const envelope = (status: number, message: string) => ({
  http_status: status,
  timestamp: '2026-11-24T10:15:18.281Z',
  request_id: EXAMPLE_ID,
  errors: [{ context: '', message }],
});

/** The named error responses: status → name, meaning, and an answer the server really gives. */
export const ERROR_RESPONSES: Record<string, { name: string; description: string; message: string }> = {
  400: {
    name: 'BadRequest',
    description: 'Bad request: a malformed path id, query parameter, Prefer header or body. One message per problem, naming it.',
    message: Messages.columnNotFilterable('nmae'),
  },
  401: { name: 'Unauthorized', description: 'No credentials, or credentials that are not (or no longer) valid.', message: Messages.authInvalid },
  403: { name: 'Forbidden', description: "Signed in, but without the route's permission (or the user is disabled).", message: Messages.notAuthorized },
  404: { name: 'NotFound', description: 'No such resource (or, on a collection-client route, the caller is not a client).', message: Messages.notFound },
  409: { name: 'Conflict', description: 'The change conflicts with what is stored (a duplicate name, a state that does not allow it).', message: 'sso provider name must be unique' },
  413: { name: 'PayloadTooLarge', description: 'The body is over the limit (--body-limit; uploads: --upload-limit).', message: Messages.tooLarge },
  415: { name: 'UnsupportedMediaType', description: 'The body is not of a type the route reads.', message: 'invalid content-type: [text/plain]; Content type must be application/json or application/zip' },
  429: { name: 'TooManyRequests', description: 'Over the rate limit (--rate-limit).', message: Messages.tooManyRequests },
  500: { name: 'InternalError', description: 'An unexpected failure; the log line with the same request id has the cause.', message: Messages.internal },
  503: { name: 'Unavailable', description: 'The database is unreachable; the server recovers on its own when it is back.', message: Messages.dbUnavailable },
  504: { name: 'TimedOut', description: 'The Prefer: wait deadline (default 30 s) passed before the work finished; the work was cancelled.', message: Messages.timedOut },
};

const SUCCESS: Record<string, string> = {
  200: 'OK',
  201: 'Created',
  202: 'Accepted',
  204: 'No Content',
  302: 'Found: a redirect (Location)',
  304: 'Not Modified: the If-None-Match ETag still matches; no body',
};

const PREFER = {
  name: 'Prefer',
  in: 'header',
  required: false,
  description:
    'RFC 7240 preferences; only `wait` is read: `wait=N` is the request deadline in seconds (default 30, `0` = default; ' +
    `504 when it passes). \`wait=-1\` removes it when the server allows that (otherwise 400 "${Messages.badPrefer(UNLIMITED_WAIT_DISABLED)}"). ` +
    'Other preferences are ignored. The applied value is echoed in Preference-Applied.',
  schema: { type: 'string', example: 'wait=30' },
};

const IF_NONE_MATCH = {
  name: 'If-None-Match',
  in: 'header',
  required: false,
  description: 'The ETag of an earlier answer: 304 without a body while the answer would be the same.',
  schema: { type: 'string', example: '"1f3a9c"' },
};

/** Header parameters a route reads beside Prefer (its schema cannot declare them without Fastify validating them). */
const HEADERS: Record<string, Json[]> = {
  'post /api/v2/file-upload/{file_upload_job_id}': [
    {
      name: 'X-File-Upload-Name',
      in: 'header',
      required: false,
      description: "The uploaded file's name, shown in the job's completed tasks (default UnknownFileName.json / .zip).",
      schema: { type: 'string', maxLength: 1000, example: 'corp-users.json' },
    },
  ],
};

/** Request bodies @fastify/swagger cannot derive: routes whose body is read raw (a file). */
const RAW_BODIES: Record<string, Json> = {
  'post /api/v2/file-upload/{file_upload_job_id}': {
    required: true,
    description:
      'One collected file, as the body: a SharpHound / AzureHound / OpenGraph JSON file, or a zip archive of them. ' +
      'On the docs page, pick the content type, then the file.',
    content: Object.fromEntries(
      ACCEPTED_TYPES.map((type) => [
        type,
        type === 'application/json'
          ? { schema: { type: 'object', description: 'a collector JSON file ({"meta": ..., "data": [...]})', additionalProperties: true } }
          : { schema: { type: 'string', format: 'binary', description: 'a zip archive of collector JSON files' } },
      ]),
    ),
  },
  'post /api/v2/saved-queries/import': {
    required: true,
    description: "BloodHound's saved-query export (JSON) or a zip archive of such files.",
    content: {
      'application/json': { schema: { type: 'object', additionalProperties: true } },
      'application/zip': { schema: { type: 'string', format: 'binary' } },
    },
  },
};

/** BloodHound's SAML provider form (create; on PATCH every part is optional). */
const samlForm = (required: string[], description?: string): Json => ({
  schema: {
    type: 'object',
    ...(required.length ? { required } : {}),
    ...(description ? { description } : {}),
    properties: {
      name: { type: 'string', description: 'provider name (unique; its slug names the SP URIs)' },
      metadata: { type: 'string', format: 'binary', description: "the IdP's SAML metadata XML file" },
      'config.auto_provision.enabled': { type: 'string', enum: ['true', 'false'], description: 'create users on their first sign-in' },
      'config.auto_provision.default_role_id': { type: 'string', description: 'role id for created users (an integer)' },
      'config.auto_provision.role_provision': { type: 'string', enum: ['true', 'false'], description: "take the role from the assertion's role attribute" },
    },
  },
});

/** Form bodies (routes that read an HTML form): the whole requestBody, or more content types beside a derived JSON one. */
const FORM_BODIES: Record<string, { replace?: Json; add?: Record<string, Json> }> = {
  'post /api/v2/sso-providers/saml': {
    replace: { required: true, content: { 'multipart/form-data': samlForm(['name', 'metadata', 'config.auto_provision.enabled']) } },
  },
  'patch /api/v2/sso-providers/{sso_provider_id}': {
    add: { 'multipart/form-data': samlForm([], 'for a SAML provider (an OIDC provider takes JSON)') },
  },
  'post /api/v2/sso/{slug}/callback': {
    replace: {
      required: true,
      description: "the IdP's HTTP-POST binding",
      content: { 'application/x-www-form-urlencoded': { schema: { type: 'object', required: ['SAMLResponse'], properties: { SAMLResponse: { type: 'string', description: 'base64 SAML Response' } } } } },
    },
  },
};

const isErrorSchema = (response: Json) => {
  const schema = (response.content as Record<string, { schema?: { $ref?: string } }> | undefined)?.['application/json']?.schema;
  return schema?.$ref === '#/components/schemas/ErrorResponse';
};

/** Validates a value against a response schema of `doc` (its `#/components/...` references included). */
function exampleChecker(doc: Json): (schema: unknown, value: unknown) => boolean {
  const ajv = new Ajv.default({ strict: false, validateFormats: false });
  ajv.addSchema({ $id: 'scent-openapi', components: doc.components });
  return (schema, value) => {
    if (schema === undefined) return false;
    const rebased = JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"scent-openapi#/components/')) as object;
    return ajv.validate(rebased, value) as boolean;
  };
}

export function finishOpenApi(doc: Json): Json {
  const components = (doc.components ??= {}) as Json;
  const valid = exampleChecker(doc);
  components.responses = Object.fromEntries(
    Object.entries(ERROR_RESPONSES).map(([status, r]) => [
      r.name,
      {
        description: r.description,
        content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorResponse' }, example: envelope(Number(status), r.message) } },
      },
    ]),
  );
  components.parameters = { Prefer: PREFER, IfNoneMatch: IF_NONE_MATCH };

  for (const [path, item] of Object.entries((doc.paths ?? {}) as Record<string, Record<string, Operation>>)) {
    for (const [method, op] of Object.entries(item)) {
      const responses = (op.responses ??= {});
      const isPublic = Array.isArray(op.security) && op.security.length === 0;
      const always = ['400', ...(isPublic ? [] : ['401']), '500', '503', '504'];
      for (const status of always) if (!(status in responses)) responses[status] = { $ref: '' };
      for (const [status, response] of Object.entries(responses)) {
        const named = ERROR_RESPONSES[status];
        if (named && (response.$ref !== undefined || isErrorSchema(response))) {
          responses[status] = { $ref: `#/components/responses/${named.name}` };
        } else {
          if (response.description === 'Default Response' || response.description === undefined) response.description = SUCCESS[status] ?? `HTTP ${status}`;
          const example = EXAMPLES[`${method} ${path} ${status}`];
          const json = (response.content as Record<string, Json> | undefined)?.['application/json'];
          if (example !== undefined && json && valid(json.schema, example)) json.example = example;
        }
      }
      const parameters = (op.parameters ??= []);
      parameters.push({ $ref: '#/components/parameters/Prefer' });
      if ('304' in responses) parameters.push({ $ref: '#/components/parameters/IfNoneMatch' });
      parameters.push(...(HEADERS[`${method} ${path}`] ?? []));
      const raw = RAW_BODIES[`${method} ${path}`];
      if (raw) op.requestBody = raw;
      const form = FORM_BODIES[`${method} ${path}`];
      if (form?.replace) op.requestBody = form.replace;
      if (form?.add) {
        const body = (op.requestBody ??= { content: {} }) as { content?: Record<string, Json> };
        Object.assign((body.content ??= {}), form.add);
      }
    }
  }
  return doc;
}
