/**
 * How an answer is judged (src/evaluation/answerOutcome.ts), as a team reading an evaluation
 * report meets it: figures found, words mentioned, a forbidden zero side, a question back.
 */
import { describe, expect, it } from 'vitest';
import { mentioned, outcomeOf } from '../../src/evaluation/answerOutcome.ts';
import type { Expectation } from '../../src/evaluation/questionSet.ts';

describe('judging an answer', () => {
  it('is correct when every expected figure is in it, wrong when it states other figures, and a question back otherwise', () => {
    const expect443: Expectation = { kind: 'answer', figures: ['443,100.00'] };
    expect(outcomeOf('FI shows 443,100.00 EUR.', expect443)).toBe('correct');
    expect(outcomeOf('FI shows 333,100.00 EUR.', expect443)).toBe('wrong');
    expect(outcomeOf('Which company do you mean?', expect443)).toBe('clarified');
    expect(outcomeOf('I cannot answer that.', expect443)).toBe('declined');
  });

  it('needs every mention, as a whole word in any case, one of its alternatives being enough', () => {
    const versions: Expectation = { kind: 'answer', figures: [], mentions: ['ACTUAL|actuals', 'BUDGET'] };
    expect(outcomeOf('bpc_reporting holds versions ACTUAL and BUDGET; it has no FORECAST.', versions)).toBe('correct');
    expect(outcomeOf('BPC holds actuals and budget only.', versions)).toBe('correct');
    expect(outcomeOf('BPC holds actual figures.', versions)).toBe('declined');
    expect(outcomeOf('BPC holds actual figures: 76,100.00 GBP.', versions)).toBe('wrong');
    expect(mentioned('Only 2024009 is off, by 152,500.00 EUR.', 'September|2024009')).toBe(true);
    expect(mentioned('in September 2024', 'sep')).toBe(false);
    expect(mentioned('fi_reporting and fi_acquisition', 'FI')).toBe(false);
    expect(mentioned('FI (fi_reporting) and BPC', 'FI')).toBe(true);
    expect(mentioned('a P&L result', 'P&L')).toBe(true);
  });

  it('is wrong when it states an amount the question must never get, such as a zero side for a value with no rows', () => {
    const notHeld: Expectation = { kind: 'answer', figures: [], mentions: ['ACTUAL', 'BUDGET'], never: ['0.00'] };
    expect(outcomeOf('FORECAST: 0.00 GBP; ACTUAL: 95,800.00 GBP; BUDGET 124,000.00 GBP', notHeld)).toBe('wrong');
    expect(outcomeOf('bpc_reporting holds ACTUAL and BUDGET (110,000.00 is not a zero).', notHeld)).toBe('correct');
  });
});
