/**
 * The catalog (semantic layer) format: which tables exist, what their columns mean,
 * how measures aggregate and in which currency, and how comparisons classify differences.
 */
import { z } from 'zod';
import { memorySize } from '../shared/memorySize.ts';

/** SQL identifiers are interpolated into SQL, so only plain names are allowed. */
const identifier = z
  .string()
  .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, { error: 'must be a plain SQL identifier (letters, digits, underscore)' });

/** Logical names the model uses: snake_case. */
const logicalName = z.string().regex(/^[a-z][a-z0-9_]*$/, { error: 'must be snake_case (a-z, 0-9, _)' });

/** The period notations a catalog may declare (`format` of a period dimension). */
export const PERIOD_FORMATS = ['YYYYPPP', 'YYYYMM', 'YYYY-MM', 'date', 'year_period'] as const;

const scalar = z.union([z.string(), z.number(), z.boolean()]);

const dimensionSchema = z.strictObject({
  column: identifier,
  type: z.enum(['text', 'period']).default('text'),
  /**
   * How a period dimension's values are written (type: period only; default YYYYPPP, 2024012):
   * YYYYMM (202412), YYYY-MM (2024-12), date (a DATE or TIMESTAMP column: the month of the date),
   * year_period (the column holds the period 1..16 of the fiscal year held in year_column).
   * Queries read the others through a computed fiscal YYYYPPP column (src/data/periodColumns.ts),
   * so filters, answers and tools speak YYYYPPP whatever the data holds.
   */
  format: z.enum(PERIOD_FORMATS).optional(),
  /** For format year_period: the column holding the fiscal year (2024). */
  year_column: identifier.optional(),
  description: z.string().min(1),
  examples: z.array(scalar.transform(String)).default([]),
  /** `high` for near-unique values (document numbers): comparisons on it skip pre-aggregation. */
  cardinality: z.enum(['low', 'high']).default('low'),
  /** Other words people use for the dimension ("entity", "cost centre"); the offline model understands them. */
  synonyms: z.array(z.string().min(1)).default([]),
  /** Business names of values: value → [label, other names…] (company 3000 → "Contoso UK Ltd", "Contoso UK"). */
  values: z.record(z.string(), z.array(z.string().min(1)).min(1)).default({}),
});

const measureSchema = z
  .strictObject({
    column: identifier.optional(),
    aggregation: z.enum(['sum', 'count', 'min', 'max', 'avg']),
    description: z.string().min(1),
    currency_dimension: logicalName.optional(),
    currency: z.string().regex(/^[A-Z]{3}$/, { error: 'must be an ISO currency code such as EUR' }).optional(),
    unit: z.string().min(1).optional(),
    /** Other words people use for the measure ("value", "P&L result"). */
    synonyms: z.array(z.string().min(1)).default([]),
  })
  .refine((m) => m.aggregation === 'count' || m.column !== undefined, {
    error: 'needs a column (only aggregation: count may omit it)',
    path: ['column'],
  })
  .refine((m) => [m.currency_dimension, m.currency, m.unit].filter((v) => v !== undefined).length <= 1, {
    error: 'give at most one of currency_dimension, currency, unit',
  });

const filterValue = z.union([scalar, z.array(scalar)]);

/**
 * A named connection: `url` (sqlite:FILE, duckdb:FILE, postgres://…; `${VARIABLE}` is read from
 * the environment, so secrets stay out of the file), and for DuckDB, tables backed by Parquet or
 * CSV files (`files: {bpc_reporting: exports/bpc/*.parquet}`; without `url`, an in-memory DuckDB),
 * and the memory a DuckDB query may use before it spills (`memory_limit: 2GB`; default 384MB).
 * Relative paths are relative to the catalog file.
 */
const connectionSchema = z
  .strictObject({
    url: z.string().min(1).optional(),
    files: z.record(identifier, z.string().min(1)).optional(),
    memory_limit: memorySize.optional(),
  })
  .refine((c) => c.url !== undefined || c.files !== undefined, { error: 'needs a url, files, or both' });

const sourceSchema = z.strictObject({
  description: z.string().min(1),
  /** The connection the table lives on (`default`: DATA_URL, or DATA_DB). */
  connection: logicalName.default('default'),
  /** Other names people use for the source ("FI", "BPC"); the offline model understands them. */
  aliases: z.array(z.string().min(1)).default([]),
  table: identifier,
  /** Dimensions the source does not store because every row has one value (FI holds only ACTUAL: `{version: ACTUAL}`). */
  implied: z.record(logicalName, scalar.transform(String)).default({}),
  dimensions: z.record(logicalName, dimensionSchema).refine((d) => Object.keys(d).length > 0, { error: 'needs at least one dimension' }),
  measures: z.record(logicalName, measureSchema).refine((m) => Object.keys(m).length > 0, { error: 'needs at least one measure' }),
  defaults: z
    .strictObject({
      measures: z.array(logicalName).optional(),
      filters: z.record(logicalName, filterValue).optional(),
    })
    .default({}),
});

const thresholdSchema = z.strictObject({
  absolute: z.number().nonnegative(),
  percent: z.number().nonnegative(),
});

export const catalogSchema = z.strictObject({
  version: z.literal(1),
  group_currency: z.string().regex(/^[A-Z]{3}$/).optional(),
  /**
   * The calendar month the fiscal year starts in (4: April to March), named by the calendar
   * year it starts in, as SAP does. Periods held as calendar months (YYYYMM, YYYY-MM, dates)
   * are read as fiscal periods of it: with 4, April 2025 is period 1 of 2025 (2025001).
   */
  fiscal_year_start: z.number().int().min(1).max(12).default(1),
  comparison: z
    .strictObject({
      default_align_on: z.array(logicalName).default(['company', 'period']),
      thresholds: z
        .strictObject({ match: thresholdSchema, minor: thresholdSchema })
        .refine((t) => t.match.absolute <= t.minor.absolute && t.match.percent <= t.minor.percent, {
          error: 'match thresholds must not exceed minor thresholds',
        }),
    }),
  /** Connections besides `default` (which DATA_URL or DATA_DB sets). */
  connections: z.record(logicalName, connectionSchema).default({}),
  sources: z.record(logicalName, sourceSchema).refine((s) => Object.keys(s).length > 0, { error: 'needs at least one source' }),
  /**
   * What the data does not hold ("cash balance", "balance sheet"), with the reason: questions
   * about it are declined plainly instead of being answered with a figure that is not it.
   */
  not_held: z.array(z.strictObject({ terms: z.array(z.string().min(1)).min(1), reason: z.string().min(1) })).default([]),
});

export type CatalogDocument = z.infer<typeof catalogSchema>;
export type SourceDocument = CatalogDocument['sources'][string];
export type DimensionDocument = SourceDocument['dimensions'][string];
export type MeasureDocument = SourceDocument['measures'][string];
export type Thresholds = CatalogDocument['comparison']['thresholds'];
export { thresholdSchema };
