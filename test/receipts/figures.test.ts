/**
 * Reading the figures of an answer: amounts and percentages with the value and precision they
 * are written with, in en and de formatting, and the numbers that are not amounts (years,
 * periods, dates, codes, document numbers, counts, list markers) told apart from them.
 */
import { describe, expect, it } from 'vitest';
import { figuresIn, type Figure } from '../../src/receipts/index.ts';

/** text → [kind, value] for each figure, to compare at a glance. */
const read = (text: string, locale?: string) => figuresIn(text, { locale }).map((figure) => [figure.text, figure.kind, figure.value]);
const one = (text: string, locale?: string): Figure => {
  const figures = figuresIn(text, { locale }).filter((figure) => figure.kind === 'amount' || figure.kind === 'percent');
  expect(figures, text).toHaveLength(1);
  return figures[0]!;
};

describe('figuresIn', () => {
  it('reads amounts as the answers write them, with the span and its offsets', () => {
    const text = 'Total amount in fi_reporting for company 1000, period December 2024 (2024012): 443,100.00 EUR.';
    const [amount] = figuresIn(text).filter((figure) => figure.kind === 'amount');
    expect(amount).toMatchObject({ text: '443,100.00', value: 443_100, tolerance: 0.005, signed: false });
    expect(text.slice(amount!.start, amount!.end)).toBe('443,100.00');
  });

  it('reads signs, accounting parentheses and explicit plus signs', () => {
    expect(one('difference: -1,234.50 EUR')).toMatchObject({ text: '-1,234.50', value: -1234.5, signed: true });
    expect(one('a loss of (1,234.50) this month')).toMatchObject({ text: '(1,234.50)', value: -1234.5, signed: true });
    expect(one('up by +37.9% on the year')).toMatchObject({ text: '+37.9%', value: 37.9, kind: 'percent', signed: true });
    expect(one('down −2.5% on the year')).toMatchObject({ value: -2.5, kind: 'percent' });
    // A percentage in parentheses is an aside, not a negative number.
    expect(one('higher by 28,200.00 GBP (29.4%)'.replace('28,200.00 GBP ', ''))).toMatchObject({ value: 29.4, kind: 'percent', signed: false });
  });

  it('reads k, M and bn suffixes with the precision they leave', () => {
    expect(one('revenue of 110k')).toMatchObject({ value: 110_000, tolerance: 500, kind: 'amount' });
    expect(one('revenue of 1.1 M in total')).toMatchObject({ value: 1_100_000, tolerance: 50_000 });
    expect(one('revenue of 1.1m in total')).toMatchObject({ value: 1_100_000, tolerance: 50_000 });
    expect(one('a group of $1.2bn')).toMatchObject({ value: 1_200_000_000, tolerance: 50_000_000 });
    expect(one('margin 24.8%')).toMatchObject({ value: 24.8, tolerance: 0.05, kind: 'percent' });
  });

  it('reads German formatting, and an en-formatted figure quoted in a German answer', () => {
    expect(read('fi_reporting: 443.100,00 EUR; Differenz: -110.000,00 EUR (+24,8 %), rund 1,1 Mio.', 'de-DE').filter(([, kind]) => kind !== 'code')).toEqual([
      ['443.100,00', 'amount', 443_100],
      ['-110.000,00', 'amount', -110_000],
      ['+24,8 %', 'percent', 24.8],
      ['1,1 Mio.', 'amount', 1_100_000],
    ]);
    // The tools' own texts stay en-US; two kinds of separator leave one reading.
    expect(one('higher by 110,000.00 EUR', 'de-DE').value).toBe(110_000);
    expect(one('ein Anteil von 24.8%', 'de-DE').value).toBe(24.8);
    // One separator once: the locale decides.
    expect(one('1.234 EUR', 'de-DE').value).toBe(1234);
    expect(one('1.234 EUR', 'en-US').value).toBe(1.234);
  });

  it('reads French spaces as thousands separators in a French answer', () => {
    expect(read('Montant 1 234,50 € et 12,5 %', 'fr-FR')).toEqual([
      ['1 234,50', 'amount', 1234.5],
      ['12,5 %', 'percent', 12.5],
    ]);
  });

  it('tells years, periods and dates from amounts', () => {
    expect(read('In 2024 the period 2024012, month 202503, 2025-03 and 15.03.2024 at 12:50').map(([text, kind]) => [text, kind])).toEqual([
      ['2024', 'year'],
      ['2024012', 'period'],
      ['202503', 'period'],
      ['2025-03', 'period'],
      ['15.03.2024', 'period'],
      ['12:50', 'period'],
    ]);
  });

  it('tells company codes, accounts and document numbers from amounts', () => {
    const kinds = Object.fromEntries(read('company 1000, account 400000, document 1400000010, plant IN01, group account G4000000, load request REQ_2024012_1000_02, Dec-24, profit center PC1020').map(([text, kind]) => [text, kind]));
    expect(kinds).toEqual({ '1000': 'code', '400000': 'code', '1400000010': 'code', IN01: 'code', G4000000: 'code', REQ_2024012_1000_02: 'code', 'Dec-24': 'code', PC1020: 'code' });
    // The catalog's own dimension names make a bare integer a code too.
    expect(figuresIn('segment 7000', { codeWords: ['segment'] })[0]?.kind).toBe('code');
  });

  it('reads counts as counts, and leaves list markers and ordinals out', () => {
    expect(read('1. Rows: 3 rows over 12 months\n2. the 2nd one\n- 2000: 191,720.58 USD')).toEqual([
      ['3', 'count', 3],
      ['12', 'count', 12],
      ['2000', 'year', 2000],
      ['191,720.58', 'amount', 191_720.58],
    ]);
  });

  it('takes a bare integer with a currency as an amount', () => {
    expect(one('Adding 100 EUR to it')).toMatchObject({ value: 100, tolerance: 0.5, kind: 'amount' });
    expect(one('Adding EUR 100 to it')).toMatchObject({ value: 100, kind: 'amount' });
  });
});
