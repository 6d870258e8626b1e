import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadCatalog } from '../../src/catalog/loadCatalog.ts';
import { openDataDatabase, tableColumns } from '../../src/data/database.ts';
import { ConfigurationError } from '../../src/errors/index.ts';
import { cachedYaml } from '../../src/shared/yamlCache.ts';
import { projectRoot } from '../../src/config/config.ts';
import { temporaryDirectory, twoSourceCatalog, writeCatalog, writeTwoSourceDatabase } from '../support/catalogFixture.ts';

function loadError(run: () => unknown): ConfigurationError {
  try {
    run();
  } catch (error) {
    if (ConfigurationError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected a ConfigurationError');
}

describe('loadCatalog', () => {
  it('loads the bundled catalog and checks it against the sample database', () => {
    const database = openDataDatabase(path.join(projectRoot, 'data/sample.db'));
    const catalog = loadCatalog(path.join(projectRoot, 'data/sources.yaml'), { columnsOf: (t) => tableColumns(database, t) });
    database.close();
    expect([...catalog.sources.keys()]).toEqual(['fi_reporting', 'consolidation_mart', 'bpc_reporting', 'fi_acquisition']);
    expect(catalog.sources.get('bpc_reporting')!.defaultFilters).toEqual({ version: 'ACTUAL' });
    expect(catalog.thresholds.match).toEqual({ absolute: 1000, percent: 1 });
  });

  it('names the file, the line and the path of a missing field', () => {
    const directory = temporaryDirectory();
    const file = writeCatalog(
      directory,
      `version: 1
comparison:
  thresholds:
    match: { absolute: 1000, percent: 1 }
    minor: { absolute: 5000, percent: 5 }
sources:
  fi:
    table: fi
    dimensions:
      company: { column: compcode, description: Company }
    measures:
      amount: { column: amt, aggregation: sum, description: Amount }
`,
    );
    const error = loadError(() => loadCatalog(file));
    expect(error.message).toContain(`${file}:8 sources.fi.description`);
  });

  it('refuses column names that could smuggle SQL', () => {
    const directory = temporaryDirectory();
    const document = twoSourceCatalog();
    (document.sources.left.dimensions.key as { column: string }).column = 'key; DROP TABLE left_table';
    const error = loadError(() => loadCatalog(writeCatalog(directory, document)));
    expect(error.message).toMatch(/sources\.left\.dimensions\.key\.column: must be a plain SQL identifier/);
  });

  it('reports references to dimensions, measures and columns that do not exist', () => {
    const directory = temporaryDirectory();
    const database = writeTwoSourceDatabase(directory, [], []);
    const document = twoSourceCatalog();
    (document.sources.left.measures.amount as { currency_dimension: string }).currency_dimension = 'curency';
    (document.sources.right.dimensions.k2 as { column: string }).column = 'k3';
    (document.sources.right as Record<string, unknown>).defaults = { measures: ['amout'] };
    const db = openDataDatabase(database);
    const error = loadError(() => loadCatalog(writeCatalog(directory, document), { columnsOf: (t) => tableColumns(db, t) }));
    db.close();
    expect(error.message).toContain("sources.left.measures.amount.currency_dimension: 'curency' is not a dimension of this source");
    expect(error.message).toContain("sources.right.dimensions.k2.column: column 'k3' does not exist in table 'right_table' (columns: key, k2, amount, cur)");
    expect(error.message).toContain("sources.right.defaults.measures.0: 'amout' is not a measure of this source");
  });

  it('reads an unchanged catalog back from the parse cache, and still names the line of a problem found later', () => {
    const directory = temporaryDirectory();
    const database = writeTwoSourceDatabase(directory, [], []);
    const file = writeCatalog(directory, twoSourceCatalog());
    const text = readFileSync(file, 'utf8');
    const db = openDataDatabase(database);
    const columnsOf = (table: string) => tableColumns(db, table);
    // The first load parses the text and keeps what it parsed to (shared/yamlCache.ts).
    expect([...loadCatalog(file, { columnsOf }).sources.keys()]).toEqual(['left', 'right']);
    expect(cachedYaml(text)).toBeDefined();
    // The same text, now against a database without the right table: the problem still has its line.
    const error = loadError(() => loadCatalog(file, { columnsOf: (table) => (table === 'right_table' ? undefined : columnsOf(table)) }));
    db.close();
    const line = text.split('\n').findIndex((entry) => entry.includes('table: right_table')) + 1;
    expect(error.message).toContain(`${file}:${line} sources.right.table: table 'right_table' does not exist`);
    // An edited file is parsed afresh.
    writeFileSync(file, text.replace('test source left_table', 'edited left source'));
    expect(loadCatalog(file).sources.get('left')!.description).toBe('edited left source');
  });

  it('reports YAML syntax errors with their line', () => {
    const directory = temporaryDirectory();
    const file = writeCatalog(directory, 'version: 1\nsources:\n  fi: [unclosed\n');
    expect(loadError(() => loadCatalog(file)).message).toMatch(new RegExp(`is not valid YAML:\\n  ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:\\d+`));
  });

  it('says which file is missing and which variable to set', () => {
    expect(loadError(() => loadCatalog('/nonexistent/sources.yaml')).message).toMatch(/\/nonexistent\/sources\.yaml cannot be read.*Set CATALOG/);
  });
});
