/**
 * The SDK's duplicate search (src/skills/sdk/duplicates.ts, used by data_quality's
 * find_duplicates and data_analyst's duplicated loads) on a tiny database, in-process, and its
 * reducer fed directly: the edge cases the sample data lacks (NULL amounts, no currency, more
 * patterns than are tracked).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestData, scanDuplicates, temporaryDirectory, type DataAccess, type DuplicatePlan } from '../../src/skills/api.ts';
import { duplicateOutputs, foldDuplicates, MAX_PATTERNS, MAX_TRACKED_PATTERNS } from '../../src/skills/sdk/duplicateFold.ts';
import { writeTwoSourceDatabase } from '../support/catalogFixture.ts';

let data: DataAccess;

beforeAll(async () => {
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
  data = await openTestData(file);
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
