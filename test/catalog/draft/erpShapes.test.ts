/**
 * The drafter (src/catalog/draft) on small SAP-shaped databases built here in SQLite: roles come
 * from types and the ERP dictionary, not from counts (an 11-valued budget amount is a measure);
 * a YYYYPPP period named `periode` is the period; master data become value names in the
 * language kept (English); a budget table is the BUDGET of the ledger, and the service started on
 * the draft, with no hand edit, answers actual vs budget with the figures of the database.
 * Other period shapes are declared with their format (a fiscal year and a period in two columns,
 * a DATE column) and served as declared; a format on a text dimension is refused by name. DuckDB
 * and PostgreSQL copies of the ledger draft the same, and its CSV files, drafted from their
 * folder, are served as drafted.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { draftCatalog } from '../../../src/catalog/draft/index.ts';
import { loadCatalog } from '../../../src/catalog/loadCatalog.ts';
import { loadData } from '../../../src/data/load/index.ts';
import { temporaryDirectory } from '../../support/catalogFixture.ts';
import { postgresUrls } from '../../support/engineServers.ts';
import { listenService, type ListeningService } from '../../support/listeningService.ts';
import { withPostgres } from '../../support/postgresClient.ts';

const directory = temporaryDirectory('erp-draft-test-');
const COMPANIES = [['1000', 'Muster GmbH', 'EUR'], ['2000', 'Example Ltd', 'GBP']] as const;
const ACCOUNTS = [['400000', 'Revenue domestic', 'Umsatzerlöse Inland'], ['600000', 'Personnel expenses', 'Personalaufwand'], ['650000', 'Office rent', 'Büromiete']] as const;

/** A ledger (YYYYPPP in `periode`), a budget table whose amount has 11 distinct values, company and account master data. */
function ledgerDatabase(file: string): void {
  const database = new Database(file);
  database.exec(`
    CREATE TABLE gl_lines (bukrs TEXT, periode TEXT, hkont TEXT, belnr TEXT, hsl REAL, rwcur TEXT);
    CREATE TABLE budget (bukrs TEXT, periode TEXT, hkont TEXT, plan_wert REAL, waers TEXT);
    CREATE TABLE t001 (bukrs TEXT, butxt TEXT, waers TEXT);
    CREATE TABLE skat (spras TEXT, saknr TEXT, txt50 TEXT);
  `);
  const line = database.prepare('INSERT INTO gl_lines VALUES (?, ?, ?, ?, ?, ?)');
  const plan = database.prepare('INSERT INTO budget VALUES (?, ?, ?, ?, ?)');
  let document = 100;
  for (const [company, , currency] of COMPANIES) {
    for (const period of ['2025001', '2025002', '2025003']) {
      ACCOUNTS.forEach(([account], index) => {
        const sign = account === '400000' ? 1 : -1;
        for (let n = 0; n < 4; n += 1) line.run(company, period, account, String((document += 1)), sign * (1000 * (index + 1) + n * 37.5 + Number(period.slice(-1)) * 11.25), currency);
        // Round budget figures: 11 distinct values over 18 rows.
        plan.run(company, period, account, sign * [4000, 4500, 5000, 8000, 8500, 9000, 12000, 12500, 13000, 4200, 8200][(index * 3 + Number(period.slice(-1)) - 1 + (company === '2000' ? 2 : 0)) % 11]!, currency);
      });
    }
  }
  for (const company of COMPANIES) database.prepare('INSERT INTO t001 VALUES (?, ?, ?)').run(...company);
  for (const [account, english, german] of ACCOUNTS) {
    database.prepare('INSERT INTO skat VALUES (?, ?, ?)').run('D', account, german);
    database.prepare('INSERT INTO skat VALUES (?, ?, ?)').run('E', account, english);
  }
  database.close();
}

const ledger = path.join(directory, 'ledger.db');
let draft: Awaited<ReturnType<typeof draftCatalog>>;
let document: any;

beforeAll(async () => {
  ledgerDatabase(ledger);
  draft = await draftCatalog({ from: `sqlite:${ledger}` });
  document = parse(draft.yaml);
});

