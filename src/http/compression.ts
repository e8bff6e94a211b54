/**
 * HTTP compression as BloodHound CE does it (its global compression middleware), registered once
 * by buildApp.
 *
 * Requests: `Content-Encoding` (every value, split on `,`, trimmed) names how the body was encoded:
 * `gzip` / `x-gzip` (RFC 1952) and `deflate` (zlib, RFC 1950), case-insensitive. Any other coding
 * is a 415; a body whose header is not one of the named coding is a 400 (`gzip: invalid header`,
 * `zlib: invalid header`, as Go says); a body that is corrupt after its header is a 400
 * `could not decode payload`. Several codings are undone last-applied first (RFC 9110 §8.4).
 * Decoding is a preParsing hook registered after the signed-request one, so a signature covers the
 * bytes as sent. The route's bodyLimit counts DECODED bytes (a small gzip bomb is a 413, decoded no
 * further than the limit); Content-Length is checked against the bytes received (receivedEncodedLength).
 * An empty body stays empty whatever its label (Go would answer 400 `EOF` even for a GET).
 *
 * Responses: gzip when the joined `Accept-Encoding` contains `gzip` (no quality values, as
 * BloodHound), the status has a body, nothing set `content-encoding` already, and the body is a
 * stream (limit=0 answers) or at least 1 KiB. Smaller bodies stay identity: a deliberate difference
 * from BloodHound, which compresses everything; any client that accepts gzip accepts identity too.
 * Every eligible answer carries `Vary: Accept-Encoding`, compressed or not, for shared caches; a
 * strong ETag of a gzipped answer is made weak (`W/"..."`).
 * Per-request bodies and streams use level 1 (cheap); bodies that are kept and sent again use the
 * default level 6 and are compressed once:
 *  - `markKept(body)`: a Buffer the caller keeps and sends again as the same object (cached GET
 *    answers). Its gzip form is memoised in a WeakMap keyed by the Buffer, so it lives exactly as
 *    long as the kept answer.
 *  - `segmentedBody(parts)`: a body that is a per-request head followed by kept parts (the
 *    data-quality page). A gzip member is header + one raw DEFLATE stream + CRC-32 + ISIZE, and a
 *    raw DEFLATE stream may be cut into separately compressed pieces: every part but the last is
 *    deflated with Z_SYNC_FLUSH (non-final, byte aligned), the last one finally; a fresh compressor
 *    refers back only within its own data, so the pieces concatenate into one valid stream. The
 *    last part's deflate, when it is kept, is memoised; the head is deflated per request and the
 *    CRC-32 continued over the whole (0.13 ms for 0.5 MB).
 */
import { Transform, pipeline, type Readable } from 'node:stream';
import zlib from 'node:zlib';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, Messages } from './errors.ts';

export const MIN_COMPRESSED_BYTES = 1024;
/** Bodies from this size are compressed on the thread pool rather than on the event loop. */
const ASYNC_FROM = 64 * 1024;

interface KeptForms {
  gzip?: Buffer | Promise<Buffer>;
  /** Final raw DEFLATE of the part (segmented bodies). */
  raw?: Buffer;
}
const kept = new WeakMap<Buffer, KeptForms>();
const segments = new WeakMap<Buffer, Buffer[]>();

/** Declares that `body` is kept and sent again as this same object: compressed once, at level 6. */
export function markKept(body: Buffer): Buffer {
  if (!kept.has(body)) kept.set(body, {});
  return body;
}

/** The concatenation of `parts`, remembered as such so that its gzip form reuses kept parts. */
export function segmentedBody(parts: Buffer[]): Buffer {
  const body = Buffer.concat(parts);
  segments.set(body, parts);
  return body;
}

