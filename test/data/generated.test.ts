/**
 * Generated databases (npm run data:generate): a small one is built into a temp folder,
 * the service's real catalog and skills are loaded on it, and every discrepancy of the
 * manifest is checked by running its tool call. Also: determinism per seed, positions
 * that move with the seed, exact reconciliation outside the planted cases, CLI errors.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { DuckDBInstance } from '@duckdb/node-api';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateDatabase, manifestPathOf } from '../../data/scale/generateDatabase.ts';
import type { CompareExpectation, Discrepancy, Manifest, QueryExpectation } from '../../data/scale/manifest.ts';
import { TABLE_NAMES } from '../../data/sample/schema.ts';
import { loadCatalog } from '../../src/catalog/loadCatalog.ts';
import { createDataAccess } from '../../src/data/dataAccess.ts';
import { openDataDatabase, tableColumns } from '../../src/data/database.ts';
import { silentLogger } from '../../src/logging/logger.ts';
import type { ToolContext } from '../../src/skills/api.ts';
import { loadSkills } from '../../src/skills/loader.ts';
import { SkillRegistry } from '../../src/skills/registry.ts';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const ROWS = 20_000;

type Json = Record<string, any>;

let tmpDir: string;
let dbPath: string;
let manifest: Manifest;
let db: Database.Database;
let registry: SkillRegistry;
let context: ToolContext;
let closeData: () => void;

beforeAll(async () => {
  tmpDir = fs.mkdtempSync(path.join(os.tmpdir(), 'generated-db-'));
  dbPath = path.join(tmpDir, 'finance.db');
  manifest = generateDatabase({ rows: ROWS, out: dbPath, seed: 7 }).manifest;
  db = new Database(dbPath, { readonly: true });
  // The service's own wiring: read-only database, default catalog checked against it, real skills.
  const database = openDataDatabase(dbPath);
  const catalog = loadCatalog(path.join(repoRoot, 'data', 'sources.yaml'), { columnsOf: (t) => tableColumns(database, t) });
  registry = new SkillRegistry(await loadSkills(path.join(repoRoot, 'skills')));
  const data = createDataAccess(database);
  context = { catalog, data, logger: silentLogger() };
  closeData = () => data.close();
});

afterAll(() => {
  closeData?.();
  db?.close();
  if (tmpDir) fs.rmSync(tmpDir, { recursive: true, force: true });
});

async function run(tool: string, args: Json): Promise<Json> {
  const outcome = (await registry.execute(tool, args, context)) as Json;
  expect(outcome.ok, `${tool} ${JSON.stringify(args)} failed: ${JSON.stringify(outcome.error)}`).toBe(true);
  return outcome.result as Json;
}

const num = (sql: string, ...params: unknown[]) => Object.values(db.prepare(sql).get(...params) as Json)[0] as number;
const rows = (sql: string, ...params: unknown[]) => db.prepare(sql).all(...params) as Json[];
const near = (actual: unknown, expected: number) => typeof actual === 'number' && Math.abs(actual - expected) < 0.005;

/** SHA-256 of every row of every table, in rowid order. */
function checksums(file: string): Record<string, string> {
  const other = new Database(file, { readonly: true });
  try {
    return Object.fromEntries(
      TABLE_NAMES.map((table) => {
        const hash = createHash('sha256');
        for (const row of other.prepare(`SELECT * FROM ${table} ORDER BY rowid`).raw().iterate()) hash.update(`${JSON.stringify(row)}\n`);
        const stats = other.prepare(`SELECT COUNT(*) AS n FROM ${table}`).get() as Json;
        return [table, `${String(stats.n)}:${hash.digest('hex')}`];
      }),
    );
  } finally {
    other.close();
  }
}

