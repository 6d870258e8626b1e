/**
 * The bundled sample database: builds it into a temp folder and checks, with SQL written
 * independently of the generator, that every planted discrepancy holds with the exact
 * figures documented in data/README.md, that everything else reconciles, and that the
 * build is deterministic. The documented fi_acquisition vs fi_reporting tool call is run
 * through the real skills registry.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import Database from 'better-sqlite3';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildSampleDatabase, TABLE_NAMES } from '../../data/sample/generate.ts';
import { loadCatalog } from '../../src/catalog/loadCatalog.ts';
import { createDataAccess } from '../../src/data/dataAccess.ts';
import { openDataDatabase, tableColumns } from '../../src/data/database.ts';
import { silentLogger } from '../../src/logging/logger.ts';
import { loadSkills } from '../../src/skills/loader.ts';
import { SkillRegistry } from '../../src/skills/registry.ts';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const readme = fs.readFileSync(path.join(repoRoot, 'data', 'README.md'), 'utf8');

type Row = Record<string, unknown>;

let tmpDir: string;
let dbPath: string;
let db: Database.Database;
let buildTables: Record<string, number>;

beforeAll(() => {
  tmpDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sample-db-'));
  dbPath = path.join(tmpDir, 'sample.db');
  buildTables = buildSampleDatabase(dbPath).tables;
  db = new Database(dbPath, { readonly: true });
});

afterAll(() => {
  db?.close();
  if (tmpDir) fs.rmSync(tmpDir, { recursive: true, force: true });
});

/** A single numeric value (SUM of nothing = 0). */
function num(sql: string, ...params: unknown[]): number {
  const row = db.prepare(sql).get(...params) as Row | undefined;
  const value = row ? Object.values(row)[0] : undefined;
  return typeof value === 'number' ? value : 0;
}

function rows<T = Row>(sql: string, ...params: unknown[]): T[] {
  return db.prepare(sql).all(...params) as T[];
}

/** Equal to the cent. */
function expectAmount(actual: number, expected: number): void {
  expect(Math.abs(actual - expected)).toBeLessThan(0.005);
}

/** The figure formatted as in the README (e.g. 110,000.00) must appear there verbatim. */
function expectDocumented(...figures: string[]): void {
  for (const figure of figures) expect(readme, `data/README.md should mention ${figure}`).toContain(figure);
}

const fmt = (value: number) =>
  value.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });

const fi = (where: string, ...params: unknown[]) => num(`SELECT SUM(cs_trn_lc) FROM fi_reporting WHERE ${where}`, ...params);
const cons = (measure: string, where: string, ...params: unknown[]) =>
  num(`SELECT SUM(${measure}) FROM consolidation_mart WHERE ${where}`, ...params);
const bpc = (measure: string, where: string, ...params: unknown[]) =>
  num(`SELECT SUM(${measure}) FROM bpc_reporting WHERE ${where}`, ...params);

