/**
 * Scent's own SAML service-provider key pair: it signs AuthnRequests and is published in the SP
 * metadata and at GET /api/v2/sso-providers/{id}/signing-certificate (one for every provider, as
 * BloodHound's `saml.sp_cert`). From configuration (--saml-sp-cert / --saml-sp-key), otherwise an RSA
 * 2048 key and a self-signed certificate generated once and kept in `settings`, so every instance that
 * shares the database publishes the same certificate.
 */
import { createHash, createPrivateKey, generateKeyPairSync, randomBytes, sign, X509Certificate } from 'node:crypto';
import type { Config } from '../../config.ts';
import type { Db } from '../../db/create-db.ts';
import { rootOf } from '../../db/joined-transaction.ts';
import { nowMicros } from '../../db/time.ts';

export interface SpKeyPair {
  /** PEM */
  cert: string;
  /** PEM (PKCS#8) */
  key: string;
}

const SETTING_KEY = 'saml_sp_key_pair';
const cache = new WeakMap<Db, SpKeyPair>();

export async function spKeyPair(db: Db, config: Config): Promise<SpKeyPair> {
  if (config.samlSpCert && config.samlSpKey) return { cert: config.samlSpCert, key: config.samlSpKey };
  const hit = cache.get(rootOf(db));
  if (hit) return hit;
  await db.kysely.insertInto('settings')
    .values({ key: SETTING_KEY, value: JSON.stringify(generateSpKeyPair()), updated_at: nowMicros() })
    .onConflict((oc) => oc.column('key').doNothing())
    .execute();
  const row = await db.kysely.selectFrom('settings').select('value').where('key', '=', SETTING_KEY).executeTakeFirstOrThrow();
  const pair = JSON.parse(row.value) as SpKeyPair;
  cache.set(rootOf(db), pair);
  return pair;
}

/** An RSA 2048 key and a self-signed X.509 v3 certificate (sha256WithRSAEncryption, 10 years). */
export function generateSpKeyPair(commonName = 'Scent SAML service provider'): SpKeyPair {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const now = new Date();
  const until = new Date(now);
  until.setUTCFullYear(now.getUTCFullYear() + 10);
  const name = seq(set(seq(oid('2.5.4.3'), tlv(0x0c, Buffer.from(commonName, 'utf8')))));
  const algorithm = seq(oid('1.2.840.113549.1.1.11'), tlv(0x05, Buffer.alloc(0)));
  const serial = randomBytes(16);
  serial[0] = (serial[0] & 0x3f) | 0x40; // positive, and no leading zero byte (DER: minimal INTEGER)
  const tbs = seq(
    tlv(0xa0, integer(Buffer.from([2]))), // v3
    integer(serial),
    algorithm,
    name,
    seq(time(now), time(until)),
    name,
    publicKey.export({ type: 'spki', format: 'der' }),
  );
  const signature = sign('sha256', tbs, privateKey);
  const der = seq(tbs, algorithm, tlv(0x03, Buffer.concat([Buffer.from([0]), signature])));
  const cert = `-----BEGIN CERTIFICATE-----\n${der.toString('base64').match(/.{1,64}/g)!.join('\n')}\n-----END CERTIFICATE-----\n`;
  new X509Certificate(cert); // parses, or throws
  return { cert, key: createPrivateKey(privateKey.export({ type: 'pkcs8', format: 'pem' })).export({ type: 'pkcs8', format: 'pem' }) as string };
}

/** The certificate's SHA-256 fingerprint, for logs and docs. */
export const fingerprint = (pem: string) => createHash('sha256').update(new X509Certificate(pem).raw).digest('hex');

// Minimal DER writer for the certificate above (lengths, SEQUENCE/SET, INTEGER, OID, times).
function tlv(tag: number, content: Buffer): Buffer {
  const n = content.length;
  const len = n < 0x80 ? Buffer.from([n]) : (() => {
    const bytes: number[] = [];
    for (let v = n; v > 0; v >>= 8) bytes.unshift(v & 0xff);
    return Buffer.from([0x80 | bytes.length, ...bytes]);
  })();
  return Buffer.concat([Buffer.from([tag]), len, content]);
}
const seq = (...items: Buffer[]) => tlv(0x30, Buffer.concat(items));
const set = (...items: Buffer[]) => tlv(0x31, Buffer.concat(items));
const integer = (bytes: Buffer) => tlv(0x02, bytes[0] & 0x80 ? Buffer.concat([Buffer.from([0]), bytes]) : bytes);
function oid(dotted: string): Buffer {
  const [a, b, ...rest] = dotted.split('.').map(Number);
  const out = [40 * a + b];
  for (const v of rest) {
    const parts = [v & 0x7f];
    for (let x = v >> 7; x > 0; x >>= 7) parts.unshift((x & 0x7f) | 0x80);
    out.push(...parts);
  }
  return tlv(0x06, Buffer.from(out));
}
function time(d: Date): Buffer {
  const iso = d.toISOString().replace(/[-:T]/g, '').slice(0, 14) + 'Z'; // YYYYMMDDHHMMSSZ
  return d.getUTCFullYear() < 2050 ? tlv(0x17, Buffer.from(iso.slice(2), 'ascii')) : tlv(0x18, Buffer.from(iso, 'ascii'));
}
