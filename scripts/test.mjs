#!/usr/bin/env node
// Runs the whole suite once per dialect (SCENT_TEST_DIALECTS, default "sqlite,postgres").
// PostgreSQL that was asked for but cannot be reached is a failure, never a skip.
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';

const dialects = (process.env.SCENT_TEST_DIALECTS ?? 'sqlite,postgres').split(',').map((d) => d.trim()).filter(Boolean);
const pgUrl = process.env.SCENT_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const filter = process.argv.slice(2);

function findTests(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return findTests(path);
    return name.endsWith('.test.ts') ? [path] : [];
  });
}

const files = findTests('src').filter((f) => filter.length === 0 || filter.some((x) => f.includes(x))).sort();
let failed = false;
for (const dialect of dialects) {
  if (!['sqlite', 'postgres'].includes(dialect)) {
    console.error(`unknown dialect ${dialect} in SCENT_TEST_DIALECTS`);
    process.exit(2);
  }
  if (dialect === 'postgres') {
    const client = new pg.Client({ connectionString: pgUrl, connectionTimeoutMillis: 5000 });
    try {
      await client.connect();
      await client.end();
    } catch (err) {
      console.error(`PostgreSQL was asked for (SCENT_TEST_DIALECTS=${dialects.join(',')}) but ${pgUrl} is unreachable: ${err.message}`);
      console.error('Start it (see DEVELOPERS.md) or run with SCENT_TEST_DIALECTS=sqlite.');
      process.exit(1);
    }
  }
  console.log(`\n=== test suite on ${dialect} (${files.length} files) ===`);
  const result = spawnSync(
    process.execPath,
    ['--import', 'tsx', '--test', '--test-concurrency=2', '--test-reporter=spec', ...files],
    { stdio: 'inherit', env: { ...process.env, SCENT_TEST_DIALECT: dialect } },
  );
  if (result.status !== 0) failed = true;
}
// The console's browser tests run once (not per dialect): on a whole run, or when a filter names ui/.
if (filter.length === 0 || filter.some((x) => x.startsWith('ui'))) {
  const browser = spawnSync(process.execPath, ['scripts/test-browser.mjs'], { stdio: 'inherit' });
  if (browser.status !== 0) failed = true;
}
process.exit(failed ? 1 : 0);
