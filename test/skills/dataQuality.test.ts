/**
 * The data_quality skill on the sample database (data/README.md, cases 1, 2, 5 and 6),
 * through the real registry: find_duplicates, find_blank_values, find_outlier_periods.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadCatalog } from '../../src/catalog/loadCatalog.ts';
import { projectRoot } from '../../src/config/config.ts';
import { createDataAccess } from '../../src/data/dataAccess.ts';
import { openDataDatabase, tableColumns } from '../../src/data/database.ts';
import { silentLogger } from '../../src/logging/logger.ts';
import { scanDuplicates, type DuplicatePlan } from '../../src/skills/api.ts';
import { median, scoreSeries } from '../../skills/data_quality/outliers.ts';
import { withoutFrontMatter } from '../../src/knowledge/frontMatter.ts';
import { temporaryDirectory, twoSourceCatalog, writeCatalog, writeTwoSourceDatabase } from '../support/catalogFixture.ts';
import { runTool, sampleToolbox } from '../support/sampleContext.ts';

type Toolbox = Awaited<ReturnType<typeof sampleToolbox>>;
let toolbox: Toolbox;

beforeAll(async () => {
  toolbox = await sampleToolbox();
});
afterAll(() => toolbox.close());

const run = (name: string, args: unknown) => runTool(toolbox, name, args);

/** The duplicated lines of case 1 (data/README.md): document, line, amount of one copy in EUR. */
const DUPLICATED_LINES = [
  ['0100000360', '1', 35481.36],
  ['0100000360', '2', 28428.99],
  ['0100000361', '1', 25341.78],
  ['0100000362', '1', 20747.87],
] as const;
const REQUESTS = ['REQ_2024012_1000_01', 'REQ_2024012_1000_02'];