describe('generated database: the manifest checks', () => {
  it('plants every kind of discrepancy and records the table sizes', () => {
    expect(manifest).toMatchObject({ seed: 7, rows_per_source: ROWS, companies: 3, fiscal_year: 2024 });
    expect(new Set(manifest.discrepancies.map((d) => d.kind))).toEqual(
      new Set(['duplicated_delta_load', 'lines_lost_in_propagation', 'intercompany_missing_buyer', 'currency_translation', 'manual_adjustment', 'budget_variance']),
    );
    for (const table of TABLE_NAMES) expect(num(`SELECT COUNT(*) FROM ${table}`)).toBe(manifest.tables[table]);
    expect(manifest.tables.fi_acquisition).toBe(ROWS);
    const dup = manifest.discrepancies.find((d) => d.id === 'duplicated-delta-load')!.details;
    const lost = manifest.discrepancies.find((d) => d.id === 'lost-in-propagation')!.details;
    expect(manifest.tables.fi_reporting).toBe(ROWS + (dup.lines as number) - (lost.lines as number));
    // Documents of 1–3 lines: about N/2 documents, N distinct (document, line) keys.
    const documents = num('SELECT COUNT(DISTINCT ac_docnr) FROM fi_acquisition');
    expect(documents).toBeGreaterThan(ROWS * 0.4);
    expect(documents).toBeLessThan(ROWS * 0.6);
    expect(num('SELECT COUNT(*) FROM (SELECT DISTINCT ac_docnr, docline FROM fi_acquisition)')).toBe(ROWS);
    expect(fs.existsSync(manifestPathOf(dbPath))).toBe(true);
    expect(JSON.parse(fs.readFileSync(manifestPathOf(dbPath), 'utf8'))).toEqual(manifest);
  });

  it('data/README.md shows a real manifest entry of this database (seed 7, 20,000 rows)', () => {
    const readme = fs.readFileSync(path.join(repoRoot, 'data', 'README.md'), 'utf8');
    const example = /An\s+entry \(seed 7, 20,000 rows\):\s+```json\n([\s\S]*?)\n```/.exec(readme);
    expect(example, 'data/README.md has the example manifest entry').not.toBeNull();
    const entry = JSON.parse(example![1]!) as Discrepancy;
    expect(manifest.discrepancies.find((d) => d.id === entry.id)).toEqual(entry);
  });

  it('every check, run through the service registry, reports its expected row', async () => {
    expect(manifest.discrepancies.length).toBeGreaterThanOrEqual(8);
    for (const discrepancy of manifest.discrepancies) await expectReported(discrepancy);
  });
});

async function expectReported({ id, check, expected }: Discrepancy): Promise<void> {
  const result = await run(check.tool, check.args);
  if (check.tool === 'compare_sources') {
    const want = expected as CompareExpectation;
    const found = (result.top_differences as Json[]).find((row) => Object.entries(want.key).every(([k, v]) => row[k] === v));
    expect(found, `${id}: no row ${JSON.stringify(want.key)} in top_differences ${JSON.stringify(result.top_differences)}`).toBeDefined();
    expect(found!.status, id).toBe(want.status);
    expect(near(found!.difference, want.difference), `${id}: difference ${found!.difference} vs ${want.difference}`).toBe(true);
    expect(found!.a === want.a || near(found!.a, want.a ?? NaN), `${id}: a`).toBe(true);
    expect(found!.b === want.b || near(found!.b, want.b ?? NaN), `${id}: b`).toBe(true);
  } else {
    const want = (expected as QueryExpectation).row;
    const strings = Object.entries(want).filter(([, v]) => typeof v === 'string');
    const found = (result.rows as Json[]).find((row) => strings.every(([k, v]) => row[k] === v));
    expect(found, `${id}: no row ${JSON.stringify(want)} in ${JSON.stringify(result.rows)}`).toBeDefined();
    for (const [k, v] of Object.entries(want)) {
      if (typeof v === 'number') expect(near(found![k], v), `${id}: ${k} ${found![k]} vs ${v}`).toBe(true);
    }
  }
}