export function registerCompression(app: FastifyInstance): void {
  app.addHook('preParsing', (request, _reply, payload, done) => {
    const header = request.headers['content-encoding'];
    if (!header) return done(null, payload);
    const codings = (Array.isArray(header) ? header.join(',') : header).split(',').map((c) => c.trim());
    const unsupported = codings.find((c) => !CODINGS.has(c.toLowerCase()));
    if (unsupported !== undefined) return done(new ApiError(415, readerError(unsupported, 'content encoding is not supported')));
    done(null, decoded(payload, codings.reverse(), request.routeOptions.bodyLimit));
  });
  app.addHook('onSend', (request, reply, payload, done) => {
    const accept = request.headers['accept-encoding'];
    if (!eligible(request, reply, payload)) return done(null, payload);
    reply.header('vary', varyWith(reply.getHeader('vary')));
    if (accept === undefined || !(Array.isArray(accept) ? accept.join(',') : accept).includes('gzip')) return done(null, payload);
    reply.header('content-encoding', 'gzip');
    reply.removeHeader('content-length');
    // A strong ETag names one exact representation; the gzip one is another (RFC 9110 §8.8.1), so it
    // turns weak, as nginx does. If-None-Match compares weakly: revalidation keeps working either way.
    const etag = reply.getHeader('etag');
    if (typeof etag === 'string' && !etag.startsWith('W/')) reply.header('etag', `W/${etag}`);
    if (isStream(payload)) {
      const gz = zlib.createGzip({ level: 1 });
      pipeline(payload, gz, () => {}); // an error destroys gz, and Fastify sees it there
      return done(null, gz);
    }
    const out = gzipOf(payload as string | Buffer);
    if (Buffer.isBuffer(out)) return done(null, out);
    out.then((b) => done(null, b), (err: Error) => done(err));
  });
}

/* ---- responses ---- */

function isStream(payload: unknown): payload is Readable {
  return payload !== null && typeof payload === 'object' && typeof (payload as Readable).pipe === 'function';
}

/** Has a body worth compressing (cheapest tests first: most answers are small). */
function eligible(request: FastifyRequest, reply: FastifyReply, payload: unknown): boolean {
  if (typeof payload === 'string') {
    if (payload.length < MIN_COMPRESSED_BYTES && Buffer.byteLength(payload) < MIN_COMPRESSED_BYTES) return false;
  } else if (Buffer.isBuffer(payload)) {
    if (payload.length < MIN_COMPRESSED_BYTES) return false;
  } else if (!isStream(payload)) return false;
  const status = reply.statusCode;
  if (status === 204 || status === 304 || status < 200 || request.method === 'HEAD') return false;
  return reply.getHeader('content-encoding') === undefined;
}

function varyWith(current: unknown): string {
  const value = Array.isArray(current) ? current.join(', ') : typeof current === 'string' ? current : '';
  if (!value) return 'Accept-Encoding';
  return /(^|,)\s*(accept-encoding|\*)\s*(,|$)/i.test(value) ? value : `${value}, Accept-Encoding`;
}

function gzipOf(body: string | Buffer): Buffer | Promise<Buffer> {
  if (typeof body === 'string') return gzip(Buffer.from(body), 1);
  const parts = segments.get(body);
  if (parts) return segmentedGzip(parts, body.length);
  const forms = kept.get(body);
  if (!forms) return gzip(body, 1);
  if (!forms.gzip) {
    const pending = gzip(body, zlib.constants.Z_DEFAULT_COMPRESSION);
    forms.gzip = pending;
    if (!Buffer.isBuffer(pending)) pending.then((b) => (forms.gzip = b), () => delete forms.gzip);
  }
  return forms.gzip;
}

function gzip(body: Buffer, level: number): Buffer | Promise<Buffer> {
  if (body.length < ASYNC_FROM) return zlib.gzipSync(body, { level });
  return new Promise((resolve, reject) => zlib.gzip(body, { level }, (err, out) => (err ? reject(err) : resolve(out))));
}

/** Header of a gzip member: deflate, no flags, no mtime, OS unix (as zlib writes it). */
const GZIP_HEADER = Buffer.from([0x1f, 0x8b, 0x08, 0, 0, 0, 0, 0, 0, 0x03]);

function segmentedGzip(parts: Buffer[], size: number): Buffer {
  const pieces: Buffer[] = [GZIP_HEADER];
  let crc = 0;
  parts.forEach((part, i) => {
    const last = i === parts.length - 1;
    const forms = last ? kept.get(part) : undefined;
    if (forms) pieces.push((forms.raw ??= zlib.deflateRawSync(part)));
    else pieces.push(zlib.deflateRawSync(part, { level: 1, finishFlush: last ? zlib.constants.Z_FINISH : zlib.constants.Z_SYNC_FLUSH }));
    crc = zlib.crc32(part, crc);
  });
  const trailer = Buffer.alloc(8);
  trailer.writeUInt32LE(crc >>> 0, 0);
  trailer.writeUInt32LE(size % 2 ** 32, 4);
  pieces.push(trailer);
  return Buffer.concat(pieces);
}

