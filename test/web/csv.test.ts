/**
 * Cells and CSV of the web chat's result views (no browser): web/app/columns.js decides what a
 * cell holds and reads as, web/app/csv.js writes it, so the table and the CSV agree.
 */
import { describe, expect, it } from 'vitest';
import { webModule } from './support/modules.ts';

type Column = { key: string; label?: string; kind?: string; signedBy?: string };
type Row = Record<string, unknown>;
type CsvColumn = { key: string; label: string; value?: (row: Row) => unknown };
const columns = await webModule<{
  cellValue(column: Column, row: Row): unknown;
  cellText(column: Column, row: Row, options?: { locale?: string; digits?: number }): string;
  csvColumns(columns: Column[], options?: { locale?: string }): CsvColumn[];
}>('columns.js');
const csv = await webModule<{
  toCsv(columns: CsvColumn[], rows: Row[]): string;
  csvFileName(...parts: unknown[]): string;
}>('csv.js');

const percent: Column = { key: 'difference_percent', label: 'Difference %', kind: 'percent', signedBy: 'difference' };
const period: Column = { key: 'period', label: 'Period', kind: 'period' };
const rows: Row[] = [
  { company: '1000', period: '2024009', a: 402800, b: 322000, difference: 80800, difference_percent: 20.059583 },
  { company: '1000', period: '2024003', a: 240600, b: 306000, difference: -65400, difference_percent: 27.182045 },
  { company: '1000', period: '2024013', a: 0, b: 0, difference: 0, difference_percent: null },
];

describe('cells', () => {
  it('sign a difference percentage like its difference (a − b, relative to a)', () => {
    expect(rows.map((row) => columns.cellValue(percent, row))).toEqual([20.059583, -27.182045, null]);
    expect(rows.map((row) => columns.cellText(percent, row))).toEqual(['+20.1%', '-27.2%', '']);
    // Already signed by the tool: kept, never flipped twice.
    expect(columns.cellValue(percent, { difference: -5, difference_percent: -2.5 })).toBe(-2.5);
  });

  it('read periods as periods and numbers with separators, in the locale', () => {
    expect(rows.map((row) => columns.cellText(period, row))).toEqual(['September 2024', 'March 2024', 'Period 13 2024']);
    expect(columns.cellText(period, rows[1]!, { locale: 'de-DE' })).toBe('März 2024');
    expect(columns.cellText({ key: 'a', kind: 'number' }, rows[0]!, { locale: 'de-DE', digits: 0 })).toBe('402.800');
  });
});

describe('CSV of a view', () => {
  it('keeps numbers raw, signs percentages, and writes a period as it reads and as its code', () => {
    const view = [{ key: 'company', label: 'Company', kind: 'text' }, period, { key: 'a', label: 'consolidation_mart ACTUAL', kind: 'number' }, { key: 'difference', label: 'Difference', kind: 'number' }, percent];
    expect(csv.toCsv(columns.csvColumns(view), rows)).toBe(
      'Company,Period,Period code,consolidation_mart ACTUAL,Difference,Difference %\r\n' +
        '1000,September 2024,2024009,402800,80800,20.059583\r\n' +
        '1000,March 2024,2024003,240600,-65400,-27.182045\r\n' +
        '1000,Period 13 2024,2024013,0,0,\r\n',
    );
    expect(csv.toCsv(columns.csvColumns([period], { locale: 'de-DE' }), rows.slice(1, 2))).toBe('Period,Period code\r\nMärz 2024,2024003\r\n');
  });

  it('still quotes what needs quoting and defuses formulas', () => {
    const text = csv.toCsv(
      [{ key: 'name', label: 'Name, full' }, { key: 'note', label: 'Note' }, { key: 'amount', label: 'Amount' }],
      [{ name: 'Smith, "Jo"', note: 'line 1\nline 2', amount: -1234.5 }, { name: '=SUM(A1)', note: null, amount: 0 }],
    );
    expect(text).toBe('"Name, full",Note,Amount\r\n"Smith, ""Jo""","line 1\nline 2",-1234.5\r\n\'=SUM(A1),,0\r\n');
  });
});

describe('CSV file names', () => {
  it('are the view and its side labels, slugified safely', () => {
    expect(csv.csvFileName('totals', 'consolidation_mart ACTUAL', 'consolidation_mart BUDGET')).toBe('totals-consolidation_mart-ACTUAL-consolidation_mart-BUDGET.csv');
    expect(csv.csvFileName('totals', 'fi_reporting', 'bpc_reporting')).toBe('totals-fi_reporting-bpc_reporting.csv');
    expect(csv.csvFileName('differences', 'fi_reporting März 2024', 'fi_reporting Straße')).toBe('differences-fi_reporting-Marz-2024-fi_reporting-Strasse.csv');
    expect(csv.csvFileName('differences', 'fi_reporting Oktober\u2009–\u2009Dezember 2024')).toBe('differences-fi_reporting-Oktober-Dezember-2024.csv');
    expect(csv.csvFileName('../../etc/passwd')).toBe('etc-passwd.csv');
    expect(csv.csvFileName('.hidden', '', null)).toBe('hidden.csv');
    expect(csv.csvFileName('', undefined)).toBe('result.csv');
    expect(csv.csvFileName('x'.repeat(300))).toHaveLength(104);
  });
});