describe('generated database: everything else reconciles', () => {
  it('fi_acquisition = fi_reporting line by line except the duplicated and the lost lines', async () => {
    const dup = manifest.discrepancies.find((d) => d.id === 'duplicated-delta-load')!.details;
    const lost = manifest.discrepancies.find((d) => d.id === 'lost-in-propagation')!.details;
    const result = await run('compare_sources', { source_a: 'fi_acquisition', source_b: 'fi_reporting', measure: 'amount', align_on: ['document', 'document_line'] });
    expect(result.summary).toMatchObject({
      aligned_rows: ROWS,
      match: ROWS - (dup.lines as number) - (lost.lines as number),
      minor_diff: 0,
      major_diff: dup.lines,
      only_in_a: lost.lines,
      only_in_b: 0,
    });
    // In SQL, column by column: the lost documents are missing, the copies differ only in request_id.
    const columns = 'compcode, fiscper, fiscvarnt, gl_acct, grpacct, pcompany, ac_docnr, docline, prof_ctr, segment, cs_trn_lc, curkey_lc, quantity';
    const missing = rows(`SELECT DISTINCT ac_docnr FROM (SELECT ${columns}, request_id FROM fi_acquisition EXCEPT SELECT ${columns}, request_id FROM fi_reporting) ORDER BY 1`);
    expect(missing.map((r) => r.ac_docnr)).toEqual([...(lost.documents as string[])].sort());
    expect(rows(`SELECT ${columns} FROM fi_reporting EXCEPT SELECT ${columns} FROM fi_acquisition`)).toEqual([]);
    expect(num('SELECT COUNT(*) FROM fi_reporting WHERE request_id = ?', dup.duplicate_request)).toBe(dup.lines);
    expect(near(num('SELECT SUM(cs_trn_lc) FROM fi_reporting WHERE request_id = ?', dup.duplicate_request), dup.amount as number)).toBe(true);
  });

  it('the mart ACTUAL is FI (acquisition) aggregated, BPC equals the mart but for the planted cases', () => {
    const mismatches = rows(
      `WITH f AS (SELECT compcode, fiscper, grpacct, pcompany, curkey_lc, SUM(cs_trn_lc) AS lc FROM fi_acquisition GROUP BY 1, 2, 3, 4, 5)
       SELECT * FROM f FULL JOIN (SELECT * FROM consolidation_mart WHERE version = 'ACTUAL') c
         ON c.compcode = f.compcode AND c.fiscper = f.fiscper AND c.grpacct = f.grpacct AND c.pcompany IS f.pcompany AND c.curkey_lc = f.curkey_lc
        WHERE f.lc IS NULL OR c.cs_trn_lc IS NULL OR ABS(f.lc - c.cs_trn_lc) >= 0.005`,
    );
    expect(mismatches).toEqual([]);
    const wrong = manifest.discrepancies.find((d) => d.kind === 'currency_translation')!.details;
    const differing = rows(
      `SELECT c.compcode, c.fiscper, c.version, c.cs_trn_lc - b.cs_trn_lc AS dlc, c.cs_trn_gc - b.cs_trn_gc AS dgc
         FROM consolidation_mart c JOIN bpc_reporting b ON b.version = c.version AND b.compcode = c.compcode AND b.fiscper = c.fiscper
          AND b.grpacct = c.grpacct AND b.pcompany IS c.pcompany AND b.audittrail = 'INPUT'
        WHERE c.version IN ('ACTUAL', 'BUDGET') AND (ABS(c.cs_trn_lc - b.cs_trn_lc) >= 0.005 OR ABS(c.cs_trn_gc - b.cs_trn_gc) >= 0.005)`,
    );
    expect(differing.length).toBeGreaterThan(0);
    for (const row of differing) expect([row.compcode, row.fiscper, row.version, row.dlc]).toEqual([wrong.company, wrong.period, 'ACTUAL', 0]);
    expect(num("SELECT COUNT(*) FROM bpc_reporting WHERE audittrail = 'INPUT'")).toBe(num("SELECT COUNT(*) FROM consolidation_mart WHERE version IN ('ACTUAL', 'BUDGET')"));
    expect(num("SELECT COUNT(*) FROM bpc_reporting WHERE audittrail = 'ADJ_MANUAL'")).toBe(1);
    // Group currency = LC × the period rate, rounded to cents, in the mart.
    expect(rows(`SELECT c.* FROM consolidation_mart c JOIN fx_rates r ON r.fiscper = c.fiscper AND r.currency = c.curkey_lc
                  WHERE ABS(c.cs_trn_gc - ROUND(c.cs_trn_lc * r.rate_to_eur, 2)) >= 0.0101`)).toEqual([]);
  });

  it('intercompany eliminates to 0.00 EUR in every month but the planted one', () => {
    const ic = manifest.discrepancies.find((d) => d.kind === 'intercompany_missing_buyer')!.details;
    const net = rows(
      `SELECT fiscper, ROUND(SUM(cs_trn_gc), 2) AS gc FROM consolidation_mart
        WHERE version = 'ACTUAL' AND grpacct IN ('G4100000', 'G5100000') GROUP BY fiscper HAVING ABS(SUM(cs_trn_gc)) >= 0.005`,
    );
    expect(net).toEqual([{ fiscper: ic.period, gc: ic.amount_gc }]);
  });
});