describe('sample database: structure', () => {
  it('has the seven tables with the documented row counts', () => {
    const expected = {
      companies: 3,
      account_map: 7,
      fx_rates: 36,
      fi_acquisition: 2174,
      fi_reporting: 2178,
      consolidation_mart: 611,
      bpc_reporting: 408,
    };
    expect(buildTables).toEqual(expected);
    for (const [table, count] of Object.entries(expected)) {
      expect(num(`SELECT COUNT(*) FROM ${table}`)).toBe(count);
    }
    expectDocumented('`fi_acquisition` 2,174', '`fi_reporting` 2,178', '`consolidation_mart` 611', '`bpc_reporting` 408');
  });

  it('uses the exact column names', () => {
    const columns = (table: string) => rows<{ name: string }>(`PRAGMA table_info(${table})`).map((c) => c.name);
    expect(columns('companies')).toEqual(['compcode', 'name', 'country', 'currency']);
    expect(columns('account_map')).toEqual(['gl_acct', 'grpacct', 'description', 'account_type']);
    expect(columns('fx_rates')).toEqual(['fiscper', 'currency', 'rate_to_eur']);
    expect(columns('fi_reporting')).toEqual([
      'compcode', 'fiscper', 'fiscvarnt', 'gl_acct', 'grpacct', 'pcompany', 'ac_docnr', 'docline',
      'prof_ctr', 'segment', 'cs_trn_lc', 'curkey_lc', 'quantity', 'request_id',
    ]);
    expect(columns('fi_acquisition')).toEqual(columns('fi_reporting'));
    expect(columns('consolidation_mart')).toEqual([
      'compcode', 'fiscper', 'version', 'grpacct', 'pcompany', 'cs_trn_lc', 'cs_ytd_lc', 'curkey_lc', 'cs_trn_gc',
    ]);
    expect(columns('bpc_reporting')).toEqual([
      'compcode', 'fiscper', 'version', 'scope', 'grpacct', 'pcompany', 'audittrail', 'cs_trn_lc', 'curkey_lc', 'cs_trn_gc',
    ]);
  });

  it('indexes both FI tables on (ac_docnr, docline), (compcode, fiscper) and (grpacct)', () => {
    const indexed = (table: string) =>
      rows<{ name: string }>(`PRAGMA index_list(${table})`).map((index) =>
        rows<{ name: string }>(`PRAGMA index_info(${index.name})`).map((c) => c.name).join(','),
      );
    for (const table of ['fi_acquisition', 'fi_reporting']) {
      expect(indexed(table)).toEqual(expect.arrayContaining(['ac_docnr,docline', 'compcode,fiscper', 'grpacct']));
    }
  });

  it('has the master data', () => {
    expect(rows('SELECT * FROM companies ORDER BY compcode')).toEqual([
      { compcode: '1000', name: 'Contoso Deutschland GmbH', country: 'DE', currency: 'EUR' },
      { compcode: '2000', name: 'Contoso Inc.', country: 'US', currency: 'USD' },
      { compcode: '3000', name: 'Contoso UK Ltd', country: 'GB', currency: 'GBP' },
    ]);
    const map = rows<{ gl_acct: string; grpacct: string }>('SELECT gl_acct, grpacct FROM account_map');
    expect(map).toHaveLength(7);
    for (const m of map) expect(m.grpacct).toBe(`G${m.gl_acct}`);
    // FI carries the mapped group account on every line.
    expect(num('SELECT COUNT(*) FROM fi_reporting f JOIN account_map m USING (gl_acct) WHERE f.grpacct <> m.grpacct')).toBe(0);
    expect(rows('SELECT DISTINCT fiscper FROM fi_reporting ORDER BY 1').map((r) => r.fiscper)).toEqual(
      Array.from({ length: 12 }, (_, i) => `2024${String(i + 1).padStart(3, '0')}`),
    );
    expect(rows('SELECT DISTINCT fiscvarnt FROM fi_reporting')).toEqual([{ fiscvarnt: 'K4' }]);
  });

  it('has rates in the documented ranges with 4 decimals', () => {
    for (const r of rows<{ currency: string; rate_to_eur: number }>('SELECT currency, rate_to_eur FROM fx_rates')) {
      expect(Math.round(r.rate_to_eur * 10000) / 10000).toBe(r.rate_to_eur);
      if (r.currency === 'EUR') expect(r.rate_to_eur).toBe(1);
      if (r.currency === 'USD') expect(r.rate_to_eur >= 0.9 && r.rate_to_eur <= 0.94).toBe(true);
      if (r.currency === 'GBP') expect(r.rate_to_eur >= 1.15 && r.rate_to_eur <= 1.19).toBe(true);
    }
  });

  it('stores amounts with at most two decimals', () => {
    const checks: [string, string][] = [
      ['fi_reporting', 'cs_trn_lc'],
      ['consolidation_mart', 'cs_trn_lc'],
      ['consolidation_mart', 'cs_ytd_lc'],
      ['consolidation_mart', 'cs_trn_gc'],
      ['bpc_reporting', 'cs_trn_lc'],
      ['bpc_reporting', 'cs_trn_gc'],
    ];
    for (const [table, column] of checks) {
      for (const r of rows<{ v: number }>(`SELECT ${column} AS v FROM ${table}`)) {
        expect(Math.abs(r.v * 100 - Math.round(r.v * 100))).toBeLessThan(1e-6);
      }
    }
  });

  it('follows the sign convention and quantity rules', () => {
    expect(num("SELECT COUNT(*) FROM fi_reporting f JOIN account_map m USING (gl_acct) WHERE m.account_type = 'revenue' AND f.cs_trn_lc <= 0")).toBe(0);
    expect(num("SELECT COUNT(*) FROM fi_reporting f JOIN account_map m USING (gl_acct) WHERE m.account_type = 'expense' AND f.cs_trn_lc >= 0")).toBe(0);
    expect(num("SELECT COUNT(*) FROM fi_reporting WHERE gl_acct IN ('6000000','6100000','7000000') AND quantity IS NOT NULL")).toBe(0);
    expect(num("SELECT COUNT(*) FROM fi_reporting WHERE gl_acct IN ('4000000','4100000','5000000','5100000') AND (quantity IS NULL OR quantity <= 0)")).toBe(0);
    // Partner only on intercompany accounts, NULL (never '') elsewhere.
    expect(num("SELECT COUNT(*) FROM fi_reporting WHERE (gl_acct IN ('4100000','5100000')) <> (pcompany IS NOT NULL)")).toBe(0);
    for (const table of ['fi_reporting', 'consolidation_mart', 'bpc_reporting']) {
      expect(num(`SELECT COUNT(*) FROM ${table} WHERE pcompany = ''`)).toBe(0);
    }
  });
});

describe('planted 1: duplicated delta load in FI 1000/2024012', () => {
  const where = "compcode = '1000' AND fiscper = '2024012'";

  it('FI exceeds BPC and consolidation ACTUAL by exactly 110,000.00 EUR, all on G4000000', () => {
    const fiTotal = fi(where);
    const bpcTotal = bpc('cs_trn_lc', `${where} AND version = 'ACTUAL'`);
    const consTotal = cons('cs_trn_lc', `${where} AND version = 'ACTUAL'`);
    expectAmount(fiTotal, 443100);
    expectAmount(bpcTotal, 333100);
    expectAmount(consTotal, 333100);
    expectAmount(fiTotal - bpcTotal, 110000);
    expectDocumented('443,100.00', '333,100.00', '110,000.00 EUR', '24.83 %');

    const perAccount = rows<{ grpacct: string; fi: number; bpc: number }>(
      `SELECT f.grpacct, f.fi, b.bpc FROM
         (SELECT grpacct, SUM(cs_trn_lc) AS fi FROM fi_reporting WHERE ${where} GROUP BY grpacct) f
         JOIN (SELECT grpacct, SUM(cs_trn_lc) AS bpc FROM bpc_reporting WHERE ${where} AND version = 'ACTUAL' GROUP BY grpacct) b
         USING (grpacct) ORDER BY grpacct`,
    );
    expect(perAccount).toHaveLength(6);
    for (const r of perAccount) expectAmount(r.fi - r.bpc, r.grpacct === 'G4000000' ? 110000 : 0);
    expectAmount(fi(`${where} AND grpacct = 'G4000000'`), 2036800);
    expectAmount(cons('cs_trn_lc', `${where} AND version = 'ACTUAL' AND grpacct = 'G4000000'`), 1926800);
    expectDocumented('2,036,800.00', '1,926,800.00');
  });

  it('the duplicated lines are 4 lines of 3 documents summing to 110,000.00, identical except request_id', () => {
    const copies = rows<Row>("SELECT * FROM fi_reporting WHERE request_id = 'REQ_2024012_1000_02' ORDER BY ac_docnr, docline");
    expect(copies).toHaveLength(4);
    expectAmount(fi("request_id = 'REQ_2024012_1000_02'"), 110000);
    expect(copies.map((c) => `${String(c.ac_docnr)}/${String(c.docline)}`)).toEqual([
      '0100000360/1',
      '0100000360/2',
      '0100000361/1',
      '0100000362/1',
    ]);
    expect(copies.map((c) => c.cs_trn_lc)).toEqual([35481.36, 28428.99, 25341.78, 20747.87]);
    expectDocumented('0100000360', '0100000361', '0100000362', '35,481.36', '28,428.99', '25,341.78', '20,747.87');
    expectDocumented('REQ_2024012_1000_01', 'REQ_2024012_1000_02');

    for (const copy of copies) {
      expect(copy.compcode).toBe('1000');
      expect(copy.fiscper).toBe('2024012');
      expect(copy.gl_acct).toBe('4000000');
      const originals = rows<Row>(
        'SELECT * FROM fi_reporting WHERE ac_docnr = ? AND docline = ? AND request_id <> ?',
        copy.ac_docnr,
        copy.docline,
        copy.request_id,
      );
      expect(originals).toHaveLength(1);
      expect({ ...originals[0], request_id: 'x' }).toEqual({ ...copy, request_id: 'x' });
      expect(originals[0]?.request_id).toBe('REQ_2024012_1000_01');
    }
    // No other (document, line) appears twice anywhere.
    expect(num('SELECT COUNT(*) FROM (SELECT ac_docnr, docline FROM fi_reporting GROUP BY 1, 2 HAVING COUNT(*) > 1)')).toBe(4);
    expect(num(`SELECT COUNT(*) FROM fi_reporting WHERE ${where}`)).toBe(74);
  });

  it('shows in the full-year FI total of 1000', () => {
    expectAmount(fi("compcode = '1000'"), 3561000);
    expectAmount(cons('cs_trn_lc', "compcode = '1000' AND version = 'ACTUAL'"), 3451000);
    expectDocumented('3,561,000.00', '3,451,000.00');
  });
});

