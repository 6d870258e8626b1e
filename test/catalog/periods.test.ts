import { describe, expect, it } from 'vitest';
import { describePeriod, parsePeriod, parsePeriodSpan, storedSpelling } from '../../src/catalog/periods.ts';

describe('periods', () => {
  it.each([
    ['2024012', '2024012'],
    ['2024-12', '2024012'],
    ['2024/1', '2024001'],
    ['12/2024', '2024012'],
    ['012.2024', '2024012'],
    ['P12 2024', '2024012'],
    ['2024 P3', '2024003'],
    ['December 2024', '2024012'],
    ['dec 2024', '2024012'],
    ['Sept. 2024', '2024009'],
  ])('reads %s as %s', (text, period) => {
    expect(parsePeriod(text)).toBe(period);
  });

  it.each(['2024013x', '17/2024', 'Smarch 2024', '2024-17', '1000', ''])('rejects %s', (text) => {
    expect(parsePeriod(text)).toBeUndefined();
  });

  it('reads years, quarters and halves as spans', () => {
    expect(parsePeriodSpan('2024')).toEqual({ from: '2024001', to: '2024012' });
    expect(parsePeriodSpan('Q4 2024')).toEqual({ from: '2024010', to: '2024012' });
    expect(parsePeriodSpan('2024 Q1')).toEqual({ from: '2024001', to: '2024003' });
    expect(parsePeriodSpan('H2 2024')).toEqual({ from: '2024007', to: '2024012' });
    expect(parsePeriodSpan('December 2024')).toBeUndefined();
  });

  it('describes periods for people', () => {
    expect(describePeriod('2024012')).toBe('December 2024');
    expect(describePeriod('2024013')).toBe('period 13 2024');
  });
});

describe('periods in a calendar of their own', () => {
  const april = { format: 'YYYYMM' as const, fiscalYearStart: 4 };

  it('reads calendar months as the fiscal period they fall in when the year starts in April', () => {
    expect(parsePeriod('March 2025', april)).toBe('2024012');
    expect(parsePeriod('April 2025', april)).toBe('2025001');
    expect(parsePeriod('202503', april)).toBe('2024012');
    expect(parsePeriod('2025-04', april)).toBe('2025001');
    expect(parsePeriod('2025-04-30', april)).toBe('2025001');
  });

  it('keeps fiscal spellings fiscal: YYYYPPP and P12 2024 name the fiscal period itself', () => {
    expect(parsePeriod('2024012', april)).toBe('2024012');
    expect(parsePeriod('P12 2024', april)).toBe('2024012');
    expect(parsePeriod('2024-13', april)).toBeUndefined();
  });

  it('reads 2024-12 as period 12 where the data holds fiscal periods', () => {
    expect(parsePeriod('2024-12', { format: 'YYYYPPP', fiscalYearStart: 4 })).toBe('2024012');
    expect(parsePeriod('December 2024', { format: 'YYYYPPP', fiscalYearStart: 4 })).toBe('2024009');
  });

  it('names a fiscal period by its calendar month and spells it as the data does', () => {
    expect(describePeriod('2025001', 4)).toBe('April 2025');
    expect(describePeriod('2024012', 4)).toBe('March 2025');
    expect(describePeriod('2024013', 4)).toBe('period 13 2024');
    expect(storedSpelling('2024012', april)).toBe('202503');
    expect(storedSpelling('2025001', { format: 'YYYY-MM', fiscalYearStart: 4 })).toBe('2025-04');
  });
});
