/**
 * The web chat names periods in the catalog's fiscal year (no browser): a catalog declaring
 * `fiscal_year_start: 4` makes each tool call's presentation say so, and the chat's period labels
 * (web/app/periods.js, labels.js, columns.js, results.js) read 2024001 as April 2024 in table
 * cells, chart axes, comparison side labels and CSV. A January catalog reads as before.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import dataAnalyst from '../../skills/data_analyst/index.ts';
import { projectRoot } from '../../src/config/config.ts';
import { finishPresentation } from '../../src/skills/presentation.ts';
import { skillTestKit, type SkillTestKit } from '../../src/skills/testing.ts';
import { webModule } from './support/modules.ts';

type Options = { locale?: string; fiscalYearStart?: number };
type Column = { key: string; label: string; kind: string; fiscalYearStart?: number };
type View = { title: string; columns: Column[]; rows: Record<string, unknown>[]; charts: { labels: string[] }[] };
type Call = { id: string; name: string; ok?: boolean; args: unknown; result: unknown; presentation?: unknown };

const periods = await webModule<{
  formatPeriod(code: unknown, options?: Options): string;
  formatPeriodRange(from: unknown, to: unknown, options?: Options): string;
  formatDimensionValue(dimension: string, value: unknown, options?: Options): string;
  fiscalYearStartOf(value: unknown): number;
}>('periods.js');
const labels = await webModule<{
  filterValueText(dimension: string, value: unknown, options?: Options): string;
}>('labels.js');
const columns = await webModule<{
  cellText(column: Column, row: Record<string, unknown>, options?: Options): string;
  csvColumns(columns: Column[], options?: Options): { label: string; value(row: Record<string, unknown>): unknown }[];
}>('columns.js');
const csv = await webModule<{ toCsv(columns: unknown[], rows: unknown[]): string }>('csv.js');
const results = await webModule<{
  viewsFor(call: Call, calls?: Call[], options?: { locale?: string }): View[];
  describeCall(call: Call, options?: { locale?: string }): string;
  sideNames(call: unknown, calls?: unknown[], options?: Options): { a: string; b: string };
}>('results.js');

/** Intl writes some spaces as no-break or thin spaces; compare as a reader would. */
const plain = (text: string) => text.replace(/[\u00a0\u2009\u202f]/g, ' ');

describe('a period in a fiscal year from April', () => {
  it('reads as the calendar month it is, in the locale', () => {
    expect(periods.formatPeriod('2025001', { fiscalYearStart: 4 })).toBe('April 2025');
    expect(periods.formatPeriod('2025009', { fiscalYearStart: 4 })).toBe('December 2025');
    expect(periods.formatPeriod('2025010', { fiscalYearStart: 4 })).toBe('January 2026'); // the fiscal year is named by the year it starts in
    expect(periods.formatPeriod('2025012', { fiscalYearStart: 4, locale: 'de-DE' })).toBe('März 2026');
    expect(periods.formatPeriod('2025001', { fiscalYearStart: 12 })).toBe('December 2025');
    expect(periods.formatPeriod('2025002', { fiscalYearStart: 12 })).toBe('January 2026');
  });

  it('keeps special periods and non-codes as they were', () => {
    expect(periods.formatPeriod('2025013', { fiscalYearStart: 4 })).toBe('Period 13 2025');
    expect(periods.formatPeriod('2025016', { fiscalYearStart: 4, locale: 'de-DE' })).toBe('Periode 16 2025');
    expect(periods.formatPeriod('G4000000', { fiscalYearStart: 4 })).toBe('G4000000');
    expect(periods.formatDimensionValue('account', '2025001', { fiscalYearStart: 4 })).toBe('2025001');
  });

  it('spans a fiscal year across two calendar years', () => {
    expect(plain(periods.formatPeriodRange('2025001', '2025012', { fiscalYearStart: 4 }))).toBe('April 2025 – March 2026');
    expect(plain(periods.formatPeriodRange('2025001', '2025003', { fiscalYearStart: 4 }))).toBe('April – June 2025');
    expect(periods.formatPeriodRange('2025010', undefined, { fiscalYearStart: 4 })).toBe('from January 2026');
  });

  it('reads as before in a January year, and when the start is missing or not a month', () => {
    for (const start of [undefined, 1, 0, 13, 4.5, '4', null]) {
      expect(periods.formatPeriod('2025001', { fiscalYearStart: start as number })).toBe('January 2025');
    }
    expect(periods.fiscalYearStartOf(4)).toBe(4);
    expect(periods.fiscalYearStartOf('4')).toBe(1);
  });

  it('names the sides of a comparison of two periods', () => {
    const comparison = { source_a: 'fi_reporting', source_b: 'fi_reporting', filters_a: { period: '2025001' }, filters_b: { period: '2025002' } };
    // The server names the sides once; the chat names their periods in the catalog's fiscal year.
    const call = (fiscalYearStart: number) => ({ presentation: finishPresentation({ sides: comparison, views: [] }, fiscalYearStart) });
    expect(results.sideNames(call(4))).toEqual({ a: 'fi_reporting April 2025', b: 'fi_reporting May 2025' });
    expect(results.sideNames(call(1))).toEqual({ a: 'fi_reporting January 2025', b: 'fi_reporting February 2025' });
    expect(plain(labels.filterValueText('period', { from: '2025010', to: '2025012' }, { fiscalYearStart: 4 }))).toBe('January – March 2026');
    expect(labels.filterValueText('period', ['2025001', '2025002'], { fiscalYearStart: 4 })).toBe('April 2025, May 2025');
  });

  it('fills a period column, its table cells and its CSV', () => {
    const column = { key: 'period', label: 'Period', kind: 'period', fiscalYearStart: 4 };
    expect(columns.cellText(column, { period: '2025001' })).toBe('April 2025');
    expect(csv.toCsv(columns.csvColumns([column]), [{ period: '2025001' }, { period: '2025013' }])).toBe('Period,Period code\r\nApril 2025,2025001\r\nPeriod 13 2025,2025013\r\n');
  });
});

