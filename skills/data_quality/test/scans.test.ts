/**
 * The data_quality scans (duplicateScan.ts, blankScan.ts, periodTotals.ts) on a tiny database,
 * in-process, and the duplicate reducer fed directly: the edge cases the sample data lacks
 * (NULL amounts, no currency, placeholders, more patterns than are tracked).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDataAccess, type DataAccess } from '../../../src/data/dataAccess.ts';
import { openDataDatabase } from '../../../src/data/database.ts';
import { temporaryDirectory, writeTwoSourceDatabase } from '../../../test/support/catalogFixture.ts';
import { scanBlankValues, type BlankValuesPlan } from '../blankScan.ts';
import { duplicateOutputs, foldDuplicates, MAX_PATTERNS, MAX_TRACKED_PATTERNS } from '../duplicateFold.ts';
import { scanDuplicates, type DuplicatePlan } from '../duplicateScan.ts';
import { periodTotals } from '../periodTotals.ts';

let data: DataAccess;

beforeAll(() => {
  // Columns: key, k2, amount, cur.
  const file = writeTwoSourceDatabase(
    temporaryDirectory(),
    [
      ['A', '1', null, 'EUR'],
      ['A', '1', null, 'EUR'],
      ['B', '1', 5, 'EUR'],
      ['B', null, 7, 'EUR'],
      ['C', '#', 3, 'USD'],
      ['C', '', null, 'USD'],
      ['D', '2', 4, 'USD'],
    ],
    [],
  );
  data = createDataAccess(openDataDatabase(file));
});
afterAll(() => data.close());

const key = { name: 'key', column: 'key' };
const k2 = { name: 'k2', column: 'k2' };
const currency = { name: 'currency', column: 'cur' };
const duplicatePlan = (overrides: Partial<DuplicatePlan> = {}): DuplicatePlan => ({ table: 'left_table', key: [key], currency, amountColumn: 'amount', describe: [], compare: [k2], where: [], top: 10, keysPerPattern: 5, ...overrides });

describe('scanDuplicates', () => {
  it('counts copies whose amounts are all NULL as 0, and says where copies differ (a NULL differs from a value)', async () => {
    const outcome = await scanDuplicates(data, duplicatePlan());
    expect(outcome.sql).toMatch(/^WITH "__repeated"/);
    expect(outcome).toMatchObject({ groups: 3, records: 6, extraCopies: 3 });
    const byKey = Object.fromEntries(outcome.top.map((g) => [g.key.key, g]));
    expect(byKey.A).toMatchObject({ currency: 'EUR', copies: 2, amount: 0, duplicatedAmount: 0, identicalAmounts: true, differsIn: [] });
    expect(byKey.B).toMatchObject({ amount: 12, duplicatedAmount: 6, identicalAmounts: false, differsIn: ['k2', '(amount)'] });
    expect(byKey.C).toMatchObject({ currency: 'USD', amount: 3, duplicatedAmount: 1.5, differsIn: ['k2', '(amount)'] });
    expect(outcome.totals).toEqual([
      { currency: 'EUR', groups: 2, records: 4, amount: 12, duplicatedAmount: 6 },
      { currency: 'USD', groups: 1, records: 2, amount: 3, duplicatedAmount: 1.5 },
    ]);
  });

  it('without an amount or a currency, ranks by copies and lists described values', async () => {
    const outcome = await scanDuplicates(data, duplicatePlan({ currency: undefined, amountColumn: undefined, compare: [], describe: [currency, k2], where: [{ column: 'key', kind: 'in', values: ['A', 'C'] }] }));
    expect(outcome.top).toEqual([
      { key: { key: 'A' }, currency: null, copies: 2, amount: null, duplicatedAmount: null, identicalAmounts: true, values: { currency: ['EUR'], k2: ['1'] }, differsIn: [] },
      { key: { key: 'C' }, currency: null, copies: 2, amount: null, duplicatedAmount: null, identicalAmounts: true, values: { currency: ['USD'], k2: ['', '#'] }, differsIn: [] },
    ]);
    expect(outcome.totals).toEqual([{ currency: null, groups: 2, records: 4, amount: 0, duplicatedAmount: 0 }]);
  });

  it('tracks a bounded number of patterns; further groups count only in the totals', () => {
    const options = { keyNames: ['key'], hasCurrency: false, hasAmount: true, describeNames: ['where'], compareNames: [], top: 3, keysPerPattern: 2 };
    const state = foldDuplicates.start(options);
    const groups = MAX_TRACKED_PATTERNS + 10;
    for (let index = 0; index < groups; index += 1) {
      foldDuplicates.step(state, { [duplicateOutputs.key(0)]: `k${index}`, [duplicateOutputs.copies]: 2, [duplicateOutputs.amount]: index, [duplicateOutputs.amountVaries]: false, [duplicateOutputs.describe(0)]: [`p${index}`] });
    }
    const folded = foldDuplicates.finish(state);
    expect(folded).toMatchObject({ groups, records: groups * 2, patternCount: MAX_TRACKED_PATTERNS + 1, patternsComplete: false });
    expect(folded.patterns).toHaveLength(MAX_PATTERNS);
    expect(folded.patterns[0]).toMatchObject({ values: { where: [`p${MAX_TRACKED_PATTERNS - 1}`] }, firstKeyValues: 1 });
    expect(folded.top.map((g) => g.key.key)).toEqual([`k${groups - 1}`, `k${groups - 2}`, `k${groups - 3}`]);
  });
});

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