describe('planted 1, seen from the acquisition layer fi_acquisition', () => {
  const where = "compcode = '1000' AND fiscper = '2024012'";
  const acq = (filter: string) => num(`SELECT SUM(cs_trn_lc) FROM fi_acquisition WHERE ${filter}`);

  it('holds every FI line once: fi_reporting minus the duplicated request, row for row', () => {
    const columns = 'compcode, fiscper, fiscvarnt, gl_acct, grpacct, pcompany, ac_docnr, docline, prof_ctr, segment, cs_trn_lc, curkey_lc, quantity, request_id';
    expect(rows(`SELECT ${columns} FROM fi_acquisition ORDER BY rowid`)).toEqual(
      rows(`SELECT ${columns} FROM fi_reporting WHERE request_id <> 'REQ_2024012_1000_02' ORDER BY rowid`),
    );
    expect(num('SELECT COUNT(*) FROM (SELECT ac_docnr, docline FROM fi_acquisition GROUP BY 1, 2 HAVING COUNT(*) > 1)')).toBe(0);
    expect(rows("SELECT DISTINCT substr(request_id, -3) AS seq FROM fi_acquisition")).toEqual([{ seq: '_01' }]);
    expect(num('SELECT COUNT(DISTINCT ac_docnr) FROM fi_acquisition')).toBe(1174);
    const perCompany = rows<{ compcode: string; n: number }>('SELECT compcode, COUNT(*) AS n FROM fi_acquisition GROUP BY 1 ORDER BY 1');
    expect(perCompany.map((r) => r.n)).toEqual([721, 732, 721]);
    expectAmount(acq("compcode = '1000'"), 3451000);
    expectDocumented('1000 721, 2000 732, 3000 721 lines (2,174)');
  });

  it('differs from fi_reporting by exactly -110,000.00 EUR in 1000/2024012, nowhere else', () => {
    expectAmount(acq(where), 333100);
    expect(num(`SELECT COUNT(*) FROM fi_acquisition WHERE ${where}`)).toBe(70);
    expectAmount(acq(where) - fi(where), -110000);
    const diffs = rows<{ compcode: string; fiscper: string; d: number }>(
      `SELECT a.compcode, a.fiscper, a.lc - r.lc AS d FROM
         (SELECT compcode, fiscper, SUM(cs_trn_lc) AS lc FROM fi_acquisition GROUP BY 1, 2) a
         JOIN (SELECT compcode, fiscper, SUM(cs_trn_lc) AS lc FROM fi_reporting GROUP BY 1, 2) r USING (compcode, fiscper)
        WHERE ABS(a.lc - r.lc) >= 0.005`,
    );
    expect(diffs.map((d) => [d.compcode, d.fiscper, Math.round(d.d * 100) / 100])).toEqual([['1000', '2024012', -110000]]);
    expectDocumented('-110,000.00 EUR', '33.02 %', '6,683,749.37');
  });

  it('the documented line-by-line compare_sources call reports the 4 duplicated lines', async () => {
    const call = /`compare_sources (\{"source_a":"fi_acquisition","source_b":"fi_reporting".*?\})`/.exec(readme);
    expect(call, 'data/README.md documents the compare_sources call of fi_acquisition vs fi_reporting').not.toBeNull();
    const args = JSON.parse(call![1]!) as Record<string, unknown>;
    expect(args).toEqual({
      source_a: 'fi_acquisition',
      source_b: 'fi_reporting',
      measure: 'amount',
      align_on: ['document', 'document_line'],
      filters: { company: '1000', period: '2024012' },
    });
    const database = openDataDatabase(dbPath);
    const data = createDataAccess(database);
    try {
      const catalog = loadCatalog(path.join(repoRoot, 'data', 'sources.yaml'), { columnsOf: (t) => tableColumns(database, t) });
      const registry = new SkillRegistry(await loadSkills(path.join(repoRoot, 'skills')));
      const outcome = (await registry.execute('compare_sources', args, { catalog, data, logger: silentLogger() })) as { ok: boolean; result?: any };
      expect(outcome.ok, JSON.stringify(outcome)).toBe(true);
      const result = outcome.result;
      expect(result.summary).toMatchObject({ aligned_rows: 70, match: 66, minor_diff: 0, major_diff: 4, only_in_a: 0, only_in_b: 0 });
      expect(result.summary.totals).toEqual([{ currency: 'EUR', total_a: 333100, total_b: 443100, difference: -110000, difference_percent: 33.02 }]);
      expect(result.top_differences.map((r: any) => [r.document, r.document_line, r.currency, r.a, r.b, r.difference, r.status])).toEqual([
        ['0100000360', '1', 'EUR', 35481.36, 70962.72, -35481.36, 'major_diff'],
        ['0100000360', '2', 'EUR', 28428.99, 56857.98, -28428.99, 'major_diff'],
        ['0100000361', '1', 'EUR', 25341.78, 50683.56, -25341.78, 'major_diff'],
        ['0100000362', '1', 'EUR', 20747.87, 41495.74, -20747.87, 'major_diff'],
      ]);
      expectDocumented('70 aligned rows: 66 `match` and 4 `major_diff`', '-35,481.36', '-28,428.99', '-25,341.78', '-20,747.87');
    } finally {
      data.close();
    }
  });
});

