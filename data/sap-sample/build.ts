/**
 * Build the second sample (Northwind Traders, an SAP general-ledger extract with a separate
 * budget table, fiscal year starting in April) as SQLite, Parquet and CSV.
 *
 *   npm run data:sap-sample -- [--out DIR]
 *
 * --out DIR  folder to write into (default: data/sap-sample/out in the repository; a relative
 *            DIR is resolved against the working directory). It receives sap_sample.db,
 *            parquet/<table>.parquet and csv/<table>.csv.
 *
 * The build is deterministic: the same rows (the same bytes for SQLite and CSV) on every run.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { buildSapSample } from './write.ts';

const USAGE = 'usage: npm run data:sap-sample -- [--out DIR]';
const defaultOut = path.join(path.dirname(fileURLToPath(import.meta.url)), 'out');

async function main(argv: string[]): Promise<number> {
  let values: { out?: string | undefined; help?: boolean | undefined };
  try {
    ({ values } = parseArgs({ args: argv, options: { out: { type: 'string' }, help: { type: 'boolean', short: 'h' } }, strict: true, allowPositionals: false }));
  } catch (error) {
    console.error(`data:sap-sample: ${(error as Error).message}\n${USAGE}`);
    return 2;
  }
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  if (values.out !== undefined && values.out.trim() === '') {
    console.error(`data:sap-sample: --out needs a folder\n${USAGE}`);
    return 2;
  }
  const started = performance.now();
  const build = await buildSapSample(values.out ?? defaultOut);
  const counts = Object.entries(build.tables).map(([name, n]) => `${name}=${n}`).join(' ');
  console.log(`built the SAP sample (${counts}) in ${((performance.now() - started) / 1000).toFixed(2)} s:`);
  console.log(`  SQLite   ${build.sqlite}`);
  console.log(`  Parquet  ${build.parquet}/<table>.parquet`);
  console.log(`  CSV      ${build.csv}/<table>.csv`);
  console.log(`  PostgreSQL: npm run data:load -- --from ${build.sqlite} --to postgres://USER@HOST/DB --replace`);
  return 0;
}

try {
  process.exitCode = await main(process.argv.slice(2));
} catch (error) {
  console.error(`data:sap-sample: failed: ${(error as Error).stack ?? String(error)}`);
  process.exitCode = 1;
}
