/**
 * The cross-engine cases of `npm run bench`: fi_acquisition (about a key per row) on PostgreSQL
 * or SQLite against a Parquet copy of itself read by DuckDB, with 0, 10, 1,000 or 100,000
 * differing keys planted (amounts changed on evenly spread lines), compared by checksum
 * bisection beside the row merge and beside the slower side's own full scan with hashing.
 * Each measurement runs in its own process (measureBisection.ts) for its peak memory.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import pg from 'pg';
import { projectRoot } from '../src/config/config.ts';
import { loadData } from '../src/data/load/index.ts';
import type { EnginePreparer } from './engines.ts';

/**
 * `postgres+duckdb`: the warehouse table has a unique index over the compared keys (as a table
 * whose primary key is the document line has), so both sides sum their rows ungrouped;
 * `postgres-nokey+duckdb`: the same table without it, so DuckDB groups its keys.
 */
export type BisectionPair = 'postgres+duckdb' | 'postgres-nokey+duckdb' | 'sqlite+duckdb';
export const BISECTION_PAIRS: readonly BisectionPair[] = ['postgres+duckdb', 'postgres-nokey+duckdb', 'sqlite+duckdb'];
export const DIFFERING_KEYS = [0, 10, 1_000, 100_000] as const;

export interface BisectionFigure {
  pair: BisectionPair;
  keys: number;
  differing: number;
  ms: number;
  /** The slower side's own full scan with hashing. */
  floor_ms: number;
  /** The row merge (every key's totals streamed), measured with no differences. */
  merge_ms: number;
  rows_read: number;
  segments: number;
  passes: number;
  rss_mb: number;
  merge_rss_mb: number;
}

interface Measured {
  ms: number;
  keys?: number;
  method?: { passes: number; segments: number; rows: number };
  rss_mb: number;
}

/**
 * Measures every pair at `rows` keys.
 * @example
 * const figures = await measureBisection(preparer, '/…/bench-1000000.db', 1_000_000, dataDirectory, log);
 */
export async function measureBisection(preparer: EnginePreparer, sqliteFile: string, rows: number, dataDirectory: string, log: (line: string) => void, pairs: readonly BisectionPair[] = BISECTION_PAIRS): Promise<BisectionFigure[]> {
  const copies = await plantedCopies(sqliteFile, rows, dataDirectory, log);
  const figures: BisectionFigure[] = [];
  for (const pair of pairs) {
    const onPostgres = pair !== 'sqlite+duckdb';
    const a = onPostgres ? { name: 'warehouse', url: await preparer.postgresUrl(sqliteFile, rows) } : { name: 'default', url: `sqlite:${sqliteFile}` };
    if (onPostgres) await lineKey(a.url, pair === 'postgres+duckdb', log);
    const setup = (differing: number) => ({
      connections: [a, { name: 'exports', url: 'duckdb:', files: { [`fi_acquisition_${differing}`]: copies.get(differing)! } }],
      a: a.name,
      b: 'exports',
      tableB: `fi_acquisition_${differing}`,
    });
    const runs = rows >= 10_000_000 ? 1 : 3;
    log(`bisection ${pair} at ${rows.toLocaleString('en-US')} keys: the row merge and the sides' own scans…`);
    run('floor', setup(0), 1); // warm the caches
    const floor = run('floor', setup(0), runs);
    const merge = run('merge', setup(0), runs);
    for (const differing of DIFFERING_KEYS) {
      log(`  ${differing.toLocaleString('en-US')} differing keys…`);
      const bisected = run('bisect', setup(differing), runs);
      figures.push({
        pair,
        keys: bisected.keys ?? rows,
        differing,
        ms: bisected.ms,
        floor_ms: floor.ms,
        merge_ms: merge.ms,
        rows_read: bisected.method?.rows ?? 0,
        segments: bisected.method?.segments ?? 0,
        passes: bisected.method?.passes ?? 0,
        rss_mb: bisected.rss_mb,
        merge_rss_mb: merge.rss_mb,
      });
    }
  }
  return figures;
}

/** Gives the warehouse's fi_acquisition a unique index over document, line and currency, or takes it away. */
async function lineKey(url: string, unique: boolean, log: (line: string) => void): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    if (!unique) await client.query('DROP INDEX IF EXISTS bench_acq_line_key');
    else await client.query('CREATE UNIQUE INDEX IF NOT EXISTS bench_acq_line_key ON fi_acquisition (ac_docnr, docline, curkey_lc)').catch((error: Error) => log(`  no unique index (${error.message}): the warehouse side is grouped`));
  } finally {
    await client.end();
  }
}