describe('planted 2: intercompany purchase missing in 2024009', () => {
  it('the seller booked 152,500.00 EUR, the buyer nothing, in every source', () => {
    expectAmount(fi("compcode = '1000' AND fiscper = '2024009' AND gl_acct = '4100000' AND pcompany = '2000'"), 152500);
    expect(num("SELECT COUNT(*) FROM fi_reporting WHERE compcode = '2000' AND fiscper = '2024009' AND gl_acct = '5100000'")).toBe(0);
    expect(num("SELECT COUNT(*) FROM consolidation_mart WHERE version = 'ACTUAL' AND compcode = '2000' AND fiscper = '2024009' AND grpacct = 'G5100000'")).toBe(0);
    expect(num("SELECT COUNT(*) FROM bpc_reporting WHERE version = 'ACTUAL' AND compcode = '2000' AND fiscper = '2024009' AND grpacct = 'G5100000'")).toBe(0);
    expectAmount(cons('cs_trn_gc', "version = 'ACTUAL' AND fiscper = '2024009' AND grpacct = 'G4100000'"), 152500);
    expectAmount(cons('cs_trn_gc', "version = 'ACTUAL' AND fiscper = '2024009' AND grpacct IN ('G4100000', 'G5100000')"), 152500);
    expectAmount(bpc('cs_trn_gc', "version = 'ACTUAL' AND fiscper = '2024009' AND grpacct IN ('G4100000', 'G5100000')"), 152500);
    expect(rows("SELECT ac_docnr FROM fi_reporting WHERE fiscper = '2024009' AND gl_acct = '4100000'")).toEqual([{ ac_docnr: '0100000260' }]);
    expectDocumented('152,500.00 EUR', '0100000260', '-166,000.00');
    expectAmount(cons('cs_trn_lc', "version = 'BUDGET' AND compcode = '2000' AND fiscper = '2024009' AND grpacct = 'G5100000'"), -166000);
  });

  it('every other month eliminates to exactly 0.00 EUR, with usd = eur / rate', () => {
    const months = rows<{ fiscper: string; eur: number; usd: number | null; rate: number }>(
      `SELECT s.fiscper, s.cs_trn_lc AS eur, b.cs_trn_lc AS usd, r.rate_to_eur AS rate
         FROM fi_reporting s
         LEFT JOIN fi_reporting b ON b.fiscper = s.fiscper AND b.compcode = '2000' AND b.gl_acct = '5100000' AND b.pcompany = '1000'
         JOIN fx_rates r ON r.fiscper = s.fiscper AND r.currency = 'USD'
        WHERE s.compcode = '1000' AND s.gl_acct = '4100000' AND s.pcompany = '2000'
        ORDER BY s.fiscper`,
    );
    expect(months).toHaveLength(12);
    for (const m of months) {
      if (m.fiscper === '2024009') {
        expect(m.usd).toBeNull();
        continue;
      }
      expect(m.usd).not.toBeNull();
      expectAmount(m.usd ?? 0, -Math.round((m.eur / m.rate) * 100) / 100);
      const net = cons('cs_trn_gc', "version = 'ACTUAL' AND fiscper = ? AND grpacct IN ('G4100000', 'G5100000')", m.fiscper);
      expectAmount(net, 0);
    }
    expectAmount(cons('cs_trn_gc', "version = 'ACTUAL' AND grpacct = 'G4100000'"), 1800400);
    expectAmount(cons('cs_trn_gc', "version = 'ACTUAL' AND grpacct = 'G5100000'"), -1647900);
    expectDocumented('1,800,400.00', '-1,647,900.00', '-170,146.95', '-162,625.60');
  });
});

