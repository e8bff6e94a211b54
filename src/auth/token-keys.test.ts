import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { testConfig } from '../config.ts';
import { createTestDb, type TestDb } from '../test/harness.ts';
import { generateTokenKey, openTokenKey, sealTokenKey } from './token-keys.ts';

let a: TestDb;
let b: TestDb;
before(async () => {
  a = await createTestDb();
  b = await createTestDb();
});
after(async () => {
  await a.close();
  await b.close();
});

const ID = '6f0c2a4e-8d1b-4c3a-9e5f-0a1b2c3d4e5f';
const secret = (c: string) => testConfig({ jwtSecret: c.repeat(40) });

test('sealed token keys: open with the same signing key, not with another, not on another row, not when tampered', async () => {
  const key = generateTokenKey();
  assert.equal(Buffer.from(key, 'base64').length, 48);
  const sealed = await sealTokenKey(a, secret('x'), ID, key);
  assert.ok(sealed.startsWith('v1.') && !sealed.includes(key));
  assert.notEqual(await sealTokenKey(a, secret('x'), ID, key), sealed, 'a fresh IV each time');
  assert.equal(await openTokenKey(a, secret('x'), ID, sealed), key);
  assert.equal(await openTokenKey(b, secret('y'), ID, sealed), null, 'another signing key');
  assert.equal(await openTokenKey(a, secret('x'), ID.replace('6f', '7f'), sealed), null, 'another token id');
  const [v, iv, body] = sealed.split('.');
  const flipped = Buffer.from(body, 'base64url');
  flipped[0] ^= 1;
  assert.equal(await openTokenKey(a, secret('x'), ID, `${v}.${iv}.${flipped.toString('base64url')}`), null, 'tampered');
  assert.equal(await openTokenKey(a, secret('x'), ID, 'garbage'), null);
});
