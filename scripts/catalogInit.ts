/**
 * `npm run catalog:init -- --from URL|FILES [--tables a,b] [--out FILE] [--force] [--sample-rows N]`:
 * drafts a catalog (sources, dimensions, measures, periods and their format, value names, plan
 * and actual pairs, comparison defaults) from an existing database, opened read-only
 * (`sqlite:FILE`, `duckdb:FILE` or `postgres://…`), or from CSV/Parquet files or folders of them.
 * The YAML goes to --out (an existing file is refused without --force) or to stdout; progress,
 * where the draft went and the report of what was decided (and how sure) go to stderr.
 * The work is in src/catalog/draft; this is the command line around it. Exit 1 on a failure,
 * 2 on a usage error. The database's password is never printed or written.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import { DEFAULT_SAMPLE_ROWS, draftCatalog, withoutCredentials } from '../src/catalog/draft/index.ts';
import { isFilesSource } from '../src/catalog/draft/files.ts';

const USAGE = [
  'usage: npm run catalog:init -- --from URL|FILES [--tables a,b] [--out FILE] [--force] [--sample-rows N]',
  '  URL: sqlite:FILE, duckdb:FILE or postgres://USER@HOST:PORT/DATABASE (password from PGPASSWORD or ~/.pgpass)',
  '  FILES: .csv, .csv.gz or .parquet files or folders of them, comma-separated (relative to the working directory);',
  '         the draft reads them through DuckDB, with paths relative to the --out file\'s folder',
  '  --out: write the draft there (else it is printed on stdout); the report goes to stderr either way',
  `  --sample-rows: tables with more rows are profiled on their first N rows (default ${DEFAULT_SAMPLE_ROWS})`,
].join('\n');

export interface CommandLine {
  from: string;
  tables?: string[];
  out?: string;
  force: boolean;
  sampleRows: number;
}

/**
 * Parses the command line.
 * @returns the options, or a usage message.
 * @example
 * parseCommandLine(['--from', 'sqlite:data/sample.db', '--tables', 'fi_reporting,bpc_reporting', '--out', 'draft.yaml']);
 * // { ok: true, input: { from: 'sqlite:data/sample.db', tables: ['fi_reporting', 'bpc_reporting'], out: 'draft.yaml', force: false, sampleRows: 100000 } }
 */
export function parseCommandLine(args: string[]): { ok: true; input: CommandLine } | { ok: false; message: string } {
  let values: { from?: string; tables?: string; out?: string; force?: boolean; 'sample-rows'?: string; help?: boolean };
  try {
    ({ values } = parseArgs({
      args,
      options: {
        from: { type: 'string' },
        tables: { type: 'string' },
        out: { type: 'string' },
        force: { type: 'boolean' },
        'sample-rows': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (error) {
    // parseArgs quotes the offending argument, which could be a URL with a password.
    return { ok: false, message: `${redactArgs((error as Error).message, args)}\n${USAGE}` };
  }
  if (values.help || !values.from) return { ok: false, message: USAGE };
  const sampleRows = values['sample-rows'] === undefined ? DEFAULT_SAMPLE_ROWS : Number(values['sample-rows']);
  if (!Number.isInteger(sampleRows) || sampleRows < 1) return { ok: false, message: `--sample-rows must be a positive whole number\n${USAGE}` };
  const tables = values.tables?.split(',').map((name) => name.trim()).filter(Boolean);
  return {
    ok: true,
    input: {
      from: values.from,
      ...(tables && tables.length > 0 ? { tables } : {}),
      ...(values.out ? { out: values.out } : {}),
      force: values.force ?? false,
      sampleRows,
    },
  };
}

/** Any argument that is a data URL, shown without its credentials. */
function redactArgs(message: string, args: readonly string[]): string {
  return args.filter((arg) => arg.includes('://')).reduce((text, arg) => withoutCredentials(text, arg), message);
}

/**
 * Runs the command: drafts and writes (or prints) the catalog.
 * @returns the exit code (0 done, 1 failed).
 * @example
 * await runCatalogInit({ from: 'sqlite:data/sample.db', out: '/tmp/draft.yaml', force: false, sampleRows: 100_000 }, { stdout: process.stdout, stderr: process.stderr });
 */
export async function runCatalogInit(input: CommandLine, io: { stdout: { write(text: string): unknown }; stderr: { write(text: string): unknown } }): Promise<number> {
  try {
    const catalogDirectory = input.out ? path.dirname(path.resolve(input.out)) : undefined;
    const draft = await draftCatalog({ from: input.from, ...(input.tables ? { tables: input.tables } : {}), ...(catalogDirectory ? { catalogDirectory } : {}), sampleRows: input.sampleRows, onProgress: (line) => io.stderr.write(`${line}\n`) });
    if (input.out) {
      try {
        writeFileSync(input.out, draft.yaml, { flag: input.force ? 'w' : 'wx' });
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'EEXIST') throw new Error(`${input.out} exists; pass --force to overwrite it`);
        throw error;
      }
      io.stderr.write(`Drafted ${draft.sources.length} source(s) from ${draft.target} into ${input.out}. Search it for CHECK, then start the service with CATALOG=${input.out}.\n`);
    } else {
      io.stdout.write(draft.yaml);
      io.stderr.write(`Drafted ${draft.sources.length} source(s) from ${draft.target}; the catalog was printed on standard output (use --out FILE to write it to a file).\n`);
    }
    for (const table of draft.notDrafted) io.stderr.write(`Not drafted: ${table.table}: ${table.reason}\n`);
    io.stderr.write(`\n${draft.report.join('\n')}\n`);
    return 0;
  } catch (error) {
    // File paths hold no credentials, and are the useful part of the message.
    const message = (error as Error).message;
    io.stderr.write(`catalog:init failed: ${isFilesSource(input.from) ? message : withoutCredentials(message, input.from)}\n`);
    return 1;
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const parsed = parseCommandLine(process.argv.slice(2));
  if (!parsed.ok) {
    process.stderr.write(`${parsed.message}\n`);
    process.exit(2);
  }
  // exitCode, not exit(): a large draft piped to stdout must be flushed first.
  process.exitCode = await runCatalogInit(parsed.input, { stdout: process.stdout, stderr: process.stderr });
}
