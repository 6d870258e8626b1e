import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createComparisonStore } from '../../skills/data_analyst/comparisonStore.ts';
import { runTool, sampleToolbox } from '../support/sampleContext.ts';

let toolbox: Awaited<ReturnType<typeof sampleToolbox>>;
beforeAll(async () => {
  toolbox = await sampleToolbox();
});
afterAll(() => toolbox.close());

const run = (name: string, args: unknown) => runTool(toolbox, name, args);

describe('comparison ids', () => {
  it('pages through the differences of a comparison without recomputing it', async () => {
    const comparison = await run('compare_sources', { source_a: 'fi_acquisition', source_b: 'fi_reporting', measure: 'amount', align_on: ['document', 'document_line'], filters: { company: '1000', period: '2024012' }, top: 2 });
    expect(comparison.comparison_id).toMatch(/^cmp_/);
    expect(comparison.top_differences).toHaveLength(2);
    expect(comparison.more_differences).toMatch(/list_differences/);
    const page = await run('list_differences', { comparison_id: comparison.comparison_id, offset: 2, limit: 10 });
    expect(page).toMatchObject({ offset: 2, has_more: false, differing_rows: 4 });
    expect(page.rows).toHaveLength(2);
    const all = [...comparison.top_differences, ...page.rows];
    expect(all.map((row: any) => row.document).sort()).toEqual(['0100000360', '0100000360', '0100000361', '0100000362']);
    expect(all.every((row: any) => row.status === 'major_diff' && row.b === 2 * row.a)).toBe(true);
  });

  it('tells the model to re-run the comparison when an id is unknown or expired', async () => {
    const { error } = await run('list_differences', { comparison_id: 'cmp_doesnotexist' });
    expect(error).toMatchObject({ code: 'unknown_value', argument: 'comparison_id' });
    expect(error.hint).toMatch(/Run compare_sources again/);

    let now = 5000;
    const store = createComparisonStore({ ttlMs: 1000, now: () => now });
    const id = store.remember({ args: {}, result: { top_differences: [] } });
    now = 5999;
    expect(store.recall(id).args).toEqual({});
    now = 6001;
    expect(() => store.recall(id)).toThrow(/unknown or has expired/);
  });
});

describe('explain_difference', () => {
  const explain = async (compareArgs: Record<string, unknown>) => {
    const comparison = await run('compare_sources', compareArgs);
    return run('explain_difference', { comparison_id: comparison.comparison_id });
  };

  it('pins the duplicated delta load: one group account, one load request carrying exactly the gap', async () => {
    const result = await explain({ source_a: 'fi_reporting', source_b: 'bpc_reporting', measure: 'amount', filters: { company: '1000', period: '2024012' } });
    expect(result.gap).toEqual({ currency: 'EUR', total_a: 443100, total_b: 333100, difference: 110000 });
    expect(result.by_dimension[0]).toMatchObject({ dimension: 'group_account', explains_percent: 100, values: [{ value: 'G4000000', difference: 110000, share_percent: 100 }] });
    expect(result.one_sided).toContainEqual({ source: 'fi_reporting', dimension: 'load_request', value: 'REQ_2024012_1000_02', amount: 110000 });
    expect(result.explanation).toBe(
      'The gap of 110,000.00 EUR at company 1000, period 2024012 (fi_reporting higher) is entirely group account G4000000. In fi_reporting, load request REQ_2024012_1000_02 holds 110,000.00 EUR, exactly the gap.',
    );
  });

  it('finds the manual adjustment that exists only in BPC', async () => {
    const result = await explain({ source_a: 'fi_reporting', source_b: 'bpc_reporting', measure: 'amount', filters: { company: '3000', period: '2024010' } });
    expect(result.gap.difference).toBe(25000);
    expect(result.by_dimension[0].values[0]).toMatchObject({ value: 'G6100000', difference: 25000 });
    expect(result.one_sided).toContainEqual({ source: 'bpc_reporting', dimension: 'audit_trail', value: 'ADJ_MANUAL', amount: -25000 });
  });

  it('recognises a translation at another rate: every account off by the same percentage', async () => {
    const result = await explain({ source_a: 'consolidation_mart', source_b: 'bpc_reporting', measure: 'amount_gc', filters: { company: '2000', period: '2024006' } });
    expect(result.gap.difference).toBe(-3646.01);
    expect(result.by_dimension.find((d: any) => d.dimension === 'group_account').uniform_percent).toBe(2.16);
    expect(result.explanation).toMatch(/every group account differs by the same 2.16%/);
  });

  it('accepts the comparison arguments instead of an id, and a key to explain', async () => {
    const result = await run('explain_difference', {
      comparison: { source_a: 'fi_reporting', source_b: 'bpc_reporting', measure: 'amount', filters: { period: '2024' } },
      key: { company: '3000', period: '2024010' },
    });
    expect(result.gap).toMatchObject({ currency: 'GBP', difference: 25000 });
  });

  it('says so when there is nothing to explain', async () => {
    const result = await explain({ source_a: 'fi_reporting', source_b: 'bpc_reporting', measure: 'amount', filters: { company: '2000', period: '2024003' } });
    expect(result.explanation).toMatch(/nothing to explain/);
  });
});
