/**
 * Where `npm run data:load` writes: the `--to` URL parsed into a target, and the one way this
 * loader shows a target in messages (without password or user name), so a PostgreSQL password
 * never reaches a terminal, a CI log or an error.
 */
import path from 'node:path';
import { redactConnectionUrl, safeUrl } from '../../shared/redact.ts';

export type LoadTarget =
  | { kind: 'duckdb'; file: string; display: string }
  | { kind: 'parquet'; directory: string; display: string }
  | { kind: 'postgres'; url: string; display: string };

export const TARGET_FORMS = 'duckdb:FILE, parquet:DIR, postgres://USER@HOST:PORT/DATABASE (or postgresql://…)';

/**
 * Parses `--to`. Relative paths are resolved against `cwd`.
 * @throws Error naming the accepted forms for anything else.
 * @example
 * parseTarget('duckdb:data/sample.duckdb'); // { kind: 'duckdb', file: '/…/data/sample.duckdb', display: 'duckdb:/…/data/sample.duckdb' }
 * parseTarget('postgres://loader:secret@db:5432/analyst').display; // 'postgres://db:5432/analyst'
 */
export function parseTarget(to: string, cwd = process.cwd()): LoadTarget {
  if (/^postgres(ql)?:\/\//i.test(to)) {
    try {
      new URL(to);
    } catch {
      throw new Error(`Not a valid PostgreSQL URL: ${safeUrl(to)}`);
    }
    return { kind: 'postgres', url: to, display: safeUrl(to) };
  }
  const match = /^(duckdb|parquet):(.+)$/i.exec(to);
  if (match) {
    // duckdb:///abs/path is accepted too, as people write it like the postgres URL.
    const location = path.resolve(cwd, match[2]!.replace(/^\/\/(?=\/)/, ''));
    return match[1]!.toLowerCase() === 'duckdb'
      ? { kind: 'duckdb', file: location, display: `duckdb:${location}` }
      : { kind: 'parquet', directory: location, display: `parquet:${location}` };
  }
  throw new Error(`Unknown target ${safeUrl(to)}: use one of ${TARGET_FORMS}`);
}

/**
 * Text with the target URL (and its password) replaced by the safe form (see redactConnectionUrl).
 * @example
 * redactTarget('connect failed: postgres://u:pw@h/db', parseTarget('postgres://u:pw@h/db')); // 'connect failed: postgres://h/db'
 */
export function redactTarget(text: string, target: LoadTarget): string {
  return target.kind === 'postgres' ? redactConnectionUrl(text, target.url) : text;
}
