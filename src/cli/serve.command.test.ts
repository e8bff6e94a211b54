import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { generateSpKeyPair } from '../modules/saml/saml.keys.ts';
import { createServer } from 'node:net';
import { BIN, cliDatabase, scent } from '../test/cli.ts';
import { configFlags, parse } from './command.ts';
import { serveCommand } from './server.command.ts';
import { FIELDS, loadConfig, testConfig } from '../config.ts';
import { startBanner, tokensIssueHint } from './banner.ts';
import { createDb } from '../db/create-db.ts';
import { upsertEdges } from '../graph/store.repository.ts';

test('serve accepts every flag docs/configuration.md documents (--response-cache-mb 0 included), and no other', () => {
  const doc = readFileSync(new URL('../../docs/configuration.md', import.meta.url), 'utf8');
  const rows = [...doc.matchAll(/^\| `(--[a-z-]+)( [A-Z]+)?` \| `(SCENT_\w+)` \|/gm)];
  assert.deepEqual(rows.map((r) => r[1]).sort(), FIELDS.map((f) => f.flag).sort(), 'the table and config.ts list the same settings');
  const sample: Record<string, string> = {
    '--database': 'sqlite::memory:', '--host': '0.0.0.0', '--port': '9000', '--edition': 'community', '--jwt-secret': 'x'.repeat(32),
    '--log-level': 'warn', '--session-ttl': '30m', '--body-limit': '2048', '--rate-limit': '60', '--root-url': 'https://scent.example.com',
    '--scheduler-interval': '0', '--ingest-interval': '5s', '--upload-limit': '4096', '--response-cache-mb': '0', '--graph-result-limit': '500', '--graph-preload': 'false',
    ...samlKeyFiles(),
  };
  // Settings that go together are given together.
  const partner: Record<string, string> = { '--saml-sp-cert': '--saml-sp-key', '--saml-sp-key': '--saml-sp-cert' };
  for (const [, flag, meta, env] of rows) {
    const pair = partner[flag] ? [partner[flag], sample[partner[flag]]] : [];
    const args = parse(serveCommand, meta ? [flag, sample[flag], ...pair] : [flag]);
    assert.doesNotThrow(() => loadConfig(configFlags(args.values), {}), flag);
    assert.ok(serveCommand.options[flag.slice(2)].description?.includes(env), `${flag}: --help names ${env}`);
  }
  rmSync(dirname(sample['--saml-sp-cert']), { recursive: true, force: true });
  const config = loadConfig(configFlags(parse(serveCommand, ['--response-cache-mb', '0', '--allow-unlimited-wait']).values), {});
  assert.deepEqual([config.responseCacheMb, config.allowUnlimitedWait], [0, true]);
});

/** A SAML SP certificate and key as PEM files (for --saml-sp-cert / --saml-sp-key). */
function samlKeyFiles(): Record<string, string> {
  const dir = mkdtempSync(join(tmpdir(), 'scent-saml-'));
  const { cert, key } = generateSpKeyPair();
  writeFileSync(join(dir, 'sp.crt'), cert);
  writeFileSync(join(dir, 'sp.key'), key);
  return { '--saml-sp-cert': join(dir, 'sp.crt'), '--saml-sp-key': join(dir, 'sp.key') };
}

test('SAML SP key files: both or neither, each a PEM file of its kind', () => {
  const files = samlKeyFiles();
  const config = loadConfig({ '--saml-sp-cert': files['--saml-sp-cert'], '--saml-sp-key': files['--saml-sp-key'] }, {});
  assert.match(config.samlSpCert!, /BEGIN CERTIFICATE/);
  assert.match(config.samlSpKey!, /BEGIN PRIVATE KEY/);
  assert.throws(() => loadConfig({ '--saml-sp-cert': files['--saml-sp-cert'] }, {}), /saml-sp-cert and saml-sp-key go together: give both or neither/);
  assert.throws(() => loadConfig({ '--saml-sp-cert': files['--saml-sp-key'], '--saml-sp-key': files['--saml-sp-key'] }, {}),
    /saml-sp-cert must name a PEM file of the right kind/);
  assert.throws(() => loadConfig({ '--saml-sp-cert': '/nonexistent/sp.crt', '--saml-sp-key': files['--saml-sp-key'] }, {}),
    /saml-sp-cert must name a readable PEM file, got "\/nonexistent\/sp.crt"/);
  rmSync(dirname(files['--saml-sp-cert']), { recursive: true, force: true });
});

test('banner: the `tokens issue` hint names the server\'s database; an in-memory one points to the login route', () => {
  assert.equal(tokensIssueHint('sqlite:./data/scent.sqlite', 'sqlite:./data/scent.sqlite'), 'npx scent tokens issue --user admin');
  assert.equal(tokensIssueHint('sqlite:/srv/scent db.sqlite', ''), "npx scent tokens issue --user admin --database 'sqlite:/srv/scent db.sqlite'");
  assert.equal(tokensIssueHint('sqlite:rel/x.sqlite', ''), `npx scent tokens issue --user admin --database sqlite:${process.cwd()}/rel/x.sqlite`);
  assert.equal(
    tokensIssueHint('postgres://scent:secret@db:5432/scent', 'postgres://scent:***@db:5432/scent'),
    "npx scent tokens issue --user admin --database 'postgres://scent:***@db:5432/scent'",
  );
  assert.equal(tokensIssueHint('sqlite::memory:', 'sqlite::memory:'), null);
  const memory = startBanner(testConfig({ databaseUrl: 'sqlite::memory:' }), { description: 'sqlite::memory:' }, 'http://127.0.0.1:9', { password: 'pw', token: 'tok' });
  assert.doesNotMatch(memory, /tokens issue/);
  assert.match(memory, /More tokens: POST \/api\/v2\/login with the new password/);
  assert.match(memory, /curl -H "Authorization: Bearer tok" http:\/\/127\.0\.0\.1:9\/api\/v2\/self/, 'the curl line works as printed');
  const pg = startBanner(testConfig({ databaseUrl: 'postgres://scent:secret@db/scent' }), { description: 'postgres://scent:***@db/scent' }, 'http://h:1', { password: 'pw', token: 'tok' });
  assert.doesNotMatch(pg, /secret/);
  assert.match(pg, /--database 'postgres:\/\/scent:\*\*\*@db\/scent' \(with the password in place of \*\*\*\)/);
});

