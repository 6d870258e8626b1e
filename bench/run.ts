/**
 * `npm run bench`: reconciliation speed and memory against each engine's floor (and, on SQLite,
 * the naive approach), at 100 k, 1 M and 10 M rows per source, low and high cardinality, on
 * SQLite, DuckDB, PostgreSQL (a throwaway server) and across engines (PostgreSQL + Parquet);
 * then /health latency while a 2 M-row comparison runs, then the cold start of the service and
 * of the MCP stdio server (coldStart.ts), then what 100 saved checks of the month-end close
 * cost per scheduled pass on the 1M-row database (closeChecks.ts), then comparisons across
 * engines with 0 to 100,000 differing keys by checksum bisection beside the row merge
 * (bisection.ts). Prints tables; `--out FILE` also writes the figures as JSON.
 *
 *   npm run bench -- [--sizes 100k,1m,10m] [--engines sqlite,duckdb,postgres,postgres+duckdb]
 *                    [--postgres-max 10m] [--out bench.json] [--runs 5] [--skip-health]
 *                    [--skip-cold-start] [--only-cold-start] [--skip-close] [--only-close]
 *                    [--bisection-sizes 1m,10m] [--bisection-pairs postgres+duckdb,sqlite+duckdb]
 *                    [--skip-bisection] [--only-bisection]
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { projectRoot } from '../src/config/config.ts';
import { generateDatabase } from '../data/scale/generateDatabase.ts';
import { parseCases, parseSize, type BenchCase } from './cases.ts';
import { ENGINES, EnginePreparer, type BenchEngine, type EngineSetup } from './engines.ts';
import { BISECTION_PAIRS, describeBisection, measureBisection, type BisectionFigure } from './bisection.ts';
import { describeClose, measureClose } from './closeChecks.ts';
import { describeColdStart, measureColdStart } from './coldStart.ts';
import { probeHealth } from './healthProbe.ts';

interface Figure {
  case: string;
  engine: BenchEngine;
  rows: number;
  distinct_keys: number;
  ms: number;
  floor_ms: number;
  naive_ms: number | null;
  rss_mb: number;
}

const { values } = parseArgs({
  options: {
    sizes: { type: 'string', default: '100k,1m,10m' },
    out: { type: 'string' },
    runs: { type: 'string', default: '5' },
    'skip-health': { type: 'boolean', default: false },
    'skip-cold-start': { type: 'boolean', default: false },
    'only-cold-start': { type: 'boolean', default: false },
    'skip-close': { type: 'boolean', default: false },
    'only-close': { type: 'boolean', default: false },
    'bisection-sizes': { type: 'string', default: '1m,10m' },
    'bisection-pairs': { type: 'string', default: BISECTION_PAIRS.join(',') },
    'skip-bisection': { type: 'boolean', default: false },
    'only-bisection': { type: 'boolean', default: false },
    'naive-limit': { type: 'string', default: '10000000' },
    engines: { type: 'string', default: ENGINES.join(',') },
    // Loading 10 M rows per source into PostgreSQL takes minutes: lower this to skip its largest cases.
    'postgres-max': { type: 'string', default: '10m' },
  },
});
const dataDirectory = path.join(projectRoot, 'bench/.data');

/** Generated databases are cached between runs: same seed, same data. */
function databaseFor(rows: number): string {
  mkdirSync(dataDirectory, { recursive: true });
  const file = path.join(dataDirectory, `bench-${rows}.db`);
  if (!existsSync(file)) {
    process.stderr.write(`generating ${rows.toLocaleString('en-US')} rows per source…\n`);
    generateDatabase({ rows, out: file, seed: 42, onProgress: (message) => process.stderr.write(`  ${message}\n`) });
  }
  return file;
}

/** Runs one approach in its own process; naive gets a large heap since it holds every key. */
function measure(approach: 'ours' | 'floor' | 'naive', setup: EngineSetup, benchCase: BenchCase, runs: number) {
  const heap = approach === 'naive' ? ['--max-old-space-size=16384'] : [];
  const result = spawnSync(process.execPath, [...heap, '--import', 'tsx', path.join(projectRoot, 'bench/measure.ts'), approach, benchCase.cardinality, String(runs)], {
    env: { ...process.env, BENCH_SETUP: JSON.stringify(setup) },
    encoding: 'utf8',
    timeout: 30 * 60 * 1000,
    maxBuffer: 1 << 20,
  });
  if (result.status !== 0) {
    process.stderr.write(`  ${approach} failed: ${(result.stderr || result.error?.message || '').trim().split('\n').at(-1)}\n`);
    return undefined;
  }
  return JSON.parse(result.stdout.trim().split('\n').at(-1)!) as { ms: number; distinct_keys: number; rss_mb: number };
}