describe('a SAP-shaped ledger with a budget table and master data', () => {
  it('drafts roles from types and the dictionary: the 11-valued budget amount is a measure, periode is the YYYYPPP period', () => {
    expect(Object.keys(document.sources)).toEqual(['budget', 'gl_lines']);
    const budget = document.sources.budget;
    expect(budget.measures.amount).toMatchObject({ column: 'plan_wert', aggregation: 'sum', currency_dimension: 'currency' });
    expect(budget.defaults.measures).toEqual(['amount']);
    const gl = document.sources.gl_lines;
    expect(gl.dimensions.period).toMatchObject({ column: 'periode', type: 'period', format: 'YYYYPPP' });
    expect(gl.dimensions.company).toMatchObject({ column: 'bukrs', synonyms: expect.arrayContaining(['company code', 'entity']) });
    expect(gl.dimensions.account.column).toBe('hkont');
    expect(gl.dimensions.document).toMatchObject({ column: 'belnr', cardinality: 'high' });
    expect(gl.measures.amount).toMatchObject({ column: 'hsl', currency_dimension: 'currency', synonyms: expect.arrayContaining(['local currency']) });
    expect(document.comparison.default_align_on).toEqual(['company', 'period']);
  });

  it('turns master data into value names, in English, and calls revenue accounts revenue', () => {
    const gl = document.sources.gl_lines;
    expect(gl.dimensions.company.values).toEqual({ '1000': ['Muster GmbH'], '2000': ['Example Ltd'] });
    expect(gl.dimensions.account.values).toEqual({ '400000': ['Revenue domestic', 'revenue'], '600000': ['Personnel expenses', 'expenses'], '650000': ['Office rent'] });
    expect(document.sources.budget.dimensions.account.values['400000']).toEqual(['Revenue domestic', 'revenue']);
    expect(draft.notDrafted.map((t) => t.table)).toEqual(['skat', 't001']);
  });

  it('drafts the budget table as the BUDGET of the ledger and says so in the report', () => {
    // The one ledger table is "the GL"; the budget answers to "budgeted" and "planned" too.
    expect(document.sources.gl_lines).toMatchObject({ implied: { version: 'ACTUAL' }, aliases: ['GL', 'general ledger', 'ledger', 'actuals'] });
    expect(document.sources.budget).toMatchObject({ implied: { version: 'BUDGET' }, aliases: ['budget', 'plan', 'budgeted', 'planned'] });
    const report = draft.report.join('\n');
    expect(report).toContain('budget is the BUDGET of gl_lines: actual vs budget = gl_lines compared with budget on amount');
    expect(report).toMatch(/period +periode +period YYYYPPP +sure/);
    expect(report).toMatch(/skat → budget\.account, gl_lines\.account: 3 names \(1 called revenue, 1 called expenses/);
    expect(report).not.toContain('Period formats');
  });

  it('decides the same from DuckDB and PostgreSQL copies (the language of skat read with each engine\'s parameters)', async () => {
    const { adminUrl } = await postgresUrls();
    const name = `erp_draft_${randomBytes(4).toString('hex')}`;
    await withPostgres(adminUrl, (client) => client.query(`CREATE DATABASE ${name}`));
    try {
      const postgres = new URL(adminUrl);
      postgres.pathname = `/${name}`;
      const duckdb = `duckdb:${path.join(directory, 'ledger.duckdb')}`;
      for (const url of [postgres.toString(), duckdb]) {
        await loadData({ from: ledger, to: url });
        const other = parse((await draftCatalog({ from: url })).yaml);
        expect(other.sources, url).toEqual(document.sources);
      }
    } finally {
      await withPostgres(adminUrl, (admin) => admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
    }
  }, 60_000);

  describe('the service started on the draft as it is', () => {
    let service: ListeningService;
    beforeAll(async () => {
      const catalog = path.join(directory, 'ledger.yaml');
      writeFileSync(catalog, draft.yaml);
      service = await listenService({ LOG_LEVEL: 'silent', MODEL_PROVIDER: 'offline', QUERY_WORKERS: '1', DATA_URL: `sqlite:${ledger}`, CATALOG: catalog, APP_DB: path.join(directory, 'app.db') });
    }, 60_000);
    afterAll(() => service?.close());

    it('answers actual vs budget (compare_sources ledger vs budget) with the figures of the database', async () => {
      const response = await fetch(`${service.url}/tools/compare_sources`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ source_a: 'gl_lines', source_b: 'budget', measure: 'amount', filters: { company: '1000', period: 'February 2025' }, align_on: ['account'] }),
      });
      const body = (await response.json()) as any;
      expect(response.status, JSON.stringify(body)).toBe(200);
      const database = new Database(ledger, { readonly: true });
      const sum = (sql: string) => (database.prepare(sql).pluck().get() as number);
      const actual = sum("SELECT ROUND(SUM(hsl), 2) FROM gl_lines WHERE bukrs = '1000' AND periode = '2025002'");
      const planned = sum("SELECT ROUND(SUM(plan_wert), 2) FROM budget WHERE bukrs = '1000' AND periode = '2025002'");
      database.close();
      expect(body.result.summary).toMatchObject({ aligned_rows: 3, only_in_a: 0, only_in_b: 0 });
      expect(body.result.summary.totals).toEqual([{ currency: 'EUR', total_a: actual, total_b: planned, difference: expect.closeTo(actual - planned, 2), difference_percent: expect.any(Number) }]);
    });
  });
});

