/**
 * The rows of find_duplicates' answer (findDuplicates.ts): each duplicate group and each pattern
 * (where duplicates sit) as the result lists them, and, for a pattern pinned to one context, the
 * scope's totals with and without the extra copies. The scan (the SDK's scanDuplicates) finds them; this
 * shapes them for the answer.
 */
import { roundAmount, type Dimension, type DuplicateGroup, type DuplicatePattern, type Filter, type Source, type ToolContext } from '../../src/skills/api.ts';
import { VALUES_PER_DIMENSION } from './limits.ts';

/** What the rows show: the key, the ignored and context dimensions, the currency, the summed measure. */
export interface DuplicateShape {
  key: Dimension[];
  ignore: Dimension[];
  contextDims: Dimension[];
  currency: Dimension | undefined;
  /** The summed measure, if the source has one. */
  amountName: string | undefined;
}

/** Single values as they are, several as a list. */
const oneOrMany = (values: (string | null)[]) => (values.length === 1 ? values[0]! : values.slice(0, VALUES_PER_DIMENSION));

type DimensionValues = Record<string, (string | null)[]>;

/** The context dimensions' values of a group or pattern (one value, or the first few). */
const contextValues = (values: DimensionValues, shape: DuplicateShape) => Object.fromEntries(shape.contextDims.map((d) => [d.name, oneOrMany(values[d.name] ?? [])]));
/** The ignored dimensions' values (e.g. load requests), always as a list. */
const ignoredValues = (values: DimensionValues, shape: DuplicateShape) => Object.fromEntries(shape.ignore.map((d) => [d.name, (values[d.name] ?? []).slice(0, VALUES_PER_DIMENSION)]));
/** What the copies differ in, the amount named as the source names it. */
const differsIn = (names: readonly string[], shape: DuplicateShape) => names.map((name) => (name === '(amount)' ? (shape.amountName ?? name) : name));

/**
 * One duplicate group as the answer lists it: its key, context values, currency, copies and
 * amounts, the ignored dimensions' values and what the copies differ in.
 * @example
 * groupRow(group, shape); // { document: '4711', document_line: '1', company: '1000', copies: 2, amount: 200, duplicated_amount: 100, load_request: ['R1', 'R2'], differs_in: [] }
 */
export function groupRow(group: DuplicateGroup, shape: DuplicateShape) {
  return {
    ...group.key,
    ...contextValues(group.values, shape),
    ...(shape.currency ? { [shape.currency.name]: group.currency } : {}),
    copies: group.copies,
    amount: group.amount,
    duplicated_amount: group.duplicatedAmount,
    ...ignoredValues(group.values, shape),
    differs_in: differsIn(group.differsIn, shape),
  };
}

/** A pattern row, with the scope totals scopeTotals adds to the first ones. */
export type PatternRow = ReturnType<typeof patternRow> & {
  scope?: { records: number; amount: number; without_copies: number };
  breakdown?: { dimension: string; values: { value: string | null; records: number; amount: number; holds_only_copies: boolean }[] };
};

/**
 * One pattern (the place duplicates sit: context values, currency, copies) as the answer lists
 * it, with its keys and, for a document key, its documents.
 * @example
 * patternRow(pattern, shape); // { company: '1000', period: '2024003', copies: 2, groups: 12, records: 24, load_request: ['R1', 'R2'], amount: …, keys: [...], more_keys: false, differs_in: [] }
 */
export function patternRow(pattern: DuplicatePattern, shape: DuplicateShape) {
  const documentDimension = shape.key.find((d) => d.name === 'document');
  // Documents of the listed keys (all of them unless more_keys); document_count counts every one.
  const documents = documentDimension && shape.key[0] === documentDimension ? [...new Set(pattern.keys.map((k) => k[documentDimension.name] ?? null))] : undefined;
  return {
    ...contextValues(pattern.values, shape),
    ...(shape.currency ? { [shape.currency.name]: pattern.currency } : {}),
    copies: pattern.copies,
    groups: pattern.groups,
    records: pattern.records,
    ...ignoredValues(pattern.values, shape),
    amount: pattern.amount,
    duplicated_amount: pattern.duplicatedAmount,
    ...(documents ? { documents, document_count: pattern.firstKeyValues } : {}),
    keys: pattern.keys,
    more_keys: pattern.groups > pattern.keys.length,
    differs_in: differsIn(pattern.differsIn, shape),
  };
}

/**
 * For a pattern pinned to one company and period (the context): the scope's total, what it
 * would be without the extra copies, and the first ignored dimension's values (e.g. load
 * requests) with their lines, marking a value that holds nothing but one copy of each record.
 * Nothing for a pattern that spans several contexts or a source without an amount.
 * @example
 * Object.assign(row, await scopeTotals(pattern, shape, source, scope.where, measure?.column, context));
 */
export async function scopeTotals(pattern: DuplicatePattern, shape: DuplicateShape, source: Source, where: Filter[], amountColumn: string | undefined, context: ToolContext) {
  if (!amountColumn) return {};
  const pinned = shape.contextDims.map((d) => [d, pattern.values[d.name] ?? []] as const);
  if (pinned.length === 0 || pinned.some(([, values]) => values.length !== 1)) return {};
  const split = shape.ignore[0];
  const conditions: Filter[] = [
    ...where,
    ...pinned.map(([d, values]): Filter => ({ column: d.column, kind: 'in', values: [values[0]!] })),
    ...(shape.currency ? [{ column: shape.currency.column, kind: 'in' as const, values: [pattern.currency] }] : []),
  ];
  const result = await context.data.run(
    {
      kind: 'select',
      table: source.table,
      connection: source.connection,
      columns: split ? [{ name: 'value', column: split.column }] : [],
      aggregates: [
        { name: 'records', function: 'count' },
        { name: 'amount', function: 'sum', column: amountColumn },
      ],
      where: conditions,
      limit: 50,
      countAll: true,
    },
    context.signal,
  );
  const rows = result.rows.map((row) => ({ value: split && row.value !== null && row.value !== undefined ? String(row.value) : null, records: Number(row.records), amount: roundAmount(Number(row.amount ?? 0)) }));
  const records = rows.reduce((sum, row) => sum + row.records, 0);
  const amount = roundAmount(rows.reduce((sum, row) => sum + row.amount, 0));
  const oneCopy = roundAmount(pattern.amount / pattern.copies);
  return {
    scope: { records, amount, without_copies: roundAmount(amount - pattern.duplicatedAmount) },
    ...(split && (result.total ?? 0) <= rows.length
      ? {
          breakdown: {
            dimension: split.name,
            values: rows.map((row) => ({ ...row, holds_only_copies: row.records === pattern.groups && Math.abs(row.amount - oneCopy) < 0.005 })),
          },
        }
      : {}),
  };
}
