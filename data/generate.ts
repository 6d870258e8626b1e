/**
 * Generate a finance database of any size with the schema of the bundled sample and the
 * same kinds of planted discrepancies, plus a manifest of them (FILE.manifest.json).
 *
 *   npm run data:generate -- --rows N --out FILE [--seed S] [--companies C] [--quiet]
 *
 * --rows N        FI document lines per FI source (fi_acquisition, fi_reporting),
 *                 1,000 to 20,000,000; accepts 1_000_000, 1,000,000, 250k, 1m
 * --out TARGET    database to write (replaced if it exists; relative to the working directory):
 *                 a SQLite FILE, or duckdb:FILE, parquet:DIR or postgres://… (generated as SQLite
 *                 in a temporary folder, then copied there with data:load; the manifest is
 *                 written to --manifest, default ./generated.manifest.json)
 * --seed S        random seed, 0 to 4294967295 (default 1): same arguments, same database
 * --companies C   number of companies, 2 to 50 (default: 3 up to 100k rows, up to 20 at 10M)
 * --quiet         no progress lines, only the final summary
 *
 * Run the service on it with DATA_DB=FILE or DATA_URL=TARGET (the default catalog data/sources.yaml fits).
 */
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadData } from '../src/data/load/index.ts';
import { parseArgs } from 'node:util';
import { generateDatabase } from './scale/generateDatabase.ts';
import { UsageError, parseInteger } from './scale/options.ts';

const USAGE = 'usage: npm run data:generate -- --rows N --out FILE|duckdb:FILE|parquet:DIR|postgres://… [--manifest FILE] [--seed S] [--companies C] [--quiet]';
/** Targets other than a SQLite file: generated as SQLite first, then loaded there. */
const ENGINE_TARGET = /^(duckdb:|parquet:|postgres(ql)?:\/\/)/i;

async function main(argv: string[]): Promise<number> {
  let values: { rows?: string; out?: string; manifest?: string; seed?: string; companies?: string; quiet?: boolean; help?: boolean };
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        rows: { type: 'string' },
        out: { type: 'string' },
        manifest: { type: 'string' },
        seed: { type: 'string' },
        companies: { type: 'string' },
        quiet: { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    console.error(`data:generate: ${(error as Error).message}\n${USAGE}`);
    return 2;
  }
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  try {
    if (values.rows === undefined) throw new UsageError('--rows is required (FI lines per source, e.g. --rows 1000000)');
    if (values.out === undefined) throw new UsageError('--out is required (the database file to write, e.g. --out /tmp/finance.db)');
    const rows = parseInteger('rows', values.rows);
    const seed = values.seed === undefined ? undefined : parseInteger('seed', values.seed);
    const companies = values.companies === undefined ? undefined : parseInteger('companies', values.companies);
    const quiet = values.quiet === true;
    const target = ENGINE_TARGET.test(values.out) ? values.out : undefined;
    const staging = target ? mkdtempSync(path.join(os.tmpdir(), 'analyst-generate-')) : undefined;
    const result = generateDatabase({
      rows,
      out: staging ? path.join(staging, 'generated.db') : values.out,
      seed,
      companies,
      onProgress: quiet ? undefined : (message) => console.error(`  ${message}`),
    });
    const counts = Object.entries(result.manifest.tables)
      .map(([name, n]) => `${name}=${n}`)
      .join(' ');
    if (target && staging) {
      try {
        const loaded = await loadData({ from: result.path, to: target, replace: true, ...(quiet ? {} : { onProgress: (message: string) => console.error(`  ${message}`) }) });
        const manifest = path.resolve(values.manifest ?? 'generated.manifest.json');
        copyFileSync(result.manifestPath, manifest);
        console.log(`generated ${loaded.target}: ${loaded.rows.toLocaleString('en-US')} rows at ${loaded.rowsPerSecond.toLocaleString('en-US')} rows/s; planted discrepancies in ${manifest}`);
        return 0;
      } finally {
        rmSync(staging, { recursive: true, force: true });
      }
    }
    const relative = path.relative(process.cwd(), result.path);
    const shown = relative && !relative.startsWith('..') && !path.isAbsolute(relative) ? relative : result.path;
    const { seed: usedSeed, companies: usedCompanies, discrepancies } = result.manifest;
    console.log(
      `generated ${shown} (${(result.bytes / 1024 / 1024).toFixed(1)} MB, seed ${usedSeed}, ${usedCompanies} companies, ` +
        `${discrepancies.length} planted discrepancies in ${path.basename(result.manifestPath)}): ${counts} in ${(result.elapsedMs / 1000).toFixed(1)}s`,
    );
    return 0;
  } catch (error) {
    if (error instanceof UsageError) {
      console.error(`data:generate: ${error.message}\n${USAGE}`);
      return 2;
    }
    throw error;
  }
}

try {
  process.exitCode = await main(process.argv.slice(2));
} catch (error) {
  console.error(`data:generate: failed: ${(error as Error).stack ?? String(error)}`);
  process.exitCode = 1;
}
