import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { BIN } from '../test/cli.ts';

/** Starts `scent serve` on an in-memory database; answers its port and how to read what it wrote so far. */
async function serve(args: string[]) {
  const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--database', 'sqlite::memory:', ...args]);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no banner: ${stdout} ${stderr}`)), 90_000);
    child.stdout.on('data', () => /shown only once/.test(stdout) && (clearTimeout(timer), resolve()));
  });
  const port = Number(/127\.0\.0\.1:(\d+)/.exec(stdout)![1]);
  const stop = async () => {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  };
  return { port, stop, output: () => ({ stdout, stderr }) };
}

test('logs: one concise line per request at info (on stderr), the banner alone on stdout; none at warn', { timeout: 120_000 }, async () => {
  const info = await serve([]);
  const res = await fetch(`http://127.0.0.1:${info.port}/api/v2/self?x=1`);
  const requestId = res.headers.get('x-request-id');
  await fetch(`http://127.0.0.1:${info.port}/health`);
  await info.stop();
  const { stdout, stderr } = info.output();
  assert.doesNotMatch(stdout, /"level"/, 'no log line on stdout, where the banner and its password are');
  assert.match(stdout, /^Scent is serving [^\n]+\nConsole: [^\n]+\n\nFirst start: [^]*This password is shown only once\.\n\n$/);
  const lines = stderr.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l));
  const requests = lines.filter((l) => typeof l.status === 'number');
  assert.equal(requests.length, 2, stderr);
  assert.deepEqual(Object.keys(requests[0]).sort(), ['level', 'ms', 'msg', 'reqId', 'status', 'time']);
  assert.equal(requests[0].level, 'info');
  assert.equal(requests[0].reqId, requestId);
  assert.match(requests[0].msg, /^GET \/api\/v2\/self\?x=1 401 [\d.]+ ms$/);
  assert.match(requests[0].time, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  assert.match(requests[1].msg, /^GET \/health 200 /);
  assert.ok(!lines.some((l) => /incoming request|request completed/.test(l.msg)), 'no second line per request');

  const warn = await serve(['--log-level', 'warn']);
  await fetch(`http://127.0.0.1:${warn.port}/api/v2/self`);
  await warn.stop();
  assert.equal(warn.output().stderr.split('\n').filter((l) => l.startsWith('{')).length, 0, warn.output().stderr);
});