describe('find_duplicates', () => {
  it('finds the duplicated delta load of the sample exactly, by document line', async () => {
    const result = await run('find_duplicates', { source: 'fi_reporting' });
    expect(result).toMatchObject({
      source: 'fi_reporting',
      key: ['document', 'document_line'],
      ignore: ['load_request'],
      measure: { name: 'amount' },
      duplicate_groups: 4,
      duplicate_records: 8,
      extra_copies: 4,
      truncated: false,
    });
    expect(result.totals).toEqual([{ currency: 'EUR', groups: 4, records: 8, amount: 220000, duplicated_amount: 110000 }]);
    expect(result.groups.map((g: any) => [g.document, g.document_line, g.duplicated_amount])).toEqual(DUPLICATED_LINES.map((line) => [...line]));
    for (const group of result.groups) {
      expect(group).toMatchObject({ company: '1000', period: '2024012', currency: 'EUR', copies: 2, load_request: REQUESTS, differs_in: [] });
      expect(group.amount).toBeCloseTo(group.duplicated_amount * 2, 2);
    }
    expect(result.finding).toBe(
      '4 document lines of company 1000, period 2024012 (documents 0100000360, 0100000361 and 0100000362) appear twice (load requests REQ_2024012_1000_01 and REQ_2024012_1000_02): 110,000.00 EUR counted twice. ' +
        'Load request REQ_2024012_1000_02 holds nothing but these copies. The total there is 443,100.00 EUR; without the extra copies 333,100.00 EUR.',
    );
  });

  it('pinpoints where the duplicates sit: documents, requests, the period total with and without the copies', async () => {
    const { patterns } = await run('find_duplicates', { source: 'fi_reporting', filters: { company: '1000' } });
    expect(patterns).toHaveLength(1);
    expect(patterns[0]).toMatchObject({
      company: '1000',
      period: '2024012',
      currency: 'EUR',
      copies: 2,
      groups: 4,
      records: 8,
      load_request: REQUESTS,
      duplicated_amount: 110000,
      documents: ['0100000360', '0100000361', '0100000362'],
      document_count: 3,
      more_keys: false,
      differs_in: [],
      // 74 lines (70 + 4 copies), 443,100.00 EUR; 333,100.00 EUR as in the mart and BPC.
      scope: { records: 74, amount: 443100, without_copies: 333100 },
      breakdown: {
        dimension: 'load_request',
        values: [
          { value: 'REQ_2024012_1000_01', records: 70, amount: 333100, holds_only_copies: false },
          { value: 'REQ_2024012_1000_02', records: 4, amount: 110000, holds_only_copies: true },
        ],
      },
    });
    expect(patterns[0].keys).toEqual(DUPLICATED_LINES.map(([document, line]) => ({ document, document_line: line })));
  });

  it('reports no duplicates where there are none, and in the acquisition layer', async () => {
    const other = await run('find_duplicates', { source: 'fi_reporting', filters: { company: '2000' } });
    expect(other).toMatchObject({ duplicate_groups: 0, totals: [], patterns: [], groups: [] });
    expect(other.finding).toBe('No duplicated records in fi_reporting for company 2000: every document + document_line occurs once.');
    expect((await run('find_duplicates', { source: 'fi_acquisition' })).duplicate_groups).toBe(0);
  });

  it('keys aggregated sources on every dimension but the technical ones, version ACTUAL by default', async () => {
    const result = await run('find_duplicates', { source: 'consolidation_mart' });
    expect(result).toMatchObject({ key: ['company', 'period', 'version', 'group_account', 'partner_company'], ignore: [], duplicate_groups: 0, filters: { version: 'ACTUAL' } });
    // Said in words, not as JSON.
    expect(result.notes).toContain('consolidation_mart read with default version ACTUAL; filter on version to override.');
  });

  it('with too narrow a key, says which dimensions the "copies" differ in, caps the list and keeps totals complete', async () => {
    const result = await run('find_duplicates', { source: 'fi_reporting', key: ['document'], limit: 3 });
    expect(result.duplicate_groups).toBeGreaterThan(3);
    expect(result.groups).toHaveLength(3);
    expect(result.truncated).toBe(true);
    expect(result.patterns[0].differs_in).toContain('document_line');
    expect(result.finding).toMatch(/The copies differ in document_line/);
    const amounts = result.groups.map((g: any) => Math.abs(g.duplicated_amount));
    expect([...amounts].sort((a, b) => b - a)).toEqual(amounts);
    expect(result.totals.map((t: any) => t.currency)).toEqual(['EUR', 'GBP', 'USD']);
    const capped = await run('find_duplicates', { source: 'fi_reporting', limit: 5000 });
    expect(capped.notes.join(' ')).toMatch(/lowered to the maximum of 100/);
  });

  it('answers unknown names and contradictory arguments with choices and the closest one', async () => {
    expect((await run('find_duplicates', { source: 'fi_reportng' })).error).toMatchObject({ code: 'unknown_source', closest: 'fi_reporting' });
    expect((await run('find_duplicates', { source: 'fi_reporting', key: ['documnt'] })).error).toMatchObject({
      code: 'unknown_dimension',
      argument: 'key',
      closest: 'document',
      choices: expect.arrayContaining(['document', 'document_line', 'load_request']),
    });
    expect((await run('find_duplicates', { source: 'fi_reporting', ignore: ['load_requests'] })).error).toMatchObject({ code: 'unknown_dimension', argument: 'ignore', closest: 'load_request' });
    expect((await run('find_duplicates', { source: 'fi_reporting', key: ['document'], ignore: ['document'] })).error).toMatchObject({ code: 'invalid_value', argument: 'ignore' });
    expect((await run('find_duplicates', { source: 'fi_reporting', measure: 'line_count' })).error).toMatchObject({ code: 'invalid_value', argument: 'measure', choices: ['amount', 'quantity'] });
    expect((await run('find_duplicates', { source: 'fi_reporting', filters: { company: '1001' } })).error).toMatchObject({ code: 'unknown_value', closest: '1000', choices: ['1000', '2000', '3000'] });
    expect((await run('find_duplicates', { source: 'fi_reporting', keys: ['document'] })).error).toMatchObject({ code: 'invalid_arguments' });
  });

  it('matches copies whose key values are NULL, on a source without documents', async () => {
    const directory = temporaryDirectory();
    const file = writeTwoSourceDatabase(
      directory,
      [
        ['A', null, 10, 'EUR'],
        ['A', null, 10, 'EUR'],
        ['A', 'x', 7, 'EUR'],
        ['B', 'y', 5, 'USD'],
        ['B', 'y', 5, 'EUR'],
      ],
      [],
    );
    const database = openDataDatabase(file);
    const catalog = loadCatalog(writeCatalog(directory, twoSourceCatalog()), { columnsOf: (t) => tableColumns(database, t) });
    const data = createDataAccess(database);
    try {
      const outcome = await toolbox.registry.execute('find_duplicates', { source: 'left' }, { catalog, data, logger: silentLogger() });
      expect(outcome.ok).toBe(true);
      const result = (outcome as { result: any }).result;
      expect(result.key).toEqual(['key', 'k2']);
      // (B, y) in two currencies are two different records, never added together.
      expect(result.groups).toEqual([{ key: 'A', k2: null, currency: 'EUR', copies: 2, amount: 20, duplicated_amount: 10, differs_in: [] }]);
    } finally {
      await data.close();
    }
  });

  it('runs on catalog identifiers only, every value bound', async () => {
    const plan: DuplicatePlan = {
      table: 'fi_reporting',
      key: [{ name: 'document', column: 'ac_docnr' }, { name: 'document_line', column: 'docline' }],
      currency: { name: 'currency', column: 'curkey_lc' },
      amountColumn: 'cs_trn_lc',
      describe: [{ name: 'load_request', column: 'request_id' }],
      compare: [],
      where: [{ column: 'compcode', kind: 'in', values: ["1000' OR 1=1 --"] }],
      top: 5,
      keysPerPattern: 5,
    };
    const injected = await scanDuplicates(toolbox.context.data, plan);
    expect(injected).toMatchObject({ groups: 0, records: 0, totals: [], patterns: [], top: [] });
    expect(injected.sql).not.toContain('1=1');
    // The same plan on the real value finds the four duplicated lines.
    const found = await scanDuplicates(toolbox.context.data, { ...plan, where: [{ column: 'compcode', kind: 'in', values: ['1000'] }] });
    expect(found).toMatchObject({ groups: 4, records: 8, extraCopies: 4, patternCount: 1, patternsComplete: true });
    expect(found.top.map((g) => [g.key.document, g.key.document_line, g.duplicatedAmount, g.identicalAmounts])).toEqual(DUPLICATED_LINES.map((line) => [...line, true]));
    expect(found.patterns[0]).toMatchObject({ currency: 'EUR', copies: 2, values: { load_request: REQUESTS }, firstKeyValues: 3 });
    await expect(scanDuplicates(toolbox.context.data, { ...plan, table: 'x"; DROP TABLE y; --' })).rejects.toThrow(/unsafe SQL identifier/);
    await expect(scanDuplicates(toolbox.context.data, { ...plan, key: [] })).rejects.toThrow(/at least one key column/);
  });
});