function run(approach: 'bisect' | 'merge' | 'floor', setup: object, runs: number): Measured {
  const result = spawnSync(process.execPath, ['--import', 'tsx', path.join(projectRoot, 'bench/measureBisection.ts'), approach, String(runs)], {
    env: { ...process.env, BENCH_SETUP: JSON.stringify(setup) },
    encoding: 'utf8',
    timeout: 30 * 60 * 1000,
    maxBuffer: 1 << 20,
  });
  if (result.status !== 0) throw new Error(`bisection bench (${approach}) failed: ${(result.stderr || result.error?.message || '').trim().split('\n').slice(-3).join(' ')}`);
  return JSON.parse(result.stdout.trim().split('\n').at(-1)!) as Measured;
}

/**
 * Parquet copies of fi_acquisition, one per count of differing keys: every (rows / n)-th line's
 * amount raised by 1.00 (lines are one per key here), written by DuckDB from one plain copy.
 */
async function plantedCopies(sqliteFile: string, rows: number, dataDirectory: string, log: (line: string) => void): Promise<Map<number, string>> {
  const directory = path.join(dataDirectory, `bench-${rows}-acquisition-parquet`);
  const base = path.join(directory, 'fi_acquisition.parquet');
  if (!existsSync(base)) {
    log(`writing ${rows.toLocaleString('en-US')} rows of fi_acquisition as Parquet…`);
    mkdirSync(directory, { recursive: true });
    await loadData({ from: sqliteFile, to: `parquet:${directory}`, tables: ['fi_acquisition'] });
  }
  const copies = new Map<number, string>([[0, base]]);
  const missing = DIFFERING_KEYS.filter((count) => count > 0 && !existsSync(path.join(directory, `planted-${count}.parquet`)));
  const instance = missing.length ? await DuckDBInstance.create(':memory:') : undefined;
  const connection = await instance?.connect();
  for (const count of DIFFERING_KEYS.filter((n) => n > 0)) {
    const file = path.join(directory, `planted-${count}.parquet`);
    copies.set(count, file);
    if (!missing.includes(count)) continue;
    log(`planting ${count.toLocaleString('en-US')} differing keys…`);
    const step = Math.floor(rows / count);
    await connection!.run(
      `COPY (SELECT * EXCLUDE (line_number) REPLACE (CASE WHEN line_number % ${step} = 0 AND line_number <= ${step * count} THEN cs_trn_lc + 1 ELSE cs_trn_lc END AS cs_trn_lc)
       FROM (SELECT *, row_number() OVER () AS line_number FROM read_parquet('${base.replaceAll("'", "''")}'))) TO '${file.replaceAll("'", "''")}' (FORMAT parquet)`,
    );
  }
  connection?.closeSync();
  instance?.closeSync();
  return copies;
}

/** The figures as a table, the comparison beside the row merge and the slower side's own scan. */
export function describeBisection(figures: BisectionFigure[]): string {
  const header = ['engines', 'keys', 'differing', 'bisection ms', 'scan+hash ms', 'ratio', 'row merge ms', 'speed-up', 'rows read', 'of keys', 'segments', 'passes', 'rss MB', 'merge rss MB'];
  const rows = figures.map((f) => [
    f.pair,
    f.keys.toLocaleString('en-US'),
    f.differing.toLocaleString('en-US'),
    f.ms.toLocaleString('en-US'),
    f.floor_ms.toLocaleString('en-US'),
    (f.ms / f.floor_ms).toFixed(2),
    f.merge_ms.toLocaleString('en-US'),
    `${(f.merge_ms / f.ms).toFixed(1)}×`,
    f.rows_read.toLocaleString('en-US'),
    `${((f.rows_read / f.keys) * 100).toFixed(2)}%`,
    f.segments.toLocaleString('en-US'),
    String(f.passes),
    String(f.rss_mb),
    String(f.merge_rss_mb),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padStart(widths[i]!)).join(' | ')} |`;
  return [
    'Across engines: checksum bisection beside the row merge and the slower side’s own full scan with hashing (ratio = bisection / scan+hash)',
    line(header),
    `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`,
    ...rows.map(line),
  ].join('\n');
}
