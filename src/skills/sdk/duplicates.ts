/**
 * The skill SDK's duplicate search (data_quality's find_duplicates, and data_analyst's
 * duplicated loads behind a gap), re-exported by src/skills/api.ts. Duplicated records in one
 * source table, built from the data layer's blocks: one grouped select (key + currency)
 * restricted to keys that occur at least twice, whose groups stream in key order into a
 * reducer (duplicateFold.ts). Only duplicated groups are ever
 * read, and what comes back stays bounded whatever the table size. No SQL is written here: the
 * data layer compiles the description, quoting catalog names and binding every value.
 */
import type { DataAccess } from '../../data/dataAccess.ts';
import type { Aggregate, Filter, SelectQuery } from '../../data/query.ts';
import { duplicateOutputs as out, foldDuplicates, type DuplicateFoldOptions } from './duplicateFold.ts';

/** A dimension as a query reads it: its catalog name and its column. */
export interface NamedColumn {
  name: string;
  column: string;
}

type Value = string | null;

export interface DuplicatePlan {
  table: string;
  /** The catalog connection of the table (undefined: the default one). */
  connection?: string | undefined;
  /** Dimensions that identify one record: rows sharing all of them are copies. */
  key: NamedColumn[];
  /** The currency column of the amount, grouped on too, so amounts of different currencies never add up. */
  currency: NamedColumn | undefined;
  /** Column summed per group (the amount), if the source has one. */
  amountColumn: string | undefined;
  /** Dimensions whose distinct values are listed per group (the ignored ones and the context, e.g. company, period). */
  describe: NamedColumn[];
  /** Every other dimension: reported when copies of a record differ in it. */
  compare: NamedColumn[];
  where: Filter[];
  /** Groups returned, largest duplicated amount first. */
  top: number;
  /** Record keys kept per pattern. */
  keysPerPattern: number;
}

export interface DuplicateGroup {
  key: Record<string, Value>;
  currency: Value;
  copies: number;
  /** Sum over all copies. */
  amount: number | null;
  /** What the extra copies add: amount × (copies − 1) / copies (exact for identical copies). */
  duplicatedAmount: number | null;
  identicalAmounts: boolean;
  /** Distinct values of each described dimension among the copies. */
  values: Record<string, Value[]>;
  /** Compared dimensions in which the copies differ. */
  differsIn: string[];
}

/** Duplicate groups that share currency, number of copies and the values of every described dimension. */
export interface DuplicatePattern {
  currency: Value;
  copies: number;
  values: Record<string, Value[]>;
  groups: number;
  records: number;
  amount: number;
  duplicatedAmount: number;
  /** Keys of the first groups of the pattern, in key order. */
  keys: Record<string, Value>[];
  /** Distinct values of the first key dimension (e.g. documents) among all groups of the pattern. */
  firstKeyValues: number;
  differsIn: string[];
}

export interface DuplicateOutcome {
  sql: string;
  /** Keys that occur more than once. */
  groups: number;
  /** Rows in those groups. */
  records: number;
  /** Rows beyond the first of each group. */
  extraCopies: number;
  totals: { currency: Value; groups: number; records: number; amount: number; duplicatedAmount: number }[];
  /** Largest duplicated amount first; at most MAX_PATTERNS. */
  patterns: DuplicatePattern[];
  /** Patterns found in all (at least this many when `patternsComplete` is false). */
  patternCount: number;
  /** False when so many patterns exist that some groups only count in the totals. */
  patternsComplete: boolean;
  top: DuplicateGroup[];
}

/**
 * The grouped select behind a duplicate search. `repeated` makes it two steps: the keys that
 * occur more than once are found on the key columns alone (an index scan where the key is
 * indexed, as document + line is), then only their rows are read and described. Keys compare
 * NULL-safely, so a NULL key value still matches its copies. Rows come in key order.
 * @example
 * duplicateSelect({ table: 'fi_reporting', key: [{ name: 'document', column: 'ac_docnr' }], currency: undefined,
 *   amountColumn: 'cs_trn_lc', describe: [], compare: [], where: [], top: 10, keysPerPattern: 5 }).having;
 * // [{ name: 'copies', atLeast: 2 }]
 */
export function duplicateSelect(plan: DuplicatePlan): SelectQuery {
  if (plan.key.length === 0) throw new Error('a duplicate search needs at least one key column');
  const aggregates: Aggregate[] = [
    { name: out.copies, function: 'count' },
    ...(plan.amountColumn
      ? [
          { name: out.amount, function: 'sum', column: plan.amountColumn } as const,
          { name: out.amountVaries, function: 'varies', column: plan.amountColumn } as const,
        ]
      : []),
    ...plan.describe.map((c, index): Aggregate => ({ name: out.describe(index), function: 'distinctValues', column: c.column })),
    ...plan.compare.map((c, index): Aggregate => ({ name: out.compare(index), function: 'varies', column: c.column })),
  ];
  return {
    kind: 'select',
    table: plan.table,
    connection: plan.connection,
    // Columns are the grouping and, with no explicit orderBy, the order: key order, then currency.
    columns: [...plan.key.map((c, index) => ({ name: out.key(index), column: c.column })), ...(plan.currency ? [{ name: out.currency, column: plan.currency.column }] : [])],
    aggregates,
    where: plan.where,
    repeated: { columns: plan.key.map((c) => c.column), atLeast: 2 },
    having: [{ name: out.copies, atLeast: 2 }],
  };
}

/**
 * Finds the keys that occur more than once, with per-currency totals, patterns and the `top`
 * largest groups.
 * @example
 * const outcome = await scanDuplicates(context.data, {
 *   table: 'fi_reporting', key: [{ name: 'document', column: 'ac_docnr' }, { name: 'document_line', column: 'docline' }],
 *   currency: { name: 'currency', column: 'curkey_lc' }, amountColumn: 'cs_trn_lc',
 *   describe: [{ name: 'load_request', column: 'request_id' }], compare: [], where: [], top: 10, keysPerPattern: 20,
 * }, context.signal);
 * outcome.totals; // [{ currency: 'EUR', groups: 4, records: 8, amount: 220000, duplicatedAmount: 110000 }]
 */
export async function scanDuplicates(data: DataAccess, plan: DuplicatePlan, signal?: AbortSignal): Promise<DuplicateOutcome> {
  const options: DuplicateFoldOptions = {
    keyNames: plan.key.map((c) => c.name),
    hasCurrency: plan.currency !== undefined,
    hasAmount: plan.amountColumn !== undefined,
    describeNames: plan.describe.map((c) => c.name),
    compareNames: plan.compare.map((c) => c.name),
    top: plan.top,
    keysPerPattern: plan.keysPerPattern,
  };
  const result = await data.run({ kind: 'fold', select: duplicateSelect(plan), fold: foldDuplicates.with(options) }, signal);
  return { sql: result.sql, ...result.folded };
}