describe('planted 3: BPC translated 2000/2024006 at the 2024005 rate', () => {
  const where = "compcode = '2000' AND fiscper = '2024006' AND version = 'ACTUAL'";

  it('group-currency totals differ by -3,646.01 EUR, local currency is equal', () => {
    expect(num("SELECT rate_to_eur FROM fx_rates WHERE currency = 'USD' AND fiscper = '2024005'")).toBe(0.9302);
    expect(num("SELECT rate_to_eur FROM fx_rates WHERE currency = 'USD' AND fiscper = '2024006'")).toBe(0.9105);
    const consGc = cons('cs_trn_gc', where);
    const bpcGc = bpc('cs_trn_gc', where);
    expectAmount(consGc, 168512.35);
    expectAmount(bpcGc, 172158.36);
    expectAmount(consGc - bpcGc, -3646.01);
    expectAmount(cons('cs_trn_lc', where), 185076.72);
    expectAmount(bpc('cs_trn_lc', where), 185076.72);
    expectDocumented('0.9302', '0.9105', '168,512.35', '172,158.36', '-3,646.01', '185,076.72');
  });

  it('each BPC row is translated at 0.9302 and each consolidation row at 0.9105', () => {
    const expected: Record<string, [number, number, number]> = {
      G4000000: [1406176.2, 1436600.88, -30424.68],
      G5000000: [-663117.15, -677464.66, 14347.51],
      G5100000: [-150800, -154062.78, 3262.78],
      G6000000: [-274879.95, -280827.38, 5947.43],
      G6100000: [-112446.75, -114879.7, 2432.95],
      G7000000: [-36420, -37208, 788],
    };
    const perAccount = rows<{ grpacct: string; lc: number; cgc: number; bgc: number }>(
      `SELECT c.grpacct, c.cs_trn_lc AS lc, c.cs_trn_gc AS cgc, b.cs_trn_gc AS bgc
         FROM consolidation_mart c JOIN bpc_reporting b
           ON b.compcode = c.compcode AND b.fiscper = c.fiscper AND b.version = c.version AND b.grpacct = c.grpacct
          AND b.pcompany IS c.pcompany
        WHERE c.compcode = '2000' AND c.fiscper = '2024006' AND c.version = 'ACTUAL' ORDER BY c.grpacct`,
    );
    expect(perAccount.map((r) => r.grpacct)).toEqual(Object.keys(expected));
    for (const r of perAccount) {
      const [consGc, bpcGc, diff] = expected[r.grpacct] ?? [0, 0, 0];
      expectAmount(r.cgc, Math.round(r.lc * 0.9105 * 100) / 100);
      expectAmount(r.bgc, Math.round(r.lc * 0.9302 * 100) / 100);
      expectAmount(r.cgc, consGc);
      expectAmount(r.bgc, bpcGc);
      expectAmount(r.cgc - r.bgc, diff);
      expectDocumented(fmt(consGc), fmt(bpcGc), fmt(diff));
    }
  });
});

describe('planted 4: manual adjustment only in BPC 3000/2024010', () => {
  const where = "compcode = '3000' AND fiscper = '2024010'";

  it('has one ADJ_MANUAL row of -25,000.00 GBP / -29,685.00 EUR', () => {
    expect(rows("SELECT * FROM bpc_reporting WHERE audittrail = 'ADJ_MANUAL'")).toEqual([
      {
        compcode: '3000',
        fiscper: '2024010',
        version: 'ACTUAL',
        scope: 'S_LEGAL',
        grpacct: 'G6100000',
        pcompany: null,
        audittrail: 'ADJ_MANUAL',
        cs_trn_lc: -25000,
        curkey_lc: 'GBP',
        cs_trn_gc: -29685,
      },
    ]);
    expect(num("SELECT rate_to_eur FROM fx_rates WHERE currency = 'GBP' AND fiscper = '2024010'")).toBe(1.1874);
    expectDocumented('-25,000.00 GBP', '-29,685.00 EUR', '1.1874');
  });

  it('FI vs BPC differs by exactly 25,000.00 GBP, all on G6100000', () => {
    const fiTotal = fi(where);
    const bpcTotal = bpc('cs_trn_lc', `${where} AND version = 'ACTUAL'`);
    expectAmount(fiTotal, 101100);
    expectAmount(bpcTotal, 76100);
    expectAmount(fiTotal - bpcTotal, 25000);
    expectAmount(cons('cs_trn_lc', `${where} AND version = 'ACTUAL'`), 101100);
    expectAmount(fi(`${where} AND grpacct = 'G6100000'`), -91200);
    expectAmount(bpc('cs_trn_lc', `${where} AND version = 'ACTUAL' AND grpacct = 'G6100000'`), -116200);
    expectAmount(bpc('cs_trn_lc', `${where} AND version = 'ACTUAL' AND grpacct <> 'G6100000'`), fi(`${where} AND grpacct <> 'G6100000'`));
    expectAmount(cons('cs_trn_gc', `${where} AND version = 'ACTUAL'`), 120046.14);
    expectAmount(bpc('cs_trn_gc', `${where} AND version = 'ACTUAL'`), 90361.14);
    expectDocumented('101,100.00', '76,100.00', '25,000.00', '-91,200.00', '-116,200.00', '120,046.14', '90,361.14', '29,685.00');
  });
});

