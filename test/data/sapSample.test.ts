/**
 * The second sample (data/sap-sample, `npm run data:sap-sample`): built twice it is the same
 * bytes; its README holds the ground truth the generator renders; every figure of the README's
 * tables is recomputed by SQL (test/data/sapSampleReadme.ts) on SQLite, on DuckDB over the
 * Parquet files and over the CSV files, and on PostgreSQL loaded by `data:load`; and no number in
 * the README escapes a check.
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { DuckDBInstance } from '@duckdb/node-api';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderGroundTruth } from '../../data/sap-sample/groundTruth.ts';
import { buildSapSample, SAP_TABLES, type SapSampleBuild } from '../../data/sap-sample/write.ts';
import { loadData } from '../../src/data/load/index.ts';
import { withPostgres } from '../support/postgresClient.ts';
import { postgresUrls } from '../support/engineServers.ts';
import { checkReadme, readmeTables, type Engine } from './sapSampleReadme.ts';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const readme = fs.readFileSync(path.join(repoRoot, 'data', 'sap-sample', 'README.md'), 'utf8');
const tables = readmeTables(readme);
const { adminUrl } = await postgresUrls();

type ClosableEngine = Engine & { close(): Promise<void> | void };

let tmp: string;
let build: SapSampleBuild;
let again: SapSampleBuild;

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'sap-sample-'));
  build = await buildSapSample(path.join(tmp, 'a'));
  again = await buildSapSample(path.join(tmp, 'b'));
}, 120_000);
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const filesUnder = (dir: string): string[] =>
  fs.readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((name) => fs.statSync(path.join(dir, name)).isFile()).sort();

function sqliteEngine(): ClosableEngine {
  const db = new Database(build.sqlite, { readonly: true });
  return {
    name: 'SQLite',
    all: async (sql) => db.prepare(sql).all() as Record<string, unknown>[],
    close: () => {
      db.close();
    },
  };
}

async function duckdbEngine(name: string, from: (table: string) => string): Promise<ClosableEngine> {
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  for (const table of SAP_TABLES) await connection.run(`CREATE TABLE ${table} AS SELECT * FROM ${from(table)}`); // read each file once, not once per query
  return {
    name,
    all: async (sql) => (await connection.runAndReadAll(sql)).getRowObjectsJS() as Record<string, unknown>[],
    close: () => {
      connection.closeSync();
      instance.closeSync();
    },
  };
}

async function postgresEngine(): Promise<ClosableEngine> {
  const database = `sap_sample_${randomBytes(4).toString('hex')}`;
  await withPostgres(adminUrl, (client) => client.query(`CREATE DATABASE ${database}`));
  const url = new URL(adminUrl);
  url.pathname = `/${database}`;
  await loadData({ from: build.sqlite, to: url.toString() }); // what the README tells a user to run
  const client = new pg.Client({ connectionString: url.toString() });
  await client.connect();
  return {
    name: 'PostgreSQL',
    all: async (sql) => (await client.query(sql)).rows as Record<string, unknown>[],
    close: async () => {
      await client.end();
      await withPostgres(adminUrl, (admin) => admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`));
    },
  };
}

const ENGINES: Record<string, () => Promise<ClosableEngine>> = {
  SQLite: async () => sqliteEngine(),
  'DuckDB over Parquet': () => duckdbEngine('DuckDB over Parquet', (table) => `read_parquet('${path.join(build.parquet, `${table}.parquet`)}')`),
  'DuckDB over CSV': () => duckdbEngine('DuckDB over CSV', (table) => `read_csv('${path.join(build.csv, `${table}.csv`)}', sample_size = -1)`),
  PostgreSQL: postgresEngine,
};

async function withEngine<T>(name: string, work: (engine: Engine) => Promise<T>): Promise<T> {
  const engine = await ENGINES[name]!();
  try {
    return await work(engine);
  } finally {
    await engine.close();
  }
}

describe('the SAP sample build', () => {
  it('is deterministic: a second build writes the same files, byte for byte (SQLite, CSV and Parquet)', () => {
    const names = filesUnder(path.join(tmp, 'a'));
    expect(names).toEqual([...SAP_TABLES.map((t) => `csv/${t}.csv`), ...SAP_TABLES.map((t) => `parquet/${t}.parquet`), 'sap_sample.db'].sort());
    expect(filesUnder(path.join(tmp, 'b'))).toEqual(names);
    for (const name of names) expect(fs.readFileSync(path.join(tmp, 'a', name)).equals(fs.readFileSync(path.join(tmp, 'b', name))), name).toBe(true);
    expect(again.tables).toEqual(build.tables);
  });

  it('stays small: every file under 1 MB', () => {
    for (const name of filesUnder(path.join(tmp, 'a'))) expect(fs.statSync(path.join(tmp, 'a', name)).size, name).toBeLessThan(1_000_000);
  });

  it("holds in its README exactly the ground truth the generator computes (rerun groundTruth.ts if this fails)", () => {
    expect(readme).toContain(renderGroundTruth());
  });

  it('has the companies, account texts and the duplicated budget lines at the end, as the README describes', () => {
    const db = new Database(build.sqlite, { readonly: true });
    try {
      const t001 = db.prepare('SELECT bukrs, butxt, ort01, land1, waers, periv FROM t001 ORDER BY rowid').all();
      expect(t001).toEqual(tables.get('`t001`: companies'));
      const skat = db.prepare("SELECT saknr, txt20, txt50 FROM skat WHERE spras = 'E' AND ktopl = 'NWCA' ORDER BY saknr").all();
      expect(skat).toEqual(tables.get('`skat`: account texts (language `spras` = `E`, chart of accounts `ktopl` = `NWCA`)'));
      expect(db.prepare("SELECT saknr FROM skat WHERE txt50 LIKE 'Revenue%' ORDER BY saknr").pluck().all()).toEqual(['400000', '410000']);
      const last = db.prepare('SELECT bukrs, gjahr_monat, hkont FROM gl_plan ORDER BY rowid DESC LIMIT 2').all() as { bukrs: string; gjahr_monat: number; hkont: string }[];
      const documented = tables.get('Duplicate lines in gl_plan')!.map((r) => `${r.bukrs} ${r.gjahr_monat} ${r.hkont}`);
      expect(last.map((r) => `${r.bukrs} ${r.gjahr_monat} ${r.hkont}`).sort()).toEqual(documented.sort());
      // Every posting is in the company's currency, JPY without decimals; every company posts to every account every month.
      expect(db.prepare('SELECT COUNT(*) FROM gl_extract g JOIN t001 t ON t.bukrs = g.bukrs WHERE g.rwcur <> t.waers').pluck().get()).toBe(0);
      expect(db.prepare("SELECT COUNT(*) FROM gl_extract WHERE rwcur = 'JPY' AND hsl <> ROUND(hsl)").pluck().get()).toBe(0);
      expect(db.prepare('SELECT COUNT(*) FROM (SELECT DISTINCT bukrs, hkont FROM gl_extract)').pluck().get()).toBe(t001.length * skat.length);
      expect(db.prepare('SELECT COUNT(DISTINCT gjahr_monat) || \' \' || MIN(gjahr_monat) || \' \' || MAX(gjahr_monat) FROM gl_extract').pluck().get()).toBe('24 202404 202603');
      expect(db.prepare('SELECT COUNT(*) FROM (SELECT DISTINCT bukrs, gjahr_monat, hkont FROM gl_plan)').pluck().get()).toBe(t001.length * skat.length * 24);
      // The columns as described: a profit centre on every line, a cost centre on expense lines but cost of
      // materials, document numbers unique across companies with the company's prefix, up to three lines each.
      expect(db.prepare('SELECT COUNT(*) FROM gl_extract WHERE prctr IS NULL').pluck().get()).toBe(0);
      expect(db.prepare("SELECT COUNT(*) FROM gl_extract WHERE (kostl IS NULL) <> (hkont IN ('400000', '410000', '500000'))").pluck().get()).toBe(0);
      expect(db.prepare('SELECT COUNT(*) FROM (SELECT belnr FROM gl_extract GROUP BY belnr HAVING COUNT(DISTINCT bukrs) > 1)').pluck().get()).toBe(0);
      expect(db.prepare("SELECT bukrs || ' ' || MIN(SUBSTR(belnr, 1, 2)) || MAX(SUBSTR(belnr, 1, 2)) || ' ' || MIN(LENGTH(belnr)) || MAX(LENGTH(belnr)) FROM gl_extract GROUP BY bukrs ORDER BY bukrs").pluck().all()).toEqual(['CA01 1616 1010', 'IN01 1414 1010', 'JP01 1515 1010', 'SG01 1717 1010']);
      expect(db.prepare('SELECT MIN(buzei) || MAX(buzei) FROM gl_extract').pluck().get()).toBe('13');
    } finally {
      db.close();
    }
  });
});

describe('npm run data:sap-sample', () => {
  const tsxLoader = pathToFileURL(createRequire(path.join(repoRoot, 'package.json')).resolve('tsx')).href;
  const cli = (...args: string[]) => spawnSync(process.execPath, ['--import', tsxLoader, path.join(repoRoot, 'data', 'sap-sample', 'build.ts'), ...args], { cwd: tmp, encoding: 'utf8' });

  it('builds into --out (relative to the working directory) the same files, says where, and rejects bad arguments with exit 2', () => {
    expect(JSON.parse(fs.readFileSync(path.join(repoRoot, 'package.json'), 'utf8')).scripts['data:sap-sample']).toBe('tsx data/sap-sample/build.ts');
    const built = cli('--out', 'cli');
    expect(built.status, built.stderr).toBe(0);
    expect(built.stdout).toContain('gl_extract=');
    expect(built.stdout).toContain(path.join(tmp, 'cli', 'sap_sample.db'));
    expect(built.stdout).toContain('npm run data:load -- --from');
    for (const name of filesUnder(path.join(tmp, 'a'))) expect(fs.readFileSync(path.join(tmp, 'cli', name)).equals(fs.readFileSync(path.join(tmp, 'a', name))), name).toBe(true);

    for (const args of [['--bogus'], ['--out', ' '], ['stray']]) {
      const refused = cli(...args);
      expect(refused.status, args.join(' ')).toBe(2);
      expect(refused.stderr).toContain('usage: npm run data:sap-sample -- [--out DIR]');
    }
  }, 60_000);
});

describe('the CSV files read by DuckDB', () => {
  it('type the digit-only codes and the whole-amount budget as integers, as the README warns', async () => {
    const types = await withEngine('DuckDB over CSV', (engine) =>
      engine.all("SELECT table_name || '.' || column_name AS c, data_type AS t FROM information_schema.columns WHERE column_name IN ('hkont', 'saknr', 'belnr', 'plan_wert', 'hsl', 'bukrs') ORDER BY 1"),
    );
    expect(Object.fromEntries(types.map((row) => [row.c, row.t]))).toEqual({
      'gl_extract.belnr': 'BIGINT',
      'gl_extract.bukrs': 'VARCHAR',
      'gl_extract.hkont': 'BIGINT',
      'gl_extract.hsl': 'DOUBLE',
      'gl_plan.bukrs': 'VARCHAR',
      'gl_plan.hkont': 'BIGINT',
      'gl_plan.plan_wert': 'BIGINT',
      'skat.saknr': 'BIGINT',
      't001.bukrs': 'VARCHAR',
    });
  });
});

describe.each(Object.keys(ENGINES))('every figure of the README on %s', (name) => {
  it('matches SQL on the built data', async () => {
    const checks = await withEngine(name, (engine) => checkReadme(engine, tables));
    expect(checks.filter((check) => check.readme !== check.sql)).toEqual([]);
    expect(checks.length).toBeGreaterThan(150);
  }, 60_000);
});

describe('data/sap-sample/README.md', () => {
  it('states no number that no check covers', async () => {
    const NUMBER = /(?<![\w./-])-?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?!\w)/g;
    const tokens = (text: string) => text.match(NUMBER) ?? [];
    const covered = new Set<string>();
    await withEngine('SQLite', async (engine) => {
      for (const check of await checkReadme(engine, tables)) if (check.readme === check.sql) for (const token of tokens(check.readme)) covered.add(token);
      // Identifiers: months, their years, accounts, and each company's document-number prefix.
      const months = (await engine.all('SELECT DISTINCT gjahr_monat AS m FROM gl_extract')).map((row) => Number(row.m));
      for (const m of months) covered.add(String(m)).add(String(Math.floor(m / 100)));
      for (const row of await engine.all('SELECT DISTINCT hkont FROM gl_extract')) covered.add(String(row.hkont));
      for (const row of await engine.all("SELECT DISTINCT bukrs || ' ' || SUBSTR(belnr, 1, 2) AS prefix FROM gl_extract")) {
        const [bukrs, prefix] = String(row.prefix).split(' ');
        if (readme.includes(`${bukrs} \`${prefix}…\``)) covered.add(prefix!);
      }
      // `fiscal_year_start: 4`: the first month of each fiscal year is April.
      if (Math.min(...months) % 100 === 4) covered.add('4');
    });
    // "within 3 % of budget" is the last check of checkReadme (the cells off by more are the planted ones), passed above.
    covered.add('3');
    expect(tokens(readme).filter((token) => !covered.has(token))).toEqual([]);
  });
});
