/**
 * The values a scoped key's rows hold. A scope filters rows on some dimensions (company 1000),
 * but the catalog's examples and business names of the other dimensions (currency USD, profit
 * centre PC2010, a 2000-series document) may exist only in hidden rows: listing them would tell
 * the key what the hidden rows hold, and make "no such value" read differently for a hidden
 * value than for one that exists nowhere. So a scoped catalog keeps, for every dimension, only
 * the listed values its rows hold, asked of the restricted data once per scope (one counting
 * scan per table) and kept.
 */
import type { Catalog, Dimension, Source } from '../catalog/catalog.ts';
import type { DataAccess } from '../data/dataAccess.ts';
import { distinctValues } from '../data/lookups.ts';
import type { Aggregate } from '../data/query.ts';
import { mentionsAny, withoutMentions } from './scopedCatalog.ts';

/** What a scoped key works with; its catalog is narrowed here, the rest passes through. */
export interface ScopedParts {
  catalog: Catalog;
  data: DataAccess;
  /** Words naming hidden data (scopedCatalog.ts): a dimension's description naming one is rewritten too. */
  hiddenTerms?: readonly string[];
}

/** Examples taken from the rows when none of the catalog's examples is among them: a few, as the catalog gives. */
const MAX_FALLBACK_EXAMPLES = 4;

/**
 * Narrowed views, kept per view (a view is built once per scope): the rows are asked once.
 * A view whose data could not be read is narrowed to nothing and asked again next time.
 */
const narrowed = new WeakMap<object, Promise<object>>();

/**
 * `view` with a catalog that lists only the values the view's (restricted) data holds: examples,
 * business names and descriptions of every dimension. Never rejects: when the data cannot be
 * read, the dimensions list no values (nothing is shown rather than something hidden) and the
 * next call asks again.
 * @example
 * const view = await withPresentValues(views.viewFor({ values: { company: ['1000'] } }, knowledge));
 * view.catalog.sources.get('fi_reporting')!.dimensions.get('currency')!.examples // ['EUR']
 */
export function withPresentValues<V extends ScopedParts>(view: V): Promise<V> {
  let done = narrowed.get(view) as Promise<V> | undefined;
  if (!done) {
    done = narrowCatalog(view.catalog, view.data, view.hiddenTerms).then(({ catalog, complete }) => {
      if (!complete) narrowed.delete(view);
      return { ...view, catalog };
    });
    narrowed.set(view, done);
  }
  return done;
}

/**
 * The catalog with, per dimension, only the values `data` holds.
 * @example
 * const { catalog: narrowedCatalog, complete } = await narrowCatalog(scoped.catalog, restrictedData);
 */
export async function narrowCatalog(catalog: Catalog, data: DataAccess, hiddenTerms: readonly string[] = []): Promise<{ catalog: Catalog; complete: boolean }> {
  let complete = true;
  const sources = new Map<string, Source>();
  // One source after the other: each is one scan, and a first call should not fill the query line.
  for (const source of catalog.sources.values()) {
    const present = await presentValuesOf(source, data).catch(() => undefined);
    if (!present) complete = false;
    const dimensions = new Map<string, Dimension>();
    for (const [name, dimension] of source.dimensions) {
      const held = present?.get(name) ?? new Set<string>();
      const fallback = present && listedCodes(dimension).length > 0 && held.size === 0 ? await examplesFromRows(source, dimension, data) : [];
      dimensions.set(name, narrowDimension(dimension, held, fallback, hiddenTerms));
    }
    sources.set(source.name, { ...source, dimensions });
  }
  return { catalog: { ...catalog, sources }, complete };
}

/** The codes the catalog lists for a dimension: examples and values with business names. */
function listedCodes(dimension: Dimension): string[] {
  return [...new Set([...dimension.examples, ...dimension.values.keys()])];
}