describe('planted 5: budget vs actual', () => {
  const cell = (version: string, company: string, grpacct: string) =>
    cons('cs_trn_lc', "version = ? AND compcode = ? AND fiscper = '2024011' AND grpacct = ?", version, company, grpacct);
  const bpcCell = (version: string, company: string, grpacct: string) =>
    bpc('cs_trn_lc', "version = ? AND compcode = ? AND fiscper = '2024011' AND grpacct = ?", version, company, grpacct);

  it('2000 revenue 2024011 is exactly 15 % below budget', () => {
    expectAmount(cell('ACTUAL', '2000', 'G4000000'), 1377000);
    expectAmount(cell('BUDGET', '2000', 'G4000000'), 1620000);
    expectAmount(bpcCell('ACTUAL', '2000', 'G4000000'), 1377000);
    expectAmount(bpcCell('BUDGET', '2000', 'G4000000'), 1620000);
    expectDocumented('1,377,000.00 USD', '1,620,000.00 USD', '-243,000.00 USD', '-15.00 %');
  });

  it('3000 personnel expenses 2024011 exceed budget by exactly 40,000.00 GBP', () => {
    expectAmount(cell('ACTUAL', '3000', 'G6000000'), -250000);
    expectAmount(cell('BUDGET', '3000', 'G6000000'), -210000);
    expectAmount(bpcCell('ACTUAL', '3000', 'G6000000') - bpcCell('BUDGET', '3000', 'G6000000'), -40000);
    expectDocumented('-250,000.00 GBP', '-210,000.00 GBP', '-40,000.00 GBP');
  });

  it('all other cells are within 3 % of budget', () => {
    const worst = num(
      `SELECT MAX(ABS(a.cs_trn_lc - b.cs_trn_lc) / ABS(b.cs_trn_lc)) FROM consolidation_mart a
         JOIN consolidation_mart b ON b.version = 'BUDGET' AND b.compcode = a.compcode AND b.fiscper = a.fiscper
          AND b.grpacct = a.grpacct AND b.pcompany IS a.pcompany
        WHERE a.version = 'ACTUAL'
          AND NOT (a.fiscper = '2024011' AND ((a.compcode = '2000' AND a.grpacct = 'G4000000') OR (a.compcode = '3000' AND a.grpacct = 'G6000000')))`,
    );
    expect(worst).toBeLessThanOrEqual(0.03);
  });

  it('full-year totals per company match the README', () => {
    const expected: Record<string, { actual: number; budget: number; forecast: number; actualGc: number; budgetGc: number }> = {
      '1000': { actual: 3451000, budget: 3480000, forecast: 3228500, actualGc: 3451000, budgetGc: 3480000 },
      '2000': { actual: 2194149.37, budget: 2127000, forecast: 2236938.84, actualGc: 2018028.29, budgetGc: 1962890.7 },
      '3000': { actual: 1038600, budget: 1080000, forecast: 1117200, actualGc: 1223993.23, budgetGc: 1273080.1 },
    };
    for (const [company, e] of Object.entries(expected)) {
      const actual = cons('cs_trn_lc', "version = 'ACTUAL' AND compcode = ?", company);
      const budget = cons('cs_trn_lc', "version = 'BUDGET' AND compcode = ?", company);
      expectAmount(actual, e.actual);
      expectAmount(budget, e.budget);
      expectAmount(cons('cs_trn_lc', "version = 'FORECAST' AND compcode = ?", company), e.forecast);
      expectAmount(cons('cs_trn_gc', "version = 'ACTUAL' AND compcode = ?", company), e.actualGc);
      expectAmount(cons('cs_trn_gc', "version = 'BUDGET' AND compcode = ?", company), e.budgetGc);
      expectDocumented(fmt(e.actual), fmt(e.budget), fmt(actual - budget), fmt(e.forecast), fmt(e.actualGc), fmt(e.budgetGc));
    }
    expectDocumented('-29,000.00', '67,149.37', '-41,400.00');
  });

  it('FORECAST equals ACTUAL in periods 1-6', () => {
    const differences = num(
      `SELECT COUNT(*) FROM consolidation_mart a
         LEFT JOIN consolidation_mart f ON f.version = 'FORECAST' AND f.compcode = a.compcode AND f.fiscper = a.fiscper
          AND f.grpacct = a.grpacct AND f.pcompany IS a.pcompany
        WHERE a.version = 'ACTUAL' AND a.fiscper <= '2024006'
          AND (f.cs_trn_lc IS NULL OR f.cs_trn_lc <> a.cs_trn_lc OR f.cs_trn_gc <> a.cs_trn_gc OR f.cs_ytd_lc <> a.cs_ytd_lc)`,
    );
    expect(differences).toBe(0);
    expect(num("SELECT COUNT(*) FROM consolidation_mart WHERE version = 'FORECAST' AND fiscper <= '2024006'")).toBe(
      num("SELECT COUNT(*) FROM consolidation_mart WHERE version = 'ACTUAL' AND fiscper <= '2024006'"),
    );
  });
});

describe('planted 6: data-quality defects in FI 3000/2024004', () => {
  it('has 3 lines without profit centre and 2 with an empty segment, nowhere else', () => {
    const defects = rows<{ ac_docnr: string; docline: number; prof_ctr: string | null; segment: string | null; cs_trn_lc: number }>(
      `SELECT ac_docnr, docline, prof_ctr, segment, cs_trn_lc FROM fi_reporting
        WHERE prof_ctr IS NULL OR prof_ctr = '' OR segment IS NULL OR segment = '' ORDER BY ac_docnr, docline`,
    );
    expect(defects.map((d) => [d.ac_docnr, d.docline, d.prof_ctr, d.segment, d.cs_trn_lc])).toEqual([
      ['0300000103', 2, null, 'SEG_IND', 92066.53],
      ['0300000106', 1, null, 'SEG_IND', 109540.31],
      ['0300000122', 1, null, 'SEG_RET', -4150.87],
      ['0300000125', 1, 'PC3010', '', -2996.23],
      ['0300000127', 1, 'PC3020', '', -1895.59],
    ]);
    expect(num("SELECT COUNT(*) FROM fi_reporting WHERE prof_ctr IS NULL AND compcode = '3000' AND fiscper = '2024004'")).toBe(3);
    expect(num("SELECT COUNT(*) FROM fi_reporting WHERE segment = '' AND compcode = '3000' AND fiscper = '2024004'")).toBe(2);
    expectAmount(fi('prof_ctr IS NULL'), 197455.97);
    expectAmount(fi("segment = ''"), -4891.82);
    for (const d of defects) expectDocumented(d.ac_docnr, fmt(d.cs_trn_lc));
    expectDocumented('197,455.97', '-4,891.82');
  });
});