describe('find_blank_values', () => {
  it("finds the sample's 3 NULL profit centres and 2 empty segments, with amounts, place and the lines", async () => {
    const result = await run('find_blank_values', { source: 'fi_reporting' });
    expect(result.rows_checked).toBe(2178);
    const byName = Object.fromEntries(result.dimensions.map((d: any) => [d.dimension, d]));
    expect(Object.keys(byName).sort()).toEqual(['partner_company', 'profit_center', 'segment']);
    expect(byName.profit_center).toMatchObject({
      blank_rows: 3,
      null_rows: 3,
      empty_rows: 0,
      placeholder_rows: 0,
      blank_allowed: false,
      amounts: [{ currency: 'GBP', rows: 3, amount: 197455.97 }],
      where: [{ company: '3000', period: '2024004', currency: 'GBP', rows: 3, amount: 197455.97 }],
      where_groups: 1,
    });
    expect(byName.profit_center.examples.map((e: any) => [e.document, e.document_line, e.amount, e.profit_center])).toEqual([
      ['0300000103', '2', 92066.53, null],
      ['0300000106', '1', 109540.31, null],
      ['0300000122', '1', -4150.87, null],
    ]);
    expect(byName.segment).toMatchObject({ blank_rows: 2, null_rows: 0, empty_rows: 2, amounts: [{ currency: 'GBP', rows: 2, amount: -4891.82 }] });
    expect(byName.segment.examples.map((e: any) => [e.document, e.document_line, e.amount, e.segment])).toEqual([
      ['0300000125', '1', -2996.23, ''],
      ['0300000127', '1', -1895.59, ''],
    ]);
    // Partner company is NULL on every line that is not intercompany: allowed by its catalog description.
    expect(byName.partner_company).toMatchObject({ blank_rows: 2155, blank_allowed: true, examples: [] });
    expect(result.clean_dimensions).toEqual(expect.arrayContaining(['company', 'period', 'document', 'document_line', 'load_request']));
    expect(result.finding).toBe(
      'In fi_reporting, 3 lines with a blank profit_center (NULL; 197,455.97 GBP, all in company 3000, period 2024004) and 2 lines with a blank segment (empty string; -4,891.82 GBP, all in company 3000, period 2024004). ' +
        'Blank by design (the catalog allows it): partner_company on 2,155 lines.',
    );
  });

  it('checks only the dimensions asked for, within the filters', async () => {
    const clean = await run('find_blank_values', { source: 'fi_reporting', dimensions: ['profit_center', 'segment'], filters: { company: '1000' } });
    expect(clean).toMatchObject({ rows_checked: 725, dimensions: [], clean_dimensions: ['profit_center', 'segment'] });
    expect(clean.finding).toBe('No blank values in fi_reporting for company 1000 (725 lines checked).');
    const segment = await run('find_blank_values', { source: 'fi_reporting', dimensions: ['segment'], filters: { period: 'April 2024' } });
    expect(segment.dimensions.map((d: any) => [d.dimension, d.blank_rows])).toEqual([['segment', 2]]);
  });

  it('answers unknown dimensions and filter values with choices', async () => {
    expect((await run('find_blank_values', { source: 'fi_reporting', dimensions: ['profit_centre'] })).error).toMatchObject({ code: 'unknown_dimension', argument: 'dimensions', closest: 'profit_center' });
    expect((await run('find_blank_values', { source: 'bpc_reporting', filters: { audit_trail: 'ADJ' } })).error).toMatchObject({ code: 'unknown_value', choices: ['ADJ_MANUAL', 'INPUT'] });
  });
});

