/**
 * Ingest benchmark: `npm run bench -- ingest [--users N] [--database sqlite|postgres] [--parallel-parse] [--label L]`
 * Generates SharpHound files for N users (bench/sharphound-generate.ts, cached in bench/.data/),
 * migrates a fresh database, then times `scent import` in its own process: elements/s as the CLI
 * reports it (ingest only), the analysis apart (all of it, and its phases: post-processing with the
 * derived edges it wrote, data quality, tag membership), elements/s over ingest + analysis, wall time, CPU time, and peak RSS
 * (VmHWM of the process, analysis included). Results: bench/results/ingest-<date>-<database>-<users>[-<label>].{json,md}.
 * PostgreSQL: SCENT_BENCH_PG_URL (default postgres://postgres@127.0.0.1:5432/test), fresh schema.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { sharpHoundFiles } from './sharphound-generate.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BIN = join(ROOT, 'bin/scent.js');
const DATA = join(ROOT, 'bench/.data');
const RESULTS = join(ROOT, 'bench/results');

function arg(args: string[], name: string, fallback: string): string {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && args[i + 1] ? args[i + 1] : fallback;
}

function status(pid: number): { hwmMb: number; cpuSeconds: number } {
  try {
    const s = readFileSync(`/proc/${pid}/status`, 'utf8');
    const hwm = Number(/VmHWM:\s+(\d+)/.exec(s)?.[1] ?? 0) / 1024;
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return { hwmMb: Math.round(hwm), cpuSeconds: (Number(stat[11]) + Number(stat[12])) / 100 };
  } catch {
    return { hwmMb: 0, cpuSeconds: 0 };
  }
}

async function databaseUrl(database: string): Promise<string> {
  if (database === 'sqlite') {
    const path = join(DATA, 'ingest-bench.sqlite');
    for (const suffix of ['', '-wal', '-shm']) rmSync(path + suffix, { force: true });
    return `sqlite:${path}`;
  }
  const base = process.env.SCENT_BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
  const client = new pg.Client(base);
  await client.connect();
  const schema = `scent_ingest_bench_${process.pid}`; // one per run: concurrent runs never collide
  await client.query(`drop schema if exists ${schema} cascade`);
  await client.query(`create schema ${schema}`);
  await client.end();
  return `${base}${base.includes('?') ? '&' : '?'}options=-c%20search_path%3D${schema}`;
}

export async function run(args: string[]): Promise<void> {
  const users = Number(arg(args, 'users', '100000'));
  const database = arg(args, 'database', 'sqlite');
  const files = await sharpHoundFiles(users, DATA, (s) => console.log(s));
  const inputMb = files.reduce((n, f) => n + statSync(f).size, 0) / 1e6;
  const url = await databaseUrl(database);
  spawnSync(process.execPath, [BIN, 'migrate', '--database', url], { cwd: ROOT, stdio: 'ignore' });
  const loadBefore = loadavg().map((l) => l.toFixed(2)).join(' ');
  const importArgs = [BIN, 'import', '--database', url, ...(args.includes('--parallel-parse') ? ['--parallel-parse'] : []), ...files];
  const t0 = performance.now();
  const child = spawn(process.execPath, importArgs, { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
  let peak = { hwmMb: 0, cpuSeconds: 0 };
  const timer = setInterval(() => {
    const s = status(child.pid!);
    if (s.hwmMb) peak = { hwmMb: Math.max(peak.hwmMb, s.hwmMb), cpuSeconds: Math.max(peak.cpuSeconds, s.cpuSeconds) };
  }, 50);
  let out = '';
  child.stdout!.on('data', (d) => {
    out += d;
    process.stdout.write(d);
  });
  const code = await new Promise<number>((resolve) => child.once('exit', (c) => resolve(c ?? 1)));
  clearInterval(timer);
  const wall = (performance.now() - t0) / 1000;
  const m = /in ([\d.]+) s: (\d+) nodes, (\d+) edges \((\d+) elements\/s\); analysis ([\d.]+) s/.exec(out);
  const [ingestSeconds, nodes, edges, rate, analysisSeconds] = m ? [Number(m[1]), Number(m[2]), Number(m[3]), Number(m[4]), Number(m[5])] : [0, 0, 0, 0, 0];
  const post = /\(post-processing ([\d.]+) s: (\d+) derived edges/.exec(out);
  const [postProcessingSeconds, derivedEdges] = post ? [Number(post[1]), Number(post[2])] : [0, 0];
  const phases = /derived edges; data quality ([\d.]+) s; tag membership ([\d.]+) s\)/.exec(out);
  const [dataQualitySeconds, tagMembershipSeconds] = phases ? [Number(phases[1]), Number(phases[2])] : [0, 0];
  const withAnalysis = ingestSeconds + analysisSeconds > 0 ? Math.round((nodes + edges) / (ingestSeconds + analysisSeconds)) : 0;
  const result = {
    date: new Date().toISOString(), database, users, files: files.length, inputMb: +inputMb.toFixed(1), exitCode: code,
    nodes, edges, ingestSeconds, elementsPerSecond: rate, analysisSeconds, postProcessingSeconds, derivedEdges, dataQualitySeconds, tagMembershipSeconds,
    elementsPerSecondWithAnalysis: withAnalysis, processWallSeconds: +wall.toFixed(1),
    processCpuSeconds: peak.cpuSeconds, elementsPerCpuSecond: peak.cpuSeconds ? Math.round((nodes + edges) / peak.cpuSeconds) : 0,
    peakRssMb: peak.hwmMb, loadAverageBefore: loadBefore, loadAverageAfter: loadavg().map((l) => l.toFixed(2)).join(' '),
    parallelParse: args.includes('--parallel-parse'), node: process.version,
    command: `npm run bench -- ingest ${args.join(' ')}`.trim(),
  };
  if (database !== 'sqlite') {
    const client = new pg.Client(process.env.SCENT_BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test');
    await client.connect();
    await client.query(`drop schema if exists scent_ingest_bench_${process.pid} cascade`);
    await client.end();
  }
  mkdirSync(RESULTS, { recursive: true });
  const label = arg(args, 'label', ''); // e.g. --label before: a run that must not replace the day's file
  const stem = join(RESULTS, `ingest-${result.date.slice(0, 10)}-${database}-${users}${result.parallelParse ? '-parallel-parse' : ''}${label ? `-${label}` : ''}`);
  writeFileSync(`${stem}.json`, `${JSON.stringify(result, null, 2)}\n`);
  writeFileSync(`${stem}.md`, [
    `# Ingest: ${database}, ${users} users (${result.inputMb} MB), ${result.date}`, '',
    `Command: \`${result.command}\` (runs \`scent import\` in its own process on a fresh, migrated database).`, '',
    '| nodes | edges | ingest s | elements/s | analysis s (post-processing s, derived edges; data quality s; tag membership s) | elements/s with analysis | process CPU s | elements per CPU-s | peak RSS MB | load before → after |',
    '|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|',
    `| ${nodes} | ${edges} | ${ingestSeconds} | ${rate} | ${analysisSeconds} (${postProcessingSeconds}, ${derivedEdges}; ${dataQualitySeconds}; ${tagMembershipSeconds}) | ${withAnalysis} | ${peak.cpuSeconds} | ${result.elementsPerCpuSecond} | ${peak.hwmMb} | ${loadBefore} → ${result.loadAverageAfter} |`, '',
  ].join('\n'));
  console.log(`\n${JSON.stringify(result)}`);
}
