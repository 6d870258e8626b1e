/**
 * `npm run data:load -- --from data/sample.db --to TARGET [--tables a,b] [--replace]`: copies a
 * SQLite database into DuckDB (`duckdb:FILE`), Parquet (`parquet:DIR`, one file per table) or
 * PostgreSQL (`postgres://…`), printing progress and rows/s. The work is in src/data/load;
 * this is the command line around it. Exit 1 on a failed load, 2 on a usage error. The target's
 * password is never printed.
 */
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import { loadData, TARGET_FORMS } from '../src/data/load/index.ts';

const USAGE = `usage: npm run data:load -- --from FILE.db --to TARGET [--tables a,b] [--replace]\n  TARGET: ${TARGET_FORMS}`;

/**
 * Parses the command line.
 * @returns the loader's input, or a usage message.
 * @example
 * parseCommandLine(['--from', 'data/sample.db', '--to', 'duckdb:/tmp/s.duckdb', '--tables', 'fi_reporting']);
 * // { ok: true, input: { from: 'data/sample.db', to: 'duckdb:/tmp/s.duckdb', tables: ['fi_reporting'], replace: false } }
 */
export function parseCommandLine(args: string[]): { ok: true; input: { from: string; to: string; tables?: string[]; replace: boolean } } | { ok: false; message: string } {
  let values: { from?: string; to?: string; tables?: string; replace?: boolean; help?: boolean };
  try {
    ({ values } = parseArgs({ args, options: { from: { type: 'string' }, to: { type: 'string' }, tables: { type: 'string' }, replace: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } } }));
  } catch (error) {
    return { ok: false, message: `${(error as Error).message}\n${USAGE}` };
  }
  if (values.help || !values.from || !values.to) return { ok: false, message: USAGE };
  const tables = values.tables?.split(',').map((name) => name.trim()).filter(Boolean);
  return { ok: true, input: { from: values.from, to: values.to, ...(tables && tables.length > 0 ? { tables } : {}), replace: values.replace ?? false } };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const parsed = parseCommandLine(process.argv.slice(2));
  if (!parsed.ok) {
    process.stderr.write(`${parsed.message}\n`);
    process.exit(2);
  }
  try {
    await loadData({ ...parsed.input, onProgress: (line) => process.stdout.write(`${line}\n`) });
  } catch (error) {
    // loadData's errors are already redacted.
    process.stderr.write(`data:load failed: ${(error as Error).message}\n`);
    process.exit(1);
  }
}
