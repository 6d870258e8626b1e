/**
 * `npm run catalog:init` (scripts/catalogInit.ts, src/catalog/draft): a catalog drafted from the
 * sample on SQLite, DuckDB and PostgreSQL (the run's engines, test/support/postgresServer.ts)
 * loads with loadCatalog against the same database, guesses fi_reporting's amount, currency,
 * period and document number, and is the same on every engine apart from the header. The
 * service starts on the PostgreSQL draft and answers query_source; passwords never appear; an
 * existing file is refused without --force; big tables are profiled on a sample.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, parseDocument } from 'yaml';
import { parseCommandLine, runCatalogInit } from '../../scripts/catalogInit.ts';
import { draftCatalog } from '../../src/catalog/draft/index.ts';
import { loadCatalog } from '../../src/catalog/loadCatalog.ts';
import { loadConfig } from '../../src/config/config.ts';
import { openEngine } from '../../src/data/connections.ts';
import { silentLogger } from '../../src/logging/logger.ts';
import { createService } from '../../src/service.ts';
import { temporaryDirectory } from '../support/catalogFixture.ts';
import { engineSampleUrls } from '../support/engineSamples.ts';

const SAMPLE_TABLES = ['fi_acquisition', 'fi_reporting', 'consolidation_mart', 'bpc_reporting'];
const urls = await engineSampleUrls();
const engines = { sqlite: urls.sqlite, duckdb: urls.duckdb, postgres: urls.postgres } as const;
type EngineName = keyof typeof engines;

let directory: string;
const drafts = new Map<EngineName, { file: string; yaml: string }>();

/** loadCatalog's synchronous columnsOf, from the draft's tables read beforehand on the same database. */
async function columnsOf(url: string, file: string): Promise<(table: string) => string[] | undefined> {
  const document = parse(readFileSync(file, 'utf8')) as { sources: Record<string, { table: string }> };
  const engine = await openEngine({ name: 'default', url }, { statementTimeoutMs: 30_000 });
  const columns = new Map<string, string[] | undefined>();
  try {
    for (const source of Object.values(document.sources)) columns.set(source.table, await engine.columns(source.table));
  } finally {
    await engine.close();
  }
  return (table) => columns.get(table);
}

/** The draft without its header comment (where it came from, the connection note). */
const withoutHeader = (yaml: string) => {
  const document = parseDocument(yaml);
  document.commentBefore = null;
  return document.toString({ lineWidth: 0, flowCollectionPadding: false });
};

const io = () => {
  const out: string[] = [];
  const err: string[] = [];
  return { out, err, streams: { stdout: { write: (text: string) => out.push(text) }, stderr: { write: (text: string) => err.push(text) } } };
};

beforeAll(async () => {
  directory = temporaryDirectory('catalog-init-test-');
  for (const [engine, url] of Object.entries(engines) as [EngineName, string][]) {
    const file = path.join(directory, `${engine}.yaml`);
    const run = io();
    const parsed = parseCommandLine(['--from', url, '--out', file]);
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) continue;
    expect(await runCatalogInit(parsed.input, run.streams), run.err.join('')).toBe(0);
    drafts.set(engine, { file, yaml: readFileSync(file, 'utf8') });
  }
}, 60_000);

