/**
 * `npm run catalog:init` on the second sample (data/sap-sample: an SAP general-ledger extract,
 * a budget in its own table, t001/skat master data), built here, from SQLite, from its Parquet
 * and CSV files (--from a folder, read through DuckDB) and from PostgreSQL: with no hand edit the
 * draft has the roles, the YYYYMM period format, the synonyms, the value names and the budget
 * pairing, the same on every engine; file paths are written relative to the catalog's folder,
 * which is what the service resolves them against; the report on stderr says what was decided;
 * and the service starts on the draft and reads its YYYYMM periods.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, parseDocument } from 'yaml';
import { buildSapSample, type SapSampleBuild } from '../../data/sap-sample/write.ts';
import { parseCommandLine, runCatalogInit } from '../../scripts/catalogInit.ts';
import { loadCatalog } from '../../src/catalog/loadCatalog.ts';
import { resolveConnections } from '../../src/catalog/catalogConnections.ts';
import { loadData } from '../../src/data/load/index.ts';
import { ConfigurationError } from '../../src/errors/index.ts';
import { temporaryDirectory } from '../support/catalogFixture.ts';
import { postgresUrls } from '../support/engineServers.ts';
import { listenService } from '../support/listeningService.ts';
import { withPostgres } from '../support/postgresClient.ts';

const { adminUrl } = await postgresUrls();
const directory = temporaryDirectory('catalog-init-sap-');
const database = `sap_draft_${randomBytes(4).toString('hex')}`;
let build: SapSampleBuild;
const from: Record<string, () => string> = {
  SQLite: () => `sqlite:${build.sqlite}`,
  'Parquet files': () => build.parquet,
  'CSV files': () => build.csv,
  PostgreSQL: () => {
    const url = new URL(adminUrl);
    url.pathname = `/${database}`;
    return url.toString();
  },
};
type EngineName = keyof typeof from;
const drafts = new Map<EngineName, { file: string; yaml: string; document: any; err: string }>();

const io = () => {
  const out: string[] = [];
  const err: string[] = [];
  return { out, err, streams: { stdout: { write: (text: string) => out.push(text) }, stderr: { write: (text: string) => err.push(text) } } };
};

beforeAll(async () => {
  build = await buildSapSample(path.join(directory, 'sample'));
  await withPostgres(adminUrl, (client) => client.query(`CREATE DATABASE ${database}`));
  await loadData({ from: build.sqlite, to: from.PostgreSQL!() });
  // The catalogs live in a folder of their own: file paths must be written relative to it.
  const catalogs = path.join(directory, 'catalogs');
  mkdirSync(catalogs);
  for (const [engine, url] of Object.entries(from)) {
    const file = path.join(catalogs, `${engine.replace(/ /g, '-')}.yaml`);
    const parsed = parseCommandLine(['--from', url(), '--out', file]);
    if (!parsed.ok) throw new Error(parsed.message);
    const run = io();
    expect(await runCatalogInit(parsed.input, run.streams), run.err.join('')).toBe(0);
    const yaml = readFileSync(file, 'utf8');
    drafts.set(engine, { file, yaml, document: parse(yaml), err: run.err.join('') });
  }
}, 120_000);
afterAll(async () => {
  await withPostgres(adminUrl, (admin) => admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`));
  rmSync(directory, { recursive: true, force: true });
});

describe.each(Object.keys(from))('the second sample drafted from %s', (engine) => {
  const draft = () => drafts.get(engine)!;

  it('has the ledger and the budget as sources, master data as value names, with the dictionary roles', () => {
    const { document } = draft();
    expect(Object.keys(document.sources)).toEqual(['gl_extract', 'gl_plan']);
    const gl = document.sources.gl_extract;
    const columns = (dimensions: Record<string, { column: string }>) => Object.fromEntries(Object.entries(dimensions).map(([name, d]) => [name, d.column]));
    expect(columns(gl.dimensions)).toEqual({ company: 'bukrs', period: 'gjahr_monat', document: 'belnr', document_line: 'buzei', account: 'hkont', profit_center: 'prctr', cost_center: 'kostl', currency: 'rwcur' });
    expect(gl.dimensions.period).toMatchObject({ type: 'period', format: 'YYYYMM' });
    expect(gl.dimensions.document.cardinality).toBe('high');
    expect(gl.measures.amount).toMatchObject({ column: 'hsl', aggregation: 'sum', currency_dimension: 'currency' });
    const plan = document.sources.gl_plan;
    expect(columns(plan.dimensions)).toEqual({ company: 'bukrs', period: 'gjahr_monat', account: 'hkont', currency: 'waers' });
    expect(plan.dimensions.period).toMatchObject({ type: 'period', format: 'YYYYMM' });
    expect(plan.measures.amount).toMatchObject({ column: 'plan_wert', aggregation: 'sum', currency_dimension: 'currency' });
    expect(document.comparison.default_align_on).toEqual(['company', 'period']);
  });

  it('names companies and accounts from t001 and skat, calls the revenue accounts revenue, and has the synonyms', () => {
    const { document } = draft();
    for (const source of ['gl_extract', 'gl_plan']) {
      const { company, account } = document.sources[source].dimensions;
      expect(company.values).toMatchObject({ IN01: ['Northwind Traders India Pvt Ltd'], JP01: ['Northwind Traders Japan KK'] });
      expect(company.synonyms).toEqual(expect.arrayContaining(['company code', 'entity', 'legal entity']));
      expect(account.values['400000']).toEqual(['Revenue from domestic sales', 'Domestic revenue', 'revenue']);
      expect(account.values['410000']).toContain('revenue');
      expect(account.values['500000']).not.toContain('revenue');
    }
    expect(document.sources.gl_extract.measures.amount.synonyms).toEqual(expect.arrayContaining(['local currency']));
  });

  it('declares balance-sheet subjects not held, since skat describes every account as revenue or expenses', () => {
    const { document, yaml, err } = draft();
    expect(err).toContain('Not held: balance sheet, balance sheets, assets, liabilities, equity…: every one of the 7 accounts in skat is described as revenue or expenses');
    expect(document.not_held).toEqual([{ terms: expect.arrayContaining(['balance sheet', 'assets', 'liabilities']), reason: expect.stringContaining('profit-and-loss accounts only') }]);
    expect(yaml).toContain('# CHECK: every one of the 7 accounts in skat is described as revenue or expenses');
  });

  it('pairs the budget table with the ledger as its BUDGET version and reports what it decided', () => {
    const { document, err, file } = draft();
    expect(document.sources.gl_extract).toMatchObject({ implied: { version: 'ACTUAL' }, aliases: ['GL', 'general ledger', 'ledger', 'actuals'] });
    expect(document.sources.gl_plan).toMatchObject({ implied: { version: 'BUDGET' }, aliases: ['budget', 'plan', 'budgeted', 'planned'] });
    // "How many GL lines": every source counts its rows under the words people use for them.
    expect(document.sources.gl_extract.measures.row_count.synonyms).toEqual(expect.arrayContaining(['lines', 'records', 'postings']));
    expect(err).toContain(`into ${file}`);
    expect(err).toContain('gl_plan is the BUDGET of gl_extract: actual vs budget = gl_extract compared with gl_plan on amount');
    expect(err).toMatch(/period +gjahr_monat +period YYYYMM +sure/);
    expect(err).toMatch(/skat → gl_extract\.account, gl_plan\.account: 7 names \(2 called revenue, 5 called expenses/);
    expect(err).toContain('Not drafted: t001: master data: its butxt became the value names of gl_extract.company, gl_plan.company');
    expect(err).toMatch(/Needs a person:\n {2}- Period formats read from the values: gl_extract\.period \(YYYYMM\), gl_plan\.period \(YYYYMM\): check them\./);
  });
});

describe('across engines and from files', () => {
  /** The draft's decisions: everything but descriptions (they quote each engine's type names), header and connection. */
  const decisions = (engine: EngineName) => {
    const document = structuredClone(drafts.get(engine)!.document);
    delete document.connections;
    for (const source of Object.values<any>(document.sources)) {
      delete source.connection;
      delete source.description;
      for (const part of [...Object.values<any>(source.dimensions), ...Object.values<any>(source.measures)]) delete part.description;
    }
    return document;
  };

  it('decides the same on SQLite, Parquet, CSV and PostgreSQL', () => {
    for (const engine of ['Parquet files', 'CSV files', 'PostgreSQL']) expect(decisions(engine), engine).toEqual(decisions('SQLite'));
  });

  it('declares the files as a DuckDB connection with paths relative to the catalog file, which the service resolves to the files', () => {
    for (const [engine, extension] of [['Parquet files', 'parquet'], ['CSV files', 'csv']] as const) {
      const { document, file } = drafts.get(engine)!;
      expect(document.connections.files.files).toEqual({ gl_extract: `../sample/${extension}/gl_extract.${extension}`, gl_plan: `../sample/${extension}/gl_plan.${extension}` });
      expect(document.sources.gl_extract.connection).toBe('files');
      const { specs, problems } = resolveConnections(document.connections, file, {});
      expect(problems).toEqual([]);
      expect(specs[0]!.files!.gl_extract).toBe(path.join(build[extension], `gl_extract.${extension}`));
      expect(existsSync(specs[0]!.files!.gl_extract!)).toBe(true);
      expect(parseDocument(drafts.get(engine)!.yaml).commentBefore).toContain("relative to this file's folder");
    }
  });

  it('prints to standard output without --out and says so, with absolute paths', async () => {
    const run = io();
    expect(await runCatalogInit({ from: build.parquet, tables: ['gl_plan'], force: false, sampleRows: 1000 }, run.streams)).toBe(0);
    expect(run.err.join('')).toContain('the catalog was printed on standard output (use --out FILE to write it to a file)');
    expect(parse(run.out.join('')).connections.files.files).toEqual({ gl_plan: path.join(build.parquet, 'gl_plan.parquet') });
    const missing = io();
    expect(await runCatalogInit({ from: path.join(directory, 'nowhere'), force: false, sampleRows: 1000 }, missing.streams)).toBe(1);
    expect(missing.err.join('')).toMatch(/nowhere does not exist \(a relative path is read from the working directory/);
  });

  it("declares the fiscal year from April that t001's fiscal year variant V3 says, and reports it", () => {
    for (const engine of Object.keys(from) as EngineName[]) expect(drafts.get(engine)!.document.fiscal_year_start, engine).toBe(4);
    expect(drafts.get('SQLite')!.err).toContain("Fiscal year: starts in month 4 (fiscal_year_start: 4): t001.periv is V3 for every row (SAP's April–March variant)");
  });

  it("is served as drafted: FY2025 of IN01 totals the README's 141,916,200.00 INR (April 2025 to March 2026)", async () => {
    const { file } = drafts.get('SQLite')!;
    const service = await listenService({ LOG_LEVEL: 'silent', MODEL_PROVIDER: 'offline', QUERY_WORKERS: '1', DATA_URL: from.SQLite!(), CATALOG: file, APP_DB: path.join(directory, 'app.db') });
    try {
      const response = await fetch(`${service.url}/tools/query_source`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ source: 'gl_extract', filters: { company: 'IN01', period: 'FY2025' } }) });
      const body = (await response.json()) as { result: { filters: { period: unknown }; rows: { amount: number }[] } };
      expect(response.status, JSON.stringify(body)).toBe(200);
      expect(body.result.filters.period).toEqual({ from: '2025001', to: '2025012' });
      expect(body.result.rows.map((row) => row.amount)).toEqual([141_916_200]);
    } finally {
      await service.close();
    }
  });
});
