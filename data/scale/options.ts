/**
 * Arguments of the database generator and their validation (shared by the CLI
 * data/generate.ts and generateDatabase()).
 */

export const ROWS_MIN = 1_000;
export const ROWS_MAX = 20_000_000;
export const COMPANIES_MIN = 2;
export const COMPANIES_MAX = 50;
/** Each company needs enough lines to fill its 60 company × period × account cells. */
export const ROWS_PER_COMPANY_MIN = 250;
export const SEED_MAX = 0xffffffff;
export const DEFAULT_SEED = 1;

export interface GeneratorOptions {
  /** FI document lines per FI source (fi_acquisition holds exactly this many). */
  rows: number;
  /** Database file to write; its manifest goes to `${out}.manifest.json`. */
  out: string;
  seed: number;
  companies: number;
}

/** A bad argument: the message names the option and what is wrong. */
export class UsageError extends Error {
  override name = 'UsageError';
}

/** Companies by default: 3 up to 100 k rows, growing to 20 at 10 M rows (logarithmically). */
export function defaultCompanies(rows: number): number {
  if (rows <= 100_000) return 3;
  const grown = Math.round(3 + 8.5 * Math.log10(rows / 100_000));
  return Math.min(20, Math.max(3, grown), Math.floor(rows / ROWS_PER_COMPANY_MIN));
}

const fmt = (n: number) => n.toLocaleString('en-US');

/**
 * Parses an integer argument: digits with optional `_` or `,` separators and an optional
 * k / m suffix (thousands, millions), e.g. 20000, 20_000, 20k, 1.5m, 10M.
 */
export function parseInteger(option: string, text: string): number {
  const match = /^\s*(\d[\d_,]*(?:\.\d+)?)\s*([kKmM]?)\s*$/.exec(text);
  if (!match) throw new UsageError(`--${option} must be a whole number (e.g. 1000000, 1_000_000 or 1m), got '${text}'`);
  const base = Number(match[1]!.replace(/[_,]/g, ''));
  const factor = match[2] === '' ? 1 : /k/i.test(match[2]!) ? 1_000 : 1_000_000;
  const value = base * factor;
  if (!Number.isSafeInteger(value)) throw new UsageError(`--${option} must be a whole number, got '${text}'`);
  return value;
}

function checkRange(option: string, value: number, min: number, max: number): void {
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new UsageError(`--${option} must be an integer between ${fmt(min)} and ${fmt(max)}, got ${Number.isFinite(value) ? fmt(value) : String(value)}`);
  }
}

/** Validates and completes the options (default seed and company count). */
export function resolveOptions(input: { rows: number; out: string; seed?: number | undefined; companies?: number | undefined }): GeneratorOptions {
  checkRange('rows', input.rows, ROWS_MIN, ROWS_MAX);
  if (typeof input.out !== 'string' || input.out.trim() === '') throw new UsageError('--out needs the path of the database file to write');
  if (/[\\/]$/.test(input.out)) throw new UsageError(`--out must name a file, not a folder: '${input.out}'`);
  const seed = input.seed ?? DEFAULT_SEED;
  checkRange('seed', seed, 0, SEED_MAX);
  const companies = input.companies ?? defaultCompanies(input.rows);
  checkRange('companies', companies, COMPANIES_MIN, COMPANIES_MAX);
  if (input.rows < companies * ROWS_PER_COMPANY_MIN) {
    throw new UsageError(
      `--companies ${companies} needs --rows of at least ${fmt(companies * ROWS_PER_COMPANY_MIN)} (${ROWS_PER_COMPANY_MIN} rows per company), got ${fmt(input.rows)}`,
    );
  }
  return { rows: input.rows, out: input.out, seed, companies };
}
