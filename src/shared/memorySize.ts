/**
 * A memory size as DuckDB's memory_limit takes it ("384MB", "2GB", "1.5GiB"), checked where it
 * is configured (the catalog's `memory_limit`, DUCKDB_MEMORY_LIMIT): a typo stops startup with
 * the setting's name rather than failing every DuckDB query later.
 */
import { z } from 'zod';

const UNITS: Record<string, number> = { kb: 1e3, mb: 1e6, gb: 1e9, tb: 1e12, kib: 2 ** 10, mib: 2 ** 20, gib: 2 ** 30, tib: 2 ** 40 };
/** Below this DuckDB cannot run even a small aggregation on two threads (16 MB ran out on 6 M rows). */
const LEAST_BYTES = 16e6;

/**
 * Its bytes, or undefined for anything else than a number and a unit.
 * @example
 * memoryBytes('2GB'); // 2_000_000_000
 */
export function memoryBytes(text: string): number | undefined {
  const match = /^(\d+(?:\.\d+)?)\s*(KB|MB|GB|TB|KiB|MiB|GiB|TiB)$/i.exec(text.trim());
  return match ? Number(match[1]) * UNITS[match[2]!.toLowerCase()]! : undefined;
}

/** DuckDB's memory_limit where nothing sets one (docs/operations.md's benchmark measures it). */
export const DEFAULT_DUCKDB_MEMORY_LIMIT = '384MB';

/** A memory size of at least 16 MB, as a zod string schema. */
export const memorySize = z.string().refine((text) => (memoryBytes(text) ?? 0) >= LEAST_BYTES, { error: 'must be a size such as 384MB or 2GB, at least 16MB' });
