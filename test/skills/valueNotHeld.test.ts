/**
 * No zero that means "no data", through the tools on SQLite, DuckDB and PostgreSQL: a filter
 * value a source does not hold (version FORECAST in bpc_reporting, which holds ACTUAL and
 * BUDGET) is the error value_not_held naming what the source holds and which source holds the
 * value, never a side of 0.00; a combination of values each held on its own (company 2000's
 * missing intercompany purchase of September 2024) is a side "without rows", not 0.00; and a
 * genuine zero (the intercompany elimination of August 2024 nets to zero) is still 0.00.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadCatalog } from '../../src/catalog/loadCatalog.ts';
import { projectRoot } from '../../src/config/config.ts';
import { Connections } from '../../src/data/connections.ts';
import { createDataAccess } from '../../src/data/dataAccess.ts';
import type { DataAccess } from '../../src/data/dataAccess.ts';
import { silentLogger } from '../../src/logging/logger.ts';
import type { ToolContext } from '../../src/skills/api.ts';
import { loadSkills } from '../../src/skills/loader.ts';
import { SkillRegistry } from '../../src/skills/registry.ts';
import { engineSampleUrls } from '../support/engineSamples.ts';

const urls = await engineSampleUrls();
const FORECAST_STATEMENT = 'bpc_reporting holds versions ACTUAL and BUDGET, not FORECAST; consolidation_mart holds version FORECAST.';
const actualVsForecast = { source_a: 'bpc_reporting', source_b: 'bpc_reporting', measure: 'amount', filters: { company: '3000' }, filters_a: { version: 'ACTUAL' }, filters_b: { version: 'FORECAST' } };
/** Company 2000's intercompany purchase of September 2024 is missing from the actuals (data/README.md, case 2); the budget has it. */
const missingActual = { source_a: 'consolidation_mart', source_b: 'consolidation_mart', measure: 'amount', filters: { company: '2000', period: '2024009', group_account: 'G5100000' }, filters_a: { version: 'ACTUAL' }, filters_b: { version: 'BUDGET' } };

