/**
 * Receipts of an answer's figures as the web chat words them (web/app/receipts.js, no browser):
 * from a figure and the answer's tool calls, the tool, its source and filters, the row the number
 * sits in, the formula of a derived figure, and a plain warning for an unverified one; and where
 * each figure's text sits in the rendered answer, in order, so a company code is never taken for
 * an amount written the same way.
 */
import { describe, expect, it } from 'vitest';
import dataAnalyst from '../../skills/data_analyst/index.ts';
import { finishPresentation, type PresentationSpec } from '../../src/skills/presentation.ts';
import { webModule } from './support/modules.ts';

type Reference = { call: string; path: string };
type Receipt = { kind: string; call?: string; path?: string; op?: string; of?: Reference[]; sign_differs?: boolean };
type Figure = { text: string; kind: string; value: number; receipt: Receipt };
type Description = { status: string; title: string; lines: { label: string; text: string }[] };
const receipts = await webModule<{
  describeReceipt(figure: Figure, calls: unknown[], options?: { locale?: string }): Description;
  hasReceipt(figure: Figure): boolean;
  pathSteps(path: string): (string | number)[];
  placeFigures(texts: string[], figures: { text: string }[]): { figure: number; node: number; start: number; end: number }[];
}>('receipts.js');

const tools = new Map(dataAnalyst.tools.map((tool) => [tool.name, tool]));
/** A call as the service returns it: with its tool's presentation, which names the sides. */
const presented = <T extends { name: string; args: unknown; result: unknown }>(call: T) => ({
  ...call,
  presentation: finishPresentation(tools.get(call.name)!.present!(call.result, call.args) as PresentationSpec, 1, call.result),
});

// Trimmed from the offline model's answer to 'Why does FI differ from BPC for company 1000 in December 2024?'.
const compare = presented({
  id: 'call_2',
  name: 'compare_sources',
  ok: true,
  args: { source_a: 'fi_reporting', source_b: 'bpc_reporting', measure: 'amount', filters: { company: '1000', period: '2024012' } },
  result: {
    comparison_id: 'cmp_1',
    source_a: 'fi_reporting',
    source_b: 'bpc_reporting',
    summary: { aligned_rows: 1, totals: [{ currency: 'EUR', total_a: 443100, total_b: 333100, difference: 110000, difference_percent: 24.83 }] },
    top_differences: [{ company: '1000', period: '2024012', currency: 'EUR', a: 443100, b: 333100, difference: 110000, difference_percent: 24.825096, status: 'major_diff' }],
  },
});
const explain = presented({
  id: 'call_4',
  name: 'explain_difference',
  ok: true,
  args: { comparison_id: 'cmp_1' },
  result: {
    key: { company: '1000', period: '2024012' },
    by_dimension: [{ dimension: 'group_account', explains_percent: 100, values: [{ value: 'G4000000', a: 2036800, b: 1926800, difference: 110000, share_percent: 100, role: 'driver' }] }],
    explanation: 'In fi_reporting, load request REQ_2024012_1000_02 holds 110,000.00 EUR, exactly the gap.',
  },
});
const budget = presented({
  id: 'call_5',
  name: 'compare_sources',
  ok: true,
  args: { source_a: 'consolidation_mart', source_b: 'consolidation_mart', filters: { company: '1000' }, filters_a: { version: 'ACTUAL' }, filters_b: { version: 'BUDGET' } },
  result: {
    source_a: 'consolidation_mart',
    source_b: 'consolidation_mart',
    filters_a: { company: '1000', version: 'ACTUAL' },
    filters_b: { company: '1000', version: 'BUDGET' },
    summary: { totals: [{ currency: 'EUR', total_a: 3451000, total_b: 3480000, difference: -29000 }] },
  },
});
const calls = [compare, explain, budget];
const lines = (description: Description) => Object.fromEntries(description.lines.map((line) => [line.label, line.text]));
const value = (text: string, amount: number, call: string, path: string): Figure => ({ text, kind: 'amount', value: amount, receipt: { kind: 'value', call, path } });