/* ---- requests ---- */

interface Coding {
  /** Bytes needed to check the header, and the check (a Go reason, or null when valid). */
  headerBytes: number;
  check: (head: Buffer) => string | null;
  decoder: () => Transform;
  /** An empty stream of this coding: what the decoder is fed when the body is empty. */
  empty: Buffer;
}

const gzipCoding: Coding = {
  headerBytes: 10, // Go reads the whole fixed header before checking it
  check: (h) => (h[0] === 0x1f && h[1] === 0x8b && h[2] === 8 ? null : 'gzip: invalid header'),
  decoder: () => zlib.createGunzip(),
  empty: zlib.gzipSync(Buffer.alloc(0)),
};

const CODINGS = new Map<string, Coding>([
  ['gzip', gzipCoding],
  ['x-gzip', gzipCoding],
  ['deflate', {
    headerBytes: 2,
    check: (h) => {
      if ((h[0] & 0x0f) !== 8 || h[0] >> 4 > 7 || ((h[0] << 8) | h[1]) % 31 !== 0) return 'zlib: invalid header';
      return h[1] & 0x20 ? 'zlib: invalid dictionary' : null;
    },
    decoder: () => zlib.createInflate(),
    empty: zlib.deflateSync(Buffer.alloc(0)),
  }],
]);

function readerError(coding: string, reason: string): string {
  return `Error trying to read request: failed to create reader for ${coding} encoding: ${reason}`;
}

/**
 * payload → (header check → decoder) per coding → the limit. The returned stream reports the bytes
 * received so far as `receivedEncodedLength`; every failure ends it with an ApiError.
 */
function decoded(payload: Readable, codings: string[], limit: number): Readable {
  let received = 0;
  let produced = 0;
  const out = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      produced += chunk.length;
      if (produced > limit) return callback(new ApiError(413, Messages.tooLarge));
      callback(null, chunk);
    },
  });
  Object.defineProperty(out, 'receivedEncodedLength', { get: () => received });
  const stages = codings.flatMap((name, i) => {
    const coding = CODINGS.get(name.toLowerCase())!;
    return [headerCheck(name, coding, i === 0 ? (n) => (received += n) : () => {}), coding.decoder()];
  });
  const fail = (err: Error) => out.destroy(err instanceof ApiError ? err : zlibFailure(err));
  let source = payload;
  for (const stage of [...stages, out]) {
    if (stage !== out) stage.on('error', fail);
    source = source.pipe(stage);
  }
  payload.on('error', fail);
  out.on('error', () => {}); // whoever reads the body sees the error; nobody reading must not crash
  out.on('close', () => {
    payload.unpipe(stages[0]);
    for (const stage of stages) stage.destroy();
  });
  return out;
}

/** A zlib error is a corrupt body; anything else (the request aborted) is passed on as it is. */
function zlibFailure(err: Error & { code?: string }): Error {
  return typeof err.code === 'string' && err.code.startsWith('Z_') ? new ApiError(400, Messages.decodePayload) : err;
}

/** Passes the bytes on once the first ones are a valid header of the coding (Go's reader creation). */
function headerCheck(name: string, coding: Coding, count: (n: number) => void): Transform {
  let head: Buffer | null = Buffer.alloc(0);
  return new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      count(chunk.length);
      if (head === null) return callback(null, chunk);
      head = Buffer.concat([head, chunk]);
      if (head.length < coding.headerBytes) return callback();
      const bad = coding.check(head);
      if (bad) return callback(new ApiError(400, readerError(name, bad)));
      const all = head;
      head = null;
      callback(null, all);
    },
    flush(callback) {
      if (head === null) return callback();
      if (head.length > 0) return callback(new ApiError(400, readerError(name, 'unexpected EOF')));
      callback(null, coding.empty);
    },
  });
}
