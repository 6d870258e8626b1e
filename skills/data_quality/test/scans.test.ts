/**
 * The data_quality scans (blankScan.ts, periodTotals.ts) on a tiny database, in-process: the
 * edge cases the sample data lacks (NULL amounts, no currency, placeholders). The duplicate
 * search is the SDK's (test/skills/sdkDuplicates.test.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestData, temporaryDirectory, writeTestDatabase, type DataAccess } from '../../../src/skills/api.ts';
import { scanBlankValues, type BlankValuesPlan } from '../blankScan.ts';
import { periodTotals } from '../periodTotals.ts';

let data: DataAccess;

beforeAll(async () => {
  const file = await writeTestDatabase(temporaryDirectory(), {
    left_table: {
      columns: ['key TEXT', 'k2 TEXT', 'amount REAL', 'cur TEXT'],
      rows: [
        ['A', '1', null, 'EUR'],
        ['A', '1', null, 'EUR'],
        ['B', '1', 5, 'EUR'],
        ['B', null, 7, 'EUR'],
        ['C', '#', 3, 'USD'],
        ['C', '', null, 'USD'],
        ['D', '2', 4, 'USD'],
      ],
    },
  });
  data = await openTestData(file);
});
afterAll(() => data.close());

const key = { name: 'key', column: 'key' };
const k2 = { name: 'k2', column: 'k2' };
const currency = { name: 'currency', column: 'cur' };

describe('scanBlankValues', () => {
  const plan = (overrides: Partial<BlankValuesPlan> = {}): BlankValuesPlan => ({
    table: 'left_table',
    dimensions: [{ ...k2, details: true }, { ...key, details: true }],
    currency,
    amountColumn: 'amount',
    where: [],
    placeholders: ['#'],
    exampleColumns: [key],
    examples: 2,
    contextColumns: [key],
    contexts: 1,
    ...overrides,
  });

  it('counts NULL, empty and placeholder values per dimension, with amounts (NULL amounts as 0), examples and places', async () => {
    const outcome = await scanBlankValues(data, plan());
    expect(outcome.checked).toEqual([
      { currency: 'EUR', rows: 4 },
      { currency: 'USD', rows: 3 },
    ]);
    const [blankK2, blankKey] = outcome.dimensions;
    expect(blankKey).toMatchObject({ dimension: 'key', nullRows: 0, emptyRows: 0, placeholderRows: 0, amounts: [], examples: [] });
    expect(blankK2).toMatchObject({
      nullRows: 1,
      emptyRows: 1,
      placeholderRows: 1,
      amounts: [
        { currency: 'EUR', rows: 1, amount: 7 },
        { currency: 'USD', rows: 2, amount: 3 },
      ],
      examples: [
        { key: 'B', k2: null, amount: 7, currency: 'EUR' },
        { key: 'C', k2: '', amount: null, currency: 'USD' },
      ],
      where: [{ key: 'C', currency: 'USD', rows: 2, amount: 3 }],
      whereGroups: 2,
    });
  });

  it('without currency, amount or placeholders, and counting only where details are off', async () => {
    const outcome = await scanBlankValues(data, plan({ currency: undefined, amountColumn: undefined, placeholders: [], dimensions: [{ ...k2, details: false }], where: [{ column: 'key', kind: 'in', values: ['C'] }] }));
    expect(outcome.checked).toEqual([{ currency: null, rows: 2 }]);
    expect(outcome.dimensions).toEqual([{ dimension: 'k2', nullRows: 0, emptyRows: 1, placeholderRows: 0, amounts: [{ currency: null, rows: 1, amount: null }], examples: [], where: [], whereGroups: 0 }]);
    const none = await scanBlankValues(data, plan({ where: [{ column: 'key', kind: 'in', values: ['Z'] }] }));
    expect(none.checked).toEqual([]);
  });
});

describe('periodTotals', () => {
  it('totals per series and period in order, with distinct loads, and says when the limit cut rows', async () => {
    const plan = { table: 'left_table', series: [currency], period: key, measure: { function: 'sum' as const, column: 'amount' }, loadColumn: 'k2', where: [], limit: 10 };
    const outcome = await periodTotals(data, plan);
    expect(outcome.truncated).toBe(false);
    expect(outcome.rows).toEqual([
      { series: { currency: 'EUR' }, period: 'A', value: null, records: 2, loads: 1 },
      { series: { currency: 'EUR' }, period: 'B', value: 12, records: 2, loads: 1 },
      { series: { currency: 'USD' }, period: 'C', value: 3, records: 2, loads: 2 },
      { series: { currency: 'USD' }, period: 'D', value: 4, records: 1, loads: 1 },
    ]);
    const counted = await periodTotals(data, { ...plan, series: [], measure: { function: 'count', column: undefined }, loadColumn: undefined, limit: 2 });
    expect(counted).toMatchObject({ truncated: true, rows: [{ series: {}, period: 'A', value: 2, records: 2, loads: undefined }, { period: 'B', value: 2 }] });
  });
});