describe('a figure copied from a tool result', () => {
  it('names the tool, its sources and filters, the row and the field it came from', () => {
    const described = receipts.describeReceipt(value('443,100.00', 443100, 'call_2', 'summary.totals[0].total_a'), calls);
    expect(described.status).toBe('verified');
    expect(described.title).toBe('From compare_sources');
    expect(lines(described)).toEqual({
      Tool: 'compare_sources',
      Source: 'fi_reporting vs bpc_reporting',
      Filters: 'company 1000 · period December 2024',
      Row: 'currency EUR',
      Value: 'total_a (fi_reporting) = 443,100',
    });
  });

  it("names a row's period in the catalog's fiscal year, as the filters do", () => {
    const april = { ...compare, id: 'call_9', presentation: { fiscal_year_start: 4 } };
    const described = lines(receipts.describeReceipt(value('110,000.00', 110000, 'call_9', 'top_differences[0].difference'), [april]));
    // 2024012 is March 2025 when the fiscal year starts in April: the Row line must not say December 2024.
    expect(described.Filters).toBe('company 1000 · period March 2025');
    expect(described.Row).toContain('March 2025');
    expect(described.Row).not.toContain('December');
  });

  it('reads a follow-up by comparison id with the sources and filters of the comparison it continues', () => {
    const described = lines(receipts.describeReceipt(value('2,036,800.00', 2036800, 'call_4', 'by_dimension[0].values[0].a'), calls));
    expect(described.Tool).toBe('explain_difference');
    expect(described.Source).toBe('fi_reporting vs bpc_reporting');
    expect(described.Filters).toBe('company 1000 · period December 2024');
    expect(described.Row).toBe('dimension group_account · value G4000000 · role driver');
    expect(described.Value).toBe('a (fi_reporting) = 2,036,800');
  });

  it('names the sides of one source compared with itself by what differs, and the filters of each side', () => {
    const described = lines(receipts.describeReceipt(value('3,480,000', 3480000, 'call_5', 'summary.totals[0].total_b'), calls));
    expect(described.Value).toBe('total_b (consolidation_mart BUDGET) = 3,480,000');
    expect(described.Filters).toBe('company 1000 · version ACTUAL (consolidation_mart ACTUAL) · version BUDGET (consolidation_mart BUDGET)');
  });

  it('writes the numbers in the chat locale', () => {
    expect(lines(receipts.describeReceipt(value('443.100,00', 443100, 'call_2', 'summary.totals[0].total_a'), calls, { locale: 'de-DE' })).Value).toBe('total_a (fi_reporting) = 443.100');
  });

  it('says the answer states the size of a negative number', () => {
    const figure: Figure = { text: '29,000', kind: 'amount', value: 29000, receipt: { kind: 'value', call: 'call_5', path: 'summary.totals[0].difference', sign_differs: true } };
    expect(lines(receipts.describeReceipt(figure, calls)).Note).toBe('The answer states the size of a negative number.');
  });
});

describe('a derived figure', () => {
  const of: Reference[] = [
    { call: 'call_2', path: 'summary.totals[0].total_a' },
    { call: 'call_2', path: 'summary.totals[0].total_b' },
  ];

  it('gives the formula in words with both values, and where each comes from', () => {
    const described = receipts.describeReceipt({ text: '110,000', kind: 'amount', value: 110000, receipt: { kind: 'derived', op: 'difference', of } }, calls);
    expect(described.title).toBe('Derived from compare_sources');
    expect(lines(described)).toMatchObject({
      Tool: 'compare_sources',
      Formula: 'difference of 443,100 − 333,100 = 110,000',
      'Operand 1': 'total_a (fi_reporting) = 443,100 · currency EUR',
      'Operand 2': 'total_b (bpc_reporting) = 333,100 · currency EUR',
    });
  });

  it('words a change in percent and a share', () => {
    const change = receipts.describeReceipt({ text: '-24.8%', kind: 'percent', value: -24.83, receipt: { kind: 'derived', op: 'percent_change', of } }, calls);
    expect(lines(change).Formula).toBe('change in percent from 443,100 to 333,100: (333,100 − 443,100) ÷ |443,100| × 100 = -24.83');
    const share = receipts.describeReceipt({ text: '75%', kind: 'percent', value: 75.17, receipt: { kind: 'derived', op: 'share', of: [of[1]!, of[0]!] } }, calls);
    expect(lines(share).Formula).toBe('share of 333,100 in 443,100: 333,100 ÷ 443,100 × 100 = 75.17');
  });

  it('names every tool of a sum across calls', () => {
    const sum = receipts.describeReceipt(
      { text: '553,100', kind: 'amount', value: 553100, receipt: { kind: 'derived', op: 'sum', of: [of[0]!, { call: 'call_4', path: 'by_dimension[0].values[0].difference' }] } },
      calls,
    );
    expect(lines(sum).Tools).toBe('compare_sources, explain_difference');
    expect(lines(sum).Formula).toBe('sum of 443,100 + 110,000 = 553,100');
  });
});

