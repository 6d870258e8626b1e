/**
 * The in-memory catalog: sources with named dimensions and measures, plus lookups that
 * fail with recoverable tool errors naming the valid choices and the closest one.
 */
import { ToolError } from '../errors/index.ts';
import { closestMatch, suggestionHint } from '../shared/closestMatch.ts';
import type { ConnectionSpec } from '../data/connections.ts';
import { canonicalColumnName, type ComputedColumns, type PeriodColumn } from '../data/periodColumns.ts';
import type { PeriodCalendar } from './periods.ts';
import type { CatalogDocument, Thresholds } from './schema.ts';

export interface Dimension {
  name: string;
  column: string;
  type: 'text' | 'period';
  description: string;
  examples: string[];
  cardinality: 'low' | 'high';
  /** Other words for the dimension, from the catalog. */
  synonyms: string[];
  /** Business names of values: value → [label, other names…]. */
  values: Map<string, string[]>;
  /**
   * A period held otherwise than as fiscal YYYYPPP (YYYYMM, a date, two columns): how it is
   * stored. `column` is then the computed YYYYPPP column every query reads (periodColumns.ts).
   */
  stored?: PeriodColumn;
  /** Period dimensions: how values may be spelt (the stored notation) and the fiscal year's first month. */
  calendar?: PeriodCalendar;
}

export interface Measure {
  name: string;
  /** Undefined only for `count`, which counts rows. */
  column: string | undefined;
  aggregation: 'sum' | 'count' | 'min' | 'max' | 'avg';
  description: string;
  /** Name of the dimension holding each row's currency key, for local-currency amounts. */
  currencyDimension: string | undefined;
  /** A fixed currency (e.g. group currency). */
  currency: string | undefined;
  unit: string | undefined;
  /** Other words for the measure, from the catalog. */
  synonyms: string[];
}

export type FilterScalar = string | number | boolean;

export interface Source {
  name: string;
  description: string;
  aliases: string[];
  table: string;
  /** The connection the table lives on ('default' unless the catalog names another). */
  connection: string;
  dimensions: Map<string, Dimension>;
  measures: Map<string, Measure>;
  defaultMeasures: string[];
  defaultFilters: Record<string, FilterScalar | FilterScalar[]>;
  /** Dimensions the source does not store because every row has one value, e.g. version ACTUAL. */
  implied: Record<string, string>;
}

export interface Catalog {
  sources: Map<string, Source>;
  groupCurrency: string | undefined;
  /** The calendar month the fiscal year starts in (1: January); fiscal years are named by their start. */
  fiscalYearStart: number;
  /**
   * The fiscal year start with the first calendar notation a period dimension is stored in
   * (YYYYMM, YYYY-MM, date), else YYYYPPP: how answers spell a period and how questions read one.
   */
  periodCalendar: PeriodCalendar;
  defaultAlignOn: string[];
  thresholds: Thresholds;
  /** Subjects the data does not hold, with the reason (declined plainly when asked about). */
  notHeld: { terms: string[]; reason: string }[];
  /** Where the catalog was read from, for messages. */
  path: string;
  /** Connections the catalog declares besides `default` (URLs resolved; they may hold secrets). */
  connections: ConnectionSpec[];
}

/** Builds the lookup structures from a validated catalog document. */
export function buildCatalog(document: CatalogDocument, path: string, connections: ConnectionSpec[] = []): Catalog {
  const sources = new Map<string, Source>();
  for (const [name, source] of Object.entries(document.sources)) {
    const dimensions = new Map<string, Dimension>(
      Object.entries(source.dimensions).map(([dimensionName, d]) => {
        const stored = storedPeriod(d, document.fiscal_year_start);
        return [
          dimensionName,
          {
            name: dimensionName,
            column: stored ? canonicalColumnName(dimensionName) : d.column,
            type: d.type,
            description: d.description,
            examples: d.examples,
            cardinality: d.cardinality,
            synonyms: d.synonyms,
            values: new Map(Object.entries(d.values)),
            ...(stored ? { stored } : {}),
            ...(d.type === 'period' ? { calendar: { format: d.format ?? 'YYYYPPP', fiscalYearStart: document.fiscal_year_start } } : {}),
          },
        ];
      }),
    );
    const measures = new Map<string, Measure>(
      Object.entries(source.measures).map(([measureName, m]) => [
        measureName,
        {
          name: measureName,
          column: m.column,
          aggregation: m.aggregation,
          description: m.description,
          currencyDimension: m.currency_dimension,
          currency: m.currency,
          unit: m.unit,
          synonyms: m.synonyms,
        },
      ]),
    );
    sources.set(name, {
      name,
      description: source.description,
      aliases: source.aliases,
      table: source.table,
      connection: source.connection,
      dimensions,
      measures,
      defaultMeasures: source.defaults.measures ?? [measures.keys().next().value as string],
      defaultFilters: source.defaults.filters ?? {},
      // Without a prototype: a dimension named by a client ("toString") is never found as implied.
      implied: Object.assign(Object.create(null) as Record<string, string>, source.implied),
    });
  }
  return {
    sources,
    groupCurrency: document.group_currency,
    fiscalYearStart: document.fiscal_year_start,
    periodCalendar: periodCalendarOf(sources, document.fiscal_year_start),
    defaultAlignOn: document.comparison.default_align_on,
    thresholds: document.comparison.thresholds,
    notHeld: document.not_held,
    path,
    connections,
  };
}