describe('the same ledger as CSV files, drafted from their folder', () => {
  let service: ListeningService;
  let catalog: string;
  beforeAll(async () => {
    const files = path.join(directory, 'csv');
    mkdirSync(files);
    const database = new Database(ledger, { readonly: true });
    for (const table of ['gl_lines', 'budget', 't001', 'skat']) {
      const rows = database.prepare(`SELECT * FROM ${table}`).raw(true).all() as unknown[][];
      const header = database.prepare(`SELECT * FROM ${table}`).columns().map((c) => c.name);
      writeFileSync(path.join(files, `${table}.csv`), [header, ...rows].map((row) => row.join(',')).join('\n') + '\n');
    }
    database.close();
    const drafted = await draftCatalog({ from: files, catalogDirectory: directory });
    catalog = path.join(directory, 'csv.yaml');
    writeFileSync(catalog, drafted.yaml);
    service = await listenService({ LOG_LEVEL: 'silent', MODEL_PROVIDER: 'offline', QUERY_WORKERS: '1', DATA_URL: `sqlite:${ledger}`, CATALOG: catalog, APP_DB: path.join(directory, 'csv-app.db') });
  }, 60_000);
  afterAll(() => service?.close());

  it('serves the draft over the files, with the figures of the database', async () => {
    const drafted = parse(readFileSync(catalog, 'utf8'));
    expect(drafted.connections.files.files).toEqual({ budget: 'csv/budget.csv', gl_lines: 'csv/gl_lines.csv' });
    expect(drafted.sources.budget).toMatchObject({ connection: 'files', implied: { version: 'BUDGET' } });
    const response = await fetch(`${service.url}/tools/query_source`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ source: 'budget', measures: ['amount'], dimensions: ['company'], filters: { period: 'March 2025' } }),
    });
    const body = (await response.json()) as any;
    expect(response.status, JSON.stringify(body)).toBe(200);
    const database = new Database(ledger, { readonly: true });
    const expected = database.prepare("SELECT bukrs, SUM(plan_wert) FROM budget WHERE periode = '2025003' GROUP BY bukrs ORDER BY bukrs").raw(true).all() as [string, number][];
    database.close();
    expect(body.result.rows.map((row: any) => [String(row.company), row.amount])).toEqual(expected);
  });
});

