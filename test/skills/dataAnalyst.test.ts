import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runTool, sampleDatabasePath, sampleToolbox } from '../support/sampleContext.ts';

type Toolbox = Awaited<ReturnType<typeof sampleToolbox>>;
let toolbox: Toolbox;
const hashBefore = createHash('sha256').update(readFileSync(sampleDatabasePath)).digest('hex');

beforeAll(async () => {
  toolbox = await sampleToolbox();
});
afterAll(() => toolbox.close());

const run = (name: string, args: unknown) => runTool(toolbox, name, args);

describe('list_sources', () => {
  it('describes every source, its units and which pairs compare on which dimensions', async () => {
    const result = await run('list_sources', {});
    expect(result.sources.map((s: any) => s.name)).toEqual(['fi_reporting', 'consolidation_mart', 'bpc_reporting', 'fi_acquisition']);
    const bpc = result.sources.find((s: any) => s.name === 'bpc_reporting');
    expect(bpc.measures).toContainEqual(expect.objectContaining({ name: 'amount_gc', unit: 'EUR' }));
    expect(bpc.default_filters).toEqual({ version: 'ACTUAL' });
    expect(result.comparable_pairs).toContainEqual(
      expect.objectContaining({ source_a: 'fi_reporting', source_b: 'bpc_reporting', default_align_on: ['company', 'period'], common_measures: ['amount'] }),
    );
    expect(result.comparable_pairs.find((p: any) => p.source_a === 'fi_reporting' && p.source_b === 'bpc_reporting').common_dimensions).toEqual(
      expect.arrayContaining(['company', 'period', 'group_account', 'partner_company', 'currency']),
    );
  });
});

describe('query_source', () => {
  it('totals a measure with filters, split by currency', async () => {
    const result = await run('query_source', { source: 'fi_reporting', filters: { company: '1000', period: '2024012' } });
    expect(result.rows).toEqual([{ currency: 'EUR', amount: 443100 }]);
    expect(result).toMatchObject({ row_count: 1, total_rows: 1, truncated: false });
    expect(result.notes.join(' ')).toMatch(/different currencies are never added/);
  });

  it('never adds amounts of different currencies, even without grouping', async () => {
    const result = await run('query_source', { source: 'consolidation_mart', filters: { period: '2024' } });
    expect(result.rows).toEqual([
      { currency: 'EUR', amount: 3451000 },
      { currency: 'GBP', amount: 1038600 },
      { currency: 'USD', amount: 2194149.37 },
    ]);
    expect(result.filters).toEqual({ period: { from: '2024001', to: '2024012' }, version: 'ACTUAL' });
  });

  it('accepts lists, ranges and everyday period spellings', async () => {
    const list = await run('query_source', { source: 'consolidation_mart', dimensions: ['version'], filters: { company: ['3000'], period: 'Nov 2024', group_account: 'G6000000', version: ['ACTUAL', 'BUDGET'] } });
    expect(list.rows).toEqual([
      { version: 'ACTUAL', currency: 'GBP', amount: -250000 },
      { version: 'BUDGET', currency: 'GBP', amount: -210000 },
    ]);
    const range = await run('query_source', { source: 'consolidation_mart', measures: ['amount_gc'], dimensions: ['period'], filters: { group_account: ['G4100000', 'G5100000'], period: { from: '2024-08', to: '2024-10' } } });
    expect(range.rows).toEqual([
      { period: '2024008', amount_gc: 0 },
      { period: '2024009', amount_gc: 152500 },
      { period: '2024010', amount_gc: 0 },
    ]);
  });

  it('finds blank values with a null filter', async () => {
    const result = await run('query_source', { source: 'fi_reporting', measures: ['line_count', 'amount'], filters: { profit_center: null } });
    expect(result.rows).toEqual([{ currency: 'GBP', line_count: 3, amount: 197455.97 }]);
  });

  it('orders deterministically, caps rows and says when it truncated', async () => {
    const result = await run('query_source', { source: 'fi_reporting', dimensions: ['document'], order_by: 'amount desc', limit: 3 });
    expect(result.row_count).toBe(3);
    expect(result.total_rows).toBe(1174); // distinct documents, per data/README.md
    expect(result.truncated).toBe(true);
    const amounts = result.rows.map((r: any) => r.amount);
    expect([...amounts].sort((a, b) => b - a)).toEqual(amounts);
    const huge = await run('query_source', { source: 'fi_reporting', dimensions: ['document'], limit: 100000 });
    expect(huge.row_count).toBeLessThanOrEqual(500);
    expect(huge.notes.join(' ')).toMatch(/lowered to the maximum of 500/);
  });

  it('answers a misspelt source with the valid names and the closest one', async () => {
    const { error } = await run('query_source', { source: 'fi_reports' });
    expect(error).toMatchObject({ code: 'unknown_source', closest: 'fi_reporting', choices: ['fi_reporting', 'consolidation_mart', 'bpc_reporting', 'fi_acquisition'] });
    expect(error.hint).toContain("Did you mean 'fi_reporting'?");
  });

  it('answers unknown measures, dimensions and order fields with choices', async () => {
    expect((await run('query_source', { source: 'fi_reporting', measures: ['amont'] })).error).toMatchObject({ code: 'unknown_measure', closest: 'amount' });
    expect((await run('query_source', { source: 'fi_reporting', dimensions: ['compny'] })).error).toMatchObject({ code: 'unknown_dimension', closest: 'company' });
    expect((await run('query_source', { source: 'fi_reporting', order_by: 'amout desc' })).error).toMatchObject({ code: 'invalid_value', closest: 'amount' });
  });

  it('answers a filter value that does not exist with the existing values', async () => {
    const { error } = await run('query_source', { source: 'fi_reporting', filters: { company: '1001' } });
    expect(error).toMatchObject({ code: 'unknown_value', dimension: 'company', value: '1001', choices: ['1000', '2000', '3000'], closest: '1000' });
  });

  it("points a value's business name to its code", async () => {
    const { error } = await run('query_source', { source: 'fi_reporting', filters: { company: 'Contoso UK' } });
    expect(error).toMatchObject({ code: 'unknown_value', dimension: 'company', value: 'Contoso UK', closest: '3000' });
    expect(error.hint).toContain("'Contoso UK' is the catalog's name of company '3000'");
  });

  it('rejects a period it cannot read, saying the format', async () => {
    const { error } = await run('query_source', { source: 'fi_reporting', filters: { period: 'Smarch 2024' } });
    expect(error.code).toBe('invalid_value');
    expect(error.hint).toMatch(/YYYYPPP/);
  });

  it('returns an honest empty result when existing values do not combine', async () => {
    const result = await run('query_source', { source: 'fi_reporting', filters: { company: '1000', gl_account: '5100000' } });
    expect(result).toMatchObject({ rows: [], row_count: 0, truncated: false });
    expect(result.notes.join(' ')).toMatch(/No rows match this combination/);
  });
});

