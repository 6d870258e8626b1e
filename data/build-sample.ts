/**
 * Build the bundled sample database (SAP BW finance reporting, FY 2024).
 *
 *   tsx data/build-sample.ts [--out FILE] [--if-missing]
 *
 * --out FILE    where to write the database (default: data/sample.db in the
 *               repository, whatever the working directory; a relative FILE
 *               is resolved against the working directory)
 * --if-missing  do nothing when the file already exists and has the current
 *               schema (a database built by an older generator, e.g. without
 *               fi_acquisition, is rebuilt)
 *
 * The build is deterministic: the same bytes of row data on every run.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { buildSampleDatabase, isCurrentSampleDatabase } from './sample/generate.ts';

const USAGE = 'usage: tsx data/build-sample.ts [--out FILE] [--if-missing]';
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const defaultOut = path.join(repoRoot, 'data', 'sample.db');

function main(argv: string[]): number {
  let values: { out?: string | undefined; 'if-missing'?: boolean | undefined; help?: boolean | undefined };
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        out: { type: 'string' },
        'if-missing': { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    console.error(`build-sample: ${(error as Error).message}\n${USAGE}`);
    return 2;
  }
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  if (values.out !== undefined && values.out.trim() === '') {
    console.error(`build-sample: --out needs a file path\n${USAGE}`);
    return 2;
  }

  const out = values.out !== undefined ? path.resolve(values.out) : defaultOut;
  const relative = path.relative(process.cwd(), out);
  const shown = relative && !relative.startsWith('..') && !path.isAbsolute(relative) ? relative : out;
  let outdated = false;
  if (values['if-missing'] && fs.existsSync(out)) {
    if (isCurrentSampleDatabase(out)) {
      console.log(`sample database ${shown} already exists, not rebuilt (run without --if-missing to rebuild)`);
      return 0;
    }
    outdated = true;
  }

  const started = process.hrtime.bigint();
  const { tables } = buildSampleDatabase(out);
  const elapsedMs = Number(process.hrtime.bigint() - started) / 1e6;
  const counts = Object.entries(tables)
    .map(([name, n]) => `${name}=${n}`)
    .join(' ');
  const why = outdated ? ' (the existing file had an outdated schema)' : '';
  console.log(`built sample database ${shown}${why}: ${counts} in ${(elapsedMs / 1000).toFixed(2)}s`);
  return 0;
}

try {
  process.exitCode = main(process.argv.slice(2));
} catch (error) {
  console.error(`build-sample: failed: ${(error as Error).stack ?? String(error)}`);
  process.exitCode = 1;
}
