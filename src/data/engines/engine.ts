/**
 * An engine: one open connection to one database, as the query runner (execute.ts) needs it.
 * Statements come compiled for the engine's dialect; rows come back as arrays of plain values
 * (numbers as numbers, whatever the driver's own types for decimals and big integers).
 */
import type { Dialect } from '../dialect.ts';
import type { MergeQuery, Value } from '../query.ts';
import type { Folding } from '../reducer.ts';

export type EngineKind = 'sqlite' | 'duckdb' | 'postgres';

/** Per-partition totals of a merge, before the reducer's result is added. */
export interface MergeTotals {
  sql: string;
  partitions: { partition: string | null; keys: number; a: number; b: number }[];
  /** How a merge across engines ran (merges within one engine leave it out). */
  method?: MergeMethod;
}

/**
 * How a merge across engines ran: every key's totals streamed and merged (`row_merge`), or
 * checksum bisection (`checksum_bisection`): `passes` rounds of per-segment checksums compared,
 * `segments` the segment checksums read, `rows` the per-key rows read from both sides.
 */
export interface MergeMethod {
  name: 'row_merge' | 'checksum_bisection';
  passes: number;
  segments: number;
  rows: number;
}

export interface Engine {
  readonly kind: EngineKind;
  readonly dialect: Dialect;
  /** Every row of a statement. */
  all(sql: string, params: readonly Value[]): Promise<unknown[][]>;
  /** The rows of a statement in chunks, for folds and merges that must not hold a whole result. */
  chunks(sql: string, params: readonly Value[]): AsyncIterable<unknown[][]>;
  /**
   * A merge in the engine's own fastest SQL, feeding the differing keys to `folding`; engines
   * without one run the portable statement (execute.ts).
   */
  merge?(query: MergeQuery, folding: Folding): Promise<MergeTotals>;
  /**
   * A second session on the same database, for engines whose server runs two statements at once
   * on two cores (PostgreSQL): a merge then computes its totals and its differing keys side by side.
   */
  sibling?(): Promise<Engine>;
  /**
   * For checksum bisection: a table whose rows have numbers the engine can note each row's hash
   * bits by (RowNotes), so a later read finds rows by number; undefined when it has none.
   */
  rowNotes?(table: string): Promise<RowNotes | undefined>;
  /** Column names of a table or view; undefined when there is none. */
  columns(table: string): Promise<string[] | undefined>;
  /** Whether the connection broke (a server restart): the next query opens a new one. */
  broken?(): boolean;
  /** Stops the running statement, if any (best effort: the pool kills the worker when it must). */
  interrupt(): void;
  close(): Promise<void>;
}

/**
 * One comparison's notes of a table's rows (duckdbRowNotes.ts): `source` reads the table with each
 * row's number as `row`; `noted(row, hash)` is the hash, noting its low 16 bits at the row's number;
 * `choose(wanted)` a condition taking the rows noted with bits among `wanted` (a flag per 16-bit
 * value), for the next statement.
 */
export interface RowNotes {
  source: string;
  row: string;
  noted(row: string, hash: string): string;
  choose(wanted: Uint8Array): string;
  close(): void;
}

/** A driver's value as a plain JSON value: bigints and decimal objects become numbers. */
export function plainValue(value: unknown): unknown {
  if (typeof value === 'bigint') return Number(value);
  if (value === undefined) return null;
  return value;
}

/** A key or dimension value as text (numbers as written), NULL kept. */
export const text = (value: unknown): string | null => (value === null || value === undefined ? null : String(value));

/** The key values of a merged row in keyNames order: the grouped values with the constant keys put back. */
export function fullKey(grouped: readonly unknown[], constants: Map<number, string>, count: number): (string | null)[] {
  if (constants.size === 0) return grouped.map(text);
  const key: (string | null)[] = [];
  let next = 0;
  for (let index = 0; index < count; index += 1) key.push(constants.has(index) ? constants.get(index)! : text(grouped[next++]));
  return key;
}