/**
 * How a period dimension is stored when that is not fiscal YYYYPPP: a declared format other
 * than YYYYPPP. Fiscal year and period in two columns are fiscal already; calendar formats
 * (YYYYMM, YYYY-MM, dates) are shifted by the catalog's fiscal year start.
 */
function storedPeriod(dimension: CatalogDocument['sources'][string]['dimensions'][string], fiscalYearStart: number): PeriodColumn | undefined {
  if (dimension.type !== 'period' || dimension.format === undefined || dimension.format === 'YYYYPPP') return undefined;
  return { format: dimension.format, column: dimension.column, yearColumn: dimension.year_column, fiscalYearStart };
}

/**
 * The computed period columns each connection's tables need, for the connection specs the
 * query workers open (ConnectionSpec.computed).
 *
 * @example
 * computedColumnsOf(catalog).get('default') // { gl_extract: { __period_yyyyppp: { format: 'YYYYMM', … } } }
 */
export function computedColumnsOf(catalog: Catalog): Map<string, ComputedColumns> {
  const byConnection = new Map<string, ComputedColumns>();
  for (const source of catalog.sources.values()) {
    for (const dimension of source.dimensions.values()) {
      if (!dimension.stored) continue;
      const computed = byConnection.get(source.connection) ?? {};
      (computed[source.table] ??= {})[dimension.column] = dimension.stored;
      byConnection.set(source.connection, computed);
    }
  }
  return byConnection;
}

/** @throws ToolError unknown_source with the valid names and the closest one. */
export function findSource(catalog: Catalog, name: string): Source {
  const source = catalog.sources.get(name);
  if (source) return source;
  const choices = [...catalog.sources.keys()];
  throw new ToolError('unknown_source', `Source '${name}' not found.`, {
    hint: `${suggestionHint(name, choices)} List the catalog's sources to see what each one holds.`,
    details: { choices, closest: closestMatch(name, choices) ?? null },
  });
}

/** @throws ToolError unknown_measure listing the source's measures. */
export function findMeasure(source: Source, name: string): Measure {
  const measure = source.measures.get(name);
  if (measure) return measure;
  const choices = [...source.measures.keys()];
  throw new ToolError('unknown_measure', `Measure '${name}' does not exist in source '${source.name}'.`, {
    hint: suggestionHint(name, choices),
    details: { source: source.name, choices, closest: closestMatch(name, choices) ?? null },
  });
}

/** @throws ToolError unknown_dimension listing the source's dimensions. */
export function findDimension(source: Source, name: string): Dimension {
  const dimension = source.dimensions.get(name);
  if (dimension) return dimension;
  const choices = [...source.dimensions.keys()];
  throw new ToolError('unknown_dimension', `Dimension '${name}' does not exist in source '${source.name}'.`, {
    hint: suggestionHint(name, choices),
    details: { source: source.name, choices, closest: closestMatch(name, choices) ?? null },
  });
}

/**
 * The source's fiscal-period dimension (`type: period`), if it has one.
 *
 * @example
 * periodDimension(catalog.sources.get('fi_reporting')!)?.name // 'period'
 */
export function periodDimension(source: Source): Dimension | undefined {
  return [...source.dimensions.values()].find((d) => d.type === 'period');
}

/** The unit a measure's values are in, for a given row currency (if any). */
export function measureUnit(measure: Measure): string {
  if (measure.currency) return measure.currency;
  if (measure.currencyDimension) return `currency in dimension '${measure.currencyDimension}'`;
  return measure.unit ?? 'number';
}

/** Dimension names two sources share: the keys a comparison can align on. */
export function commonDimensions(a: Source, b: Source): string[] {
  return [...a.dimensions.keys()].filter((name) => b.dimensions.has(name));
}

function periodCalendarOf(sources: ReadonlyMap<string, Source>, fiscalYearStart: number): PeriodCalendar {
  const formats = [...sources.values()].flatMap((source) => [...source.dimensions.values()].map((d) => d.calendar?.format));
  const calendarFormat = formats.find((format) => format === 'YYYYMM' || format === 'YYYY-MM' || format === 'date');
  return { format: calendarFormat ?? 'YYYYPPP', fiscalYearStart };
}