describe('compare_sources', () => {
  it('reconciles FI and BPC for 1000 in December 2024 (planted duplicate load)', async () => {
    const result = await run('compare_sources', { source_a: 'fi_reporting', source_b: 'bpc_reporting', measure: 'amount', filters: { company: '1000', period: 'December 2024' } });
    expect(result.summary).toMatchObject({ aligned_rows: 1, major_diff: 1, match: 0 });
    expect(result.summary.totals).toEqual([{ currency: 'EUR', total_a: 443100, total_b: 333100, difference: 110000, difference_percent: 24.83 }]);
    expect(result.filters_b).toEqual({ company: '1000', period: '2024012', version: 'ACTUAL' });
    expect(result.interpretation).toContain('fi_reporting is higher by 110,000.00 EUR');
  });

  it('locates the gap when aligned on group account', async () => {
    const result = await run('compare_sources', { source_a: 'fi_reporting', source_b: 'bpc_reporting', measure: 'amount', align_on: ['company', 'period', 'group_account'], filters: { company: '1000', period: '2024012' } });
    expect(result.summary).toMatchObject({ match: 5, major_diff: 1 });
    expect(result.top_differences).toEqual([
      expect.objectContaining({ group_account: 'G4000000', a: 2036800, b: 1926800, difference: 110000, status: 'major_diff' }),
    ]);
  });

  it('classifies the whole year, per company and period', async () => {
    const result = await run('compare_sources', { source_a: 'consolidation_mart', source_b: 'bpc_reporting', measure: 'amount_gc' });
    expect(result.summary).toMatchObject({ aligned_rows: 36, match: 34, minor_diff: 1, major_diff: 1 });
    expect(result.summary.totals).toEqual([expect.objectContaining({ currency: 'EUR', total_a: 6693021.52, total_b: 6666982.53, difference: 26038.99 })]);
  });

  it('compares versions of one source with per-side filters', async () => {
    const result = await run('compare_sources', {
      source_a: 'consolidation_mart',
      source_b: 'consolidation_mart',
      measure: 'amount',
      align_on: ['company', 'group_account'],
      filters: { period: '2024011', company: '2000' },
      filters_a: { version: 'ACTUAL' },
      filters_b: { version: 'BUDGET' },
    });
    expect(result.top_differences[0]).toMatchObject({ group_account: 'G4000000', a: 1377000, b: 1620000, difference: -243000, difference_percent: 17.647059, status: 'major_diff' });
  });

  it('reports rows present on one side only', async () => {
    const result = await run('compare_sources', {
      source_a: 'consolidation_mart',
      source_b: 'consolidation_mart',
      measure: 'amount',
      align_on: ['period'],
      filters: { company: '2000', group_account: 'G5100000' },
      filters_a: { version: 'ACTUAL' },
      filters_b: { version: 'BUDGET' },
    });
    expect(result.summary.only_in_b).toBe(1);
    expect(result.top_differences).toContainEqual(expect.objectContaining({ period: '2024009', a: null, b: -166000, status: 'only_in_b' }));
  });

  it('applies threshold overrides', async () => {
    const result = await run('compare_sources', { source_a: 'consolidation_mart', source_b: 'bpc_reporting', measure: 'amount_gc', filters: { company: '2000', period: '2024006' }, thresholds: { minor: { absolute: 1000 } } });
    expect(result.summary.major_diff).toBe(1);
    expect(result.thresholds.minor).toEqual({ absolute: 1000, percent: 5 });
  });

  it('refuses to align on a dimension one side lacks, naming the common ones', async () => {
    const { error } = await run('compare_sources', { source_a: 'fi_reporting', source_b: 'bpc_reporting', measure: 'amount', align_on: ['document'] });
    expect(error.code).toBe('not_comparable');
    expect(error.choices).toEqual(expect.arrayContaining(['company', 'period', 'group_account']));
  });

  it('refuses a shared filter on a dimension one side lacks, pointing to per-side filters', async () => {
    const { error } = await run('compare_sources', { source_a: 'fi_reporting', source_b: 'bpc_reporting', measure: 'amount', filters: { audit_trail: 'INPUT' } });
    expect(error.code).toBe('unknown_dimension');
    expect(error.hint).toMatch(/filters_b/);
  });
});

describe('the data connection', () => {
  it('is read-only: the sample file is byte-identical after every tool call above', () => {
    expect(createHash('sha256').update(readFileSync(sampleDatabasePath)).digest('hex')).toBe(hashBefore);
  });
});
