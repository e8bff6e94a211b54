#!/usr/bin/env node
// Compiles src/ to dist/ (plain JavaScript, so `scent` starts without a TypeScript loader).
// Runs on `npm install` (prepare). If compilation fails, dist/ is removed and `scent` falls back to
// running the sources through tsx, so an install never breaks because of a type error.
import { spawnSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const require = createRequire(import.meta.url);
rmSync('dist', { recursive: true, force: true });
let tsc;
try {
  tsc = join(dirname(require.resolve('typescript/package.json')), 'bin', 'tsc');
} catch {
  console.warn('scent build: typescript is not installed; scent will run the sources through tsx');
  process.exit(0);
}
const result = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { stdio: 'inherit' });
if (result.status !== 0) {
  rmSync('dist', { recursive: true, force: true });
  console.warn('scent build: compilation failed; scent will run the sources through tsx');
  process.exit(0);
}
writeFileSync('dist/.built', new Date().toISOString());
