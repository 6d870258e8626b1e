/**
 * explain_difference names the real cause: a duplicated load between two layers that both
 * carry load requests, the drivers of a net gap with its offsets named apart, and the causes it
 * already found (one-sided load request, manual adjustment, translation rate) unchanged.
 */
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { skillTestKit } from '../../src/skills/testing.ts';
import skill from '../../skills/data_analyst/index.ts';
import { loadDimension, recordKey } from '../../skills/data_analyst/duplicatedLoad.ts';
import { temporaryDirectory, writeCatalog } from '../support/catalogFixture.ts';
import { runTool, sampleToolbox } from '../support/sampleContext.ts';

let toolbox: Awaited<ReturnType<typeof sampleToolbox>>;
beforeAll(async () => {
  toolbox = await sampleToolbox();
});
afterAll(() => toolbox.close());

const run = (name: string, args: unknown) => runTool(toolbox, name, args);
const explain = async (compareArgs: Record<string, unknown>, extra: Record<string, unknown> = {}) => {
  const comparison = await run('compare_sources', compareArgs);
  return { comparison, explanation: await run('explain_difference', { comparison_id: comparison.comparison_id, ...extra }) };
};
const acquisitionVsFi = { source_a: 'fi_acquisition', source_b: 'fi_reporting', measure: 'amount' };
const actualVsBudget2000 = { source_a: 'consolidation_mart', source_b: 'consolidation_mart', measure: 'amount', filters: { company: '2000' }, filters_a: { version: 'ACTUAL' }, filters_b: { version: 'BUDGET' } };

describe('explain_difference: duplicated load between two layers with load requests', () => {
  it('names the extra load request, the duplicated lines and documents, the amount and the side holding the copies', async () => {
    const { explanation: result } = await explain({ ...acquisitionVsFi, filters: { company: '1000', period: '2024012' } });
    expect(result).toMatchObject({ target: 'row', cause: 'duplicated_load', gap: { currency: 'EUR', total_a: 333100, total_b: 443100, difference: -110000 } });
    expect(result.duplicated_load).toMatchObject({
      source: 'fi_reporting',
      side: 'b',
      other_source: 'fi_acquisition',
      dimension: 'load_request',
      load_requests: ['REQ_2024012_1000_02'],
      original_load_requests: ['REQ_2024012_1000_01'],
      lines: 4,
      copies: 2,
      document_dimension: 'document',
      documents: 3,
      amount: 110000,
      explains_percent: 100,
      once_in_other_source: true,
    });
    expect(result.duplicated_load.examples[0]).toEqual({ document: '0100000360', document_line: '1', amount: 35481.36, copies: 2 });
    expect(result.explanation).toBe(
      'The gap of 110,000.00 EUR at company 1000, period 2024012 (fi_reporting higher) is a duplicated load: 4 lines (3 documents) first loaded under load request REQ_2024012_1000_01 were loaded again into fi_reporting under load request REQ_2024012_1000_02, adding 110,000.00 EUR, exactly the gap; fi_acquisition holds each of them once. It sits entirely in gl account 4000000.',
    );
    expect(result.explanation).not.toMatch(/rate|systematic/);
  });

  it('finds it from the full-year comparison too, at the one row that differs', async () => {
    const { comparison, explanation: result } = await explain(acquisitionVsFi);
    expect(comparison.summary).toMatchObject({ aligned_rows: 36, match: 35, major_diff: 1 });
    expect(result).toMatchObject({ key: { company: '1000', period: '2024012' }, cause: 'duplicated_load', duplicated_load: { load_requests: ['REQ_2024012_1000_02'], lines: 4, amount: 110000 } });
    expect(result.explanation).toMatch(/duplicated load: 4 lines \(3 documents\).*REQ_2024012_1000_02, adding 110,000\.00 EUR/);
  });

  it('reads the line-by-line comparison as lines counted twice, and explains its net', async () => {
    const { comparison, explanation: result } = await explain({ ...acquisitionVsFi, align_on: ['document', 'document_line'], filters: { company: '1000', period: '2024012' } });
    expect(comparison.interpretation).toContain('All 4 differing rows are exactly doubled in fi_reporting (110,000.00 EUR counted twice)');
    expect(result).toMatchObject({ target: 'net', key: {}, rows: { aligned: 70, differing: 4 }, cause: 'duplicated_load', gap: { difference: -110000 } });
    expect(result.explanation).toMatch(/^The net gap of 110,000\.00 EUR for company 1000, period 2024012 \(fi_reporting higher; 4 of 70 aligned rows differ\) is a duplicated load/);
  });

  it('keeps explaining FI vs BPC, where only FI has load requests, by the one-sided load request', async () => {
    const { explanation: result } = await explain({ source_a: 'fi_reporting', source_b: 'bpc_reporting', measure: 'amount', filters: { company: '1000', period: '2024012' } });
    expect(result.duplicated_load).toBeUndefined();
    expect(result.cause).toBe('single_value');
    expect(result.one_sided).toEqual([{ source: 'fi_reporting', dimension: 'load_request', value: 'REQ_2024012_1000_02', amount: 110000 }]);
  });

  it('reads the load dimension and the record key from the catalog, whatever their names', async () => {
    const fi = toolbox.context.catalog.sources;
    expect(loadDimension(fi.get('fi_reporting')!)?.name).toBe('load_request');
    expect(loadDimension(fi.get('bpc_reporting')!)).toBeUndefined();
    expect(recordKey(fi.get('fi_acquisition')!, fi.get('fi_reporting')!, new Set(['load_request', 'currency']))).toEqual(['document', 'document_line']);

    const directory = temporaryDirectory();
    const kit = await skillTestKit(skill, { ...renamedLayers(directory) });
    try {
      const comparison = await kit.run('compare_sources', { source_a: 'staging', source_b: 'warehouse', measure: 'value' });
      const outcome = await kit.run('explain_difference', { comparison_id: (comparison as any).result.comparison_id });
      expect(outcome).toMatchObject({
        ok: true,
        result: { cause: 'duplicated_load', duplicated_load: { source: 'warehouse', dimension: 'batch', load_requests: ['PKG_B'], original_load_requests: ['PKG_A'], lines: 2, document_dimension: 'entry', documents: 2, amount: 300, once_in_other_source: true } },
      });
    } finally {
      await kit.close();
    }
  });
});