describe.each([
  ['SQLite', urls.sqlite],
  ['DuckDB', urls.duckdb],
  ['PostgreSQL', urls.postgres],
] as const)('on %s', (_engine, url) => {
  let registry: SkillRegistry;
  let data: DataAccess;
  let run: (tool: string, args: unknown) => Promise<any>;
  let context: ToolContext;
  beforeAll(async () => {
    registry = new SkillRegistry(await loadSkills(path.join(projectRoot, 'skills')));
    data = createDataAccess(new Connections([{ name: 'default', url }], { statementTimeoutMs: 30_000 }));
    context = { catalog: loadCatalog(path.join(projectRoot, 'data/sources.yaml')), data, logger: silentLogger() };
    run = async (tool, args) => {
      const outcome = await registry.execute(tool, args, context);
      return outcome.ok ? outcome.result : { error: outcome.error };
    };
  }, 60_000);
  afterAll(() => data?.close());

  it('answers the forecast of a source that holds only ACTUAL and BUDGET with what holds what, not FORECAST: 0.00', async () => {
    const { error } = await run('compare_sources', actualVsForecast);
    expect(error).toMatchObject({ code: 'value_not_held', side: 'b', source: 'bpc_reporting', dimension: 'version', value: 'FORECAST', choices: ['ACTUAL', 'BUDGET'], held_by: ['consolidation_mart'], closest_source: 'consolidation_mart' });
    expect(error.message).toBe(FORECAST_STATEMENT);
    expect(error.hint).toBe("For version 'FORECAST' use consolidation_mart; in bpc_reporting use 'ACTUAL' or 'BUDGET'.");
    // The same fact from explain_difference given the comparison, and from query_source.
    expect((await run('explain_difference', { comparison: actualVsForecast })).error).toMatchObject({ code: 'value_not_held', side: 'b', message: FORECAST_STATEMENT });
    expect((await run('query_source', { source: 'bpc_reporting', filters: { version: 'FORECAST' } })).error).toMatchObject({ code: 'value_not_held', message: FORECAST_STATEMENT });
  });

  it('reads a business name or a misspelling of the value, and says how it read it', async () => {
    const named = (await run('compare_sources', { ...actualVsForecast, filters_b: { version: 'forecast' } })).error;
    expect(named).toMatchObject({ code: 'value_not_held', value: 'forecast', message: FORECAST_STATEMENT });
    const misspelt = (await run('compare_sources', { ...actualVsForecast, filters_b: { version: 'FORCAST' } })).error;
    expect(misspelt.message).toBe("bpc_reporting holds versions ACTUAL and BUDGET, not FORECAST (I read 'FORCAST' as FORECAST); consolidation_mart holds version FORECAST.");
  });

  it('flags a listed value the source does not hold when the other values have rows, instead of adding nothing silently', async () => {
    const listed = await run('query_source', { source: 'bpc_reporting', filters: { version: ['ACTUAL', 'FORECAST'], company: '3000' } });
    expect(listed.rows).toEqual([{ currency: 'GBP', amount: 1013600 }]);
    expect(listed.values_not_held).toEqual([{ code: 'value_not_held', dimension: 'version', value: 'FORECAST', held_by: ['consolidation_mart'], statement: FORECAST_STATEMENT }]);
    expect(listed.notes).toContain(`${FORECAST_STATEMENT} The figures cover the other listed values only.`);
    const compared = await run('compare_sources', { ...actualVsForecast, filters_b: { version: ['BUDGET', 'FORECAST'] } });
    expect(compared.values_not_held).toEqual([expect.objectContaining({ side: 'b', code: 'value_not_held', value: 'FORECAST' })]);
    expect(compared.notes).toContain(`Side b: ${FORECAST_STATEMENT} Its figures cover the other listed values only.`);
    // A value held nowhere is flagged as unknown; a list of held values is not flagged at all.
    const unknown = await run('query_source', { source: 'bpc_reporting', filters: { company: ['3000', '3001'] } });
    expect(unknown.values_not_held).toEqual([expect.objectContaining({ code: 'unknown_value', value: '3001', held_by: [] })]);
    expect((await run('query_source', { source: 'bpc_reporting', filters: { version: ['ACTUAL', 'BUDGET'] } })).values_not_held).toBeUndefined();
  });

  it('says a side without rows for values each held on its own as "no rows", not as 0.00', async () => {
    const result = await run('compare_sources', missingActual);
    expect(result.sides_without_rows).toEqual(['a']);
    expect(result.interpretation).toBe('Nothing to reconcile: consolidation_mart (ACTUAL) has no rows for these filters; consolidation_mart (BUDGET) has -166,000.00 USD in 1 aligned row.');
    expect(result.notes).toContain('consolidation_mart (ACTUAL) has no rows for company 2000, period 2024009, group account G5100000, version ACTUAL (each filter value exists on its own): its side is empty, not a total of 0.00.');
    // The web chat's totals table shows the side that has rows, no column of 0.00 for the other.
    const presented = await registry.execute('compare_sources', missingActual, context);
    const columns = (presented.ok ? presented.presentation?.views[0]?.columns ?? [] : []).map((column) => column.key);
    expect(columns).toEqual(['currency', 'total_b']);
    const explained = await run('explain_difference', { comparison_id: result.comparison_id });
    expect(explained.explanation).toBe('There is no gap to explain: consolidation_mart ACTUAL has no rows for these filters, so every figure is only in consolidation_mart BUDGET.');
    expect(JSON.stringify(explained)).not.toMatch(/uniform_rate|driver/);
  });

  it('takes the version FI implies as a filter every row meets, and any other version as one FI does not hold', async () => {
    // Before: "Dimension 'version' does not exist in source 'fi_reporting'. Did you mean 'period'?"
    const actual = await run('query_source', { source: 'fi_reporting', filters: { version: 'ACTUAL', company: '1000', period: '2024012' } });
    expect(actual.rows).toEqual([{ currency: 'EUR', amount: 443100 }]);
    const shared = await run('compare_sources', { source_a: 'fi_reporting', source_b: 'consolidation_mart', measure: 'amount', filters: { version: 'ACTUAL', company: '1000', period: '2024012' } });
    expect(shared.summary.totals).toEqual([expect.objectContaining({ currency: 'EUR', total_a: 443100 })]);
    const budget = await run('compare_sources', { source_a: 'fi_reporting', source_b: 'consolidation_mart', measure: 'amount', filters: { version: 'BUDGET' } });
    expect(budget.error).toMatchObject({ code: 'value_not_held', side: 'a', source: 'fi_reporting', dimension: 'version', value: 'BUDGET', choices: ['ACTUAL'] });
    expect(budget.error.message).toBe('fi_reporting holds version ACTUAL only, not BUDGET: it has no version dimension, every row is ACTUAL.');
  });

  it('breaks down by version over every version the source holds, not only the default ACTUAL', async () => {
    // Before: "by version" kept the catalog's default version = ACTUAL, so it listed ACTUAL alone.
    const byVersion = await run('query_source', { source: 'bpc_reporting', dimensions: ['version'], filters: { company: '3000' } });
    expect(byVersion.rows).toEqual([
      { version: 'ACTUAL', currency: 'GBP', amount: 1013600 },
      { version: 'BUDGET', currency: 'GBP', amount: 1080000 },
    ]);
    expect(byVersion.filters).toEqual({ company: '3000' });
    // Without the breakdown the default still holds.
    expect((await run('query_source', { source: 'bpc_reporting', filters: { company: '3000' } })).filters).toEqual({ company: '3000', version: 'ACTUAL' });
  });

  it('keeps a genuine zero total as 0.00: the elimination of August 2024 nets to zero', async () => {
    const eliminations = { group_account: ['G4100000', 'G5100000'], period: '2024008' };
    const total = await run('query_source', { source: 'consolidation_mart', measures: ['amount_gc'], filters: eliminations });
    expect(total.rows).toEqual([{ amount_gc: 0 }]);
    const compared = await run('compare_sources', { source_a: 'consolidation_mart', source_b: 'bpc_reporting', measure: 'amount_gc', align_on: ['period'], filters: eliminations });
    expect(compared.summary.totals).toEqual([{ currency: 'EUR', total_a: 0, total_b: 0, difference: 0, difference_percent: null }]);
    expect(compared.sides_without_rows).toBeUndefined();
    expect(compared.interpretation).toMatch(/^Full alignment/);
  });
});