describe('other receipts', () => {
  it('marks an unverified figure plainly', () => {
    const described = receipts.describeReceipt({ text: '120,000.00', kind: 'amount', value: 120000, receipt: { kind: 'unverified' } }, calls);
    expect(described.status).toBe('unverified');
    expect(described.title).toContain('Unverified');
    expect(described.lines[0]!.text).toContain('No tool result backs this figure');
  });

  it('shows the passage a quoted figure was written in', () => {
    const quoted = receipts.describeReceipt({ text: '110,000.00', kind: 'amount', value: 110000, receipt: { kind: 'quote', call: 'call_4', path: 'explanation' } }, calls);
    expect(quoted.title).toBe('Quoted from explain_difference');
    expect(lines(quoted)['Quoted from']).toBe('explanation: “In fi_reporting, load request REQ_2024012_1000_02 holds 110,000.00 EUR, exactly the gap.”');
  });

  it('gives receipts to quantities and unverified figures, never to years, periods or codes', () => {
    expect(receipts.hasReceipt(value('443,100.00', 443100, 'call_2', 'summary.totals[0].total_a'))).toBe(true);
    expect(receipts.hasReceipt({ text: '24.8%', kind: 'percent', value: 24.8, receipt: { kind: 'derived', op: 'share', of: [] } })).toBe(true);
    expect(receipts.hasReceipt({ text: '7', kind: 'count', value: 7, receipt: { kind: 'unverified' } })).toBe(true);
    expect(receipts.hasReceipt({ text: '2024', kind: 'year', value: 2024, receipt: { kind: 'not_a_figure' } })).toBe(false);
    expect(receipts.hasReceipt({ text: '1000', kind: 'code', value: 1000, receipt: { kind: 'not_a_figure' } })).toBe(false);
  });

  it('says so when the call a receipt names is not in the chat, rather than guessing', () => {
    const described = lines(receipts.describeReceipt(value('443,100.00', 443100, 'call_gone', 'rows[0].amount'), calls));
    expect(described.Tool).toBe('tool call call_gone (not in this chat)');
    expect(described.Source).toBeUndefined();
  });

  it('reads result paths with indexes', () => {
    expect(receipts.pathSteps('by_dimension[0].values[12].a')).toEqual(['by_dimension', 0, 'values', 12, 'a']);
  });
});

describe('placing figures in the rendered answer', () => {
  it('finds each figure in order, skipping the same digits written earlier as a code', () => {
    // 'company 1000' (a code) comes before the amount '1000'; markdown dropped the '- ' and '**'.
    const texts = ['Company 1000 in 2024: ', '1000', ' EUR, of 21000 EUR; 1000 EUR again'];
    const figures = [{ text: '1000' }, { text: '2024' }, { text: '1000' }, { text: '1000' }];
    expect(receipts.placeFigures(texts, figures)).toEqual([
      { figure: 0, node: 0, start: 8, end: 12 },
      { figure: 1, node: 0, start: 16, end: 20 },
      { figure: 2, node: 1, start: 0, end: 4 },
      { figure: 3, node: 2, start: 20, end: 24 },
    ]);
  });

  it('never matches part of a longer number', () => {
    expect(receipts.placeFigures(['2,110,000.00 and 110,000.001 and 110,000.00'], [{ text: '110,000.00' }])).toEqual([{ figure: 0, node: 0, start: 33, end: 43 }]);
  });

  it('leaves out a figure it cannot find and still places the ones after it', () => {
    expect(receipts.placeFigures(['Total 443,', '100.00 EUR; 333,100.00 EUR'], [{ text: '443,100.00' }, { text: '333,100.00' }])).toEqual([{ figure: 1, node: 1, start: 12, end: 22 }]);
  });
});
