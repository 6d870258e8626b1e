/**
 * Helpers question forms share to keep an answer to exactly what was asked: which source a
 * question is about when it names none, and which constraints a source cannot take (a version
 * on a source without versions), so a form asks back instead of answering a broader question.
 */
import type { Catalog, Source } from '../catalog/catalog.ts';
import type { FilterValue, Understanding } from './questionForms.ts';

/**
 * The named source, else the first one that has every dimension the question filters or
 * groups by (and the extra ones given), among those `accept` allows; a filter on the value a
 * source implies fits it.
 *
 * @example
 * sourceFor(question, catalog, ['document', 'document_line']) // 'fi_reporting'
 */
export function sourceFor(question: Understanding, catalog: Catalog, needed: string[] = [], accept: (source: Source) => boolean = () => true): string | undefined {
  if (question.sources[0]) return question.sources[0];
  const filtered = Object.keys(question.filters);
  const stored = [...question.groupBy, ...needed];
  const sources = [...catalog.sources.values()];
  // A filter on an implied value fits (FI is all ACTUAL); grouping and checks need the stored dimension.
  return sources.find((source) => accept(source) && filtered.every((d) => source.dimensions.has(d) || source.implied[d] === question.filters[d]) && stored.every((d) => source.dimensions.has(d)))?.name;
}

/**
 * The filters a source takes: dimensions it implies with the implied value are dropped (FI is
 * all ACTUAL), anything else it does not have is a problem to ask back about.
 *
 * @example
 * scopeOn(catalog.sources.get('fi_reporting')!, { version: 'BUDGET' })
 * // { filters: {}, problem: "fi_reporting has no version BUDGET: it holds version ACTUAL only." }
 */
export function scopeOn(source: Source, filters: Record<string, FilterValue>): { filters: Record<string, FilterValue>; problem?: string } {
  const kept: Record<string, FilterValue> = {};
  const problems: string[] = [];
  for (const [name, value] of Object.entries(filters)) {
    if (source.dimensions.has(name)) {
      kept[name] = value;
      continue;
    }
    const implied = source.implied[name];
    if (implied !== undefined && (value === implied || (Array.isArray(value) && value.every((v) => v === implied)))) continue;
    problems.push(
      implied !== undefined
        ? `${source.name} has no ${name.replace(/_/g, ' ')} ${String(value)}: it holds ${name.replace(/_/g, ' ')} ${implied} only`
        : `${source.name} has no ${name.replace(/_/g, ' ')} dimension, so it cannot be filtered by ${name.replace(/_/g, ' ')} ${Array.isArray(value) ? value.join(', ') : typeof value === 'object' ? `${value.from} to ${value.to}` : value}`,
    );
  }
  if (problems.length === 0) return { filters: kept };
  return { filters: kept, problem: `${problems.join('; ')}.` };
}

/** Sources that have a dimension, for "did you mean" lists. */
export function sourcesWith(catalog: Catalog, dimension: string): string[] {
  return [...catalog.sources.values()].filter((source) => source.dimensions.has(dimension)).map((source) => source.name);
}

/**
 * The two sources that hold the given versions whole, when versions are kept in tables of their
 * own (a budget table beside the actuals, paired by `implied: {version: …}`) rather than in a
 * version dimension: "actual vs budget" then compares the two sources. Undefined when the
 * catalog has no such pair.
 *
 * @example
 * impliedVersionPair(catalog, ['ACTUAL', 'BUDGET']) // ['gl_extract', 'gl_plan']
 */
export function impliedVersionPair(catalog: Catalog, versions: readonly [string, string]): [string, string] | undefined {
  const holding = (version: string) => [...catalog.sources.values()].find((source) => !source.dimensions.has('version') && source.implied.version?.toUpperCase() === version.toUpperCase())?.name;
  const [a, b] = [holding(versions[0]), holding(versions[1])];
  return a && b && a !== b ? [a, b] : undefined;
}

/**
 * The source paired with `name` by implied versions (the actuals of a budget table, the budget
 * of the actuals), with the actuals first: "compare the export revenue with budget".
 *
 * @example
 * versionPartner(catalog, 'gl_plan') // ['gl_extract', 'gl_plan']
 */
export function versionPartner(catalog: Catalog, name: string): [string, string] | undefined {
  const own = catalog.sources.get(name)?.implied.version;
  if (own === undefined) return undefined;
  const others = [...catalog.sources.values()].filter((source) => source.name !== name && !source.dimensions.has('version') && source.implied.version !== undefined && source.implied.version !== own);
  const partner = others.length === 1 ? others[0]! : others.find((source) => source.implied.version === 'ACTUAL');
  if (!partner) return undefined;
  return own === 'ACTUAL' ? [name, partner.name] : [partner.name, name];
}

/**
 * The measure two sources are compared on: `wanted` when both hold it, else the first default
 * measure of `a` that `b` holds, else any measure they share; undefined when none.
 * @example
 * commonMeasure(catalog, 'fi_reporting', 'bpc_reporting', undefined) // 'amount'
 */
export function commonMeasure(catalog: Catalog, a: string, b: string, wanted: string | undefined): string | undefined {
  const sourceA = catalog.sources.get(a)!;
  const sourceB = catalog.sources.get(b)!;
  if (wanted) return sourceA.measures.has(wanted) && sourceB.measures.has(wanted) ? wanted : undefined;
  return sourceA.defaultMeasures.find((m) => sourceB.measures.has(m)) ?? [...sourceA.measures.keys()].find((m) => sourceB.measures.has(m));
}
