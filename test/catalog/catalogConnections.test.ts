/**
 * A DuckDB connection's `memory_limit` in the catalog: what a large comparison on Parquet may use
 * before it spills, raised by whoever runs the service when a question needs more; refused on
 * other engines and in any other form, and named in the hint when a query runs out of it.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadCatalog } from '../../src/catalog/loadCatalog.ts';
import { openCatalog } from '../../src/catalog/openCatalog.ts';
import { loadConfig } from '../../src/config/config.ts';
import { silentLogger } from '../../src/logging/logger.ts';
import { Connections } from '../../src/data/connections.ts';
import { queryFailure } from '../../src/data/dataAccess.ts';
import { ConfigurationError } from '../../src/errors/index.ts';
import { temporaryDirectory, twoSourceCatalog, writeCatalog } from '../support/catalogFixture.ts';

/** A catalog whose two sources live on connection `exports` (or `left` and `right` ones, each its own). */
function catalogWith(connection: Record<string, unknown>, right?: Record<string, unknown>) {
  const directory = temporaryDirectory();
  const document = twoSourceCatalog();
  const connections = right ? { left: connection, right } : { exports: connection };
  const sources = Object.fromEntries(Object.entries(document.sources as Record<string, object>).map(([name, source]) => [name, { ...source, connection: right ? name : 'exports' }]));
  return writeCatalog(directory, { ...document, connections, sources });
}

function loadError(file: string): string {
  try {
    loadCatalog(file, { environment: {} });
  } catch (error) {
    if (ConfigurationError.isInstance(error)) return error.message;
    throw error;
  }
  throw new Error('expected a ConfigurationError');
}

describe("a DuckDB connection's memory_limit", () => {
  it('reaches the engine, which runs with it', async () => {
    const file = catalogWith({ files: { left: 'left.parquet', right: 'right.parquet' }, memory_limit: '48MB' });
    const [spec] = loadCatalog(file, { environment: {} }).connections;
    expect(spec).toMatchObject({ name: 'exports', url: 'duckdb:', memoryLimit: '48MB', files: { left: path.join(path.dirname(file), 'left.parquet') } });
    const connections = new Connections([{ name: 'exports', url: 'duckdb:', memoryLimit: '48MB' }], { statementTimeoutMs: 30_000 });
    try {
      const engine = await connections.engine('exports');
      // DuckDB shows 48 MB (10^6 bytes) in MiB.
      expect(await engine.all("SELECT current_setting('memory_limit')", [])).toEqual([['45.7 MiB']]);
    } finally {
      await connections.close();
    }
  });

  it('is refused in another form, or on a connection that is not DuckDB', () => {
    expect(loadError(catalogWith({ files: { left: 'left.parquet' }, memory_limit: 'lots' }))).toMatch(/connections\.exports\.memory_limit.*must be a size such as 384MB or 2GB/s);
    expect(loadError(catalogWith({ url: 'postgres://reader@127.0.0.1:5432/warehouse', memory_limit: '1GB' }))).toMatch(/connections\.exports\.memory_limit.*memory_limit is DuckDB's/s);
  });

  it('is named in the hint when a query needs more than it allows', async () => {
    const connections = new Connections([{ name: 'exports', url: 'duckdb:', memoryLimit: '16MB' }], { statementTimeoutMs: 30_000 });
    try {
      const engine = await connections.engine('exports');
      // A list of 10 M numbers (80 MB) is one value: it cannot spill, on any number of threads.
      const failure = await engine.all('SELECT length(list(i)) FROM range(10000000) r(i)', []).then(
        () => undefined,
        (error: unknown) => queryFailure(error),
      );
      expect(failure?.message).toMatch(/^The database could not run the query: .*Out of Memory/);
      expect(failure?.hint).toMatch(/memory_limit/);
    } finally {
      await connections.close();
    }
  });

  it('is DUCKDB_MEMORY_LIMIT where a DuckDB connection sets none, and the catalog\'s own where it does', async () => {
    const directory = temporaryDirectory();
    for (const table of ['left_table', 'right_table']) writeFileSync(path.join(directory, `${table}.csv`), 'key,k2,amount,cur\nK1,A,1.5,EUR\n');
    const files = (table: string) => ({ [table]: path.join(directory, `${table}.csv`) });
    const file = catalogWith({ files: files('left_table') }, { files: files('right_table'), memory_limit: '64MB' });
    const opened = await openCatalog(file, { name: 'default', url: 'sqlite::memory:' }, { statementTimeoutMs: 30_000, logger: silentLogger(), duckdbMemoryLimit: loadConfig({ DUCKDB_MEMORY_LIMIT: '48MB' } as NodeJS.ProcessEnv).duckdbMemoryLimit });
    expect(opened.states.map((state) => state.status)).toEqual(['ok', 'ok']);
    // The specs the query workers get.
    const connections = new Connections(opened.connections, { statementTimeoutMs: 30_000 });
    try {
      const limit = async (name: string) => (await (await connections.engine(name)).all("SELECT current_setting('memory_limit')", []))[0]![0];
      expect(await limit('left')).toBe('45.7 MiB');
      expect(await limit('right')).toBe('61.0 MiB');
    } finally {
      await connections.close();
    }
    expect(() => loadConfig({ DUCKDB_MEMORY_LIMIT: '8MB' } as NodeJS.ProcessEnv)).toThrow(/DUCKDB_MEMORY_LIMIT: must be a size such as 384MB or 2GB, at least 16MB/);
    expect(loadConfig({} as NodeJS.ProcessEnv).duckdbMemoryLimit).toBe('384MB');
    expect(loadConfig({ DUCKDB_MEMORY_LIMIT: '' } as NodeJS.ProcessEnv).duckdbMemoryLimit).toBe('384MB');
  });
});
