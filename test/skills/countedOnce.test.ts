/**
 * "… if the duplicated line is counted only once?": the total as loaded less the extra copies,
 * per currency, whatever the measure's currency dimension is called in the query's rows.
 */
import { describe, expect, it } from 'vitest';
import { countedOnceAnswer } from '../../skills/data_quality/answers.ts';
import { textFormat } from '../../src/skills/answerText.ts';

const duplicates = {
  source: 'gl_plan',
  measure: { name: 'amount' },
  filters: { company: 'IN01' },
  totals: [{ currency: 'INR', duplicated_amount: -18430000 }],
};

describe('the total counted once', () => {
  it('subtracts the copies from the total of their currency, read under the dimension the rows use', () => {
    const totals = { rows: [{ local_currency: 'INR', amount: 125760000 }] };
    expect(countedOnceAnswer(duplicates, totals, textFormat(), 'local_currency')).toBe(
      'Counted once, the amount of gl_plan for company IN01 is 144,190,000.00 INR: 125,760,000.00 INR as loaded, less -18,430,000.00 INR counted more than once.',
    );
  });

  it('reads rows keyed by currency by default', () => {
    const totals = { rows: [{ currency: 'INR', amount: 125760000 }] };
    expect(countedOnceAnswer(duplicates, totals, textFormat())).toContain('is 144,190,000.00 INR');
  });
});
