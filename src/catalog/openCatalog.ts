/**
 * Loads the catalog and checks it against the databases its sources live on: every table and
 * column must exist on its connection. A default connection on a file that cannot be opened
 * stops the start (as DATA_DB always did); any other connection that cannot be reached is
 * reported and its sources answer `source_unavailable` until it is back, while the rest work.
 * A default connection no source uses is not opened at all (a catalog over files alone).
 */
import { ConfigurationError, ToolError } from '../errors/index.ts';
import type { Logger } from '../logging/logger.ts';
import { Connections, DEFAULT_CONNECTION, describeConnection, engineOf, openEngine, type ConnectionSpec, type ConnectionState } from '../data/connections.ts';
import { computedColumnsOf, type Catalog } from './catalog.ts';
import { loadCatalog } from './loadCatalog.ts';

export interface OpenedCatalog {
  catalog: Catalog;
  /** Every connection: the default one first (when a source uses it), then the catalog's. */
  connections: ConnectionSpec[];
  /** Whether a source lives on the default connection (DATA_URL/DATA_DB); else it is never opened. */
  defaultUsed: boolean;
  /** How each connection answered at startup. */
  states: ConnectionState[];
}

/**
 * @throws ConfigurationError for an invalid catalog, a missing table or column, or a default file that cannot be opened
 * @example
 * const { catalog, connections } = await openCatalog('data/sources.yaml', { name: 'default', url: 'sqlite:data/sample.db' }, { statementTimeoutMs: 30_000, logger });
 */
export async function openCatalog(catalogPath: string, defaultConnection: ConnectionSpec, options: { statementTimeoutMs: number; logger: Logger; environment?: NodeJS.ProcessEnv; duckdbMemoryLimit?: string }): Promise<OpenedCatalog> {
  const draft = loadCatalog(catalogPath, { environment: options.environment ?? process.env });
  // Periods held as YYYYMM, dates, …: the workers read them through computed YYYYPPP columns.
  const computed = computedColumnsOf(draft);
  const defaultUsed = [...draft.sources.values()].some((source) => source.connection === DEFAULT_CONNECTION);
  // DuckDB connections without a memory_limit of their own get DUCKDB_MEMORY_LIMIT (the default connection too).
  const limited = (spec: ConnectionSpec) => (options.duckdbMemoryLimit && !spec.memoryLimit && engineOf(spec.url) === 'duckdb' ? { ...spec, memoryLimit: options.duckdbMemoryLimit } : spec);
  const specs = [...(defaultUsed ? [defaultConnection] : []), ...draft.connections].map((spec) => limited(computed.has(spec.name) ? { ...spec, computed: computed.get(spec.name)! } : spec));
  const connections = new Connections(specs, { statementTimeoutMs: options.statementTimeoutMs });
  try {
    if (defaultUsed && engineOf(defaultConnection.url) !== 'postgres') {
      // A default file that cannot be opened stops the start with the file's own message.
      try {
        connections.adopt(DEFAULT_CONNECTION, await openEngine(limited(defaultConnection), { statementTimeoutMs: options.statementTimeoutMs }));
      } catch (error) {
        if (error instanceof ConfigurationError) throw error;
        throw new ConfigurationError(`DATA_URL: ${describeConnection(defaultConnection)} cannot be opened: ${(error as Error).message}`);
      }
    }
    const columns = new Map<string, string[] | undefined | 'unavailable'>();
    const keyOf = (table: string, connection: string) => `${connection}\u0000${table}`;
    for (const source of draft.sources.values()) {
      const key = keyOf(source.table, source.connection);
      if (columns.has(key)) continue;
      try {
        const engine = await connections.engine(source.connection);
        columns.set(key, await engine.columns(source.table));
      } catch (error) {
        const spec = connections.spec(source.connection)!;
        const reason = ToolError.isInstance(error) ? error.message : (error as Error).message;
        options.logger.warn({ connection: source.connection, target: describeConnection(spec), reason }, 'a data connection is unavailable; its sources answer source_unavailable until it is back');
        columns.set(key, 'unavailable');
      }
    }
    const catalog = loadCatalog(catalogPath, { environment: options.environment ?? process.env, columnsOf: (table, connection) => columns.get(keyOf(table, connection)) });
    return { catalog, connections: specs, defaultUsed, states: await connections.states() };
  } finally {
    await connections.close();
  }
}