test('banner: its second line names the console (/ui/), the API docs page and the OpenAPI document', () => {
  const banner = startBanner(testConfig({ databaseUrl: 'sqlite:./data/scent.sqlite' }), { description: 'sqlite:./data/scent.sqlite' }, 'http://127.0.0.1:8080', null);
  assert.equal(banner, [
    'Scent is serving the BloodHound v2 API at http://127.0.0.1:8080 (sqlite:./data/scent.sqlite, enterprise edition)',
    'Console: http://127.0.0.1:8080/ui/   API docs: http://127.0.0.1:8080/api/v2/docs   OpenAPI: http://127.0.0.1:8080/api/v2/spec',
    '', '',
  ].join('\n'));
});

test('first start: the banner\'s `tokens issue` command, run as printed, gives a token for this server', { timeout: 120_000 }, async () => {
  const { url, cleanup } = await cliDatabase();
  const server = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--database', url], { cwd: '/' });
  try {
    let out = '';
    server.stdout.on('data', (chunk) => (out += chunk));
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no banner in: ${out}`)), 90_000);
      server.stdout.on('data', () => /shown only once/.test(out) && (clearTimeout(timer), resolve()));
    });
    const address = /at (http:\/\/\S+)/.exec(out)![1];
    const hint = /More tokens: npx scent (tokens issue .*)$/m.exec(out)?.[1];
    assert.ok(hint, out);
    assert.match(hint, /--database /, 'a database other than the default is named');
    // As a shell would run it, from another directory and without the server's environment.
    const run = spawnSync('bash', ['-c', `${process.execPath} ${BIN} ${hint}`], { encoding: 'utf8', cwd: '/tmp', env: { PATH: process.env.PATH } });
    assert.equal(run.status, 0, run.stderr);
    const me = await fetch(`${address}/api/v2/self`, { headers: { authorization: `Bearer ${run.stdout.trim()}` } });
    assert.equal(me.status, 200);
  } finally {
    server.kill('SIGTERM');
    await cleanup();
  }
});

test('start-up failures are one line on stderr, no stack trace: port in use, PostgreSQL refusing', { timeout: 120_000 }, async () => {
  const blocker = createServer();
  await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
  const port = (blocker.address() as { port: number }).port;
  try {
    const busy = scent(['serve', '--port', String(port), '--database', 'sqlite::memory:', '--log-level', 'silent']);
    assert.equal(busy.code, 1);
    assert.equal(busy.stderr, `scent serve: cannot listen on 127.0.0.1:${port}: the port is already in use (another server?); choose another with --port\n`);
  } finally {
    blocker.close();
  }
  const refused = scent(['serve', '--port', '0', '--database', `postgres://postgres@127.0.0.1:${port}/scent`]);
  assert.equal(refused.code, 1);
  assert.equal(
    refused.stderr,
    `scent serve: cannot reach the database at 127.0.0.1:${port}: connection refused (is PostgreSQL running?); check --database / SCENT_DATABASE_URL\n`,
  );
  const badSetting = scent(['serve', '--port', '80a']);
  assert.deepEqual([badSetting.code, badSetting.stderr], [2, 'scent serve: port must be an integer between 0 and 65535, got "80a"\n']);
});

test('serve loads the graph once it listens (--graph-preload, on by default): logged with its size, before any request', { timeout: 120_000 }, async () => {
  const { url, cleanup } = await cliDatabase();
  const db = createDb(url);
  await upsertEdges(db.kysely, ['A', 'B', 'C'].map((objectid, i) => ({
    start: { objectid, kinds: ['User', 'Base'] }, end: { objectid: `G${i}`, kinds: ['Group', 'Base'] }, kind: 'MemberOf',
  })));
  await db.close();
  const server = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--database', url, '--log-level', 'info'], { cwd: '/' });
  try {
    let err = '';
    server.stderr.on('data', (chunk) => (err += chunk));
    const line = await new Promise<Record<string, unknown>>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no "graph loaded" log line in: ${err}`)), 90_000);
      server.stderr.on('data', () => {
        const found = err.split('\n').find((l) => l.includes('graph loaded'));
        if (found) (clearTimeout(timer), resolve(JSON.parse(found)));
      });
    });
    assert.equal(line.msg, `graph loaded: 6 nodes, 3 edges in ${line.ms} ms`);
    assert.deepEqual([line.level, line.nodes, line.edges], ['info', 6, 3]);
    assert.doesNotMatch(err, /"req/, 'no request was made');
  } finally {
    server.kill('SIGTERM');
    await cleanup();
  }
});