describe('find_outlier_periods', () => {
  it('flags December 2024 of company 1000 (the duplicated load) and nothing else', async () => {
    const result = await run('find_outlier_periods', { source: 'fi_reporting', filters: { company: '1000' } });
    expect(result).toMatchObject({ by: ['currency'], threshold: 3.5, series_checked: 1, periods_checked: 12, outlier_count: 1 });
    expect(result.outliers).toEqual([
      {
        currency: 'EUR',
        period: '2024012',
        value: 443100,
        median: 264500,
        expected_range: { low: 132250, high: 411610.99 },
        deviation: 178600,
        deviation_percent: 67.52,
        score: 4.25,
        direction: 'high',
        flagged_by: [{ rule: 'robust_score', measured: 4.25, threshold: 3.5 }],
        flag_reason: 'robust score 4.25 ≥ 3.5',
        records: 74,
        load_requests: 2,
      },
    ]);
    expect(result.multiple_load_requests).toEqual([{ currency: 'EUR', period: '2024012', load_requests: 2, usual_load_requests: 1 }]);
    expect(result.finding).toMatch(/^December 2024 \(2024012\) stands out in fi_reporting for company 1000: 443,100\.00 EUR against a median of 264,500\.00 EUR over 12 periods/);
    expect(result.finding).toMatch(/No other period is flagged\. December 2024 \(2024012\) was loaded by 2 load requests \(usually 1\)/);
  });

  it('split by company, flags 1000 / December (the duplicated load) and the months under half the usual result; the acquisition layer, without the duplicate, only those months', async () => {
    const result = await run('find_outlier_periods', { source: 'fi_reporting', by: ['company'] });
    expect(result.series_checked).toBe(3);
    expect(result.outliers.map((o: any) => [o.company, o.period, o.flagged_by.map((f: any) => f.rule)])).toEqual([
      ['1000', '2024012', ['robust_score']],
      ['2000', '2024011', ['below_half_median']],
      ['3000', '2024008', ['below_half_median']],
    ]);
    const acquisition = await run('find_outlier_periods', { source: 'fi_acquisition', by: ['company'] });
    expect(acquisition).toMatchObject({ outlier_count: 2, multiple_load_requests: [] });
    expect(acquisition.outliers.map((o: any) => [o.company, o.period])).toEqual([
      ['2000', '2024011'],
      ['3000', '2024008'],
    ]);
    const clean = await run('find_outlier_periods', { source: 'fi_acquisition', by: ['company'], filters: { company: '1000' } });
    expect(clean).toMatchObject({ outliers: [], outlier_count: 0, multiple_load_requests: [] });
    expect(clean.finding).toMatch(/^No period of fi_acquisition for company 1000 deviates sharply/);
  });

  it('on revenue alone the copies stay inside the monthly swing, but the second load request still shows', async () => {
    const result = await run('find_outlier_periods', { source: 'fi_reporting', by: ['company'], filters: { group_account: 'G4000000' } });
    expect(result.outliers).toEqual([]);
    expect(result.multiple_load_requests).toEqual([{ company: '1000', currency: 'EUR', period: '2024012', load_requests: 2, usual_load_requests: 1 }]);
    expect(result.finding).toMatch(/check for a duplicated load with find_duplicates/);
  });

  it('by company and group account, finds the missing intercompany purchase (a period without rows) and the bonus accrual', async () => {
    const result = await run('find_outlier_periods', { source: 'consolidation_mart', by: ['company', 'group_account'] });
    expect(result.filters).toEqual({ version: 'ACTUAL' });
    expect(result.outliers.map((o: any) => [o.company, o.group_account, o.period, o.value, o.records, o.direction])).toEqual([
      ['2000', 'G5100000', '2024009', 0, 0, 'high'],
      ['3000', 'G6000000', '2024011', -250000, 1, 'low'],
    ]);
    // A lower threshold finds more, never everything.
    const loose = await run('find_outlier_periods', { source: 'consolidation_mart', by: ['company', 'group_account'], threshold: 2, limit: 100 });
    expect(loose.outlier_count).toBeGreaterThan(2);
    expect(loose.outlier_count).toBeLessThan(loose.series_checked * loose.periods_checked * 0.2);
  });

  it('needs periods to compare, and refuses to split by the period itself', async () => {
    const single = await run('find_outlier_periods', { source: 'fi_reporting', filters: { company: '1000', period: '2024012' } });
    expect(single.outliers).toEqual([]);
    expect(single.finding).toMatch(/^Too few periods to compare/);
    expect((await run('find_outlier_periods', { source: 'fi_reporting', by: ['period'] })).error).toMatchObject({ code: 'invalid_value', argument: 'by' });
    expect((await run('find_outlier_periods', { source: 'fi_reporting', by: ['compny'] })).error).toMatchObject({ code: 'unknown_dimension', closest: 'company' });
    expect((await run('find_outlier_periods', { source: 'fi_reporting', measure: 'amont' })).error).toMatchObject({ code: 'unknown_measure', closest: 'amount' });
    expect((await run('find_outlier_periods', { source: 'fi_reporting', threshold: 0 })).error).toMatchObject({ code: 'invalid_arguments' });
  });
});

