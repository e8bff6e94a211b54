import type { FastifyInstance, FastifyRequest } from 'fastify';
import { badRequest, Messages } from './errors.ts';
import { readsBody } from './json-body.ts';

/**
 * HTML-form bodies (`multipart/form-data`, `application/x-www-form-urlencoded`) for the few routes that
 * take them (SAML provider create/update, the SAML ACS), which say so with `config.form: true`. Parsed
 * by the platform (undici's FormData through `Response.formData()`): no extra dependency. Every other
 * route answers such a body as any non-JSON body (json-body.ts). The body limit applies as to JSON.
 */
declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route reads an HTML form (request.body is a FormBody). */
    form?: boolean;
  }
}

export interface FormFile {
  filename: string;
  text: string;
}

/** A parsed form: values and files by part name, in order. Not a plain object, so no JSON schema mistakes it for one. */
export class FormBody {
  constructor(
    readonly values: Map<string, string[]>,
    readonly files: Map<string, FormFile[]>,
  ) {}

  /** Every part name given (values and files). */
  has(name: string): boolean {
    return this.values.has(name) || this.files.has(name);
  }
}

const FORM_TYPES = ['multipart/form-data', 'application/x-www-form-urlencoded'];

export function registerFormBodies(app: FastifyInstance): void {
  app.addContentTypeParser(FORM_TYPES, { parseAs: 'buffer' }, (request, body, done) => {
    const raw = body as Buffer;
    if (!(request.routeOptions.config as { form?: boolean } | undefined)?.form) {
      if (raw.length === 0 || !readsBody(request)) return done(null, undefined);
      return done(badRequest(Messages.contentType), undefined);
    }
    parseForm(request, raw).then((form) => done(null, form), () => done(badRequest('could not parse the form body'), undefined));
  });
}

async function parseForm(request: FastifyRequest, raw: Buffer): Promise<FormBody> {
  const type = String(request.headers['content-type']);
  const values = new Map<string, string[]>();
  const files = new Map<string, FormFile[]>();
  const add = <T>(map: Map<string, T[]>, key: string, value: T) => map.set(key, [...(map.get(key) ?? []), value]);
  if (/^application\/x-www-form-urlencoded/i.test(type)) {
    for (const [key, value] of new URLSearchParams(raw.toString('utf8'))) add(values, key, value);
    return new FormBody(values, files);
  }
  const form = await new Response(new Uint8Array(raw), { headers: { 'content-type': type } }).formData();
  for (const [key, value] of form as unknown as Iterable<[string, string | File]>) {
    if (typeof value === 'string') add(values, key, value);
    else add(files, key, { filename: value.name, text: await value.text() });
  }
  return new FormBody(values, files);
}
