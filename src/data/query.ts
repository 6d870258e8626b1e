/**
 * The data layer's building blocks: a small, dialect-neutral description of a query that a
 * dialect compiles to SQL (dialect.ts) and an engine runs (engines/: SQLite, DuckDB, PostgreSQL). Skills build what
 * they need from these blocks; no block knows what a skill does with the rows.
 *
 * Names of tables and columns come only from the catalog; values are always bound, never
 * written into the SQL text.
 */
import type { MergeMethod } from './engines/engine.ts';
import type { ReducerReference } from './reducer.ts';

/** A value as the data layer returns it. */
export type Value = string | number | null;

/**
 * A condition on one column. `in` with a null among its values also matches blanks (NULL or
 * ''), because blank values in SAP extracts arrive as either; `null` and `empty` tell them apart.
 */
export type Filter =
  | { column: string; kind: 'in'; values: (string | null)[] }
  | { column: string; kind: 'range'; from?: string | undefined; to?: string | undefined }
  | { column: string; kind: 'null' }
  /** '' or only spaces (not NULL). */
  | { column: string; kind: 'empty' }
  /** Any of the filters holds. */
  | { kind: 'any'; filters: Filter[] };

/** An output column of a query: its name in the result and the catalog column it reads. */
export interface Output {
  name: string;
  column: string;
}

/** An aggregate over the rows of a group, named in the result. */
export type Aggregate =
  | { name: string; function: 'sum' | 'min' | 'max' | 'avg'; column: string }
  /** COUNT(*), COUNT(column) (non-NULL values), or the rows that satisfy `where`. */
  | { name: string; function: 'count'; column?: string | undefined; where?: Filter | undefined }
  | { name: string; function: 'countDistinct'; column: string }
  /** The distinct values, sorted, NULL last (keep groups small: used to describe a few rows). */
  | { name: string; function: 'distinctValues'; column: string }
  /** Whether the rows of the group disagree on the column (a NULL differs from a value). */
  | { name: string; function: 'varies'; column: string };

/** A measure as one side of a merge reads it: summed, counted, … per key. */
export interface MeasureExpression {
  function: 'sum' | 'count' | 'min' | 'max' | 'avg';
  /** Undefined for count(*). */
  column: string | undefined;
}

/**
 * Rows of one table: plain columns, or, with aggregates, one row per distinct combination of
 * the columns (GROUP BY). Without columns, aggregates give one row, or none when no row matched.
 */
export interface SelectQuery {
  kind: 'select';
  /** The catalog connection the table lives on (default: the default connection). */
  connection?: string | undefined;
  table: string;
  columns?: Output[];
  aggregates?: Aggregate[];
  where?: Filter[];
  /** Only rows whose values of these columns occur in at least `atLeast` matching rows (e.g. duplicated keys). */
  repeated?: { columns: string[]; atLeast: number };
  /** Conditions on aggregates, by name (HAVING). */
  having?: { name: string; atLeast: number }[];
  /** Output names to sort by first; the columns always follow, so ties are ordered too. */
  orderBy?: { name: string; direction: 'asc' | 'desc' }[];
  limit?: number;
  /** Also report how many rows there are before the limit (`total`). */
  countAll?: boolean;
}

/** One side of a merge: a table's measure per key; a key is a column or a constant (e.g. a fixed currency). */
export interface MergeSide {
  /** The catalog connection of this side's table; the sides may live on different engines. */
  connection?: string | undefined;
  table: string;
  measure: MeasureExpression;
  keys: ({ column: string } | { literal: string })[];
  where: Filter[];
}

/**
 * Two sides' per-key totals merged in key order in one pass: totals per partition (e.g. per
 * currency) and every key whose sides differ at `decimals` streamed, in key order, into a
 * reducer; keys that agree are only counted. The cost is that of computing the per-key totals.
 */
export interface MergeQuery<Result = unknown> {
  kind: 'merge';
  keyNames: string[];
  a: MergeSide;
  b: MergeSide;
  /** Index in keyNames of the key that partitions the totals (e.g. the currency), if any. */
  partitionKey: number | undefined;
  decimals: number;
  /** Sum each side per key before merging: cheaper when keys are few, a needless sort when almost every row is a key. */
  preAggregate?: boolean;
  /**
   * How sides on different engines are merged: `auto` (default) bisects with checksums when keys
   * are many (not preAggregate), `bisect` always, `merge` streams every key's totals.
   * Within one engine `bisect` runs bisection on it too; otherwise the engine merges itself.
   */
  strategy?: 'auto' | 'bisect' | 'merge';
  fold: ReducerReference<MergedRow, Result>;
}

/** A key of a merge whose sides differ: side values rounded to `decimals` (null: no rows on that side), then the key values. */
export interface MergedRow {
  key: (string | null)[];
  a: number | null;
  b: number | null;
}

/** A select whose rows are streamed, in order, into a reducer that runs next to the data. */
export interface FoldQuery<Result = unknown> {
  kind: 'fold';
  select: SelectQuery;
  fold: ReducerReference<Row, Result>;
}

export type Query = SelectQuery | MergeQuery | FoldQuery;

/** A result row by output name; distinctValues gives a list, varies a boolean. */
export type Row = Record<string, Value | (string | null)[] | boolean>;

export interface SelectResult {
  /** The SQL that ran, for showing to users. */
  sql: string;
  rows: Row[];
  /** Rows before the limit, when `countAll` was asked. */
  total?: number;
}

export interface MergeResult<Result = unknown> {
  /** The SQL that ran: one statement, or one per line when the merge ran as several (side by side, across engines). */
  sql: string;
  /** Per partition value (one entry with partition null when there is none): keys, and the sides' unrounded totals. */
  partitions: { partition: string | null; keys: number; a: number; b: number }[];
  folded: Result;
  /** How a merge across engines ran (or one asked to bisect): see MergeMethod. */
  method?: MergeMethod;
}

export interface FoldResult<Result = unknown> {
  sql: string;
  rows: number;
  folded: Result;
}

/** The result type of a query description. */
export type ResultOf<Q extends Query> = Q extends MergeQuery<infer R> ? MergeResult<R> : Q extends FoldQuery<infer R> ? FoldResult<R> : SelectResult;

/**
 * The aggregate that computes a measure, under an output name.
 * @example
 * aggregateOf('amount', { function: 'sum', column: 'cs_trn_lc' }); // { name: 'amount', function: 'sum', column: 'cs_trn_lc' }
 */
export function aggregateOf(name: string, measure: MeasureExpression): Aggregate {
  if (measure.function === 'count') return { name, function: 'count', column: measure.column };
  if (measure.column === undefined) throw new Error(`measure '${name}' (${measure.function}) needs a column`);
  return { name, function: measure.function, column: measure.column };
}
