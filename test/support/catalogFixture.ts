/**
 * Small catalogs and databases for tests that need their own data, not the sample.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { stringify } from 'yaml';

/** A fresh temporary directory. */
export function temporaryDirectory(prefix = 'analyst-test-'): string {
  return mkdtempSync(path.join(os.tmpdir(), prefix));
}

/** Writes a catalog document as YAML and returns its path. */
export function writeCatalog(directory: string, document: unknown, name = 'sources.yaml'): string {
  const file = path.join(directory, name);
  writeFileSync(file, typeof document === 'string' ? document : stringify(document));
  return file;
}

/** Two tiny sources `left` and `right` (key, k2, amount, cur) with the given rows. */
export function writeTwoSourceDatabase(
  directory: string,
  left: [string | null, string | null, number | null, string][],
  right: [string | null, string | null, number | null, string][],
): string {
  const file = path.join(directory, `data-${Math.random().toString(36).slice(2)}.db`);
  const database = new Database(file);
  for (const [table, rows] of [['left_table', left], ['right_table', right]] as const) {
    database.exec(`CREATE TABLE ${table} (key TEXT, k2 TEXT, amount REAL, cur TEXT)`);
    const insert = database.prepare(`INSERT INTO ${table} VALUES (?, ?, ?, ?)`);
    for (const row of rows) insert.run(...row);
  }
  database.close();
  return file;
}

/** The catalog describing writeTwoSourceDatabase's tables. */
export function twoSourceCatalog(overrides: Record<string, unknown> = {}) {
  const source = (table: string) => ({
    description: `test source ${table}`,
    table,
    dimensions: {
      key: { column: 'key', description: 'alignment key' },
      k2: { column: 'k2', description: 'second key' },
      currency: { column: 'cur', description: 'currency key' },
    },
    measures: { amount: { column: 'amount', aggregation: 'sum', currency_dimension: 'currency', description: 'amount' } },
  });
  return {
    version: 1,
    comparison: {
      default_align_on: ['key'],
      thresholds: { match: { absolute: 1000, percent: 1 }, minor: { absolute: 5000, percent: 5 } },
    },
    sources: { left: source('left_table'), right: source('right_table') },
    ...overrides,
  };
}

/**
 * Two sources of 1.5 M distinct keys each, in the two-source layout: comparing them on `key`
 * takes a second or more, long enough to load the query pool.
 * @example
 * const dataDb = writeHeavyDatabase(temporaryDirectory('tools-load-'));
 */
export function writeHeavyDatabase(directory: string): string {
  const file = path.join(directory, 'heavy.db');
  const db = new Database(file);
  for (const table of ['left_table', 'right_table']) {
    db.exec(`CREATE TABLE ${table} (key TEXT, k2 TEXT, amount REAL, cur TEXT)`);
    db.exec(`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1500000) INSERT INTO ${table} SELECT printf('K%09d', i), NULL, i % 1000, 'EUR' FROM n`);
    db.exec(`CREATE INDEX ${table}_key ON ${table} (key)`);
  }
  db.close();
  return file;
}