async function main() {
  if (values['only-cold-start']) return void (await runColdStart());
  if (values['only-close']) return void (await runClose());
  if (values['only-bisection']) return void (await runBisection());
  const cases = parseCases(values.sizes!);
  const engines = values.engines!.split(',').map((name) => name.trim()) as BenchEngine[];
  for (const engine of engines) if (!ENGINES.includes(engine)) throw new Error(`unknown engine '${engine}': use ${ENGINES.join(', ')}`);
  const postgresMax = parseSize(values['postgres-max']!);
  const preparer = new EnginePreparer(dataDirectory, (line) => process.stderr.write(`  ${line}\n`));
  const figures: Figure[] = [];
  try {
    for (const benchCase of cases) {
      const database = databaseFor(benchCase.rows);
      const runs = benchCase.rows >= 10_000_000 ? 1 : Number(values.runs);
      for (const engine of engines) {
        if (engine.startsWith('postgres') && benchCase.rows > postgresMax) continue;
        const setup = await preparer.prepare(engine, database, benchCase.rows);
        process.stderr.write(`${benchCase.name} on ${engine}: measuring…\n`);
        measure('floor', setup, benchCase, 1); // warm the caches
        const floor = measure('floor', setup, benchCase, runs);
        const ours = measure('ours', setup, benchCase, runs);
        const naive = engine === 'sqlite' && benchCase.rows <= Number(values['naive-limit']) ? measure('naive', setup, benchCase, runs) : undefined;
        if (!floor || !ours) throw new Error(`${benchCase.name} on ${engine}: a measurement failed`);
        figures.push({ case: benchCase.name, engine, rows: benchCase.rows, distinct_keys: ours.distinct_keys, ms: ours.ms, floor_ms: floor.ms, naive_ms: naive?.ms ?? null, rss_mb: ours.rss_mb });
      }
    }
  } finally {
    await preparer.close();
  }
  printTable(figures);
  const health = values['skip-health'] ? undefined : await runHealth();
  if (values.out) {
    writeFileSync(values.out, `${JSON.stringify(figures, null, 2)}\n`);
    if (health) writeFileSync(values.out.replace(/(\.json)?$/, '.health.json'), `${JSON.stringify(health, null, 2)}\n`);
    process.stderr.write(`wrote ${values.out}\n`);
  }
  if (!values['skip-cold-start']) await runColdStart();
  if (!values['skip-close']) await runClose();
  if (!values['skip-bisection']) await runBisection();
}

async function runBisection() {
  const preparer = new EnginePreparer(dataDirectory, (line) => process.stderr.write(`  ${line}\n`));
  const postgresMax = parseSize(values['postgres-max']!);
  const figures: BisectionFigure[] = [];
  try {
    for (const size of values['bisection-sizes']!.split(',')) {
      const rows = parseSize(size);
      const asked = values['bisection-pairs']!.split(',').map((pair) => pair.trim());
      const pairs = BISECTION_PAIRS.filter((pair) => asked.includes(pair) && (!pair.startsWith('postgres') || rows <= postgresMax));
      figures.push(...(await measureBisection(preparer, databaseFor(rows), rows, dataDirectory, (line) => process.stderr.write(`${line}\n`), pairs)));
    }
  } finally {
    await preparer.close();
  }
  console.log(`\n${describeBisection(figures)}`);
  if (values.out) writeFileSync(values.out.replace(/(\.json)?$/, '.bisection.json'), `${JSON.stringify(figures, null, 2)}\n`);
}

async function runClose() {
  process.stderr.write('month-end close: saving 100 checks on the 1M-row database, then one scheduled pass…\n');
  const figures = await measureClose(databaseFor(1_000_000), 100, 1_000_000);
  console.log(`\n${describeClose(figures)}`);
  if (values.out) writeFileSync(values.out.replace(/(\.json)?$/, '.close.json'), `${JSON.stringify(figures, null, 2)}\n`);
}

async function runColdStart() {
  const runs = Number(values.runs);
  process.stderr.write(`cold start: starting the service ${runs} times, then the MCP stdio server ${runs} times…\n`);
  const figures = await measureColdStart(runs);
  console.log(`\n${describeColdStart(figures)}`);
  if (values.out) writeFileSync(values.out.replace(/(\.json)?$/, '.coldstart.json'), `${JSON.stringify(figures, null, 2)}\n`);
  return figures;
}

async function runHealth() {
  const rows = 2_000_000;
  process.stderr.write('health: /health latency while a 2 M-row high-cardinality comparison runs…\n');
  const figures = await probeHealth(databaseFor(rows), rows);
  console.log(`\n/health during a ${rows.toLocaleString('en-US')}-row comparison (${figures.comparison_ms} ms): ${figures.health_requests} requests, p50 ${figures.health_p50_ms} ms, p99 ${figures.health_p99_ms} ms, max ${figures.health_max_ms} ms`);
  return figures;
}

function printTable(figures: Figure[]) {
  const header = ['case', 'engine', 'rows/source', 'distinct keys', 'ours ms', 'floor ms', 'naive ms', 'ours/floor', 'naive/ours', 'rss MB'];
  const rows = figures.map((f) => [
    f.case,
    f.engine,
    f.rows.toLocaleString('en-US'),
    f.distinct_keys.toLocaleString('en-US'),
    String(f.ms),
    String(f.floor_ms),
    f.naive_ms === null ? 'n/a' : String(f.naive_ms),
    (f.ms / f.floor_ms).toFixed(2),
    f.naive_ms === null ? 'n/a' : (f.naive_ms / f.ms).toFixed(1),
    String(f.rss_mb),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padStart(widths[i]!)).join(' | ')} |`;
  console.log(line(header));
  console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
  for (const row of rows) console.log(line(row));
}

main().catch((error: unknown) => {
  process.stderr.write(`bench failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