describe('generated database: determinism', () => {
  it('the same seed gives the same rows and manifest; another seed plants elsewhere', () => {
    const again = path.join(tmpDir, 'again.db');
    const second = generateDatabase({ rows: ROWS, out: again, seed: 7 }).manifest;
    expect(second).toEqual(manifest);
    expect(checksums(again)).toEqual(checksums(dbPath));
    // Rebuilding over an existing file replaces it and leaves no temp file behind.
    generateDatabase({ rows: ROWS, out: again, seed: 7 });
    expect(checksums(again)).toEqual(checksums(dbPath));
    expect(fs.readdirSync(tmpDir).filter((f) => f.includes('.tmp'))).toEqual([]);

    const other = path.join(tmpDir, 'other.db');
    const third = generateDatabase({ rows: ROWS, out: other, seed: 8 }).manifest;
    const positions = (m: Manifest) => m.discrepancies.map((d) => JSON.stringify(d.details));
    expect(positions(third)).not.toEqual(positions(manifest));
    expect(checksums(other).fi_acquisition).not.toEqual(checksums(dbPath).fi_acquisition);
  });
});

describe('data:generate CLI', () => {
  const tsxLoader = pathToFileURL(createRequire(path.join(repoRoot, 'package.json')).resolve('tsx')).href;
  const cli = (...args: string[]) =>
    spawnSync(process.execPath, ['--import', tsxLoader, path.join(repoRoot, 'data', 'generate.ts'), ...args], { cwd: tmpDir, encoding: 'utf8' });

  it('generates with --rows/--out/--seed/--companies and prints a summary line', () => {
    const done = cli('--rows', '2k', '--out', 'cli.db', '--seed', '3', '--companies', '2', '--quiet');
    expect(done.status, done.stderr).toBe(0);
    expect(done.stdout.trim().split('\n')).toHaveLength(1);
    expect(done.stdout).toMatch(/^generated cli\.db \(.*seed 3, 2 companies.*fi_acquisition=2000 .* in \d+\.\ds/);
    const written = JSON.parse(fs.readFileSync(path.join(tmpDir, 'cli.db.manifest.json'), 'utf8')) as Manifest;
    expect(written).toMatchObject({ seed: 3, rows_per_source: 2000, companies: 2 });
  }, 30_000);

  it('writes to another engine: generated as SQLite, then loaded into DuckDB with the manifest beside', async () => {
    const done = cli('--rows', '1k', '--out', 'duckdb:cli.duckdb', '--manifest', 'cli.manifest.json', '--quiet');
    expect(done.status, done.stderr).toBe(0);
    expect(done.stdout).toMatch(/^generated duckdb:\S*cli\.duckdb: [\d,]+ rows at [\d,]+ rows\/s; planted discrepancies in .*cli\.manifest\.json/);
    const manifest = JSON.parse(fs.readFileSync(path.join(tmpDir, 'cli.manifest.json'), 'utf8')) as Manifest;
    const instance = await DuckDBInstance.create(path.join(tmpDir, 'cli.duckdb'), { access_mode: 'READ_ONLY' });
    const connection = await instance.connect();
    try {
      const [[count]] = (await connection.runAndReadAll('SELECT COUNT(*) FROM fi_acquisition')).getRowsJS() as [[bigint]];
      expect(Number(count)).toBe(manifest.tables.fi_acquisition);
    } finally {
      connection.closeSync();
      instance.closeSync();
    }
  }, 30_000);

  it('rejects bad arguments with a clear message', () => {
    const cases: [string[], RegExp][] = [
      [['--rows', '999', '--out', 'x.db'], /--rows must be an integer between 1,000 and 20,000,000, got 999/],
      [['--rows', 'many', '--out', 'x.db'], /--rows must be a whole number/],
      [['--rows', '5000'], /--out is required/],
      [['--rows', '5000', '--out', 'x.db', '--companies', '30'], /--companies 30 needs --rows of at least 7,500/],
      [['--rows', '5000', '--out', 'x.db', '--bogus'], /Unknown option '--bogus'/],
    ];
    for (const [args, message] of cases) {
      const failed = cli(...args);
      expect(failed.status, args.join(' ')).toBe(2);
      expect(failed.stderr).toMatch(message);
      expect(failed.stderr).toMatch(/usage: npm run data:generate/);
    }
    expect(fs.existsSync(path.join(tmpDir, 'x.db'))).toBe(false);
  }, 30_000);
});
