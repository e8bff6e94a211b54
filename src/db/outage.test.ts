import { test } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { buildApp } from '../app.ts';
import { testConfig } from '../config.ts';
import { createDb } from './create-db.ts';
import { createTestDb, DIALECT, errorOf } from '../test/harness.ts';
import { createUser } from '../modules/users/users.service.ts';
import { issueSession } from '../auth/sessions.ts';

/**
 * PostgreSQL going away under a running server, simulated by a TCP proxy between Scent and the
 * database that we can cut, black-hole and restore: requests get 503 quickly (or 504 at their
 * deadline), the server stays up, and it recovers on its own.
 */
type Mode = 'forward' | 'refuse' | 'blackhole';

function startProxy(target: { host: string; port: number }) {
  let mode: Mode = 'forward';
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    client.on('error', () => {});
    if (mode === 'blackhole') return; // accept, never answer
    const upstream = net.connect(target.port, target.host);
    sockets.add(upstream);
    upstream.on('close', () => sockets.delete(upstream));
    upstream.on('error', () => client.destroy());
    client.pipe(upstream).pipe(client);
  });
  return {
    async listen(port = 0): Promise<number> {
      await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
      return (server.address() as net.AddressInfo).port;
    },
    set(next: Mode) {
      mode = next;
      if (next !== 'forward') for (const s of sockets) s.destroy();
    },
    async stop() {
      for (const s of sockets) s.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
    refusing: () => mode === 'refuse',
    server,
  };
}

test('PostgreSQL outage: 503 quickly, deadline respected, recovery on its own', { skip: DIALECT !== 'postgres' && 'needs PostgreSQL' }, async () => {
  const direct = await createTestDb();
  const proxy = startProxy({ host: '127.0.0.1', port: 5432 });
  const port = await proxy.listen();
  // In "refuse" mode new connections are closed at once, like a stopped server.
  proxy.server.on('connection', (socket) => proxy.refusing() && socket.destroy());
  const db = createDb(direct.url.replace('127.0.0.1:5432', `127.0.0.1:${port}`), { poolSize: 4 });
  const config = testConfig({ jwtSecret: 'outage-test-secret-outage-test-secret!!' });
  const app = await buildApp({ config, db });
  try {
    const user = await createUser(direct, { principalName: 'ops', email: null, roleName: 'Administrator' });
    const { token } = await issueSession(direct, config, { userId: user.id }, 600, 'test');
    const self = (prefer?: string) => app.inject({
      method: 'GET', url: '/api/v2/self',
      headers: { authorization: `Bearer ${token}`, ...(prefer ? { prefer } : {}) },
    });
    assert.equal((await self()).statusCode, 200);

    proxy.set('refuse');
    for (let i = 0; i < 5; i++) {
      const started = Date.now();
      const res = await self();
      assert.deepEqual(errorOf(res), { status: 503, messages: ['the database is unavailable'] });
      assert.ok(Date.now() - started < 3500, `503 took ${Date.now() - started} ms`);
    }
    assert.equal((await app.inject({ method: 'GET', url: '/health' })).statusCode, 503);

    proxy.set('blackhole');
    const started = Date.now();
    const hung = await self('wait=1');
    assert.ok([503, 504].includes(hung.statusCode), `got ${hung.statusCode}`);
    assert.ok(Date.now() - started < 2500, `a black-holed database held the request ${Date.now() - started} ms past wait=1`);

    proxy.set('forward');
    let recovered = false;
    for (let i = 0; i < 20 && !recovered; i++) {
      recovered = (await self()).statusCode === 200;
      if (!recovered) await new Promise((r) => setTimeout(r, 250));
    }
    assert.ok(recovered, 'the server recovered when the database came back');
    assert.equal((await app.inject({ method: 'GET', url: '/health' })).statusCode, 200);
  } finally {
    await app.close();
    await db.close();
    await proxy.stop();
    await direct.close();
  }
});
