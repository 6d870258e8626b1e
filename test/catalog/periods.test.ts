import { describe, expect, it } from 'vitest';
import { describePeriod, parsePeriod, parsePeriodSpan } from '../../src/catalog/periods.ts';

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
