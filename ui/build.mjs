#!/usr/bin/env node
// Builds the console (ui/src) into ui/dist: hashed scripts (the shell, and one chunk per screen loaded
// when first opened), one stylesheet, one HTML page, nothing fetched
// from elsewhere at run time. Runs on `npm install` (prepare) after the server build, and as
// `npm run build:ui`. Fails when the gzipped bundle exceeds the budget (BUDGET_KB below).
import { build } from 'esbuild';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

/** The budget for everything the console can download (every script chunk and the stylesheet), gzipped. */
export const BUDGET_KB = 400;

const here = dirname(fileURLToPath(import.meta.url));
const out = join(here, 'dist');
const watch = process.argv.includes('--dev');

rmSync(out, { recursive: true, force: true });
mkdirSync(join(out, 'assets'), { recursive: true });
const result = await build({
  entryPoints: [join(here, 'src/main.tsx')],
  bundle: true,
  // Screens are loaded when first opened (import()), so the first screen needs only the shell.
  splitting: true,
  outdir: join(out, 'assets'),
  entryNames: 'app-[hash]',
  chunkNames: 'chunk-[hash]',
  format: 'esm',
  target: ['chrome115', 'firefox115', 'safari16'],
  minify: !watch,
  sourcemap: false,
  legalComments: 'none',
  jsx: 'automatic',
  jsxImportSource: 'preact',
  define: { 'process.env.NODE_ENV': '"production"' },
  // The typed client's request signing uses node:crypto; the console signs in with a session instead.
  alias: { 'node:crypto': join(here, 'src/shims/node-crypto.ts') },
  metafile: true,
  logLevel: 'warning',
});

const outputs = Object.entries(result.metafile.outputs).map(([path, meta]) => ({ name: basename(path), entry: !!meta.entryPoint, path }));
const entry = { js: outputs.find((o) => o.entry && o.name.endsWith('.js')).name, css: outputs.find((o) => o.name.endsWith('.css')).name };
const sizeOf = (name) => gzipSync(readFileSync(join(out, 'assets', name)), { level: 9 }).length;
const gzipped = outputs.reduce((n, o) => n + sizeOf(o.name), 0);
// The first screen needs the entry, what it imports statically (transitively), and the stylesheet.
const first = new Set();
const visit = (path) => {
  if (first.has(path)) return;
  first.add(path);
  for (const i of result.metafile.outputs[path].imports) if (i.kind === 'import-statement') visit(i.path);
};
visit(outputs.find((o) => o.name === entry.js).path);
const initial = [...first].reduce((n, path) => n + sizeOf(basename(path)), sizeOf(entry.css));
const preloads = [...first].map((path) => basename(path)).filter((name) => name !== entry.js)
  .map((name) => `<link rel="modulepreload" href="/ui/assets/${name}">`).join('\n');
const page = readFileSync(join(here, 'src/index.html'), 'utf8')
  .replace('%SCRIPT%', `/ui/assets/${entry.js}`)
  .replace('%STYLE%', `/ui/assets/${entry.css}`)
  .replace('%PRELOAD%', preloads);
writeFileSync(join(out, 'index.html'), page);
const report = { budget_kb: BUDGET_KB, gzipped_bytes: gzipped, initial_gzipped_bytes: initial, entry, assets: outputs.map((o) => o.name).sort(), built_at: new Date().toISOString() };
writeFileSync(join(out, 'build.json'), `${JSON.stringify(report, null, 2)}\n`);
const kb = (gzipped / 1024).toFixed(1);
if (gzipped > BUDGET_KB * 1024) {
  console.error(`scent console: bundle is ${kb} kB gzipped, over the ${BUDGET_KB} kB budget (ui/build.mjs)`);
  process.exit(1);
}
console.log(`scent console: built ui/dist (${kb} kB gzipped in all, of a ${BUDGET_KB} kB budget; ${(initial / 1024).toFixed(1)} kB for the first screen)`);
