/**
 * The web chat's names for what it shows (no browser): periods (web/app/periods.js) in the chat's
 * locale, and the sides of a comparison, which the server names once (sideLabelsOf in
 * src/skills/presentation.ts) and tables, chart legends, CSV headers and file names all take.
 */
import { describe, expect, it } from 'vitest';
import { sideLabels as answerSideLabels } from '../../src/skills/answerText.ts';
import { sideLabelsOf, type SidesSpec } from '../../src/skills/presentation.ts';
import { webModule } from './support/modules.ts';

type Options = { locale?: string };
const periods = await webModule<{
  isPeriodCode(value: unknown): boolean;
  isPeriodName(name: unknown): boolean;
  formatPeriod(code: unknown, options?: Options): string;
  formatPeriodRange(from: unknown, to: unknown, options?: Options): string;
  formatDimensionValue(dimension: string, value: unknown, options?: Options): string;
}>('periods.js');
const labels = await webModule<{
  filterValueText(dimension: string, value: unknown, options?: Options): string;
}>('labels.js');
const results = await webModule<{ sideNames(call: unknown, calls?: unknown[], options?: Options): { a: string; b: string } }>('results.js');
/** The sides as the chat shows them: named once by the server, their periods named by the chat in its locale. */
const sideLabels = (sides: (SidesSpec & { filters?: unknown }) | undefined, options?: Options) => results.sideNames({ presentation: { labels: sideLabelsOf(sides) } }, [], options);
const format = await webModule<{
  formatPercent(value: unknown, options?: Options & { signed?: boolean }): string;
  canonicalLocale(tag: unknown): string | undefined;
}>('format.js');

/** Intl writes some spaces as no-break or thin spaces; compare as a reader would. */
const plain = (text: string) => text.replace(/[\u00a0\u2009\u202f]/g, ' ');

describe('periods', () => {
  it('are YYYYPPP codes with periods 001–016', () => {
    expect(['2024001', '2024010', '2024012', '2024013', '2024016'].map(periods.isPeriodCode)).toEqual([true, true, true, true, true]);
    expect(['2024000', '2024017', '202401', '20240100', 'G4000000', '1000', ''].map(periods.isPeriodCode)).toEqual([false, false, false, false, false, false, false]);
    expect(periods.isPeriodCode(2024010)).toBe(false); // a number is a figure, not a code
  });

  it('read as month and year in the locale, special periods by number', () => {
    expect(periods.formatPeriod('2024010')).toBe('October 2024');
    expect(periods.formatPeriod('2024010', { locale: 'de-DE' })).toBe('Oktober 2024');
    expect(periods.formatPeriod('2024003', { locale: 'fr-FR' })).toBe('mars 2024');
    expect(periods.formatPeriod('2024001', { locale: 'de-DE' })).toBe('Januar 2024'); // never slips into December 2023
    expect(periods.formatPeriod('2024013')).toBe('Period 13 2024');
    expect(periods.formatPeriod('2024016', { locale: 'de-DE' })).toBe('Periode 16 2024');
    expect(periods.formatPeriod('G4000000')).toBe('G4000000');
    expect(periods.formatPeriod(null)).toBe('');
  });

  it('spans read as the locale writes a range', () => {
    expect(plain(periods.formatPeriodRange('2024010', '2024012'))).toBe('October – December 2024');
    expect(plain(periods.formatPeriodRange('2024010', '2024012', { locale: 'de-DE' }))).toBe('Oktober–Dezember 2024');
    expect(plain(periods.formatPeriodRange('2024011', '2025002'))).toBe('November 2024 – February 2025');
    expect(periods.formatPeriodRange('2024012', '2024012')).toBe('December 2024');
    expect(plain(periods.formatPeriodRange('2024012', '2024013'))).toBe('December 2024 – Period 13 2024');
    expect(periods.formatPeriodRange('2024010', undefined)).toBe('from October 2024');
    expect(periods.formatPeriodRange(undefined, '2024012')).toBe('to December 2024');
  });

  it('are only read into a dimension whose name says it holds periods', () => {
    expect(['period', 'fiscal_period', 'posting_period', 'fiscper', 'Period'].map(periods.isPeriodName)).toEqual([true, true, true, true, true]);
    expect(periods.formatDimensionValue('period', '2024010', { locale: 'de-DE' })).toBe('Oktober 2024');
    expect(periods.formatDimensionValue('account', '2024010')).toBe('2024010'); // a 7-digit account stays an account
    expect(periods.formatDimensionValue('period', 'not a period')).toBe('not a period');
    expect(periods.formatDimensionValue('partner_company', null)).toBe('');
  });
});

describe('percentages', () => {
  it('show their sign when signed, in the locale', () => {
    expect(format.formatPercent(24.83, { signed: true })).toBe('+24.8%');
    expect(format.formatPercent(-2.16, { signed: true })).toBe('-2.2%');
    expect(format.formatPercent(0, { signed: true })).toBe('0.0%');
    expect(plain(format.formatPercent(24.83, { signed: true, locale: 'de-DE' }))).toBe('+24,8 %');
    expect(format.formatPercent(100)).toBe('100.0%'); // a share stays unsigned
    expect(format.formatPercent(null)).toBe('');
  });

  it('take the locale only when it is a valid tag', () => {
    expect(format.canonicalLocale('de-de')).toBe('de-DE');
    expect(format.canonicalLocale('de_DE')).toBeUndefined();
    expect(format.canonicalLocale('')).toBeUndefined();
    expect(format.canonicalLocale(undefined)).toBeUndefined();
  });
});

