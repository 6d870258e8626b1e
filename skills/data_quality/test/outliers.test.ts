/**
 * find_outlier_periods flags what an analyst would flag on twelve-month series, and says which
 * rule flagged each period with which threshold: on a real SQLite fixture (a profitable company
 * with one loss month, seasonal series that must stay quiet) and on the sample's planted cases
 * (data/README.md), through the real registry.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { skillTestKit, temporaryDirectory, writeTestCatalog, writeTestDatabase, type SkillTestKit } from '../../../src/skills/api.ts';
import skill from '../index.ts';
import { presentOutliers } from '../presentations.ts';
import { outliersOutput } from '../schemas.ts';

const PERIODS = Array.from({ length: 12 }, (_, index) => `2024${String(index + 1).padStart(3, '0')}`);

/** Monthly operating results, in thousands (×1,000 when written). */
const SERIES: Record<string, (number | null)[]> = {
  // About 190k a month, seasonal, and November at −8k: the month an analyst flags at once.
  LOSS: [148.5, 180.7, 225.2, 188.3, 220.2, 185.1, 138.8, 113.4, 324.7, 286.1, -8, 191.7],
  // The same company with nothing loaded for November (no rows at all).
  EMPTY: [148.5, 180.7, 225.2, 188.3, 220.2, 185.1, 138.8, 113.4, 324.7, 286.1, null, 191.7],
  // A plan with a summer dip and a strong fourth quarter: ordinary seasonality.
  PLAN: [226, 250, 306, 274, 290, 314, 258, 210, 322, 338, 354, 338],
  // Revenue: large, steady, seasonal.
  REVENUE: [1701.8, 1692.4, 1783.9, 1774.4, 1780.6, 1807, 1725.9, 1588.5, 1919.8, 1952.3, 1963.8, 1926.8],
  // A business that often comes near zero: its loss month is not remarkable.
  THIN: [40, 10, 55, 30, -5, 25, 60, 15, 35, 20, 45, 50],
};

let kit: SkillTestKit;

/** Runs a tool and returns its result, or `{error}` when it failed (the shape the model sees). */
const runTool = async (tools: SkillTestKit, name: string, args: unknown): Promise<any> => {
  const outcome = await tools.run(name, args);
  return outcome.ok ? outcome.result : { error: outcome.error };
};

beforeAll(async () => {
  const directory = temporaryDirectory('outliers-');
  const rows: unknown[][] = [];
  for (const [company, values] of Object.entries(SERIES)) {
    values.forEach((value, index) => {
      // Two lines per month, so totals are sums as in real data.
      if (value !== null) for (const share of [0.25, 0.75]) rows.push([company, PERIODS[index], Math.round(value * 1000 * share * 100) / 100, 'EUR']);
    });
  }
  const databasePath = await writeTestDatabase(directory, { results: { columns: ['company TEXT', 'period TEXT', 'amount REAL', 'cur TEXT'], rows } });
  const catalogPath = writeTestCatalog(directory, {
    version: 1,
    comparison: { default_align_on: ['company'], thresholds: { match: { absolute: 1000, percent: 1 }, minor: { absolute: 5000, percent: 5 } } },
    sources: {
      results: {
        description: 'monthly operating results per company',
        table: 'results',
        dimensions: {
          company: { column: 'company', description: 'company' },
          period: { column: 'period', type: 'period', description: 'fiscal period YYYYPPP' },
          currency: { column: 'cur', description: 'currency key' },
        },
        measures: { amount: { column: 'amount', aggregation: 'sum', currency_dimension: 'currency', description: 'amount' } },
      },
    },
  });
  kit = await skillTestKit(skill, { databasePath, catalogPath });
});
afterAll(() => kit?.close());

const run = (args: Record<string, unknown>) => runTool(kit, 'find_outlier_periods', { source: 'results', ...args });
const flagged = (result: any) => result.outliers.map((o: any) => [o.company, o.period, o.flagged_by.map((f: any) => f.rule)]);

