/**
 * Benchmark dispatcher: `npm run bench -- <case> [options]`. Each case lives in its own module
 * exporting `run(args)`; add yours to CASES.
 */
const CASES: Record<string, () => Promise<{ run(args: string[]): Promise<void> }>> = {
  'asset-group-tags': () => import('./asset-group-tags.bench.ts'),
  jobs: () => import('./jobs-available.ts'),
};

const [name, ...args] = process.argv.slice(2);
const load = name ? CASES[name] : undefined;
if (!load) {
  console.error(`usage: npm run bench -- <case> [options]\ncases: ${Object.keys(CASES).join(', ')}`);
  process.exit(2);
}
await (await load()).run(args);
