/**
 * The skill SDK's testing helpers, for the tests in a skill's folder (skills/<name>/test/):
 * a registry of the skill over the bundled sample data or data of the test's own
 * (`skillTestKit`: runs a tool as the model would, arguments validated and errors shaped as
 * the model gets them), a temporary folder, a SQLite file and a catalog written from plain
 * rows, and the data layer over such a file. Re-exported by src/skills/api.ts.
 * The heavy modules (registry, database driver) load when a helper is first called, so a skill
 * importing the SDK at run time does not load them.
 *
 * @example
 * import skill from '../index.ts';
 * import { skillTestKit, temporaryDirectory, writeTestCatalog, writeTestDatabase } from '../../../src/skills/api.ts';
 *
 * const kit = await skillTestKit(skill);                    // the bundled sample data
 * expect(await kit.run('my_tool', { source: 'fi_reporting' })).toMatchObject({ ok: true });
 * await kit.close();
 *
 * const directory = temporaryDirectory();                   // data of the test's own
 * const databasePath = await writeTestDatabase(directory, { results: { columns: ['company TEXT', 'amount REAL'], rows: [['1000', 5]] } });
 * const catalogPath = writeTestCatalog(directory, { version: 1, sources: { results: { ... } } });
 * const own = await skillTestKit(skill, { databasePath, catalogPath });
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { DataAccess } from '../../data/dataAccess.ts';
import type { SkillTestKit, SkillTestKitOptions } from '../testing.ts';
import type { SkillModule } from './tools.ts';

export type { SkillTestKit, SkillTestKitOptions } from '../testing.ts';

/**
 * A registry of the given skill module(s) and a tool context over the sample data (or
 * `options.databasePath` and `options.catalogPath`); `run(tool, args)` never throws.
 * @example
 * const kit = await skillTestKit(skill);
 * await kit.run('compare_periods', { source: 'fi_reporting', ... }); // { ok: true, result } or { ok: false, error }
 */
export async function skillTestKit(modules: SkillModule | readonly SkillModule[], options: SkillTestKitOptions = {}): Promise<SkillTestKit> {
  const testing = await import('../testing.ts');
  return testing.skillTestKit(modules, options);
}

/**
 * A fresh temporary folder (under the OS's temporary directory).
 * @example
 * const directory = temporaryDirectory('outliers-'); // '/tmp/outliers-Xr3k9a'
 */
export function temporaryDirectory(prefix = 'skill-test-'): string {
  return mkdtempSync(path.join(os.tmpdir(), prefix));
}

/**
 * Writes a catalog document (an object, or YAML text) as `name` in `directory`; returns its path.
 * An object is written as JSON, which is YAML too (and needs no YAML writer where the SDK loads).
 * @example
 * const catalogPath = writeTestCatalog(directory, { version: 1, sources: { results: { table: 'results', ... } } });
 */
export function writeTestCatalog(directory: string, document: unknown, name = 'sources.yaml'): string {
  const file = path.join(directory, name);
  writeFileSync(file, typeof document === 'string' ? document : `${JSON.stringify(document, null, 2)}\n`);
  return file;
}

/** One table of a test database: column definitions as SQLite reads them ("amount REAL") and rows in that order. */
export interface TestTable {
  columns: string[];
  rows: unknown[][];
}

/**
 * Writes a SQLite file with the given tables in `directory` (a new name each call); returns its path.
 * @example
 * const file = await writeTestDatabase(directory, { left_table: { columns: ['key TEXT', 'amount REAL'], rows: [['K1', 10], ['K2', null]] } });
 */
export async function writeTestDatabase(directory: string, tables: Record<string, TestTable>): Promise<string> {
  const { default: Database } = await import('better-sqlite3');
  const file = path.join(directory, `data-${Math.random().toString(36).slice(2)}.db`);
  const database = new Database(file);
  try {
    for (const [table, { columns, rows }] of Object.entries(tables)) {
      database.exec(`CREATE TABLE "${table}" (${columns.join(', ')})`);
      const insert = database.prepare(`INSERT INTO "${table}" VALUES (${columns.map(() => '?').join(', ')})`);
      database.transaction(() => rows.forEach((row) => insert.run(...row)))();
    }
  } finally {
    database.close();
  }
  return file;
}

/**
 * The data layer over a SQLite file (as the default connection), as `context.data` reads it; close it when done.
 * @example
 * const data = await openTestData(file);
 * const { rows } = await data.run({ kind: 'select', table: 'left_table', aggregates: [{ name: 'rows', function: 'count' }] });
 */
export async function openTestData(file: string): Promise<DataAccess> {
  const [{ createDataAccess }, { openDataDatabase }] = await Promise.all([import('../../data/dataAccess.ts'), import('../../data/database.ts')]);
  return createDataAccess(openDataDatabase(file));
}