describe('everything else reconciles', () => {
  it('FI aggregated (without the duplicate) equals consolidation ACTUAL cell by cell, in the same cells', () => {
    const mismatches = rows(
      `WITH f AS (
         SELECT compcode, fiscper, grpacct, pcompany, curkey_lc, SUM(cs_trn_lc) AS lc FROM fi_reporting
          WHERE request_id <> 'REQ_2024012_1000_02' GROUP BY 1, 2, 3, 4, 5),
       c AS (SELECT compcode, fiscper, grpacct, pcompany, curkey_lc, cs_trn_lc AS lc FROM consolidation_mart WHERE version = 'ACTUAL')
       SELECT f.*, c.lc AS clc FROM f LEFT JOIN c ON c.compcode = f.compcode AND c.fiscper = f.fiscper AND c.grpacct = f.grpacct
          AND c.pcompany IS f.pcompany AND c.curkey_lc = f.curkey_lc
        WHERE c.lc IS NULL OR ABS(c.lc - f.lc) >= 0.005`,
    );
    expect(mismatches).toEqual([]);
    expect(num("SELECT COUNT(*) FROM consolidation_mart WHERE version = 'ACTUAL'")).toBe(
      num("SELECT COUNT(*) FROM (SELECT 1 FROM fi_reporting GROUP BY compcode, fiscper, grpacct, pcompany)"),
    );
    expect(num("SELECT COUNT(*) FROM consolidation_mart WHERE version = 'ACTUAL'")).toBe(203);
    // The acquisition layer aggregates to the consolidation ACTUAL exactly.
    const acquisitionMismatches = rows(
      `WITH f AS (SELECT compcode, fiscper, grpacct, pcompany, SUM(cs_trn_lc) AS lc FROM fi_acquisition GROUP BY 1, 2, 3, 4)
       SELECT f.* FROM f LEFT JOIN consolidation_mart c ON c.version = 'ACTUAL' AND c.compcode = f.compcode
          AND c.fiscper = f.fiscper AND c.grpacct = f.grpacct AND c.pcompany IS f.pcompany
        WHERE c.cs_trn_lc IS NULL OR ABS(c.cs_trn_lc - f.lc) >= 0.005`,
    );
    expect(acquisitionMismatches).toEqual([]);
  });

  it('FI vs BPC ACTUAL per company and period: only 1000/2024012 and 3000/2024010 differ', () => {
    const diffs = rows<{ compcode: string; fiscper: string; d: number }>(
      `SELECT f.compcode, f.fiscper, f.lc - b.lc AS d FROM
         (SELECT compcode, fiscper, SUM(cs_trn_lc) AS lc FROM fi_reporting GROUP BY 1, 2) f
         JOIN (SELECT compcode, fiscper, SUM(cs_trn_lc) AS lc FROM bpc_reporting WHERE version = 'ACTUAL' GROUP BY 1, 2) b
         USING (compcode, fiscper) WHERE ABS(f.lc - b.lc) >= 0.005 ORDER BY 1, 2`,
    );
    expect(diffs.map((d) => [d.compcode, d.fiscper, Math.round(d.d * 100) / 100])).toEqual([
      ['1000', '2024012', 110000],
      ['3000', '2024010', 25000],
    ]);
    expect(num('SELECT COUNT(*) FROM (SELECT DISTINCT compcode, fiscper FROM bpc_reporting)')).toBe(36);
    expectAmount(fi('1 = 1') - bpc('cs_trn_lc', "version = 'ACTUAL'"), 135000);
    expectDocumented('135,000.00', '26,038.99', '6,793,749.37', '6,658,749.37', '6,683,749.37', '6,693,021.52', '6,666,982.53');
  });

  it('BPC INPUT rows equal consolidation ACTUAL in LC, and in GC except 2000/2024006', () => {
    const joined = rows<{ compcode: string; fiscper: string; clc: number; blc: number | null; cgc: number; bgc: number | null }>(
      `SELECT c.compcode, c.fiscper, c.cs_trn_lc AS clc, b.cs_trn_lc AS blc, c.cs_trn_gc AS cgc, b.cs_trn_gc AS bgc
         FROM consolidation_mart c LEFT JOIN bpc_reporting b ON b.version = c.version AND b.compcode = c.compcode
          AND b.fiscper = c.fiscper AND b.grpacct = c.grpacct AND b.pcompany IS c.pcompany AND b.audittrail = 'INPUT'
        WHERE c.version IN ('ACTUAL', 'BUDGET')`,
    );
    expect(joined).toHaveLength(203 + 204);
    for (const r of joined) {
      expect(r.blc).toBe(r.clc);
      if (!(r.compcode === '2000' && r.fiscper === '2024006')) expect(r.bgc).toBe(r.cgc);
    }
    expect(num("SELECT COUNT(*) FROM bpc_reporting WHERE audittrail = 'INPUT'")).toBe(203 + 204);
    expect(rows('SELECT DISTINCT scope FROM bpc_reporting')).toEqual([{ scope: 'S_LEGAL' }]);
  });

  it('group currency is LC x the period rate, and YTD is the running sum', () => {
    const badGc = rows(
      `SELECT c.* FROM consolidation_mart c JOIN fx_rates r ON r.fiscper = c.fiscper AND r.currency = c.curkey_lc
        WHERE ABS(c.cs_trn_gc - ROUND(c.cs_trn_lc * r.rate_to_eur, 2)) >= 0.0051`,
    );
    expect(badGc).toEqual([]);
    const badYtd = rows(
      `SELECT c.* FROM consolidation_mart c
        WHERE ABS(c.cs_ytd_lc - (SELECT SUM(p.cs_trn_lc) FROM consolidation_mart p WHERE p.version = c.version
              AND p.compcode = c.compcode AND p.grpacct = c.grpacct AND p.pcompany IS c.pcompany AND p.fiscper <= c.fiscper)) >= 0.005`,
    );
    expect(badYtd).toEqual([]);
    for (const [company, revenue] of [['1000', 21617200], ['2000', 17891600], ['3000', 10831800]] as const) {
      expectAmount(num("SELECT cs_ytd_lc FROM consolidation_mart WHERE version = 'ACTUAL' AND compcode = ? AND fiscper = '2024012' AND grpacct = 'G4000000'", company), revenue);
      expectDocumented(fmt(revenue));
    }
  });

  it('reference totals per company match the README', () => {
    const expected: [string, number, number, number, number][] = [
      // company, FI 2024012, FI full year, BPC ACTUAL full year, BPC ACTUAL GC full year
      ['1000', 443100, 3561000, 3451000, 3451000],
      ['2000', 191720.58, 2194149.37, 2194149.37, 2021674.3],
      ['3000', 129900, 1038600, 1013600, 1194308.23],
    ];
    for (const [company, fiDec, fiYear, bpcYear, bpcYearGc] of expected) {
      expectAmount(fi("compcode = ? AND fiscper = '2024012'", company), fiDec);
      expectAmount(fi('compcode = ?', company), fiYear);
      expectAmount(bpc('cs_trn_lc', "compcode = ? AND version = 'ACTUAL'", company), bpcYear);
      expectAmount(bpc('cs_trn_gc', "compcode = ? AND version = 'ACTUAL'", company), bpcYearGc);
      expectDocumented(fmt(fiDec), fmt(fiYear), fmt(bpcYear), fmt(bpcYearGc));
    }
  });
});

