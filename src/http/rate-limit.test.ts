import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, errorOf } from '../test/harness.ts';

test('off by default: many requests pass', async () => {
  const t = await createTestApp();
  try {
    for (let i = 0; i < 50; i++) assert.equal((await t.request({ method: 'GET', url: '/health' })).statusCode, 200);
  } finally {
    await t.close();
  }
});

test('SCENT_RATE_LIMIT: per IP before auth, per principal after; 429 in the envelope', async () => {
  const t = await createTestApp({ rateLimit: 5 });
  try {
    for (let i = 0; i < 5; i++) assert.equal((await t.request({ method: 'GET', url: '/health' })).statusCode, 200);
    const limited = await t.request({ method: 'GET', url: '/health' });
    assert.deepEqual(errorOf(limited), { status: 429, messages: ['too many requests'] });
    const other = await t.app.inject({ method: 'GET', url: '/health', remoteAddress: '10.0.0.9' });
    assert.equal(other.statusCode, 200, 'another IP has its own window');

    const { token } = await t.login('User');
    const fromIp = (ip: string) => t.app.inject({ method: 'GET', url: '/api/v2/self', remoteAddress: ip, headers: { authorization: `Bearer ${token}` } });
    for (let i = 0; i < 5; i++) assert.equal((await fromIp(`10.1.0.${i}`)).statusCode, 200);
    assert.deepEqual(errorOf(await fromIp('10.1.0.99')), { status: 429, messages: ['too many requests'] }, 'the principal is limited whatever its IP');
  } finally {
    await t.close();
  }
});
