/**
 * The skill SDK's presentation: how the web chat shows a tool's result (a tool's `present`
 * returns a PresentationSpec: views made of tables and charts over the result's rows, column
 * roles and units, the labels of a comparison's two sides). The web app draws any spec without
 * knowing the tool. Re-exported by src/skills/api.ts; the spec is documented in
 * src/skills/presentation.ts.
 *
 * @example
 * import type { PresentationSpec } from '../../src/skills/api.ts';
 *
 * present: (result): PresentationSpec => ({
 *   caption: `${result.source} · ${result.measure.name}`,
 *   views: [{
 *     title: 'Totals by company',
 *     rowsAt: ['rows'],
 *     columns: [{ key: 'company', role: 'dimension' }, { key: 'amount', role: 'measure', unit: result.measure.unit }],
 *     chart: { kind: 'bar', label: 'Amount by company', categories: ['company'], series: [{ key: 'amount', label: 'Amount' }] },
 *     csvName: ['totals', result.source],
 *   }],
 * }),
 */
export type { ChartSpec, ColumnRole, ColumnSpec, PresentationSpec, SeriesSpec, SidesSpec, ViewSpec } from '../presentation.ts';
/** Filters and scopes in words for captions, periods as `{period:…}` placeholders the chat names in its locale. */
export { filterValueWords, scopeWords } from '../presentation.ts';