describe('find_outlier_periods on twelve months', () => {
  it('flags a −8k month of a company earning about 190k a month, naming the rule and its threshold, though its robust score stays under 3.5', async () => {
    const result = await run({ filters: { company: 'LOSS' } });
    expect(() => outliersOutput.parse(result)).not.toThrow();
    expect(result.outliers).toHaveLength(1);
    const [november] = result.outliers;
    expect(november).toMatchObject({ period: '2024011', value: -8000, median: 186700, direction: 'low', score: -3.42 });
    expect(november.flagged_by).toEqual([{ rule: 'below_half_median', measured: 3.42, threshold: 2.5, share_of_median: -0.04 }]);
    expect(november.flag_reason).toBe('below half the median (-0.04 × the median, past zero; under 0.5) with robust score 3.42 ≥ 2.5');
    // The expected range is what no rule flags: the month lies outside it.
    expect(november.expected_range.low).toBeGreaterThan(0);
    expect(result.rules.map((r: any) => [r.rule, r.threshold])).toEqual([
      ['robust_score', 3.5],
      ['below_half_median', 2.5],
    ]);
    expect(result.finding).toMatch(/^November 2024 \(2024011\) stands out in results for company LOSS: -8,000\.00 EUR against a median of 186,700\.00 EUR/);
    expect(result.finding).toContain('Flagged by below half the median (-0.04 × the median, past zero; under 0.5) with robust score 3.42 ≥ 2.5; its robust score alone (3.42) stays under 3.5.');
    // The web chat's table shows the rule in words, not an [object Object] column.
    const view = presentOutliers(result).views[0]!;
    expect(view.columns.map((c) => c.key)).toContain('flag_reason');
    expect(view.columns.map((c) => c.key)).not.toContain('flagged_by');
  });

  it('flags a month with no rows at all in that series, as a zero', async () => {
    const result = await run({ filters: { company: 'EMPTY' } });
    expect(result.outliers).toHaveLength(1);
    expect(result.outliers[0]).toMatchObject({ period: '2024011', value: 0, records: 0 });
    expect(result.outliers[0].flagged_by).toEqual([{ rule: 'below_half_median', measured: 3.28, threshold: 2.5, share_of_median: 0 }]);
    expect(result.outliers[0].flag_reason).toBe('below half the median (at zero; under 0.5) with robust score 3.28 ≥ 2.5');
  });

  it('a stricter threshold is stricter for both rules', async () => {
    const strict = await run({ filters: { company: 'LOSS' }, threshold: 4.5 });
    expect(strict.rules.map((r: any) => [r.rule, r.threshold])).toEqual([
      ['robust_score', 4.5],
      ['below_half_median', 3.5],
    ]);
    expect(strict.outliers).toEqual([]);
    expect(strict.finding).toMatch(/none under half the median reaches a score of 3\.5\.$/);
  });

  it('flags nothing in seasonal series, nor the loss month of a business that often comes near zero', async () => {
    const result = await run({ by: ['company'], filters: { company: ['PLAN', 'REVENUE', 'THIN'] } });
    expect(result.series_checked).toBe(3);
    expect(result.outliers).toEqual([]);
    expect(result.finding).toMatch(/^No period of results for company PLAN, REVENUE, THIN deviates sharply: all 12 periods of 3 series lie within a robust score of 3\.5/);
    // A lower robust threshold still finds something, so the quiet above is the rules, not a blind spot.
    const loose = await run({ by: ['company'], filters: { company: ['PLAN', 'REVENUE', 'THIN'] }, threshold: 1.5 });
    expect(loose.outlier_count).toBeGreaterThan(0);
    const thresholds = Object.fromEntries(loose.rules.map((r: any) => [r.rule, r.threshold]));
    expect(thresholds).toEqual({ robust_score: 1.5, below_half_median: 1 });
    for (const outlier of loose.outliers) for (const hit of outlier.flagged_by) expect(hit.threshold).toBe(thresholds[hit.rule]);
  });

  it('split by company, ranks the flagged periods of every series and says each one\'s rule', async () => {
    const result = await run({ by: ['company'] });
    // Largest |score| first: −8k lies further out than the empty month's zero.
    expect(flagged(result)).toEqual([
      ['LOSS', '2024011', ['below_half_median']],
      ['EMPTY', '2024011', ['below_half_median']],
    ]);
    expect(result.finding).toMatch(/Also flagged: November 2024 \(2024011\) for company EMPTY \(low, score -3\.28: below half the median, score ≥ 2\.5\)\./);
  });
});