describe('the sides of a comparison', () => {
  const actualVsBudget = {
    source_a: 'consolidation_mart',
    source_b: 'consolidation_mart',
    filters_a: { company: '1000', period: { from: '2024001', to: '2024012' }, version: 'ACTUAL' },
    filters_b: { company: '1000', period: { to: '2024012', from: '2024001' }, version: 'BUDGET' },
  };

  it('are the source names when the sources differ', () => {
    expect(sideLabels({ source_a: 'fi_reporting', source_b: 'bpc_reporting', filters_a: { version: 'ACTUAL' }, filters_b: {} })).toEqual({ a: 'fi_reporting', b: 'bpc_reporting' });
  });

  it('are the source and the filter values that differ when one source is compared with itself', () => {
    expect(sideLabels(actualVsBudget)).toEqual({ a: 'consolidation_mart ACTUAL', b: 'consolidation_mart BUDGET' });
    // The arguments of a comparison name the sides the same way (shared filters are not per side).
    expect(sideLabels({ source_a: 'consolidation_mart', source_b: 'consolidation_mart', filters: { company: '1000' }, filters_a: { version: 'ACTUAL' }, filters_b: { version: 'BUDGET' } })).toEqual({
      a: 'consolidation_mart ACTUAL',
      b: 'consolidation_mart BUDGET',
    });
  });

  it('name periods as periods, in the locale', () => {
    const periodVsPeriod = { source_a: 'fi_reporting', source_b: 'fi_reporting', filters_a: { company: '1000', period: '2024011' }, filters_b: { company: '1000', period: '2024012' } };
    expect(sideLabels(periodVsPeriod)).toEqual({ a: 'fi_reporting November 2024', b: 'fi_reporting December 2024' });
    expect(sideLabels({ ...periodVsPeriod, filters_a: { company: '1000', period: '2024010' } }, { locale: 'de-DE' })).toEqual({ a: 'fi_reporting Oktober 2024', b: 'fi_reporting Dezember 2024' });
    const quarters = sideLabels({ source_a: 'fi_reporting', source_b: 'fi_reporting', filters_a: { period: { from: '2024007', to: '2024009' } }, filters_b: { period: { from: '2024010', to: '2024012' } } });
    expect(plain(quarters.a)).toBe('fi_reporting July – September 2024');
    expect(plain(quarters.b)).toBe('fi_reporting October – December 2024');
  });

  it('name lists, blanks, other ranges and different measures', () => {
    expect(labels.filterValueText('company', ['1000', '2000', '3000', '4000', '5000'])).toBe('1000, 2000, 3000 +2');
    expect(labels.filterValueText('partner_company', null)).toBe('(blank)');
    expect(labels.filterValueText('company', { from: '1000', to: '2000' })).toBe('1000–2000');
    // Sides as the tools' presentations give them (sidesOf in skills/data_analyst/presentations.ts names the measures).
    expect(sideLabels({ source_a: 'consolidation_mart', source_b: 'consolidation_mart', measure_a: 'amount', measure_b: 'amount_gc' })).toEqual({
      a: 'consolidation_mart amount',
      b: 'consolidation_mart amount_gc',
    });
  });

  it('say which side is which when nothing else tells them apart', () => {
    expect(sideLabels({ source_a: 'fi_reporting', source_b: 'fi_reporting', filters_a: { company: '1000' }, filters_b: { company: '1000' } })).toEqual({
      a: 'fi_reporting (side A)',
      b: 'fi_reporting (side B)',
    });
    // Without both sources the server names nothing; the chat says which side is which.
    expect(sideLabelsOf(undefined)).toBeUndefined();
    expect(sideLabels(undefined)).toEqual({ a: 'side A', b: 'side B' });
  });
});

describe('the sides in the answer text and in the chat', () => {
  it('have the same names (one server function names both)', () => {
    const comparisons = [
      { source_a: 'fi_reporting', source_b: 'bpc_reporting', filters_a: { company: '1000' }, filters_b: { company: '1000', version: 'ACTUAL' } },
      { source_a: 'consolidation_mart', source_b: 'consolidation_mart', filters_a: { company: '1000', version: 'ACTUAL' }, filters_b: { company: '1000', version: 'BUDGET' } },
      { source_a: 'fi_reporting', source_b: 'fi_reporting', filters_a: { period: '2024011' }, filters_b: { period: '2024012' } },
      { source_a: 'fi_reporting', source_b: 'fi_reporting', filters_a: { company: ['1000', '2000'] }, filters_b: { company: ['3000'] } },
      { source_a: 'fi_reporting', source_b: 'fi_reporting', filters_a: { company: '1000' }, filters_b: { company: '1000' } },
    ];
    for (const comparison of comparisons) {
      const chat = sideLabels(comparison);
      expect(answerSideLabels(comparison)).toEqual([chat.a, chat.b]);
    }
  });
});