/** The robust score alone (below_half_median off), as before that rule existed. */
const rules = (threshold: number, minDeviationPercent: number) => ({ threshold, minDeviationPercent, halfMedianThreshold: Infinity });

describe('robust period scores', () => {
  it('uses the median and the MAD, so one extreme value cannot hide itself', () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    const points = [100, 102, 98, 101, 99, 100, 400].map((value, index) => ({ period: `202400${index + 1}`, value, records: 1, loads: undefined }));
    const scored = scoreSeries(points, rules(3.5, 5));
    expect(scored).toMatchObject({ median: 100, method: 'mad' });
    expect(scored.points.filter((p) => p.flagged).map((p) => p.period)).toEqual(['2024007']);
  });

  it('falls back to the mean absolute deviation when most periods are equal, and flags nothing in a constant series', () => {
    const flat = [50, 50, 50, 50, 50, 80].map((value, index) => ({ period: String(index), value, records: 1, loads: undefined }));
    const scored = scoreSeries(flat, rules(3.5, 5));
    expect(scored.method).toBe('mean_absolute_deviation');
    expect(scored.points.filter((p) => p.flagged).map((p) => p.value)).toEqual([80]);
    const constant = scoreSeries(flat.map((p) => ({ ...p, value: 50 })), rules(3.5, 5));
    expect(constant.method).toBe('constant');
    expect(constant.points.some((p) => p.flagged)).toBe(false);
  });

  it('does not flag a deviation below the minimum percent, however tight the series', () => {
    const tight = [1000, 1000.5, 999.5, 1000, 1000.2, 1010].map((value, index) => ({ period: String(index), value, records: 1, loads: undefined }));
    expect(scoreSeries(tight, rules(3.5, 5)).points.some((p) => p.flagged)).toBe(false);
    expect(scoreSeries(tight, rules(3.5, 0.5)).points.filter((p) => p.flagged).map((p) => p.value)).toEqual([1010]);
  });
});

