/**
 * The connections a catalog declares, made usable: `${VARIABLE}` read from the environment (so
 * secrets never sit in the file), relative file paths made absolute against the catalog's folder.
 */
import path from 'node:path';
import { engineOf, type ConnectionSpec } from '../data/connections.ts';
import type { CatalogDocument } from './schema.ts';

type Problem = { path: (string | number)[]; message: string };

/**
 * Resolves the declared connections; problems name the connection and what is wrong.
 * @example
 * resolveConnections({ warehouse: { url: '${FI_WAREHOUSE_URL}' } }, '/srv/catalog.yaml', process.env);
 * // { specs: [{ name: 'warehouse', url: 'postgres://…' }], problems: [] }
 */
export function resolveConnections(declared: CatalogDocument['connections'], catalogPath: string, environment: NodeJS.ProcessEnv): { specs: ConnectionSpec[]; problems: Problem[] } {
  const specs: ConnectionSpec[] = [];
  const problems: Problem[] = [];
  const directory = path.dirname(path.resolve(catalogPath));
  for (const [name, connection] of Object.entries(declared)) {
    const at = (...rest: string[]) => ['connections', name, ...rest];
    if (name === 'default') {
      problems.push({ path: at(), message: "'default' is set by DATA_URL (or DATA_DB), not in the catalog" });
      continue;
    }
    let url = connection.url ?? 'duckdb:';
    const missing = [...url.matchAll(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g)].map((m) => m[1]!).filter((variable) => environment[variable] === undefined);
    if (missing.length > 0) {
      problems.push({ path: at('url'), message: `environment variable ${missing.join(', ')} is not set` });
      continue;
    }
    url = url.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_, variable: string) => environment[variable]!);
    let engine;
    try {
      engine = engineOf(url);
    } catch (error) {
      problems.push({ path: at('url'), message: (error as Error).message });
      continue;
    }
    if (connection.files && engine !== 'duckdb') {
      problems.push({ path: at('files'), message: 'files (Parquet, CSV) are read through DuckDB: use url duckdb: or leave url out' });
      continue;
    }
    if (connection.memory_limit && engine !== 'duckdb') {
      problems.push({ path: at('memory_limit'), message: 'memory_limit is DuckDB\'s (PostgreSQL has its own work_mem; SQLite needs none): leave it out here' });
      continue;
    }
    const absolute = (file: string) => (path.isAbsolute(file) ? file : path.join(directory, file));
    if (engine !== 'postgres') {
      const file = url.replace(/^(sqlite|duckdb):/i, '');
      url = file === '' || file === ':memory:' ? `${engine}:` : `${engine}:${absolute(file)}`;
    }
    specs.push({
      name,
      url,
      ...(connection.files ? { files: Object.fromEntries(Object.entries(connection.files).map(([table, file]) => [table, absolute(file)])) } : {}),
      ...(connection.memory_limit ? { memoryLimit: connection.memory_limit } : {}),
    });
  }
  return { specs, problems };
}
