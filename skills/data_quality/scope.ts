/**
 * What the data_quality tools share: resolving a source, its filters and dimension names
 * against the catalog (with errors that list the valid choices), and reading from the catalog
 * which dimensions identify a record, which are technical load metadata and which give context.
 */
import { closestMatch, defaultFiltersNote, findDimension, findMeasure, findSource, resolveFilters, suggestionHint, ToolError, toWhere, type Catalog, type Dimension, type Filter, type FilterInput, type Measure, type NamedColumn, type ResolvedFilters, type Source } from '../../src/skills/api.ts';

/** A catalog dimension as a query needs it: its logical name and its column (the SDK's duplicate search takes these). */
export type { NamedColumn };

export interface Scope {
  source: Source;
  filters: ResolvedFilters;
  where: Filter[];
  notes: string[];
}

/** The source and its filters (catalog defaults such as version ACTUAL included). */
export function resolveScope(catalog: Catalog, sourceName: string, filters: FilterInput | undefined): Scope {
  const source = findSource(catalog, sourceName);
  const resolved = resolveFilters(source, filters);
  const notes: string[] = [];
  const defaults = defaultFiltersNote(resolved.defaultsApplied, source.name);
  if (defaults) notes.push(defaults);
  return { source, filters: resolved, where: toWhere(resolved.conditions), notes };
}

export const named = (dimension: Dimension): NamedColumn => ({ name: dimension.name, column: dimension.column });

/**
 * Resolves dimension names given for `argument`, without repeats.
 * @throws ToolError unknown_dimension with the source's dimensions and the closest one.
 */
export function resolveDimensions(source: Source, names: readonly string[], argument: string): Dimension[] {
  return [...new Set(names)].map((name) => {
    try {
      return findDimension(source, name);
    } catch (error) {
      if (!ToolError.isInstance(error)) throw error;
      const choices = [...source.dimensions.keys()];
      throw new ToolError('unknown_dimension', `${argument}: dimension '${name}' does not exist in source '${source.name}'.`, {
        hint: suggestionHint(name, choices),
        details: { argument, source: source.name, choices, closest: closestMatch(name, choices) ?? null },
      });
    }
  });
}

/**
 * Technical load metadata: dimensions that say how a row arrived (BW load request, data
 * package, batch), not what it is about. Copies of one record typically differ only there.
 * Read from the catalog: the name says load/request/batch/package, or the description calls it technical.
 */
export function technicalDimensions(source: Source): Dimension[] {
  return [...source.dimensions.values()].filter(
    (d) => /(^|_)(load|loads|request|requests|upload|batch|package|datapackage)(_|$)/.test(d.name) || /^\s*technical\b/i.test(d.description),
  );
}

/** The document and document-line dimensions, when the source has both: they identify one record. */
export function documentKey(source: Source): Dimension[] | undefined {
  const document = source.dimensions.get('document');
  const line = source.dimensions.get('document_line');
  return document && line ? [document, line] : undefined;
}


/** Context named in findings: the catalog's default alignment dimensions (company, period) the source has. */
export function contextDimensions(catalog: Catalog, source: Source): Dimension[] {
  return catalog.defaultAlignOn.flatMap((name) => source.dimensions.get(name) ?? []);
}

/**
 * The amount measure to total: the named one, else the source's first default measure that
 * sums a column (e.g. amount). Undefined when the source has none.
 * @throws ToolError unknown_measure / invalid_value for a named measure that cannot be summed.
 */
export function amountMeasure(source: Source, name: string | undefined): Measure | undefined {
  if (name !== undefined) {
    const measure = findMeasure(source, name);
    if (measure.aggregation !== 'sum' || !measure.column) {
      const choices = summable(source).map((m) => m.name);
      throw new ToolError('invalid_value', `Measure '${name}' of '${source.name}' is not an amount that can be summed (aggregation ${measure.aggregation}).`, {
        hint: `Use one of: ${choices.join(', ') || '(none)'}.`,
        details: { argument: 'measure', choices, closest: closestMatch(name, choices) ?? null },
      });
    }
    return measure;
  }
  const measures = summable(source);
  return measures.find((m) => source.defaultMeasures.includes(m.name)) ?? measures[0];
}

function summable(source: Source): Measure[] {
  return [...source.measures.values()].filter((m) => m.aggregation === 'sum' && m.column);
}

/** The currency dimension of a local-currency measure, if any. */
export function currencyDimension(source: Source, measure: Measure | undefined): Dimension | undefined {
  return measure?.currencyDimension ? source.dimensions.get(measure.currencyDimension) : undefined;
}


/** "company 1000, period 2024012". */
export function describeValues(values: Record<string, unknown>): string {
  return Object.entries(values)
    .map(([name, value]) => `${name.replace(/_/g, ' ')} ${Array.isArray(value) ? value.map(show).join(', ') : show(value)}`)
    .join(', ');
}

const show = (value: unknown): string => {
  if (value === null || value === undefined) return '(blank)';
  // A range filter as applied: {from, to} (either may be open).
  if (typeof value === 'object' && ('from' in value || 'to' in value)) {
    const range = value as { from?: unknown; to?: unknown };
    return `${range.from === undefined ? '…' : String(range.from)} to ${range.to === undefined ? '…' : String(range.to)}`;
  }
  return String(value);
};

/** "A", "A and B", "A, B and C". */
export function listText(items: readonly string[]): string {
  if (items.length <= 1) return items.join('');
  return `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;
}

/** "load request" → "load requests" for counts other than one. */
export function plural(count: number, noun: string): string {
  return `${count.toLocaleString('en-US')} ${count === 1 ? noun : noun.endsWith('s') ? noun : `${noun}s`}`;
}

/** 2 → "twice", 3 → "3 times". */
export function times(count: number): string {
  return count === 1 ? 'once' : count === 2 ? 'twice' : `${count} times`;
}