describe('explain_difference: a net gap of several rows', () => {
  it('explains the full-year actual vs budget of company 2000 by the drivers of the net, offsets named apart', async () => {
    const { comparison, explanation: result } = await explain(actualVsBudget2000);
    // The largest row (November, budget higher) goes against the net: compare_sources says so.
    expect(comparison.interpretation).toContain('Net, consolidation_mart (ACTUAL) is higher by 67,149.37 USD: the largest gap goes the other way; the largest gap that way is at company 2000, period 2024009 (118,700.00 USD).');
    expect(result).toMatchObject({ target: 'net', key: {}, cause: 'drivers', gap: { currency: 'USD', total_a: 2194149.37, total_b: 2127000, difference: 67149.37 }, rows: { aligned: 12, differing: 12 } });
    const accounts = result.by_dimension.find((d: any) => d.dimension === 'group_account');
    expect(result.by_dimension[0]).toBe(accounts);
    expect(accounts.values.map((v: any) => [v.value, v.difference, v.share_percent, v.role])).toEqual([
      ['G5100000', 168949.37, 251.6, 'driver'],
      ['G5000000', 38100, 56.7, 'driver'],
      ['G4000000', -108400, -161.4, 'offset'],
      ['G6000000', -23500, -35, 'offset'],
      ['G6100000', -8000, -11.9, 'offset'],
    ]);
    // Signed shares of the net add up to the net.
    expect(accounts.values.reduce((sum: number, v: any) => sum + v.share_percent, 0)).toBeCloseTo(100, 0);
    expect(result.items).toEqual({
      dimensions: ['period', 'group_account'],
      drivers: expect.arrayContaining([expect.objectContaining({ period: '2024009', group_account: 'G5100000', a: null, b: -166000, difference: 166000, status: 'only_in_b' })]),
      offsets: expect.arrayContaining([expect.objectContaining({ period: '2024011', group_account: 'G4000000', a: 1377000, b: 1620000, difference: -243000 })]),
    });
    expect(result.items.drivers[0]).toMatchObject({ period: '2024009', group_account: 'G5100000' });
    expect(result.items.offsets[0]).toMatchObject({ period: '2024011', group_account: 'G4000000' });
    expect(result.explanation).toBe(
      'The net gap of 67,149.37 USD for company 2000 (consolidation_mart ACTUAL higher; 12 of 12 aligned rows differ) is driven by group account G5100000 (+168,949.37 USD, 251.6% of the net) and G5000000 (+38,100.00 USD, 56.7%), offset by G4000000 (-108,400.00 USD, -161.4%), G6000000 (-23,500.00 USD, -35.0%) and G6100000 (-8,000.00 USD, -11.9%). By period and group account, the largest driver is period 2024009, group account G5100000 (+166,000.00 USD, only in consolidation_mart BUDGET), the largest offset period 2024011, group account G4000000 (-243,000.00 USD).',
    );
  });

  it('reads the same drivers and offsets when the full year is one aligned row', async () => {
    const { explanation: result } = await explain({ ...actualVsBudget2000, align_on: ['company'] });
    expect(result).toMatchObject({ target: 'row', key: { company: '2000' }, gap: { difference: 67149.37 } });
    expect(result.explanation).toMatch(/^The gap of 67,149\.37 USD at company 2000 \(consolidation_mart ACTUAL higher\) is driven by group account G5100000 .*, offset by G4000000 \(-108,400\.00 USD/);
    expect(result.explanation).toContain('the largest offset period 2024011, group account G4000000 (-243,000.00 USD)');
  });

  it('explains one row when asked for it by key, and the net when the key is {}', async () => {
    const { explanation: result } = await explain(actualVsBudget2000, { key: { company: '2000', period: '2024011' } });
    expect(result).toMatchObject({ target: 'row', gap: { difference: -252449.84 } });
    expect(result.by_dimension[0].values[0]).toMatchObject({ value: 'G4000000', difference: -243000, share_percent: 96.3, role: 'driver' });
    expect(result.by_dimension[0].values.find((v: any) => v.role === 'offset')).toMatchObject({ value: 'G5100000', difference: 3250.16, share_percent: -1.3 });
    const { explanation: net } = await explain({ ...actualVsBudget2000, filters: { company: '2000', period: '2024011' } }, { key: {} });
    expect(net).toMatchObject({ target: 'net', key: {}, gap: { difference: -252449.84 } });
  });

  it('follows a net across companies to the manual adjustment behind its driving row', async () => {
    const { explanation: result } = await explain({ source_a: 'consolidation_mart', source_b: 'bpc_reporting', measure: 'amount_gc' });
    expect(result).toMatchObject({ target: 'net', gap: { currency: 'EUR', difference: 26038.99 } });
    expect(result.one_sided).toContainEqual({ source: 'bpc_reporting', dimension: 'audit_trail', value: 'ADJ_MANUAL', amount: -29685, difference_of: { company: '3000', period: '2024010' } });
    expect(result.explanation).toContain('offset by 2024006 (-3,646.01 EUR, -14.0%)');
    expect(result.explanation).toContain('In bpc_reporting, audit trail ADJ_MANUAL holds -29,685.00 EUR, exactly the difference at company 3000, period 2024010.');
  });
});

describe('explain_difference: causes it already found stay as they were', () => {
  it('a manual adjustment only in BPC', async () => {
    const { explanation: result } = await explain({ source_a: 'fi_reporting', source_b: 'bpc_reporting', measure: 'amount', filters: { company: '3000', period: '2024010' } });
    expect(result.explanation).toBe(
      'The gap of 25,000.00 GBP at company 3000, period 2024010 (fi_reporting higher) is entirely group account G6100000. In bpc_reporting, audit trail ADJ_MANUAL holds -25,000.00 GBP, exactly the gap.',
    );
  });

  it('a translation at another rate, 2.16 % on every account', async () => {
    const { explanation: result } = await explain({ source_a: 'consolidation_mart', source_b: 'bpc_reporting', measure: 'amount_gc', filters: { company: '2000', period: '2024006' } });
    expect(result.cause).toBe('uniform_rate');
    expect(result.explanation).toBe(
      'The gap of 3,646.01 EUR at company 2000, period 2024006 (bpc_reporting higher) is not one posting: every group account differs by the same 2.16%, which points to a different rate (e.g. currency translation) in one source.',
    );
  });
});

/**
 * Two layers with other names for everything: entity, entry + entry_item (the record), and a
 * `batch` dimension that only its description marks as the load. The warehouse holds two
 * entries of PKG_A a second time, under PKG_B.
 */
function renamedLayers(directory: string): { databasePath: string; catalogPath: string } {
  const databasePath = path.join(directory, 'layers.db');
  const database = new Database(databasePath);
  const staging: [string, string, string, string, number][] = [
    ['10', 'E1', '1', 'PKG_A', 100],
    ['10', 'E1', '2', 'PKG_A', 50],
    ['10', 'E2', '1', 'PKG_A', 200],
    ['10', 'E3', '1', 'PKG_A', -80],
  ];
  const warehouse = [...staging, ['10', 'E1', '1', 'PKG_B', 100], ['10', 'E2', '1', 'PKG_B', 200]] as typeof staging;
  for (const [table, rows] of [['staging_t', staging], ['warehouse_t', warehouse]] as const) {
    database.exec(`CREATE TABLE ${table} (ent TEXT, entry TEXT, item TEXT, pkg TEXT, val REAL, cur TEXT)`);
    const insert = database.prepare(`INSERT INTO ${table} VALUES (?, ?, ?, ?, ?, 'EUR')`);
    for (const row of rows) insert.run(...row);
  }
  database.close();
  const source = (table: string) => ({
    description: `layer ${table}`,
    table,
    dimensions: {
      entity: { column: 'ent', description: 'legal entity' },
      entry: { column: 'entry', description: 'journal entry number', cardinality: 'high' },
      entry_item: { column: 'item', description: 'item within the entry' },
      batch: { column: 'pkg', description: 'Data package of the upload that brought the row in' },
      currency: { column: 'cur', description: 'currency key' },
    },
    measures: { value: { column: 'val', aggregation: 'sum', currency_dimension: 'currency', description: 'value' } },
  });
  const catalogPath = writeCatalog(directory, {
    version: 1,
    comparison: { default_align_on: ['entity'], thresholds: { match: { absolute: 1, percent: 1 }, minor: { absolute: 5, percent: 5 } } },
    sources: { staging: source('staging_t'), warehouse: source('warehouse_t') },
  });
  return { databasePath, catalogPath };
}
