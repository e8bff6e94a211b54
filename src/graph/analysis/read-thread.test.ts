/**
 * The analysis' whole-graph reads on a SQLite file run on a thread of their own (read-thread.ts): the
 * rows are those of the statement, in its order, and the main thread stays free while it runs (data
 * quality's aggregates run beside tag membership).
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { readRowsOnThread } from './read-thread.ts';

const dir = mkdtempSync(join(tmpdir(), 'scent-read-thread-'));
after(() => rmSync(dir, { recursive: true, force: true }));

test('reads on the analysis read thread: the statement\'s rows and columns, in order, while the main thread runs', async () => {
  const path = join(dir, 'graph.sqlite');
  const conn = new SQLite(path);
  conn.pragma('journal_mode = WAL');
  conn.exec('create table t (id integer primary key, env text)');
  conn.prepare(`insert into t (env) with recursive c(i) as (select 1 union all select i + 1 from c where i < 12000)
    select case when i % 3 = 0 then null else 'E' || (i % 3) end from c`).run();
  conn.close();

  const rows = [];
  for await (const r of readRowsOnThread(path, 'select env, count(*) as n from t where id > ? group by env order by env', [0])) rows.push(r);
  assert.deepEqual(rows, [{ env: null, n: 4000 }, { env: 'E1', n: 4000 }, { env: 'E2', n: 4000 }]);

  const ids: number[] = [];
  for await (const r of readRowsOnThread(path, 'select id from t order by id', [])) ids.push(r.id as number);
  assert.equal(ids.length, 12000, 'more rows than one chunk');
  assert.ok(ids.every((id, i) => id === i + 1));

  // A statement that takes a while (a recursive count to 3,000,000): timers of the main thread fire meanwhile.
  let ticks = 0;
  const timer = setInterval(() => ticks++, 5);
  const started = performance.now();
  const [slow] = await (async () => {
    const out = [];
    for await (const r of readRowsOnThread(path, 'with recursive c(i) as (select 1 union all select i + 1 from c where i < 3000000) select count(*) as n from c', [])) out.push(r);
    return out;
  })();
  clearInterval(timer);
  assert.equal(slow.n, 3000000);
  const elapsed = performance.now() - started;
  assert.ok(ticks >= Math.min(5, elapsed / 20), `the main thread ran ${ticks} timer ticks in ${elapsed.toFixed(0)} ms`);

  await assert.rejects(async () => {
    for await (const r of readRowsOnThread(path, 'select x from nowhere', [])) void r;
  }, /no such table/);
});
