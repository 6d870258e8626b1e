/**
 * Writes the second sample, the same rows on every engine: a SQLite file (the one copy built
 * row by row), CSV files (written here, byte for byte the SQLite rows) and Parquet files
 * (copied from the SQLite file by src/data/load, the code behind `npm run data:load`, which
 * also loads the SQLite file into PostgreSQL or a DuckDB file).
 */
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { loadData } from '../../src/data/load/index.ts';
import { FISCAL_YEAR_VARIANT, generateSapSample, toAmount, type SapSampleModel } from './model.ts';

/** Tables in creation order. */
export const SAP_TABLES = ['t001', 'skat', 'gl_extract', 'gl_plan'] as const;

const SCHEMA = `
CREATE TABLE t001 (
  bukrs TEXT PRIMARY KEY,
  butxt TEXT NOT NULL,
  ort01 TEXT NOT NULL,
  land1 TEXT NOT NULL,
  waers TEXT NOT NULL,
  periv TEXT NOT NULL
);
CREATE TABLE skat (
  spras TEXT NOT NULL,
  ktopl TEXT NOT NULL,
  saknr TEXT NOT NULL,
  txt20 TEXT NOT NULL,
  txt50 TEXT NOT NULL,
  PRIMARY KEY (spras, ktopl, saknr)
);
CREATE TABLE gl_extract (
  bukrs       TEXT NOT NULL,
  gjahr_monat INTEGER NOT NULL,
  belnr       TEXT NOT NULL,
  buzei       INTEGER NOT NULL,
  hkont       TEXT NOT NULL,
  prctr       TEXT,
  kostl       TEXT,
  hsl         REAL NOT NULL,
  rwcur       TEXT NOT NULL
);
CREATE TABLE gl_plan (
  bukrs       TEXT NOT NULL,
  gjahr_monat INTEGER NOT NULL,
  hkont       TEXT NOT NULL,
  plan_wert   REAL NOT NULL,
  waers       TEXT NOT NULL
);
`;

const INDEXES = `
CREATE INDEX ix_gl_extract_company_month ON gl_extract (bukrs, gjahr_monat);
CREATE INDEX ix_gl_extract_account ON gl_extract (hkont);
CREATE INDEX ix_gl_plan_company_month ON gl_plan (bukrs, gjahr_monat);
`;

type Value = string | number | null;

/** Every table's rows, in insertion order, as stored. */
function tableRows(model: SapSampleModel): Record<(typeof SAP_TABLES)[number], { columns: string[]; rows: Value[][] }> {
  const decimals = new Map(model.companies.map((c) => [c.bukrs, c.decimals]));
  return {
    t001: { columns: ['bukrs', 'butxt', 'ort01', 'land1', 'waers', 'periv'], rows: model.companies.map((c) => [c.bukrs, c.butxt, c.ort01, c.land1, c.waers, FISCAL_YEAR_VARIANT]) },
    skat: { columns: ['spras', 'ktopl', 'saknr', 'txt20', 'txt50'], rows: model.accounts.map((a) => ['E', 'NWCA', a.saknr, a.txt20, a.txt50]) },
    gl_extract: {
      columns: ['bukrs', 'gjahr_monat', 'belnr', 'buzei', 'hkont', 'prctr', 'kostl', 'hsl', 'rwcur'],
      rows: model.lines.map((l) => [l.bukrs, l.gjahr_monat, l.belnr, l.buzei, l.hkont, l.prctr, l.kostl, toAmount(l.hsl, decimals.get(l.bukrs)!), l.rwcur]),
    },
    gl_plan: {
      columns: ['bukrs', 'gjahr_monat', 'hkont', 'plan_wert', 'waers'],
      rows: model.plan.map((p) => [p.bukrs, p.gjahr_monat, p.hkont, toAmount(p.plan_wert, decimals.get(p.bukrs)!), p.waers]),
    },
  };
}

/** One CSV field (RFC 4180: quoted only when it holds a comma, a quote or a line break; NULL is empty). */
const csvField = (value: Value) => (value === null ? '' : /[",\r\n]/.test(String(value)) ? `"${String(value).replaceAll('"', '""')}"` : String(value));

function writeSqlite(file: string, tables: ReturnType<typeof tableRows>): void {
  const tmp = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.tmp`);
  fs.rmSync(tmp, { force: true });
  try {
    const db = new Database(tmp);
    try {
      db.pragma('journal_mode = MEMORY');
      db.pragma('synchronous = OFF');
      db.exec(SCHEMA);
      db.transaction(() => {
        for (const name of SAP_TABLES) {
          const { columns, rows } = tables[name];
          const insert = db.prepare(`INSERT INTO ${name} (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`);
          for (const row of rows) insert.run(...row);
        }
      })();
      db.exec(INDEXES);
    } finally {
      db.close();
    }
    fs.renameSync(tmp, file);
  } catch (error) {
    fs.rmSync(tmp, { force: true });
    throw error;
  }
}

export interface SapSampleBuild {
  /** The SQLite file. */
  sqlite: string;
  /** Folder of `<table>.parquet`. */
  parquet: string;
  /** Folder of `<table>.csv` (header line, comma-separated, UTF-8, `\n` line ends). */
  csv: string;
  /** Rows per table. */
  tables: Record<string, number>;
}

/**
 * Builds the sample into `outDir` (created; earlier files of the sample are replaced):
 * `sap_sample.db`, `parquet/<table>.parquet` and `csv/<table>.csv`, all holding the same rows.
 * @example
 * const { sqlite, parquet } = await buildSapSample('/tmp/sap');
 * // sqlite = '/tmp/sap/sap_sample.db', parquet = '/tmp/sap/parquet'
 */
export async function buildSapSample(outDir: string): Promise<SapSampleBuild> {
  const dir = path.resolve(outDir);
  const build: SapSampleBuild = { sqlite: path.join(dir, 'sap_sample.db'), parquet: path.join(dir, 'parquet'), csv: path.join(dir, 'csv'), tables: {} };
  fs.mkdirSync(build.csv, { recursive: true });
  const tables = tableRows(generateSapSample());
  writeSqlite(build.sqlite, tables);
  for (const name of SAP_TABLES) {
    const { columns, rows } = tables[name];
    const text = [columns.join(','), ...rows.map((row) => row.map(csvField).join(','))].join('\n') + '\n';
    fs.writeFileSync(path.join(build.csv, `${name}.csv`), text);
    build.tables[name] = rows.length;
  }
  await loadData({ from: build.sqlite, to: `parquet:${build.parquet}`, replace: true });
  return build;
}