describe('the data_quality skill', () => {
  it('declares its three tools with strict input schemas', () => {
    for (const name of ['find_duplicates', 'find_blank_values', 'find_outlier_periods']) {
      const tool = toolbox.registry.get(name)!;
      expect(tool.skill.name).toBe('data_quality');
      expect(tool.inputSchema).toMatchObject({ type: 'object', required: ['source'], additionalProperties: false });
    }
  });

  it('ships knowledge files with self-contained sections', async () => {
    const { readdirSync, readFileSync } = await import('node:fs');
    const directory = path.join(projectRoot, 'skills/data_quality/knowledge');
    const files = readdirSync(directory).filter((f) => f.endsWith('.md')).sort();
    expect(files).toEqual(['blank-master-data.md', 'duplicate-loads.md', 'period-outliers.md']);
    for (const file of files) {
      // The front matter (what each section concerns, for data scopes) stands above the title.
      const text = withoutFrontMatter(readFileSync(path.join(directory, file), 'utf8'));
      expect(text).toMatch(/^# /);
      const sections = text.split(/\n(?=## )/).slice(1);
      expect(sections.length).toBeGreaterThanOrEqual(4);
      for (const section of sections) expect(section.length, `${file}: ${section.split('\n')[0]}`).toBeLessThanOrEqual(1500);
    }
  });
});

describe('findings over a range of periods', () => {
  it('say the range in words, not [object Object]', async () => {
    const toolbox = await sampleToolbox();
    try {
      const result = await runTool(toolbox, 'find_outlier_periods', { source: 'fi_reporting', filters: { company: '1000', period: { from: '2024010', to: '2024012' } } });
      expect(result.finding).not.toContain('[object Object]');
      expect(result.finding).toContain('2024010 to 2024012');
    } finally {
      toolbox.close();
    }
  });
});
