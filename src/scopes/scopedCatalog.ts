/**
 * The catalog as a scoped key sees it, and the row restrictions the data layer enforces for it.
 * A source the scope leaves out, or one that cannot be limited (it lacks a scoped dimension),
 * is absent; a scoped dimension lists only the allowed values, with their business names; text
 * that names a hidden value or source is left out. So lookups, suggestions, examples and
 * descriptions answer for a hidden value exactly as for one that does not exist.
 */
import type { Catalog, Dimension, Source } from '../catalog/catalog.ts';
import type { RowRestriction } from '../data/restrictedData.ts';
import type { DataScope } from './dataScope.ts';
import { hiddenDataOf, mentionsAny, withoutMentions, type HiddenData } from './hiddenWords.ts';

// Text filtering lives with the rule for hidden words; re-exported for the catalog's other readers.
export { mentionsAny, withoutMentions } from './hiddenWords.ts';

export interface ScopedCatalog {
  catalog: Catalog;
  /** One per visible source's table: the scoped dimensions' values, as filters on their columns. */
  restrictions: RowRestriction[];
  /** Words that reveal hidden data (hidden.terms): text naming one is not shown. */
  hiddenTerms: string[];
  /** What is hidden from the scope and every word naming it (hiddenWords.ts). */
  hidden: HiddenData;
}

/**
 * @example
 * const { catalog: visible, restrictions } = scopeCatalog(catalog, { values: { company: ['1000'] } });
 * visible.sources.get('fi_reporting')!.dimensions.get('company')!.examples // ['1000']
 */
export function scopeCatalog(catalog: Catalog, scope: DataScope): ScopedCatalog {
  const allowed = new Map(Object.entries(scope.values).map(([dimension, values]) => [dimension, new Set(values)]));
  const visible = [...catalog.sources.values()].filter((source) => isVisible(source, scope, allowed));
  const hidden = hiddenDataOf(catalog, allowed, visible);
  const hiddenTerms = hidden.terms;
  const sources = new Map(visible.map((source) => [source.name, scopeSource(source, allowed, hiddenTerms)]));
  const restrictions = new Map<string, RowRestriction>();
  for (const source of visible) {
    const where = [...allowed].flatMap(([name, values]) => {
      const dimension = source.dimensions.get(name);
      return dimension ? [{ column: dimension.column, kind: 'in' as const, values: [...values] }] : [];
    });
    // Two sources over one table restrict it on the same dimensions: the first one's filters hold.
    const key = `${source.connection}\0${source.table}`;
    if (!restrictions.has(key)) restrictions.set(key, { connection: source.connection, table: source.table, where });
  }
  return { catalog: { ...catalog, sources }, restrictions: [...restrictions.values()], hiddenTerms, hidden };
}

/** Listed in the scope (or no list), and every scoped dimension either stored (then filtered) or implied with an allowed value. */
function isVisible(source: Source, scope: DataScope, allowed: Map<string, Set<string>>): boolean {
  if (scope.sources && !scope.sources.includes(source.name)) return false;
  for (const [dimension, values] of allowed) {
    if (source.dimensions.has(dimension)) continue;
    const implied = source.implied[dimension];
    if (implied === undefined || !values.has(implied)) return false;
  }
  return true;
}

function scopeSource(source: Source, allowed: Map<string, Set<string>>, hiddenTerms: string[]): Source {
  const dimensions = new Map<string, Dimension>();
  for (const [name, dimension] of source.dimensions) {
    const values = allowed.get(name);
    dimensions.set(name, values ? scopeDimension(dimension, values) : { ...dimension, description: withoutMentions(dimension.description, hiddenTerms) });
  }
  const measures = new Map([...source.measures].map(([name, measure]) => [name, { ...measure, description: withoutMentions(measure.description, hiddenTerms) }]));
  return { ...source, description: withoutMentions(source.description, hiddenTerms), dimensions, measures };
}

/** Only the allowed values; a description naming other values is rewritten to name the allowed ones. */
function scopeDimension(dimension: Dimension, allowed: Set<string>): Dimension {
  const values = new Map([...dimension.values].filter(([code]) => allowed.has(code)));
  const examples = dimension.examples.filter((example) => allowed.has(example));
  const listed = [...allowed].sort().map((code) => (values.get(code)?.[0] ? `${code} ${values.get(code)![0]}` : code));
  const hidden = [...dimension.values.keys(), ...dimension.examples].filter((code) => !allowed.has(code));
  const head = dimension.description.split(':')[0]!.trim() || dimension.name;
  const description = mentionsAny(dimension.description, hidden) ? `${head}: ${listed.join(', ')}` : dimension.description;
  return { ...dimension, values, examples: examples.length ? examples : [...allowed].sort(), description };
}
