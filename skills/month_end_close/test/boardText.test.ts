/**
 * The close board's words and chart series (web/board-text.js, a plain ES module: no browser):
 * what a row and the history say for each status, difference, open item and sign-off, and how the
 * trend of a check's difference becomes one chart per currency (amounts of two currencies never
 * share an axis).
 */
import { describe, expect, it } from 'vitest';

type Difference = { period: string; currency?: string; difference: number };
type Chart = { type: string; currency: string; unit?: string; label: string; labels: string[]; datasets: { label: string; data: (number | null)[] }[] };
// The module runs in Node too (it touches no DOM); it has no types, so the test declares them.
const text = (await import('../web/board-text.js' as string)) as {
  statusLabel(status: unknown): { status: string; words: string; symbol: string };
  formatAmount(value: number, currency?: string, options?: { locale?: string }): string;
  differenceLines(differences: Difference[], options?: { locale?: string }): { text: string; zero: boolean }[];
  ageText(days: unknown): string;
  openItemsText(count: number, oldestDays: number | null): string;
  signoffText(signoff: { period: string; state: string; by: string }): string;
  formatDateTime(iso: unknown, options?: { locale?: string; timeZone?: string; seconds?: boolean }): string;
  triggerText(trigger: unknown): string;
  trendCharts(trend: (Difference & { at: string })[], options?: { locale?: string; timeZone?: string }): Chart[];
  countsText(counts: Record<string, number>, total: number): string;
};

/** Intl writes some spaces as no-break or narrow spaces; compare as a reader would. */
const plain = (value: string) => value.replace(/[\u00a0\u202f]/g, ' ');

describe('a check row in words', () => {
  it('names every status in words with a symbol, never by colour alone', () => {
    expect(['tie', 'within_tolerance', 'break', 'error', 'never_run'].map((status) => text.statusLabel(status).words)).toEqual(['Tie', 'Within tolerance', 'Break', 'Error', 'Never run']);
    expect(new Set(['tie', 'within_tolerance', 'break', 'error', 'never_run'].map((status) => text.statusLabel(status).symbol)).size).toBe(5);
    // A status a newer service adds reads as itself, and is no class name injection.
    expect(text.statusLabel('needs_review')).toEqual({ status: 'unknown', words: 'needs review', symbol: '?' });
  });

  it('writes the differences per currency with two decimals, the period only when several', () => {
    expect(text.differenceLines([{ period: '2024-12', currency: 'EUR', difference: 110000 }])).toEqual([{ text: '110,000.00 EUR', zero: false }]);
    expect(text.differenceLines([{ period: '2024-12', currency: 'GBP', difference: 0 }])).toEqual([{ text: '0.00 GBP', zero: true }]);
    expect(
      text.differenceLines([
        { period: '2024-11', currency: 'EUR', difference: -12.5 },
        { period: '2024-12', currency: 'EUR', difference: 110000 },
        { period: '2024-12', currency: 'USD', difference: 3 },
      ]).map((line) => line.text),
    ).toEqual(['2024-11: -12.50 EUR', '2024-12: 110,000.00 EUR', '2024-12: 3.00 USD']);
    expect(plain(text.formatAmount(110000, 'EUR', { locale: 'de-DE' }))).toBe('110.000,00 EUR');
    expect(text.formatAmount(5, undefined)).toBe('5.00');
  });

  it('counts open items with the oldest age', () => {
    expect(text.openItemsText(3, 34)).toBe('3 open, oldest 34 days');
    expect(text.openItemsText(1, 1)).toBe('1 open, oldest 1 day');
    expect(text.openItemsText(1, 0)).toBe('1 open, oldest under a day');
    expect(text.openItemsText(0, null)).toBe('None open');
    expect(text.ageText(null)).toBe('unknown');
  });

  it('says who signed a period off, and when the figures re-opened it', () => {
    expect(text.signoffText({ period: '2024-12', state: 'signed', by: 'controller' })).toBe('2024-12 signed off by controller');
    expect(text.signoffText({ period: '2024-12', state: 'reopened', by: 'controller' })).toBe('2024-12 re-opened (signed off by controller before the figures changed)');
  });

  it('sums the list up, breaks first', () => {
    expect(text.countsText({ tie: 1, break: 1 }, 2)).toBe('2 checks: 1 break, 1 tie');
    expect(text.countsText({ never_run: 1 }, 1)).toBe('1 check: 1 never run');
    expect(text.countsText({}, 0)).toBe('0 checks');
  });

  it('dates runs in the reader\'s locale; triggers in words', () => {
    expect(plain(text.formatDateTime('2024-12-03T06:00:00Z', { timeZone: 'UTC' }))).toBe('Dec 3, 2024, 6:00 AM');
    expect(plain(text.formatDateTime('2024-12-03T06:00:00Z', { locale: 'de-DE', timeZone: 'UTC' }))).toBe('03.12.2024, 06:00');
    expect(text.formatDateTime(null)).toBe('');
    expect(text.triggerText('schedule')).toBe('Scheduled');
    expect(text.triggerText('manual')).toBe('By hand');
  });
});

