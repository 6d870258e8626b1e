/**
 * Result views of the web chat (web/app/results.js, no browser) for a comparison of one source
 * with itself (ACTUAL vs BUDGET, as the service returns it): every table header, chart legend,
 * title and CSV name uses the same side labels, which the server computes (the chat only fills
 * them in); periods read as periods, in the locale; amounts in several currencies get a chart per
 * currency. Each call carries the presentation its tool declares (`present`), finished as the
 * registry finishes it (`finishPresentation`).
 */
import { describe, expect, it } from 'vitest';
import dataAnalyst from '../../skills/data_analyst/index.ts';
import { finishPresentation, type PresentationSpec } from '../../src/skills/presentation.ts';
import { webModule } from './support/modules.ts';

type Column = { key: string; label: string; kind: string; signedBy?: string };
type View = {
  title: string;
  columns: Column[];
  rows: Record<string, unknown>[];
  charts: { labels: string[]; datasets: { label: string; data: (number | null)[] }[]; label: string; unit?: string }[];
  csvName: string[];
  notes: string[];
};
type Call = { id: string; name: string; ok?: boolean; args: unknown; result: unknown; presentation?: unknown };
const results = await webModule<{
  viewsFor(call: Call, calls?: Call[], options?: { locale?: string }): View[];
  describeCall(call: Call, options?: { locale?: string; calls?: Call[] }): string;
  answerViews(calls: Call[], options?: { locale?: string; earlierCalls?: Call[] }): View[];
}>('results.js');

const tools = new Map(dataAnalyst.tools.map((tool) => [tool.name, tool]));
/** The call as the service returns it: with its tool's presentation, as the registry finishes it. */
const presented = (call: Call): Call => ({ ...call, presentation: finishPresentation(tools.get(call.name)!.present!(call.result, call.args) as PresentationSpec, 1, call.result) });

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

/** Intl writes the spaces of a range as thin or no-break spaces; compare as a reader reads. */
const plain = (text: string) => text.replace(/[\u00a0\u2009\u202f]/g, ' ');
const headers = (view: View) => view.columns.map((column) => column.label);

describe('a comparison of one source with itself', () => {
  it('names the sides by what differs, in every table, legend, title and CSV name', () => {
    const [totals, differences] = results.viewsFor(compare, calls);
    expect(totals!.title).toBe('consolidation_mart ACTUAL vs consolidation_mart BUDGET: totals');
    expect(headers(totals!)).toEqual(['Currency', 'consolidation_mart ACTUAL', 'consolidation_mart BUDGET', 'Difference', 'Difference %']);
    expect(totals!.csvName).toEqual(['totals', 'consolidation_mart ACTUAL', 'consolidation_mart BUDGET']);
    expect(headers(differences!)).toEqual(['Company', 'Period', 'Currency', 'consolidation_mart ACTUAL', 'consolidation_mart BUDGET', 'Difference', 'Difference %', 'Status']);
    expect(differences!.charts[0]!.datasets.map((dataset) => dataset.label)).toEqual(['consolidation_mart ACTUAL', 'consolidation_mart BUDGET']);
    expect(differences!.csvName).toEqual(['differences', 'consolidation_mart ACTUAL', 'consolidation_mart BUDGET']);
    expect(plain(results.describeCall(compare))).toBe('Compared consolidation_mart ACTUAL with consolidation_mart BUDGET for company 1000, January – December 2024 · amount');
  });

  it('gives results that refer to it by id the same names', () => {
    const [byAccount] = results.viewsFor(explain, calls);
    expect(headers(byAccount!)).toEqual(['Group account', 'consolidation_mart ACTUAL', 'consolidation_mart BUDGET', 'Difference', 'Share of gap']);
    const [listed] = results.viewsFor(pages, calls);
    expect(listed!.title).toBe('consolidation_mart ACTUAL vs consolidation_mart BUDGET: differences');
    expect(headers(listed!).slice(3, 5)).toEqual(['consolidation_mart ACTUAL', 'consolidation_mart BUDGET']);
    // Tool rows say what the call did, never the comparison's internal id.
    expect(results.describeCall(explain, { calls })).toBe('Explained the gap between consolidation_mart ACTUAL and consolidation_mart BUDGET');
    expect(results.describeCall(pages, { calls })).toBe('Listed the differences between consolidation_mart ACTUAL and consolidation_mart BUDGET');
    expect(results.describeCall(explain)).not.toContain('cmp_');
  });

  it('names the sources of a turn stored before the server named the sides', () => {
    const { labels, ...stored } = compare.presentation as PresentationSpec;
    expect(labels).toBeDefined();
    const [totals] = results.viewsFor({ ...compare, presentation: stored }, [{ ...compare, presentation: stored }]);
    expect(headers(totals!).slice(1, 3)).toEqual(['consolidation_mart', 'consolidation_mart']);
  });

  it('marks the difference percentages to be signed and the periods to be read as periods', () => {
    const [totals, differences] = results.viewsFor(compare, calls);
    expect(totals!.columns.at(-1)).toMatchObject({ kind: 'percent', signedBy: 'difference' });
    expect(differences!.columns.find((column) => column.key === 'period')).toMatchObject({ kind: 'period' });
    expect(differences!.charts[0]!.labels).toEqual(['September 2024', 'March 2024']);
    expect(results.viewsFor(compare, calls, { locale: 'de-DE' })[1]!.charts[0]!.labels).toEqual(['September 2024', 'März 2024']);
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
    expect(view!.charts[0]!.labels).toEqual(['Oktober 2024', 'November 2024']);
  });
});