describe.each(Object.keys(engines) as EngineName[])('a draft from the sample on %s', (engine) => {
  it('loads with loadCatalog against the same database and holds the four sample tables', async () => {
    const { file } = drafts.get(engine)!;
    const catalog = loadCatalog(file, { columnsOf: await columnsOf(engines[engine], file) });
    expect([...catalog.sources.keys()]).toEqual(expect.arrayContaining(SAMPLE_TABLES));
  });

  it("guesses fi_reporting's amount, currency, period and document number", () => {
    const document = parse(drafts.get(engine)!.yaml) as any;
    const fi = document.sources.fi_reporting;
    expect(fi.table).toBe('fi_reporting');
    expect(fi.measures.cs_trn_lc).toMatchObject({ column: 'cs_trn_lc', aggregation: 'sum', currency_dimension: 'curkey_lc' });
    expect(fi.dimensions.curkey_lc).toMatchObject({ column: 'curkey_lc', examples: expect.arrayContaining(['EUR', 'USD', 'GBP']) });
    expect(fi.dimensions.fiscper).toMatchObject({ column: 'fiscper', type: 'period' });
    expect(fi.dimensions.ac_docnr).toMatchObject({ column: 'ac_docnr', cardinality: 'high' });
    expect(fi.dimensions.compcode.cardinality).toBeUndefined();
    expect(fi.measures.quantity).toMatchObject({ aggregation: 'sum' });
    expect(fi.measures.quantity.currency_dimension).toBeUndefined();
    expect(fi.defaults.measures).toEqual(['cs_trn_lc']);
    expect(document.version).toBe(1);
    expect(document.comparison.default_align_on).toEqual(['compcode', 'fiscper']);
    // The guesses a person must confirm are commented.
    const yaml = drafts.get(engine)!.yaml;
    expect(yaml).toContain('# CHECK: currency guessed from values');
    expect(yaml).toMatch(/# CHECK: near-unique \(1174 distinct values in 2178 rows\)/);
  });
});

describe('drafts across engines', () => {
  it('are the same on SQLite, DuckDB and PostgreSQL apart from the header', () => {
    const sqlite = withoutHeader(drafts.get('sqlite')!.yaml);
    expect(withoutHeader(drafts.get('duckdb')!.yaml)).toBe(sqlite);
    expect(withoutHeader(drafts.get('postgres')!.yaml)).toBe(sqlite);
  });

  it('notes the connection (DATA_URL) off SQLite only, and never the user or password', () => {
    expect(drafts.get('sqlite')!.yaml).not.toContain('Connection:');
    expect(drafts.get('duckdb')!.yaml).toContain(`DATA_URL=${urls.duckdb}`);
    const postgres = drafts.get('postgres')!.yaml;
    expect(postgres).toMatch(/# Connection: the sources use the default connection, DATA_URL/);
    expect(postgres).not.toContain('analyst_reader');
  });
});

describe('the service on a drafted catalog', () => {
  let server: Server;
  let close: () => Promise<void>;
  beforeAll(async () => {
    const service = await createService(
      loadConfig({ LOG_LEVEL: 'silent', MODEL_PROVIDER: 'offline', DATA_URL: urls.postgres, CATALOG: drafts.get('postgres')!.file, APP_DB: path.join(directory, 'app.db'), QUERY_WORKERS: '1' }),
      silentLogger(),
    );
    server = await new Promise<Server>((resolve) => {
      const started = service.app.listen(0, '127.0.0.1', () => resolve(started));
    });
    close = async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await service.close();
    };
  }, 60_000);
  afterAll(() => close?.());

  it('answers query_source on a drafted source with the figures of the database', async () => {
    const response = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/tools/query_source`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ source: 'fi_reporting', measures: ['cs_trn_lc', 'row_count'], dimensions: ['curkey_lc'], filters: { compcode: '1000', fiscper: 'December 2024' } }),
    });
    const body = (await response.json()) as any;
    expect(response.status, JSON.stringify(body)).toBe(200);
    const sample = new Database(urls.sqlite.slice('sqlite:'.length), { readonly: true });
    const [expected] = sample.prepare("SELECT curkey_lc, ROUND(SUM(cs_trn_lc), 2), COUNT(*) FROM fi_reporting WHERE compcode = '1000' AND fiscper = '2024012' GROUP BY curkey_lc").raw(true).all() as [string, number, number][];
    sample.close();
    expect(body.result.rows).toEqual([{ curkey_lc: expected![0], cs_trn_lc: expected![1], row_count: expected![2] }]);
  });
});

describe('the command line', () => {
  it('refuses to overwrite a file without --force', async () => {
    const file = path.join(directory, 'existing.yaml');
    writeFileSync(file, 'keep me\n');
    const refused = io();
    expect(await runCatalogInit({ from: urls.sqlite, tables: ['fx_rates'], out: file, force: false, sampleRows: 1000 }, refused.streams)).toBe(1);
    expect(refused.err.join('')).toContain(`${file} exists; pass --force to overwrite it`);
    expect(readFileSync(file, 'utf8')).toBe('keep me\n');
    const forced = io();
    expect(await runCatalogInit({ from: urls.sqlite, tables: ['fx_rates'], out: file, force: true, sampleRows: 1000 }, forced.streams)).toBe(0);
    expect(Object.keys((parse(readFileSync(file, 'utf8')) as any).sources)).toEqual(['fx_rates']);
  });

  it('prints to stdout without --out, and rejects unknown tables and bad options', async () => {
    const printed = io();
    expect(await runCatalogInit({ from: urls.sqlite, tables: ['fx_rates'], force: false, sampleRows: 1000 }, printed.streams)).toBe(0);
    expect((parse(printed.out.join('')) as any).sources.fx_rates.measures.rate_to_eur).toMatchObject({ aggregation: 'avg' });
    const unknown = io();
    expect(await runCatalogInit({ from: urls.sqlite, tables: ['nowhere'], force: false, sampleRows: 1000 }, unknown.streams)).toBe(1);
    expect(unknown.err.join('')).toMatch(/no table nowhere in sqlite:.*sample\.db \(tables: account_map, bpc_reporting/);
    expect(parseCommandLine(['--from', urls.sqlite, '--sample-rows', '0'])).toMatchObject({ ok: false, message: expect.stringContaining('--sample-rows must be a positive whole number') });
    expect(parseCommandLine([])).toMatchObject({ ok: false, message: expect.stringContaining('usage: npm run catalog:init') });
  });

  it('never prints or writes a password', async () => {
    const reader = new URL(urls.postgres);
    if (!reader.password) reader.password = 'Sup3rSecretPw'; // the test cluster trusts local connections: any password works
    const password = decodeURIComponent(reader.password);
    const drafted = io();
    expect(await runCatalogInit({ from: reader.toString(), tables: ['fi_reporting'], force: false, sampleRows: 1000 }, drafted.streams), drafted.err.join('')).toBe(0);
    expect(drafted.out.join('') + drafted.err.join('')).not.toContain(password);
    const down = io();
    expect(await runCatalogInit({ from: 'postgres://someone:An0therSecret@127.0.0.1:1/analyst', force: false, sampleRows: 1000 }, down.streams)).toBe(1);
    expect(down.err.join('')).toMatch(/^catalog:init failed: postgres:\/\/127\.0\.0\.1:1\/analyst cannot be opened/);
    expect(down.err.join('')).not.toContain('An0therSecret');
    expect(parseCommandLine(['--from', 'postgres://u:An0therSecret@h/db', '--bogus'])).toMatchObject({ ok: false, message: expect.not.stringContaining('An0therSecret') });
  });
});

describe('guesses on other shapes of data', () => {
  it('profiles a big table on a sample and guesses YYYY-MM periods, dates, identifiers and rates', async () => {
    const file = path.join(directory, 'shapes.db');
    const database = new Database(file);
    database.exec('CREATE TABLE "PostingLines" (DocId INTEGER, Month TEXT, posted_on DATE, waers TEXT, Amount REAL, fx_rate REAL, notes BLOB)');
    const insert = database.prepare('INSERT INTO "PostingLines" VALUES (?, ?, ?, ?, ?, ?, NULL)');
    for (let row = 0; row < 300; row += 1) insert.run(row + 1, `2024-${String((row % 12) + 1).padStart(2, '0')}`, `2024-01-${String((row % 28) + 1).padStart(2, '0')}`, row % 3 ? 'EUR' : 'CHF', row * 1.5, 1 + (row % 40) / 100);
    database.close();
    const draft = await draftCatalog({ from: `sqlite:${file}`, sampleRows: 100 });
    const out = path.join(directory, 'shapes.yaml');
    writeFileSync(out, draft.yaml);
    // A YYYY-MM period is declared as such, and the catalog loads: queries read it as fiscal YYYYPPP.
    expect(loadCatalog(out).sources.get('posting_lines')!.dimensions.get('period')!.stored).toMatchObject({ format: 'YYYY-MM', column: 'Month' });
    const source = (parse(draft.yaml) as any).sources.posting_lines;
    expect(source.description).toContain('more than 100 rows (the draft read the first 100)');
    expect(source.dimensions.period).toMatchObject({ column: 'Month', type: 'period', format: 'YYYY-MM' });
    expect(source.dimensions.posted_on.type).toBeUndefined();
    expect(draft.yaml).toContain('CHECK: looks like a period too (date), but Month was taken as the period');
    expect(source.dimensions.doc_id).toMatchObject({ column: 'DocId', cardinality: 'high' });
    expect(draft.yaml).toContain('CHECK: an identifier by its name, drafted as a dimension');
    // waers and Amount are in the ERP dictionary: currency and amount, the names the skills read best.
    expect(source.dimensions.currency).toMatchObject({ column: 'waers', synonyms: expect.arrayContaining(['currency key']) });
    expect(source.measures.amount).toMatchObject({ column: 'Amount', aggregation: 'sum', currency_dimension: 'currency' });
    expect(source.measures.fx_rate).toMatchObject({ aggregation: 'avg' });
    expect(draft.report.join('\n')).toContain('Period formats read from the values: posting_lines.period (YYYY-MM): check them.');
    expect(draft.yaml).toContain('CHECK: column notes left out');
    expect(existsSync(out)).toBe(true);
  });
});