describe('catalog data/sources.yaml', () => {
  it('maps every dimension and measure to an existing column', () => {
    const catalog = parse(fs.readFileSync(path.join(repoRoot, 'data', 'sources.yaml'), 'utf8')) as {
      version: number;
      group_currency: string;
      sources: Record<string, { table: string; dimensions: Record<string, { column: string }>; measures: Record<string, Record<string, string>> }>;
    };
    expect(catalog.version).toBe(1);
    expect(catalog.group_currency).toBe('EUR');
    expect(Object.keys(catalog.sources)).toEqual(['fi_reporting', 'consolidation_mart', 'bpc_reporting', 'fi_acquisition']);
    const fiSources = [catalog.sources.fi_reporting!, catalog.sources.fi_acquisition!];
    expect(fiSources.map((source) => source.table)).toEqual(['fi_reporting', 'fi_acquisition']);
    for (const source of fiSources) expect(source.dimensions.document_line?.column).toBe('docline');
    // The two FI layers offer the same dimensions and measures, so every comparison aligns.
    expect(Object.keys(catalog.sources.fi_acquisition!.dimensions)).toEqual(Object.keys(catalog.sources.fi_reporting!.dimensions));
    expect(catalog.sources.fi_acquisition!.measures).toEqual(catalog.sources.fi_reporting!.measures);
    for (const source of Object.values(catalog.sources)) {
      const columns = rows<{ name: string }>(`PRAGMA table_info(${source.table})`).map((c) => c.name);
      for (const dimension of Object.values(source.dimensions)) expect(columns).toContain(dimension.column);
      for (const measure of Object.values(source.measures)) {
        if (measure.aggregation !== 'count') expect(columns).toContain(measure.column);
        const kinds = ['currency_dimension', 'currency', 'unit'].filter((k) => k in measure);
        expect(kinds).toHaveLength(1);
        if (measure.currency_dimension) expect(Object.keys(source.dimensions)).toContain(measure.currency_dimension);
      }
      for (const shared of ['company', 'period', 'group_account', 'partner_company', 'currency']) {
        expect(Object.keys(source.dimensions)).toContain(shared);
      }
    }
  });
});

describe('determinism and CLI', () => {
  const dump = (file: string) => {
    const other = new Database(file, { readonly: true });
    try {
      const out: Record<string, unknown[]> = {};
      for (const table of TABLE_NAMES) {
        out[table] = other.prepare(`SELECT * FROM ${table} ORDER BY rowid`).raw().all();
      }
      return out;
    } finally {
      other.close();
    }
  };

  it('building twice gives identical row data, in the same order', () => {
    const second = path.join(tmpDir, 'again.db');
    buildSampleDatabase(second);
    expect(dump(second)).toEqual(dump(dbPath));
    // Rebuilding over an existing file replaces it and leaves no temp file behind.
    buildSampleDatabase(second);
    expect(dump(second)).toEqual(dump(dbPath));
    expect(fs.readdirSync(tmpDir).filter((f) => f.includes('.tmp'))).toEqual([]);
  });

  // tsx's loader, resolved from the repository (the CLI runs with the temp folder as cwd).
  const tsxLoader = pathToFileURL(createRequire(path.join(repoRoot, 'package.json')).resolve('tsx')).href;
  const cli = (...args: string[]) =>
    spawnSync(process.execPath, ['--import', tsxLoader, path.join(repoRoot, 'data', 'build-sample.ts'), ...args], {
      cwd: tmpDir,
      encoding: 'utf8',
    });

  it('the CLI builds with --out, skips with --if-missing and rejects bad arguments', () => {
    const out = path.join(tmpDir, 'cli.db');
    const built = cli('--out', out);
    expect(built.status, built.stderr).toBe(0);
    expect(built.stdout).toMatch(/fi_reporting=2178/);
    expect(built.stdout.trim().split('\n')).toHaveLength(1);
    expect(dump(out)).toEqual(dump(dbPath));

    const skipped = cli('--out', out, '--if-missing');
    expect(skipped.status).toBe(0);
    expect(skipped.stdout).toMatch(/already exists/);

    // A database built by an older generator (here: without fi_acquisition) is rebuilt.
    const stale = path.join(tmpDir, 'stale.db');
    fs.copyFileSync(out, stale);
    const staleDb = new Database(stale);
    staleDb.exec('DROP TABLE fi_acquisition');
    staleDb.close();
    const rebuilt = cli('--out', stale, '--if-missing');
    expect(rebuilt.status, rebuilt.stderr).toBe(0);
    expect(rebuilt.stdout).toMatch(/outdated schema/);
    expect(dump(stale)).toEqual(dump(dbPath));

    const bad = cli('--bogus');
    expect(bad.status).not.toBe(0);
    expect(bad.stderr).toMatch(/Unknown option '--bogus'/);
    expect(bad.stderr).toMatch(/usage/);
  }, 30_000);
});

