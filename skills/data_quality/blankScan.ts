/**
 * Blank (or placeholder) dimension values in one source table, built from the data layer's
 * select block: one counting pass over the table (per currency, three conditional counts per
 * dimension), then, only for the dimensions that have blanks, their amounts, a few example
 * records and where they sit. A clean table costs one scan; every result stays bounded.
 */
import { roundAmount, type Aggregate, type DataAccess, type Filter, type Output, type Row, type SelectQuery } from '../../src/skills/api.ts';
import type { NamedColumn } from './scope.ts';

type Value = string | null;

export interface BlankValuesPlan {
  table: string;
  /** The catalog connection of the table (undefined: the default one). */
  connection?: string | undefined;
  /** Dimensions to check; `details: false` counts only (no examples), e.g. for dimensions allowed to be blank. */
  dimensions: (NamedColumn & { details: boolean })[];
  currency: NamedColumn | undefined;
  amountColumn: string | undefined;
  where: Filter[];
  /** Values that mean "not assigned" (e.g. '#'), compared exactly and counted as placeholders. */
  placeholders: string[];
  /** Columns shown for each example record (e.g. document, document_line, company, period). */
  exampleColumns: NamedColumn[];
  examples: number;
  /** Dimensions to break the blank rows down by (e.g. company, period). */
  contextColumns: NamedColumn[];
  contexts: number;
}

export interface BlankDimension {
  dimension: string;
  nullRows: number;
  emptyRows: number;
  placeholderRows: number;
  /** Rows and amount of the blank rows, per currency. */
  amounts: { currency: Value; rows: number; amount: number | null }[];
  examples: Record<string, Value | number>[];
  /** Blank rows by context (largest first), and how many context groups exist in all. */
  where: Record<string, Value | number>[];
  whereGroups: number;
}

export interface BlankValuesOutcome {
  /** The counting statement. */
  sql: string;
  /** Rows checked, per currency. */
  checked: { currency: Value; rows: number }[];
  dimensions: BlankDimension[];
}

const text = (value: unknown): Value => (value === null || value === undefined ? null : String(value));
const count = (value: unknown) => Number(value ?? 0);

/** The column is NULL, empty or only spaces, or a placeholder value. */
export function blankFilter(column: string, placeholders: string[]): Filter {
  return {
    kind: 'any',
    filters: [{ column, kind: 'null' }, { column, kind: 'empty' }, ...(placeholders.length ? [{ column, kind: 'in' as const, values: placeholders }] : [])],
  };
}

/** The currency as the first output, when the plan has one: selects are then grouped per currency. */
const currencyOutput = (plan: BlankValuesPlan): Output[] => (plan.currency ? [{ name: 'currency', column: plan.currency.column }] : []);

/**
 * The counting select: one row per currency with the rows checked and, per dimension i,
 * `null_i`, `empty_i` and `placeholder_i` (placeholders only when the plan has any).
 * @example
 * blankCountSelect(plan).aggregates?.[1]; // { name: 'null_0', function: 'count', where: { column: 'prctr', kind: 'null' } }
 */
export function blankCountSelect(plan: BlankValuesPlan): SelectQuery {
  const counts = plan.dimensions.flatMap(({ column }, index): Aggregate[] => [
    { name: `null_${index}`, function: 'count', where: { column, kind: 'null' } },
    { name: `empty_${index}`, function: 'count', where: { column, kind: 'empty' } },
    ...(plan.placeholders.length ? [{ name: `placeholder_${index}`, function: 'count' as const, where: { column, kind: 'in' as const, values: plan.placeholders } }] : []),
  ]);
  return { kind: 'select', table: plan.table, connection: plan.connection, columns: currencyOutput(plan), aggregates: [{ name: 'rows', function: 'count' }, ...counts], where: plan.where };
}

/**
 * Counts blank values of every dimension in one pass, then reads amounts, examples and where
 * the blanks sit for the dimensions that have any.
 * @example
 * const outcome = await scanBlankValues(context.data, plan, context.signal);
 * outcome.dimensions.find((d) => d.dimension === 'profit_center')?.nullRows; // 3
 */
