/**
 * The skill SDK's catalog access: looking up sources, measures and dimensions by the names the
 * model sends (with "did you mean" errors), turning the model's `filters` into conditions and
 * WHERE blocks (with the catalog's default filters), checking filter values the data does not
 * hold, and reading period codes in words. The catalog (data/sources.yaml) holds the business
 * vocabulary; a skill finds everything through it and names no source, column or value in code.
 * Re-exported by src/skills/api.ts.
 *
 * @example
 * import { findMeasure, findSource, measureUnit, resolveFilters, toWhere } from '../../src/skills/api.ts';
 *
 * const source = findSource(catalog, 'fi_reporting');          // ToolError unknown_source otherwise
 * const measure = findMeasure(source, 'amount');
 * const filters = resolveFilters(source, { company: '1000' }); // + the source's default filters
 * const where = toWhere(filters.conditions);                   // [{ column: 'compcode', kind: 'in', values: ['1000'] }]
 * measureUnit(measure);                                        // 'EUR', or "currency in dimension 'currency'"
 * describePeriod('2024012');                                   // 'December 2024'
 */
export { commonDimensions, findDimension, findMeasure, findSource, measureUnit, periodDimension } from '../../catalog/catalog.ts';
export type { Catalog, Dimension, Measure, Source } from '../../catalog/catalog.ts';
export { defaultFiltersNote, resolveFilters, toWhere, type Condition, type ResolvedFilters } from '../../catalog/filters.ts';
export { checkFilterValuesExist, listedValuesNotHeld, type ValueNotHeld } from '../filterValues.ts';
export { calendarMonthOf, describePeriod, formatPeriod } from '../../catalog/periods.ts';
// "Did you mean …?" for a name the model misspelt, and the list of names to choose from.
export { closestMatch, suggestionHint } from '../../shared/closestMatch.ts';
