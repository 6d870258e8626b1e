import { describe, expect, it } from 'vitest';
import { openTestData, temporaryDirectory, writeTestDatabase, type DataAccess } from '../../../src/skills/api.ts';
import { reconcile, type ComparisonPlan, type Thresholds } from '../classification.ts';

type TestRow = [string | null, string | null, number | null, string];

/** Two tables, left_table and right_table (key, k2, amount, cur), holding the given rows, as the data layer reads them. */
async function twoSources(left: TestRow[], right: TestRow[]): Promise<DataAccess> {
  const columns = ['key TEXT', 'k2 TEXT', 'amount REAL', 'cur TEXT'];
  return openTestData(await writeTestDatabase(temporaryDirectory(), { left_table: { columns, rows: left }, right_table: { columns, rows: right } }));
}

const thresholds: Thresholds = { match: { absolute: 1000, percent: 1 }, minor: { absolute: 5000, percent: 5 } };

/** Compares one row per side (or none, for null) and returns how it was classified. */
async function classify(a: number | null, b: number | null, inA = a !== null, inB = b !== null, limits: Thresholds = thresholds) {
  const data = await twoSources(inA ? [['K', null, a, 'EUR']] : [], inB ? [['K', null, b, 'EUR']] : []);
  const outcome = await reconcile(data, {
    keyNames: ['key'],
    a: { table: 'left_table', measure: { function: 'sum', column: 'amount' }, keys: [{ column: 'key' }], where: [] },
    b: { table: 'right_table', measure: { function: 'sum', column: 'amount' }, keys: [{ column: 'key' }], where: [] },
    thresholds: limits,
    top: 1,
    currencyKeyIndex: undefined,
  });
  await data.close();
  const status = (Object.entries(outcome.counts).find(([, count]) => count === 1)?.[0] ?? 'none') as string;
  const row = outcome.top[0];
  return { status, a: row?.a ?? a, b: row?.b ?? b, difference: row?.difference ?? 0, percent: row ? row.percent : 0 };
}

describe('classification', () => {
  it.each([
    // a, b, status: exactly at a threshold is still inside it
    [100_000, 99_000, 'match'], // diff 1000 = match.absolute, 1% = match.percent
    [100_000, 98_999.99, 'minor_diff'], // diff 1000.01 > 1000
    [200_000, 199_000.5, 'match'],
    [100_000, 95_000, 'minor_diff'], // diff 5000, 5%
    [100_000, 94_999.99, 'major_diff'],
    [10_000, 9_900, 'match'], // 100 apart, exactly 1%
    [10_000, 9_899.99, 'minor_diff'], // just over 1%
  ])('a=%d b=%d → %s', async (a, b, expected) => {
    expect((await classify(a, b)).status).toBe(expected);
  });

  it('needs both the absolute and the percentage condition', async () => {
    expect((await classify(10, 20)).status).toBe('major_diff'); // 10 apart but 100%
    expect((await classify(10_000_000, 9_998_000)).status).toBe('minor_diff'); // 0.02% but 2000 apart
  });

  it('treats zero and negative amounts correctly', async () => {
    const exact = { match: { absolute: 0, percent: 0 }, minor: { absolute: 0, percent: 0 } };
    expect((await classify(0, 0)).status).toBe('match');
    expect(await classify(0, 500)).toMatchObject({ status: 'major_diff', difference: -500, percent: null });
    expect((await classify(-100_000, -99_500)).status).toBe('match');
    expect(await classify(-100_000, -99_500, true, true, exact)).toMatchObject({ status: 'major_diff', difference: -500, percent: 0.5 });
    expect(await classify(-100_000, 100_000)).toMatchObject({ status: 'major_diff', difference: -200_000, percent: 200 });
  });

  it('marks rows present on one side only, whatever their amounts', async () => {
    expect(await classify(5, null)).toMatchObject({ status: 'only_in_a', b: null, difference: 5 });
    expect(await classify(null, 0)).toMatchObject({ status: 'only_in_b', a: null, difference: 0 });
  });

  it('rounds to cents before comparing, so float noise never crosses a boundary', async () => {
    expect((await classify(0.1 + 0.2 + 99_999.7, 99_000)).status).toBe('match');
  });
});

describe('reconcile', () => {
  const plan = (overrides: Partial<ComparisonPlan> = {}): ComparisonPlan => ({
    keyNames: ['key', 'currency'],
    a: { table: 'left_table', measure: { function: 'sum', column: 'amount' }, keys: [{ column: 'key' }, { column: 'cur' }], where: [] },
    b: { table: 'right_table', measure: { function: 'sum', column: 'amount' }, keys: [{ column: 'key' }, { column: 'cur' }], where: [] },
    thresholds,
    top: 10,
    currencyKeyIndex: 1,
    ...overrides,
  });

  it('aligns NULL keys with each other, classifies each row and totals per currency', async () => {
    const data = await twoSources(
      [
        ['A', null, 100, 'EUR'],
        ['A', null, 50, 'EUR'],
        [null, null, 10, 'EUR'],
        ['B', null, 1000, 'USD'],
        ['C', null, 7, 'EUR'],
      ],
      [
        ['A', null, 150, 'EUR'],
        [null, null, 10, 'EUR'],
        ['B', null, 900, 'USD'],
        ['D', null, -3, 'EUR'],
      ],
    );
    const outcome = await reconcile(data, plan());
    await data.close();
    expect(outcome.alignedRows).toBe(5);
    expect(outcome.counts).toEqual({ match: 2, minor_diff: 0, major_diff: 1, only_in_a: 1, only_in_b: 1 });
    expect(outcome.totals).toEqual([
      { currency: 'EUR', a: 167, b: 157, difference: 10 },
      { currency: 'USD', a: 1000, b: 900, difference: 100 },
    ]);
    expect(outcome.top.map((row) => [row.key.key, row.status, row.difference])).toEqual([
      ['B', 'major_diff', 100],
      ['C', 'only_in_a', 7],
      ['D', 'only_in_b', 3],
    ]);
  });

  it('keeps only the largest differences, largest first', async () => {
    const rows = Array.from({ length: 50 }, (_, index) => [`K${index}`, null, index * 10_000, 'EUR'] as [string, null, number, string]);
    const data = await twoSources(rows, rows.map(([k, n, , c]) => [k, n, 0, c]));
    const outcome = await reconcile(data, plan({ top: 3 }));
    await data.close();
    expect(outcome.top.map((row) => row.key.key)).toEqual(['K49', 'K48', 'K47']);
    expect(outcome.counts.major_diff).toBe(49);
    expect(outcome.counts.match).toBe(1);
  });
});