describe('tool calls on a catalog whose fiscal year starts in April', () => {
  let directory: string;
  let april: SkillTestKit;
  let january: SkillTestKit;
  const byPeriod = { source: 'fi_reporting', measures: ['amount'], dimensions: ['period'], filters: { company: '1000' } };
  /** A call as the service returns it: the registry's outcome with its presentation. */
  const callOf = async (kit: SkillTestKit, name: string, args: Record<string, unknown>): Promise<Call> => {
    const outcome = await kit.run(name, args);
    if (!outcome.ok) throw new Error(outcome.error.message);
    return { id: 'call_1', name, ok: true, args, result: outcome.result, presentation: outcome.presentation };
  };

  beforeAll(async () => {
    directory = mkdtempSync(path.join(tmpdir(), 'analyst-fiscal-year-'));
    const catalogPath = path.join(directory, 'sources.yaml');
    const sample = readFileSync(path.join(projectRoot, 'data/sources.yaml'), 'utf8');
    writeFileSync(catalogPath, sample.replace(/^version: 1$/m, 'version: 1\nfiscal_year_start: 4'));
    april = await skillTestKit(dataAnalyst, { catalogPath });
    january = await skillTestKit(dataAnalyst);
  });

  afterAll(async () => {
    await april?.close();
    await january?.close();
    rmSync(directory, { recursive: true, force: true });
  });

  it('say when the fiscal year starts, and the chat reads 2024001 as April 2024 in the table, the chart and the CSV', async () => {
    expect(april.catalog.fiscalYearStart).toBe(4);
    const call = await callOf(april, 'query_source', byPeriod);
    expect(call.presentation).toMatchObject({ fiscal_year_start: 4 });
    const [view] = results.viewsFor(call);
    const periodColumn = view!.columns.find((column) => column.key === 'period')!;
    const first = view!.rows.findIndex((row) => row.period === '2024001');
    expect(columns.cellText(periodColumn, view!.rows[first]!)).toBe('April 2024');
    expect(view!.charts[0]?.labels[first]).toBe('April 2024');
    expect(view!.charts[0]?.labels).toContain('March 2025');
    const table = csv.toCsv(columns.csvColumns(view!.columns), view!.rows);
    expect(table).toContain('April 2024,2024001,');
    expect(table).not.toContain('January 2024');
  });

  it('name the sides of a comparison of two periods in the fiscal year', async () => {
    const call = await callOf(april, 'compare_sources', {
      source_a: 'fi_reporting',
      source_b: 'fi_reporting',
      measure: 'amount',
      filters: { company: '1000' },
      filters_a: { period: '2024001' },
      filters_b: { period: '2024002' },
    });
    expect(results.describeCall(call)).toBe('Compared fi_reporting April 2024 with fi_reporting May 2024 for company 1000 · amount');
  });

  it('say nothing more for a January catalog, whose first period reads January 2024 as before', async () => {
    const call = await callOf(january, 'query_source', byPeriod);
    expect(call.presentation).not.toHaveProperty('fiscal_year_start');
    const [view] = results.viewsFor(call);
    expect(view!.columns.find((column) => column.key === 'period')).toEqual({ key: 'period', label: 'Period', kind: 'period' });
    expect(view!.charts[0]?.labels[view!.rows.findIndex((row) => row.period === '2024001')]).toBe('January 2024');
  });
});
