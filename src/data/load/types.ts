/**
 * Shapes shared by the loader's targets (duckdb.ts, postgres.ts) and its entry point
 * (index.ts), kept apart so the targets do not import the entry point.
 */

/** What every target gets besides the rows. */
export interface WriterOptions {
  /** Drop (or overwrite) what already exists instead of refusing. */
  replace: boolean;
  /** Called with a table's rows copied so far, every `progressEvery` rows. */
  progress: (table: string, rows: number) => void;
  progressEvery: number;
}

/** One copied table. */
export interface TableLoadResult {
  table: string;
  rows: number;
  /** Wall time for this table, including its indexes. */
  ms: number;
  /** The SQLite index whose order the rows were written in, if any. */
  orderedBy: string | null;
  /** Indexes created in the target. */
  indexes: string[];
  /** What was left out or done differently, and why (e.g. indexes not recreated). */
  notes: string[];
}
