/**
 * Result views of the web chat (web/app/results.js, no browser) for a comparison of one source
 * with itself (ACTUAL vs BUDGET, as the service returns it): every table header, chart legend,
 * title and CSV name uses the same side labels; periods read as periods, in the locale. Each
 * call carries the presentation its tool declares (`present`), as the service adds it.
 */
import { describe, expect, it } from 'vitest';
import dataAnalyst from '../../skills/data_analyst/index.ts';
import { webModule } from './support/modules.ts';

type Column = { key: string; label: string; kind: string; signedBy?: string };
type View = {
  title: string;
  columns: Column[];
  rows: Record<string, unknown>[];
  chart?: { labels: string[]; datasets: { label: string; data: (number | null)[] }[]; label: string };
  csvName: string[];
};
type Call = { id: string; name: string; ok?: boolean; args: unknown; result: unknown; presentation?: unknown };
const results = await webModule<{
  viewsFor(call: Call, calls?: Call[], options?: { locale?: string }): View[];
  describeCall(call: Call, options?: { locale?: string }): string;
}>('results.js');

const tools = new Map(dataAnalyst.tools.map((tool) => [tool.name, tool]));
/** The call as the service returns it: with its tool's presentation. */
const presented = (call: Call): Call => ({ ...call, presentation: tools.get(call.name)!.present!(call.result, call.args) });

// Trimmed from a real answer to 'compare actual and budget in consolidation_mart for company 1000 in 2024'.
const compare: Call = presented({
  id: 'call_1',
  name: 'compare_sources',
  ok: true,
  args: {
    source_a: 'consolidation_mart',
    source_b: 'consolidation_mart',
    measure: 'amount',
    filters: { company: '1000', period: { from: '2024001', to: '2024012' } },
    filters_a: { version: 'ACTUAL' },
    filters_b: { version: 'BUDGET' },
  },
  result: {
    comparison_id: 'cmp_1',
    source_a: 'consolidation_mart',
    source_b: 'consolidation_mart',
    measure_a: { name: 'amount' },
    measure_b: { name: 'amount' },
    align_on: ['company', 'period', 'currency'],
    filters_a: { company: '1000', period: { from: '2024001', to: '2024012' }, version: 'ACTUAL' },
    filters_b: { company: '1000', period: { from: '2024001', to: '2024012' }, version: 'BUDGET' },
    summary: { aligned_rows: 12, match: 0, minor_diff: 2, major_diff: 10, totals: [{ currency: 'EUR', total_a: 3451000, total_b: 3480000, difference: -29000, difference_percent: 0.84 }] },
    top_differences: [
      { company: '1000', period: '2024009', currency: 'EUR', a: 402800, b: 322000, difference: 80800, difference_percent: 20.059583, status: 'major_diff' },
      { company: '1000', period: '2024003', currency: 'EUR', a: 240600, b: 306000, difference: -65400, difference_percent: 27.182045, status: 'major_diff' },
    ],
  },
});
const explain: Call = presented({
  id: 'call_2',
  name: 'explain_difference',
  ok: true,
  args: { comparison_id: 'cmp_1' },
  result: {
    key: { company: '1000', period: '2024009' },
    by_dimension: [{ dimension: 'group_account', explains_percent: 59.6, values: [{ value: 'G4000000', a: 1919800, b: 1872000, difference: 47800, share_percent: 59.2 }] }],
    one_sided: [],
  },
});
const pages: Call = presented({ id: 'call_3', name: 'list_differences', ok: true, args: { comparison_id: 'cmp_1' }, result: { comparison_id: 'cmp_1', source_a: 'consolidation_mart', source_b: 'consolidation_mart', rows: (compare.result as { top_differences: unknown[] }).top_differences } });
const calls = [compare, explain, pages];

const headers = (view: View) => view.columns.map((column) => column.label);

describe('a comparison of one source with itself', () => {
  it('names the sides by what differs, in every table, legend, title and CSV name', () => {
    const [totals, differences] = results.viewsFor(compare, calls);
    expect(totals!.title).toBe('consolidation_mart ACTUAL vs consolidation_mart BUDGET: totals');
    expect(headers(totals!)).toEqual(['Currency', 'consolidation_mart ACTUAL', 'consolidation_mart BUDGET', 'Difference', 'Difference %']);
    expect(totals!.csvName).toEqual(['totals', 'consolidation_mart ACTUAL', 'consolidation_mart BUDGET']);
    expect(headers(differences!)).toEqual(['Company', 'Period', 'Currency', 'consolidation_mart ACTUAL', 'consolidation_mart BUDGET', 'Difference', 'Difference %', 'Status']);
    expect(differences!.chart!.datasets.map((dataset) => dataset.label)).toEqual(['consolidation_mart ACTUAL', 'consolidation_mart BUDGET']);
    expect(differences!.csvName).toEqual(['differences', 'consolidation_mart ACTUAL', 'consolidation_mart BUDGET']);
    expect(results.describeCall(compare)).toBe('consolidation_mart ACTUAL vs consolidation_mart BUDGET · amount');
  });

  it('gives results that refer to it by id the same names', () => {
    const [byAccount] = results.viewsFor(explain, calls);
    expect(headers(byAccount!)).toEqual(['Group account', 'consolidation_mart ACTUAL', 'consolidation_mart BUDGET', 'Difference', 'Share of gap']);
    const [listed] = results.viewsFor(pages, calls);
    expect(listed!.title).toBe('consolidation_mart ACTUAL vs consolidation_mart BUDGET: differences');
    expect(headers(listed!).slice(3, 5)).toEqual(['consolidation_mart ACTUAL', 'consolidation_mart BUDGET']);
  });

  it('marks the difference percentages to be signed and the periods to be read as periods', () => {
    const [totals, differences] = results.viewsFor(compare, calls);
    expect(totals!.columns.at(-1)).toMatchObject({ kind: 'percent', signedBy: 'difference' });
    expect(differences!.columns.find((column) => column.key === 'period')).toMatchObject({ kind: 'period' });
    expect(differences!.chart!.labels).toEqual(['September 2024', 'March 2024']);
    expect(results.viewsFor(compare, calls, { locale: 'de-DE' })[1]!.chart!.labels).toEqual(['September 2024', 'März 2024']);
  });
});

describe('other results', () => {
  it('keep the source names of two different sources', () => {
    const call: Call = presented({ ...compare, args: {}, result: { ...(compare.result as object), source_b: 'bpc_reporting' } });
    expect(headers(results.viewsFor(call)[0]!)).toEqual(['Currency', 'consolidation_mart', 'bpc_reporting', 'Difference', 'Difference %']);
  });

  it('read periods on a query’s chart axis in the locale', () => {
    const query: Call = presented({
      id: 'q',
      name: 'query_source',
      ok: true,
      args: {},
      result: { source: 'fi_reporting', measures: [{ name: 'amount' }], dimensions: ['period', 'currency'], rows: [{ period: '2024010', currency: 'EUR', amount: 370900 }, { period: '2024011', currency: 'EUR', amount: 359800 }] },
    });
    const [view] = results.viewsFor(query, [query], { locale: 'de-DE' });
    expect(view!.columns.map((column) => column.kind)).toEqual(['period', 'text', 'number']);
    expect(view!.chart!.labels).toEqual(['Oktober 2024', 'November 2024']);
  });
});