export async function scanBlankValues(data: DataAccess, plan: BlankValuesPlan, signal?: AbortSignal): Promise<BlankValuesOutcome> {
  const { sql, rows } = await data.run(blankCountSelect(plan), signal);
  const checked = rows.map((row) => ({ currency: plan.currency ? text(row.currency) : null, rows: count(row.rows) }));
  const sum = (name: string) => rows.reduce((total, row) => total + count(row[name]), 0);
  const dimensions: BlankDimension[] = plan.dimensions.map((dimension, index) => ({
    dimension: dimension.name,
    nullRows: sum(`null_${index}`),
    emptyRows: sum(`empty_${index}`),
    placeholderRows: plan.placeholders.length ? sum(`placeholder_${index}`) : 0,
    amounts: [],
    examples: [],
    where: [],
    whereGroups: 0,
  }));
  for (const [index, found] of dimensions.entries()) {
    if (found.nullRows + found.emptyRows + found.placeholderRows === 0) continue;
    const dimension = plan.dimensions[index]!;
    found.amounts = await blankAmounts(data, plan, dimension, signal);
    if (!dimension.details) continue;
    found.examples = await blankExamples(data, plan, dimension, signal);
    const context = await blankContexts(data, plan, dimension, signal);
    found.where = context.rows;
    found.whereGroups = context.groups;
  }
  return { sql, checked, dimensions };
}

const blankRowsWhere = (plan: BlankValuesPlan, dimension: NamedColumn): Filter[] => [...plan.where, blankFilter(dimension.column, plan.placeholders)];

/** The amount aggregate, when the plan has an amount column. */
const amountAggregate = (plan: BlankValuesPlan): Aggregate[] => (plan.amountColumn ? [{ name: 'amount', function: 'sum', column: plan.amountColumn }] : []);

/** A summed amount: 0 when every value was NULL (NULL amounts count as 0), null without an amount column. */
const summedAmount = (plan: BlankValuesPlan, row: Row): number | null => (plan.amountColumn ? roundAmount(Number(row.amount ?? 0)) : null);

async function blankAmounts(data: DataAccess, plan: BlankValuesPlan, dimension: NamedColumn, signal: AbortSignal | undefined): Promise<BlankDimension['amounts']> {
  const { rows } = await data.run(
    { kind: 'select', table: plan.table, connection: plan.connection, columns: currencyOutput(plan), aggregates: [{ name: 'rows', function: 'count' }, ...amountAggregate(plan)], where: blankRowsWhere(plan, dimension) },
    signal,
  );
  return rows.map((row) => ({ currency: plan.currency ? text(row.currency) : null, rows: count(row.rows), amount: summedAmount(plan, row) }));
}

async function blankExamples(data: DataAccess, plan: BlankValuesPlan, dimension: NamedColumn, signal: AbortSignal | undefined): Promise<Record<string, Value | number>[]> {
  if (plan.examples <= 0) return [];
  const shown = plan.exampleColumns.filter((c) => c.column !== dimension.column);
  const columns: Output[] = [
    ...shown.map((c, index) => ({ name: `shown_${index}`, column: c.column })),
    { name: 'value', column: dimension.column },
    ...(plan.amountColumn ? [{ name: 'amount', column: plan.amountColumn }] : []),
    ...currencyOutput(plan),
  ];
  const { rows } = await data.run({ kind: 'select', table: plan.table, connection: plan.connection, columns, where: blankRowsWhere(plan, dimension), limit: plan.examples }, signal);
  return rows.map((row) => ({
    ...Object.fromEntries(shown.map((c, index) => [c.name, text(row[`shown_${index}`])])),
    [dimension.name]: text(row.value),
    ...(plan.amountColumn ? { amount: row.amount === null || row.amount === undefined ? null : roundAmount(Number(row.amount)) } : {}),
    ...(plan.currency ? { [plan.currency.name]: text(row.currency) } : {}),
  }));
}

async function blankContexts(data: DataAccess, plan: BlankValuesPlan, dimension: NamedColumn, signal: AbortSignal | undefined): Promise<{ rows: Record<string, Value | number>[]; groups: number }> {
  const context = [...plan.contextColumns.filter((c) => c.column !== dimension.column), ...(plan.currency ? [plan.currency] : [])];
  if (context.length === 0 || plan.contexts <= 0) return { rows: [], groups: 0 };
  const result = await data.run(
    {
      kind: 'select',
      table: plan.table, connection: plan.connection,
      columns: context.map((c, index) => ({ name: `context_${index}`, column: c.column })),
      aggregates: [{ name: 'rows', function: 'count' }, ...amountAggregate(plan)],
      where: blankRowsWhere(plan, dimension),
      orderBy: [{ name: 'rows', direction: 'desc' }],
      limit: plan.contexts,
      countAll: true,
    },
    signal,
  );
  return {
    rows: result.rows.map((row) => ({
      ...Object.fromEntries(context.map((c, index) => [c.name, text(row[`context_${index}`])])),
      rows: count(row.rows),
      ...(plan.amountColumn ? { amount: summedAmount(plan, row) } : {}),
    })),
    groups: result.total ?? 0,
  };
}
