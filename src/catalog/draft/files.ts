/**
 * Drafting from files: `catalog:init --from` a CSV or Parquet file, a folder of them, or several
 * (comma-separated). Each file becomes a table named after it (`GL Extract.csv` → gl_extract); a
 * sub-folder of Parquet files (a partitioned export) becomes one table read as `folder/*.parquet`.
 * The tables are read through an in-memory DuckDB (read_csv_auto / read_parquet, as the service
 * reads a catalog connection's `files:`), and the draft declares that connection with the paths
 * relative to the catalog file's folder, which is what the service resolves them against
 * (catalogConnections.ts).
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { logicalName } from './logicalNames.ts';

const DATA_FILE = /\.(csv|csv\.gz|parquet)$/i;
/** The catalog connection a draft from files declares. */
export const FILES_CONNECTION = 'files';

/**
 * Whether `--from` names files rather than a database URL.
 * @example
 * isFilesSource('exports/'); // true
 * isFilesSource('postgres://db/fi'); // false
 */
export function isFilesSource(from: string): boolean {
  return !/^(sqlite|duckdb|postgres|postgresql):/i.test(from);
}

/**
 * The tables a comma-separated list of files and folders holds: table → absolute path or glob.
 * Relative paths are read from the working directory.
 * @throws Error naming the path that does not exist, holds no CSV or Parquet file, or gives two tables one name.
 * @example
 * fileTables('data/sap-sample/out/parquet'); // { gl_extract: '/…/parquet/gl_extract.parquet', gl_plan: '/…/parquet/gl_plan.parquet', … }
 */
export function fileTables(from: string): Record<string, string> {
  const tables: Record<string, string> = {};
  const add = (name: string, file: string) => {
    const table = logicalName(name.replace(DATA_FILE, ''));
    if (tables[table]) throw new Error(`two files make the table ${table}: ${tables[table]} and ${file}; draft them separately or rename one`);
    tables[table] = file;
  };
  for (const entry of from.split(',').map((part) => part.trim()).filter(Boolean)) {
    const absolute = path.resolve(entry);
    if (!existsSync(absolute)) throw new Error(`${entry} does not exist (a relative path is read from the working directory, ${process.cwd()})`);
    if (!statSync(absolute).isDirectory()) {
      if (!DATA_FILE.test(absolute)) throw new Error(`${entry} is not a .csv, .csv.gz or .parquet file`);
      add(path.basename(absolute), absolute);
      continue;
    }
    const before = Object.keys(tables).length;
    for (const name of readdirSync(absolute).sort()) {
      const inside = path.join(absolute, name);
      if (statSync(inside).isDirectory()) {
        // A partitioned export: one table over its Parquet files.
        if (readdirSync(inside).some((file) => /\.parquet$/i.test(file))) add(name, path.join(inside, '*.parquet'));
      } else if (DATA_FILE.test(name)) {
        add(name, inside);
      }
    }
    if (Object.keys(tables).length === before) throw new Error(`${entry} holds no .csv, .csv.gz or .parquet file`);
  }
  if (Object.keys(tables).length === 0) throw new Error('--from names no file');
  return tables;
}

/**
 * The paths as the catalog will hold them: relative to the catalog's folder when it is known
 * (the draft is written with --out), else absolute; always with forward slashes.
 * @example
 * catalogPaths({ gl: '/data/exports/gl.csv' }, '/data'); // { gl: 'exports/gl.csv' }
 */
export function catalogPaths(tables: Record<string, string>, catalogDirectory: string | undefined): Record<string, string> {
  return Object.fromEntries(
    Object.entries(tables).map(([table, file]) => [table, (catalogDirectory ? path.relative(catalogDirectory, file) || '.' : file).split(path.sep).join('/')]),
  );
}