/** Per dimension, which of its listed codes occur in the source's rows: one query counting each. */
async function presentValuesOf(source: Source, data: DataAccess): Promise<Map<string, Set<string>>> {
  const asked: { dimension: string; code: string }[] = [];
  const aggregates: Aggregate[] = [];
  for (const dimension of source.dimensions.values()) {
    for (const code of listedCodes(dimension)) {
      aggregates.push({ name: `v${asked.length}`, function: 'count', where: { column: dimension.column, kind: 'in', values: [code] } });
      asked.push({ dimension: dimension.name, code });
    }
  }
  const present = new Map<string, Set<string>>([...source.dimensions.keys()].map((name) => [name, new Set<string>()]));
  if (aggregates.length === 0) return present;
  const { rows } = await data.run({ kind: 'select', table: source.table, connection: source.connection, aggregates });
  const counts = rows[0] ?? {};
  asked.forEach(({ dimension, code }, index) => {
    if (Number(counts[`v${index}`] ?? 0) > 0) present.get(dimension)!.add(code);
  });
  return present;
}

/** A few values of the rows, for a dimension none of whose listed examples the rows hold. */
async function examplesFromRows(source: Source, dimension: Dimension, data: DataAccess): Promise<string[]> {
  const limit = Math.min(Math.max(dimension.examples.length, 1), MAX_FALLBACK_EXAMPLES);
  const values = await distinctValues(data, source, dimension.column, limit + 1).catch((): (string | null)[] => []);
  return values.filter((value): value is string => value !== null && value !== '').slice(0, limit);
}

/**
 * Only the codes in `held`: examples (or `fallback` when none is held), business names, and a
 * description that names an absent code, one of its names or a hidden term is rewritten without it.
 */
function narrowDimension(dimension: Dimension, held: ReadonlySet<string>, fallback: readonly string[], hiddenTerms: readonly string[]): Dimension {
  const absent = listedCodes(dimension).filter((code) => !held.has(code));
  if (absent.length === 0 && !mentionsAny(dimension.description, hiddenTerms) && dimension.description.trim()) return dimension;
  const values = new Map([...dimension.values].filter(([code]) => held.has(code)));
  const examples = dimension.examples.filter((code) => held.has(code));
  const keptNames = new Set([...values.values()].flat().map((name) => name.toLowerCase()));
  const names = absent.flatMap((code) => dimension.values.get(code) ?? []).filter((name) => !keptNames.has(name.toLowerCase()));
  const description = describeWithout(dimension, [...absent, ...names, ...hiddenTerms]);
  return { ...dimension, values, examples: examples.length ? examples : [...fallback], description };
}

/**
 * The description without `terms`: an item of a list that starts with one is left out ("(EUR,
 * USD or GBP)" becomes "(EUR)", "1000 Contoso Deutschland GmbH, 2000 Contoso Inc." keeps the
 * first), then a sentence still naming one. Nothing left: the dimension's name.
 */
function describeWithout(dimension: Dimension, terms: readonly string[]): string {
  const name = dimension.name.replace(/_/g, ' ');
  // A description whose every sentence named hidden data (scopedCatalog.ts left it empty) says at least what it is.
  if (!mentionsAny(dimension.description, terms)) return dimension.description.trim() || name;
  const inParentheses = dimension.description.replace(/\s*\(([^()]*)\)/g, (whole, inner: string) => {
    const kept = withoutListedItems(inner, terms);
    return kept === inner ? whole : kept ? ` (${kept})` : '';
  });
  return withoutMentions(withoutListedItems(inParentheses, terms), terms).trim() || name;
}

/** `text` as a list (", " and " or " outside parentheses) without the items that start with one of `terms`. */
function withoutListedItems(text: string, terms: readonly string[]): string {
  const items: string[] = [];
  let depth = 0;
  let start = 0;
  for (let index = 0; index < text.length; index += 1) {
    const char = text[index]!;
    if (char === '(') depth += 1;
    else if (char === ')') depth = Math.max(0, depth - 1);
    const separator = depth === 0 ? /^(, |\s+or\s+)/.exec(text.slice(index))?.[0] : undefined;
    if (separator) {
      items.push(text.slice(start, index));
      start = index + separator.length;
      index = start - 1;
    }
  }
  items.push(text.slice(start));
  const kept = items.filter((item) => !startsWithAny(item, terms));
  return kept.length === items.length ? text : kept.join(', ');
}

function startsWithAny(text: string, terms: readonly string[]): boolean {
  const head = text.trimStart().toLowerCase();
  return terms.some((term) => head.startsWith(term.toLowerCase()) && !/[\p{L}\p{N}_]/u.test(head.charAt(term.length)));
}