describe('other period shapes', () => {
  it('declares a fiscal year and a period held in two columns as format year_period, and a DATE column as date', async () => {
    const file = path.join(directory, 'split.db');
    const database = new Database(file);
    database.exec('CREATE TABLE ledger (gjahr INTEGER, monat INTEGER, bukrs TEXT, dmbtr REAL, waers TEXT); CREATE TABLE postings (budat DATE, company TEXT, amount REAL)');
    for (let month = 1; month <= 12; month += 1) {
      database.prepare('INSERT INTO ledger VALUES (?, ?, ?, ?, ?)').run(2024, month, '1000', month * 10.5, 'EUR');
      database.prepare('INSERT INTO postings VALUES (?, ?, ?)').run(`2024-${String(month).padStart(2, '0')}-15`, 'C1', month * 2);
    }
    database.close();
    const split = await draftCatalog({ from: `sqlite:${file}` });
    const sources = (parse(split.yaml) as any).sources;
    expect(sources.ledger.dimensions.period).toMatchObject({ column: 'monat', type: 'period', format: 'year_period', year_column: 'gjahr' });
    expect(sources.ledger.dimensions.fiscal_year).toMatchObject({ column: 'gjahr' });
    expect(sources.ledger.measures.amount).toMatchObject({ column: 'dmbtr', currency_dimension: 'currency' });
    expect(sources.postings.dimensions.posting_date).toMatchObject({ column: 'budat', type: 'period', format: 'date' });
    expect(split.report.join('\n')).toContain('Period formats read from the values: ledger.period (year_period, year in gjahr), postings.posting_date (date): check them.');
    expect(split.report.join('\n')).not.toContain('will not start');
    // The service reads both as declared: a month's total is the data's.
    const catalog = path.join(directory, 'split.yaml');
    writeFileSync(catalog, split.yaml);
    const service = await listenService({ LOG_LEVEL: 'silent', MODEL_PROVIDER: 'offline', QUERY_WORKERS: '1', DATA_URL: `sqlite:${file}`, CATALOG: catalog, APP_DB: path.join(directory, 'split-app.db') });
    try {
      const total = async (source: string) => {
        const response = await fetch(`${service.url}/tools/query_source`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ source, measures: ['amount'], filters: { [source === 'ledger' ? 'period' : 'posting_date']: 'March 2024' } }) });
        const body = (await response.json()) as any;
        expect(response.status, JSON.stringify(body)).toBe(200);
        return body.result.rows.map((row: any) => row.amount);
      };
      expect(await total('ledger')).toEqual([31.5]);
      expect(await total('postings')).toEqual([6]);
    } finally {
      await service.close();
    }
  });

  it('pairs local, group and transaction amounts with their currency columns in an ACDOCA-like table, and keeps a 0/1 flag a dimension', async () => {
    const file = path.join(directory, 'acdoca.db');
    const database = new Database(file);
    database.exec('CREATE TABLE acdoca (rbukrs TEXT, gjahr INTEGER, poper TEXT, racct TEXT, rtcur TEXT, rhcur TEXT, rkcur TEXT, hsl REAL, ksl REAL, wsl REAL, rvers TEXT, xreversed INTEGER)');
    const insert = database.prepare('INSERT INTO acdoca VALUES (?, 2024, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)');
    for (let row = 0; row < 24; row += 1) insert.run(row % 2 ? '1000' : '2000', String((row % 12) + 1).padStart(3, '0'), '400000', 'CHF', row % 2 ? 'EUR' : 'USD', 'EUR', row * 1.5, row * 1.25, row * 1.75, '0', row % 2);
    database.close();
    const acdoca = (parse((await draftCatalog({ from: `sqlite:${file}` })).yaml) as any).sources.acdoca;
    expect(acdoca.dimensions.period).toMatchObject({ column: 'poper', format: 'year_period', year_column: 'gjahr' });
    expect(acdoca.dimensions.transaction_currency).toMatchObject({ column: 'rtcur', synonyms: ['transaction currency'] });
    expect(acdoca.measures.amount).toMatchObject({ column: 'hsl', currency_dimension: 'currency' });
    expect(acdoca.dimensions.currency.column).toBe('rhcur');
    expect(acdoca.measures.amount_group).toMatchObject({ column: 'ksl', currency_dimension: 'group_currency' });
    expect(acdoca.measures.amount_transaction).toMatchObject({ column: 'wsl', currency_dimension: 'transaction_currency' });
    expect(acdoca.dimensions.xreversed.column).toBe('xreversed');
    // A source with a version column of its own is no pair.
    expect(acdoca.implied).toBeUndefined();
  });

  it('refuses a format on a text dimension, and a year_column without year_period', () => {
    const file = path.join(directory, 'misdeclared.yaml');
    const catalog = parse(draft.yaml);
    catalog.sources.gl_lines.dimensions.account.format = 'YYYYMM';
    catalog.sources.gl_lines.dimensions.period.year_column = 'bukrs';
    writeFileSync(file, stringify(catalog));
    expect(() => loadCatalog(file)).toThrow(/sources\.gl_lines\.dimensions\.account\.format: format is for period dimensions only/);
    expect(() => loadCatalog(file)).toThrow(/sources\.gl_lines\.dimensions\.period\.year_column: year_column goes with format: year_period only/);
  });
});