describe('find_outlier_periods on the sample (data/README.md)', () => {
  let toolbox: SkillTestKit;
  beforeAll(async () => {
    toolbox = await skillTestKit(skill);
  });
  afterAll(() => toolbox.close());
  const sample = (args: Record<string, unknown>) => runTool(toolbox, 'find_outlier_periods', { limit: 100, ...args });

  it('flags the planted cases in the company totals: the duplicated load (1000, December), the revenue shortfall\'s loss month (2000, November), and the month at a third of the usual result (3000, August)', async () => {
    const result = await sample({ source: 'fi_reporting', by: ['company'] });
    expect(flagged(result)).toEqual([
      ['1000', '2024012', ['robust_score']],
      ['2000', '2024011', ['below_half_median']],
      ['3000', '2024008', ['below_half_median']],
    ]);
    expect(result.outliers[1]).toMatchObject({ value: -8449.84, median: 186665.32, score: -3.43 });
    expect(result.outliers[2]).toMatchObject({ value: 30700, median: 89850, score: -3.05, flagged_by: [{ rule: 'below_half_median', measured: 3.05, threshold: 2.5, share_of_median: 0.34 }] });
  });

  it('by company and group account, flags the missing intercompany purchase, the bonus accrual and BPC\'s manual adjustment, and nothing else', async () => {
    const mart = await sample({ source: 'consolidation_mart', by: ['company', 'group_account'] });
    expect(mart.outliers.map((o: any) => [o.company, o.group_account, o.period])).toEqual([
      ['2000', 'G5100000', '2024009'],
      ['3000', 'G6000000', '2024011'],
    ]);
    const bpc = await sample({ source: 'bpc_reporting', by: ['company', 'group_account'] });
    expect(bpc.outliers.map((o: any) => [o.company, o.group_account, o.period])).toEqual([
      ['2000', 'G5100000', '2024009'],
      ['3000', 'G6000000', '2024011'],
      ['3000', 'G6100000', '2024010'],
    ]);
    // In group currency the exchange rate moves a tight expense line by 5 %: no finding.
    const groupCurrency = await sample({ source: 'consolidation_mart', measure: 'amount_gc', by: ['company', 'group_account'] });
    expect(groupCurrency.outliers.map((o: any) => [o.company, o.group_account, o.period])).toEqual([
      ['2000', 'G5100000', '2024009'],
      ['3000', 'G6000000', '2024011'],
    ]);
  });

  it('flags nothing in the seasonal budgets, and in the forecasts only a month at under a quarter of the usual result', async () => {
    for (const by of [['company'], ['company', 'group_account']]) {
      const budget = await sample({ source: 'consolidation_mart', by, filters: { version: 'BUDGET' } });
      expect(budget.outliers, `BUDGET by ${by.join(', ')}`).toEqual([]);
    }
    // Budget months run from 94,000 to 244,000 USD for company 2000; the re-forecast put August at 43,000.
    const forecast = await sample({ source: 'consolidation_mart', by: ['company'], filters: { version: 'FORECAST' } });
    expect(flagged(forecast)).toEqual([['2000', '2024008', ['below_half_median']]]);
    expect((await sample({ source: 'consolidation_mart', by: ['company', 'group_account'], filters: { version: 'FORECAST' } })).outliers).toEqual([]);
  });
});
