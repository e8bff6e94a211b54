#!/usr/bin/env node
// The console's browser tests (ui/test/*.browser.test.ts), once (not per database dialect): Debian's
// chromium driven by playwright-core against an in-process server on SQLite.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

const files = readdirSync('ui/test').filter((f) => f.endsWith('.browser.test.ts')).map((f) => join('ui/test', f));
console.log(`\n=== console browser tests (${files.length} files) ===`);
const result = spawnSync(process.execPath, ['--import', 'tsx', '--test', '--test-reporter=spec', ...files], {
  stdio: 'inherit', env: { ...process.env, SCENT_TEST_DIALECT: 'sqlite' },
});
process.exit(result.status ?? 1);
