#!/usr/bin/env node
// Entry point of the `scent` command. Runs the compiled JavaScript in dist/ when it is at least as new
// as every source file (built by `npm install` / `npm run build`); otherwise runs the TypeScript
// sources through tsx, so a stale or missing build can never run old code.
import { readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

function newestSource(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestSource(path) : statSync(path).mtimeMs);
  }
  return newest;
}

function distIsFresh() {
  try {
    return statSync(join(root, 'dist/.built')).mtimeMs >= newestSource(join(root, 'src'));
  } catch {
    return false;
  }
}

let main;
if (distIsFresh()) {
  ({ main } = await import('../dist/cli.js'));
} else {
  const { register } = await import('tsx/esm/api');
  register();
  ({ main } = await import('../src/cli.ts'));
}
process.exitCode = await main(process.argv.slice(2));
