/**
 * A DuckDB connection's `memory_limit` in the catalog: what a large comparison on Parquet may use
 * before it spills, raised by whoever runs the service when a question needs more; refused on
 * other engines and in any other form, and named in the hint when a query runs out of it.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadCatalog } from '../../src/catalog/loadCatalog.ts';
import { Connections } from '../../src/data/connections.ts';
import { queryFailure } from '../../src/data/dataAccess.ts';
import { ConfigurationError } from '../../src/errors/index.ts';
import { temporaryDirectory, twoSourceCatalog, writeCatalog } from '../support/catalogFixture.ts';

function catalogWith(connection: Record<string, unknown>) {
  const directory = temporaryDirectory();
  const document = twoSourceCatalog();
  const sources = Object.fromEntries(Object.entries(document.sources as Record<string, object>).map(([name, source]) => [name, { ...source, connection: 'exports' }]));
  return writeCatalog(directory, { ...document, connections: { exports: connection }, sources });
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
      const failure = await engine.all('SELECT count(*) FROM (SELECT i % 3000000 AS k, sum(i) FROM range(6000000) r(i) GROUP BY k)', []).then(
        () => undefined,
        (error: unknown) => queryFailure(error),
      );
      expect(failure?.message).toMatch(/^The database could not run the query: .*Out of Memory/);
      expect(failure?.hint).toMatch(/memory_limit/);
    } finally {
      await connections.close();
    }
  });
});