describe('the trend chart', () => {
  const options = { timeZone: 'UTC' };

  it('draws one chart per currency, runs oldest first along it, one line through runs of different months', () => {
    const charts = text.trendCharts(
      [
        { at: '2024-11-05T06:00:00Z', period: '2024-10', currency: 'EUR', difference: 500 },
        { at: '2024-11-05T06:00:00Z', period: '2024-10', currency: 'USD', difference: 7 },
        { at: '2024-12-04T06:00:00Z', period: '2024-11', currency: 'EUR', difference: 0 },
      ],
      options,
    );
    expect(charts.map((chart) => [chart.currency, chart.unit, chart.type])).toEqual([
      ['EUR', 'EUR', 'line'],
      ['USD', 'USD', 'line'],
    ]);
    // A previous_month check compares another month at each run: the axis says which.
    expect(charts[0]!.labels.map(plain)).toEqual(['2024-10 · Nov 5, 2024, 6:00 AM', '2024-11 · Dec 4, 2024, 6:00 AM']);
    expect(charts[0]!.datasets).toEqual([{ label: 'EUR', data: [500, 0] }]);
    expect(charts[1]!.datasets).toEqual([{ label: 'USD', data: [7] }]);
    expect(charts[1]!.labels.map(plain)).toEqual(['Nov 5, 2024, 6:00 AM']);
    expect(charts[0]!.label).toBe('Difference in EUR over the last 2 runs');
  });

  it('draws a line per period when the runs covered several (year to date)', () => {
    const charts = text.trendCharts(
      [
        { at: '2024-11-05T06:00:00Z', period: '2024-09', currency: 'EUR', difference: 10 },
        { at: '2024-11-05T06:00:00Z', period: '2024-10', currency: 'EUR', difference: 500 },
        { at: '2024-12-04T06:00:00Z', period: '2024-09', currency: 'EUR', difference: 10 },
        { at: '2024-12-04T06:00:00Z', period: '2024-10', currency: 'EUR', difference: 0 },
        { at: '2024-12-04T06:00:00Z', period: '2024-11', currency: 'EUR', difference: 40 },
      ],
      options,
    );
    expect(charts).toHaveLength(1);
    expect(charts[0]!.labels.map(plain)).toEqual(['Nov 5, 2024, 6:00 AM', 'Dec 4, 2024, 6:00 AM']);
    expect(charts[0]!.datasets).toEqual([
      { label: '2024-09', data: [10, 10] },
      { label: '2024-10', data: [500, 0] },
      { label: '2024-11', data: [null, 40] },
    ]);
  });

  it('tells apart runs of the same minute, and charts amounts without a currency alone', () => {
    const charts = text.trendCharts(
      [
        { at: '2024-12-03T06:00:05Z', period: '2024-12', difference: 10 },
        { at: '2024-12-03T06:00:40Z', period: '2024-12', difference: 12 },
      ],
      options,
    );
    expect(charts).toHaveLength(1);
    expect(charts[0]!.unit).toBeUndefined();
    expect(charts[0]!.labels.map(plain)).toEqual(['Dec 3, 2024, 6:00:05 AM', 'Dec 3, 2024, 6:00:40 AM']);
    expect(text.trendCharts([], options)).toEqual([]);
  });
});
