/**
 * Benchmark dispatcher.
 *   npm run bench -- [--database sqlite|postgres] [--scale small|large] [--only NAME[,NAME]] ...
 *       the unified run of every spec endpoint against its replay baseline (bench/suite.ts)
 *   npm run bench -- <case> [options]
 *       one older focused case (a first argument naming a case); add yours to CASES.
 */
const CASES: Record<string, () => Promise<{ run(args: string[]): Promise<void> }>> = {
  'asset-group-tags': () => import('./asset-group-tags.bench.ts'),
  jobs: () => import('./jobs-available.ts'),
  ingest: () => import('./ingest.bench.ts'),
  cypher: () => import('./cypher.bench.ts'),
  explore: () => import('./explore.bench.ts'),
};

const args = process.argv.slice(2);
const [name, ...rest] = args;
if (name !== undefined && !name.startsWith('-')) {
  const load = CASES[name];
  if (!load) {
    console.error(`usage: npm run bench -- [--database sqlite|postgres] [--scale small|large] [--only NAME] [--rebuild]\n` +
      `       npm run bench -- <case> [options]   cases: ${Object.keys(CASES).join(', ')}`);
    process.exit(2);
  }
  await (await load()).run(rest);
} else {
  await (await import('./suite.ts')).run(args);
}