describe('in proportion to the question', () => {
  it('draws a chart per currency, never EUR and USD on one axis', () => {
    const query: Call = presented({
      id: 'q',
      name: 'query_source',
      ok: true,
      args: { source: 'fi_reporting', measures: ['amount'], dimensions: ['company'], filters: { period: '2024012' } },
      result: {
        source: 'fi_reporting',
        measures: [{ name: 'amount' }],
        dimensions: ['company', 'currency'],
        rows: [
          { company: '1000', currency: 'EUR', amount: 443100 },
          { company: '2000', currency: 'USD', amount: 191720.58 },
          { company: '3000', currency: 'GBP', amount: 129900 },
        ],
      },
    });
    const [view] = results.viewsFor(query, [query]);
    expect(view!.charts.map((chart) => [chart.unit, chart.labels])).toEqual([
      ['EUR', ['1000']],
      ['USD', ['2000']],
      ['GBP', ['3000']],
    ]);
    expect(plain(results.describeCall(query))).toBe('Read amount from fi_reporting by company for December 2024');
  });

  it('says in words that a breakdown whose values are all blank explains nothing, instead of showing it', () => {
    const call: Call = presented({
      ...explain,
      result: {
        by_dimension: [
          { dimension: 'group_account', explains_percent: 100, values: [{ value: 'G4000000', a: 2036800, b: 1926800, difference: 110000, share_percent: 100 }] },
          { dimension: 'partner_company', explains_percent: 100, values: [{ value: null, a: 290700, b: 180700, difference: 110000, share_percent: 100 }] },
        ],
        one_sided: [],
        explanation: 'The gap is entirely group account G4000000.',
      },
    });
    const views = results.viewsFor(call, calls);
    expect(views.map((view) => view.title)).toEqual(['Gap by group account']);
    expect(views[0]!.notes).toEqual(['The gap is entirely group account G4000000.', 'Partner company is blank on every row of the gap, so it does not explain it.']);
  });

  it('writes status words on the server, the sides named in them', () => {
    const [, differences] = results.viewsFor(compare, calls);
    const status = differences!.columns.find((column) => column.key === 'status') as Column & { valueLabels: Record<string, string> };
    expect(status.valueLabels).toMatchObject({ major_diff: 'Major difference', only_in_a: 'Only in consolidation_mart ACTUAL' });
  });
});

describe('an answer', () => {
  it('shows the same table once when two calls return it', () => {
    const query = (id: string, amount: number): Call =>
      presented({ id, name: 'query_source', ok: true, args: { source: 'fi_reporting' }, result: { source: 'fi_reporting', measures: [{ name: 'amount' }], dimensions: ['currency'], rows: [{ currency: 'EUR', amount }] } });
    expect(results.answerViews([query('q1', 2036800), query('q2', 2036800)]).map((view) => view.rows)).toEqual([[{ currency: 'EUR', amount: 2036800 }]]);
    expect(results.answerViews([query('q1', 2036800), query('q2', 1926800)])).toHaveLength(2);
    expect(results.answerViews(calls).map((view) => view.title)).toEqual([
      'consolidation_mart ACTUAL vs consolidation_mart BUDGET: totals',
      'consolidation_mart ACTUAL vs consolidation_mart BUDGET: largest differences',
      'Gap by group account',
      // The page of differences repeats the comparison's largest differences: shown once.
    ]);
  });
});
