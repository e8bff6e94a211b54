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
 *  - `sendSegmented(request, reply, [head, kept])`: a body that is a small per-request head followed
 *    by a kept part (the data-quality page: `start`/`end`, then up to 0.5 MB kept). A gzip member is
 *    header + one raw DEFLATE stream + CRC-32 + ISIZE, and a raw DEFLATE stream may be a series of
 *    blocks made separately: the head goes in STORED blocks (5 bytes of framing, no compressor), the
 *    kept part's final DEFLATE follows (made once, memoised: a fresh compressor refers back only
 *    within its own data). The CRC-32 of the whole is the head's CRC carried over the kept part's
 *    length by a memoised GF(2) operator (zlib's crc32_combine) xor the kept part's CRC: a request
 *    costs the head's bytes, not the body's (the identity concatenation is not even made).
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
  /** As the tail of a segmented body: its final raw DEFLATE, CRC-32 and length operator. */
  tail?: { raw: Buffer; crc: number; shift: Uint32Array };
}
const kept = new WeakMap<Buffer, KeptForms>();

/** Declares that `body` is kept and sent again as this same object: compressed once, at level 6. */
export function markKept(body: Buffer): Buffer {
  if (!kept.has(body)) kept.set(body, {});
  return body;
}

/**
 * Sends `head` + `tail` (tail kept: see markKept) as the answer; gzipped, for a client that accepts
 * it, from the tail's memoised forms (see the top of this file). The content type is the caller's.
 */
export function sendSegmented(request: FastifyRequest, reply: FastifyReply, head: Buffer, tail: Buffer): FastifyReply {
  const size = head.length + tail.length;
  const forms = kept.get(tail);
  if (!forms || size < MIN_COMPRESSED_BYTES || !acceptsGzip(request)) return reply.send(Buffer.concat([head, tail]));
  reply.header('vary', varyWith(reply.getHeader('vary'))).header('content-encoding', 'gzip');
  return reply.send(segmentedGzip(head, forms, tail, size));
}

export function acceptsGzip(request: FastifyRequest): boolean {
  const accept = request.headers['accept-encoding'];
  return accept !== undefined && (Array.isArray(accept) ? accept.join(',') : accept).includes('gzip');
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
    if (!eligible(request, reply, payload)) return done(null, payload);
    reply.header('vary', varyWith(reply.getHeader('vary')));
    if (!acceptsGzip(request)) return done(null, payload);
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

function segmentedGzip(head: Buffer, forms: KeptForms, tail: Buffer, size: number): Buffer {
  forms.tail ??= { raw: zlib.deflateRawSync(tail), crc: zlib.crc32(tail), shift: crc32ShiftOperator(tail.length) };
  const { raw, crc, shift } = forms.tail;
  const pieces: Buffer[] = [GZIP_HEADER];
  for (let at = 0; at < head.length; at += 0xffff) {
    const chunk = head.subarray(at, at + 0xffff);
    const frame = Buffer.alloc(5); // BFINAL 0, BTYPE 00 (stored), LEN, NLEN: starts and ends byte-aligned
    frame.writeUInt16LE(chunk.length, 1);
    frame.writeUInt16LE(~chunk.length & 0xffff, 3);
    pieces.push(frame, chunk);
  }
  pieces.push(raw);
  const trailer = Buffer.alloc(8);
  trailer.writeUInt32LE((gf2Times(shift, zlib.crc32(head)) ^ crc) >>> 0, 0);
  trailer.writeUInt32LE(size % 2 ** 32, 4);
  pieces.push(trailer);
  return Buffer.concat(pieces);
}

/*
 * CRC-32 over a concatenation (zlib's crc32_combine, precomputed per length): appending n bytes maps
 * the CRC of A to a linear function of it over GF(2), a 32×32 bit matrix (one column per bit); then
 * crc(A ‖ B) = M_n · crc(A) xor crc(B), n = |B|.
 */
function gf2Times(matrix: Uint32Array, vector: number): number {
  let sum = 0;
  for (let i = 0, v = vector >>> 0; v !== 0; i++, v >>>= 1) if (v & 1) sum ^= matrix[i];
  return sum >>> 0;
}

function gf2Compose(a: Uint32Array, b: Uint32Array): Uint32Array {
  const out = new Uint32Array(32);
  for (let n = 0; n < 32; n++) out[n] = gf2Times(a, b[n]);
  return out;
}

/** The matrix that carries a CRC-32 over `length` more bytes. */
export function crc32ShiftOperator(length: number): Uint32Array {
  let step: Uint32Array = new Uint32Array(32); // one more zero bit: the reflected polynomial's shift register
  step[0] = 0xedb88320;
  for (let n = 1; n < 32; n++) step[n] = 1 << (n - 1);
  for (let i = 0; i < 3; i++) step = gf2Compose(step, step); // one zero byte
  let result: Uint32Array = new Uint32Array(32);
  for (let n = 0; n < 32; n++) result[n] = (1 << n) >>> 0;
  for (let n = length; n > 0; n = Math.floor(n / 2)) {
    if (n % 2 === 1) result = gf2Compose(step, result);
    step = gf2Compose(step, step);
  }
  return result;
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
