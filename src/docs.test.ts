/**
 * The documentation a newcomer reads (README.md, DEVELOPERS.md, samples/README.md, docs/*.md) stays a
 * front door plus self-contained documents: the README is short and links every document; no document
 * cites anything outside this repository; every relative link (and #anchor) resolves; shell examples
 * define the variables they use and call `npx scent`, never a bare `scent` (not on PATH after a clone).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const DOCS = readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).sort().map((f) => `docs/${f}`);
const FILES = ['README.md', 'DEVELOPERS.md', 'samples/README.md', ...DOCS];
const read = (file: string) => readFileSync(join(ROOT, file), 'utf8');

/** Markdown outside fenced code blocks (links and citations in prose). */
const prose = (text: string) => text.replace(/^```[^\n]*\n[\s\S]*?^```/gm, '');
/** The bodies of ```sh / ```bash / ```shell blocks. */
const shellBlocks = (text: string) => [...text.matchAll(/^```(?:sh|bash|shell)\n([\s\S]*?)^```/gm)].map((m) => m[1]);

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens. */
function anchors(text: string): Set<string> {
  const set = new Set<string>();
  for (const m of prose(text).matchAll(/^#{1,6} +(.+)$/gm)) {
    set.add(m[1].trim().toLowerCase().replace(/[^\p{L}\p{N} _-]/gu, '').replace(/ /g, '-'));
  }
  return set;
}

test('README: at most 300 lines, and it links every document of docs/', () => {
  const readme = read('README.md');
  const lines = readme.split('\n').length;
  assert.ok(lines <= 300, `README.md has ${lines} lines`);
  for (const doc of DOCS) assert.ok(readme.includes(`](${doc})`), `README.md does not link ${doc}`);
});

test('no document cites anything outside the repository (the team\'s contract, fixtures or notes)', () => {
  const outside = [/CONTRACT(?:\.md| §)/, /FACTS(?:\.md| §)/, /STYLE\.md/, /\.\.\/shared\b/, /\/work\//];
  for (const file of FILES) {
    read(file).split('\n').forEach((line, i) => {
      for (const pattern of outside) assert.doesNotMatch(line, pattern, `${file}:${i + 1}: ${line}`);
    });
  }
});

test('every relative link of every document resolves to a file of the repository, and its #anchor to a heading', () => {
  const broken: string[] = [];
  let checked = 0;
  for (const file of FILES) {
    for (const m of prose(read(file)).matchAll(/\]\(([^)\s]+)\)/g)) {
      const target = m[1];
      if (/^[a-z]+:/i.test(target) || target.startsWith('//')) continue; // absolute URLs
      checked++;
      const [path, anchor] = target.split('#');
      const resolved = path === '' ? file : normalize(join(dirname(file), path));
      if (relative(ROOT, join(ROOT, resolved)).startsWith('..')) broken.push(`${file}: ${target} leaves the repository`);
      else if (!existsSync(join(ROOT, resolved))) broken.push(`${file}: ${target} does not exist`);
      else if (anchor && resolved.endsWith('.md') && !anchors(read(resolved)).has(anchor)) broken.push(`${file}: ${target}: no such heading`);
    }
  }
  assert.deepEqual(broken, []);
  assert.ok(checked >= 30, `only ${checked} links checked`);
});

test('shell examples: `npx scent`, never a bare `scent`; every variable defined in the same document', () => {
  const standard = new Set(['HOME', 'PATH', 'PWD', 'USER']);
  for (const file of FILES) {
    const blocks = shellBlocks(read(file));
    const defined = new Set<string>();
    for (const block of blocks) {
      for (const m of block.matchAll(/(?:^|[\s;(])(?:export\s+)?([A-Za-z_]\w*)=/gm)) defined.add(m[1]);
      for (const m of block.matchAll(/\bfor\s+(\w+)\s+in\b/g)) defined.add(m[1]);
    }
    for (const block of blocks) {
      block.split('\n').forEach((line) => {
        const code = line.replace(/\s#.*$/, '');
        assert.doesNotMatch(code, /(?:^|[;&|(]\s*|\$\(\s*)scent\s/, `${file}: bare scent in: ${line}`);
        for (const m of code.matchAll(/\$\{?([A-Za-z_]\w*)/g)) {
          assert.ok(defined.has(m[1]) || standard.has(m[1]), `${file}: $${m[1]} is used but never defined: ${line}`);
        }
      });
    }
  }
});

test('the operations guide covers backups, upgrades and migrations, several instances, TLS, logs and health checks', () => {
  const ops = read('docs/operations.md');
  const headings = [...prose(ops).matchAll(/^##+ +(.+)$/gm)].map((m) => m[1]);
  for (const h of ['Backups', 'SQLite', 'PostgreSQL', 'Upgrades and migrations', 'Several instances on PostgreSQL behind one URL', 'TLS', 'Logs', 'Health checks']) {
    assert.ok(headings.includes(h), `docs/operations.md has no section "${h}" (${headings.join(' | ')})`);
  }
  for (const needle of ['.backup', 'pg_dump', 'pg_restore', 'npx scent migrate', '--root-url', 'proxy_pass', '--log-level', 'stderr', 'GET /health']) {
    assert.ok(ops.includes(needle), `docs/operations.md does not mention ${needle}`);
  }
});
