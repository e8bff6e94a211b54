import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import type { Config } from '../config.ts';
import type { Db } from '../db/create-db.ts';
import { signingKey } from './sessions.ts';
import { rootOf } from '../db/joined-transaction.ts';

/**
 * API token keys at rest. Verifying an HMAC signature needs the key itself, so it cannot be hashed;
 * it is sealed with AES-256-GCM under a key derived (HKDF-SHA256) from the server's JWT signing key,
 * with the token id as associated data (a sealed key copied onto another row does not open).
 * Consequence: changing the JWT signing key makes every API token unusable (401) - issue new ones.
 * Format: `v1.<iv base64url>.<ciphertext||tag base64url>`.
 */
const INFO = 'scent api-token key sealing v1';
const sealKeys = new WeakMap<Db, Buffer>();

async function sealKey(db: Db, config: Config): Promise<Buffer> {
  const cached = sealKeys.get(rootOf(db));
  if (cached) return cached;
  const key = Buffer.from(hkdfSync('sha256', await signingKey(db, config), Buffer.alloc(0), INFO, 32));
  sealKeys.set(rootOf(db), key);
  return key;
}

/** A fresh token key: 48 random bytes as standard base64 (the HMAC key is this text's bytes). */
export function generateTokenKey(): string {
  return randomBytes(48).toString('base64');
}

export async function sealTokenKey(db: Db, config: Config, tokenId: string, key: string): Promise<string> {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', await sealKey(db, config), iv);
  cipher.setAAD(Buffer.from(tokenId));
  const body = Buffer.concat([cipher.update(key, 'utf8'), cipher.final(), cipher.getAuthTag()]);
  return `v1.${iv.toString('base64url')}.${body.toString('base64url')}`;
}

/** The clear key, or null when the sealed value does not open (other signing key, tampering). */
export async function openTokenKey(db: Db, config: Config, tokenId: string, sealed: string): Promise<string | null> {
  const [version, iv, body] = sealed.split('.');
  if (version !== 'v1' || !iv || !body) return null;
  try {
    const bytes = Buffer.from(body, 'base64url');
    const decipher = createDecipheriv('aes-256-gcm', await sealKey(db, config), Buffer.from(iv, 'base64url'));
    decipher.setAAD(Buffer.from(tokenId));
    decipher.setAuthTag(bytes.subarray(bytes.length - 16));
    return Buffer.concat([decipher.update(bytes.subarray(0, bytes.length - 16)), decipher.final()]).toString('utf8');
  } catch {
    return null;
  }
}
