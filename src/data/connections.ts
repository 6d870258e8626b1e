/**
 * The named connections a catalog's sources live on, opened on first use. A connection is a URL:
 * `sqlite:FILE`, `duckdb:FILE` (or `duckdb:` with `files` for Parquet/CSV tables), or
 * `postgres://…`. One that cannot be opened answers a `source_unavailable` tool error and is
 * tried again after a pause, while the other connections keep working. URLs may carry secrets:
 * only `describeConnection` output is ever shown.
 */
import { ToolError } from '../errors/index.ts';
import { redactConnectionUrl, safeUrl, withoutFolders } from '../shared/redact.ts';
import { sqliteDialect } from './dialect.ts';
import type { Engine, EngineKind } from './engines/engine.ts';
import { withComputedColumns, type ComputedColumns } from './periodColumns.ts';

/** The connection of sources that name none (DATA_URL, or DATA_DB as a SQLite file). */
export const DEFAULT_CONNECTION = 'default';
/** How long a connection that failed to open is refused before it is tried again. */
const RETRY_AFTER_MS = 5_000;

export interface ConnectionSpec {
  name: string;
  /** sqlite:FILE, duckdb:FILE, duckdb: (in memory, for files), postgres://… or postgresql://… */
  url: string;
  /** DuckDB only: tables backed by Parquet or CSV files (table → path or glob). */
  files?: Record<string, string>;
  /** Columns computed from stored ones, by table: periods held as YYYYMM, dates, … (periodColumns.ts). */
  computed?: ComputedColumns;
  /** DuckDB only: its memory_limit ('2GB'); beyond it a query spills to temporary files. */
  memoryLimit?: string;
}

export interface ConnectionState {
  name: string;
  engine: EngineKind;
  /** Where it points, without credentials or query string. */
  target: string;
  status: 'ok' | 'down' | 'not_opened';
  reason?: string;
}

/**
 * The engine a connection URL names.
 * @example
 * engineOf('postgres://reader@db:5432/finance'); // 'postgres'
 */
export function engineOf(url: string): EngineKind {
  if (/^postgres(ql)?:\/\//i.test(url)) return 'postgres';
  if (/^duckdb:/i.test(url)) return 'duckdb';
  if (/^sqlite:/i.test(url)) return 'sqlite';
  throw new Error(`'${safeUrl(url)}' is not a data URL: use sqlite:FILE, duckdb:FILE or postgres://user@host:port/database`);
}

/** A file path from sqlite:FILE or duckdb:FILE (undefined for an in-memory duckdb:). */
export function fileOf(url: string): string | undefined {
  const file = url.replace(/^(sqlite|duckdb):(\/\/)?/i, '');
  return file === '' || file === ':memory:' ? undefined : file;
}

/**
 * Where a connection points, safe to show: engine and file or host/database, never credentials.
 * @example
 * describeConnection({ name: 'warehouse', url: 'postgres://u:secret@db:5432/fi?sslmode=require' }); // 'postgres://db:5432/fi'
 */
export function describeConnection(spec: ConnectionSpec): string {
  const engine = engineOf(spec.url);
  if (engine === 'postgres') return safeUrl(spec.url);
  const file = fileOf(spec.url);
  if (file) return `${engine}:${file}`;
  return `${engine}: ${Object.keys(spec.files ?? {}).length} file tables`;
}

export interface ConnectionsOptions {
  /** PostgreSQL's server-side statement_timeout (the pool's own timeout stays the first line). */
  statementTimeoutMs: number;
}

export class Connections {
  private readonly specs = new Map<string, ConnectionSpec>();
  private readonly engines = new Map<string, Promise<Engine>>();
  private readonly failures = new Map<string, { at: number; reason: string }>();

  constructor(specs: readonly ConnectionSpec[], private readonly options: ConnectionsOptions) {
    for (const spec of specs) {
      engineOf(spec.url);
      this.specs.set(spec.name, spec);
    }
  }

  /**
   * Connections over engines already open (tests, scripts).
   * @example
   * const connections = Connections.of({ default: sqliteEngine(openDataDatabase('data/sample.db')) });
   */
  static of(engines: Record<string, Engine>): Connections {
    // The URLs only name the engine: these connections are never opened from them.
    const connections = new Connections(Object.entries(engines).map(([name, engine]) => ({ name, url: engine.kind === 'postgres' ? 'postgres://open' : `${engine.kind}:` })), { statementTimeoutMs: 0 });
    for (const [name, engine] of Object.entries(engines)) connections.adopt(name, engine);
    return connections;
  }

  /** Uses an engine opened elsewhere for a configured connection (the query worker opens its default eagerly). */
  adopt(name: string, engine: Engine): void {
    this.engines.set(name, Promise.resolve(engine));
  }

  spec(name: string): ConnectionSpec | undefined {
    return this.specs.get(name);
  }

  /**
   * The open engine of a connection, opening it on first use.
   * @throws ToolError source_unavailable when it cannot be opened (tried again after a pause)
   */
  async engine(name: string = DEFAULT_CONNECTION): Promise<Engine> {
    const spec = this.specs.get(name);
    if (!spec) throw new ToolError('source_unavailable', `No connection named '${name}' is configured.`, { hint: 'Use a source the catalog lists.', details: { connection: name } });
    const open = this.engines.get(name);
    if (open) {
      const engine = await open.catch(() => undefined);
      if (!engine?.broken?.()) return open;
      // A connection that broke (a server restart) is replaced, not kept failing.
      await this.discard(name);
    }
    const failure = this.failures.get(name);
    if (failure && Date.now() - failure.at < RETRY_AFTER_MS) throw unavailable(spec, failure.reason);
    const opening = openEngine(spec, this.options);
    this.engines.set(name, opening);
    try {
      const engine = await opening;
      this.failures.delete(name);
      return engine;
    } catch (error) {
      this.engines.delete(name);
      const reason = redactConnectionUrl((error as Error).message, spec.url);
      this.failures.set(name, { at: Date.now(), reason });
      throw unavailable(spec, reason);
    }
  }

  /** Forgets an engine whose connection broke, so the next query opens it again. */
  async discard(name: string): Promise<void> {
    const open = this.engines.get(name);
    this.engines.delete(name);
    await open?.then((engine) => engine.close()).catch(() => undefined);
  }

  /** Stops whatever statement runs on any open engine (a cancelled or timed-out question). */
  interrupt(): void {
    for (const open of this.engines.values()) void open.then((engine) => engine.interrupt()).catch(() => undefined);
  }

  /** Each connection's engine, target and state, without secrets. */
  async states(): Promise<ConnectionState[]> {
    return Promise.all(
      [...this.specs.values()].map(async (spec): Promise<ConnectionState> => {
        const base = { name: spec.name, engine: engineOf(spec.url), target: describeConnection(spec) };
        const failure = this.failures.get(spec.name);
        if (failure) return { ...base, status: 'down', reason: failure.reason };
        const open = this.engines.get(spec.name);
        if (!open) return { ...base, status: 'not_opened' };
        return open.then(
          () => ({ ...base, status: 'ok' as const }),
          (error: Error) => ({ ...base, status: 'down' as const, reason: error.message }),
        );
      }),
    );
  }

  async close(): Promise<void> {
    const open = [...this.engines.values()];
    this.engines.clear();
    await Promise.all(open.map((engine) => engine.then((e) => e.close()).catch(() => undefined)));
  }
}

function unavailable(spec: ConnectionSpec, reason: string): ToolError {
  // Public (tool results, problems): file names only, as GET /health shows them.
  return new ToolError('source_unavailable', withoutFolders(`The sources on connection '${spec.name}' (${describeConnection(spec)}) are unavailable: ${reason.replace(/\.$/, '')}.`), {
    hint: `Nothing was run. Sources on other connections still answer; this one is tried again in ${RETRY_AFTER_MS / 1000} s. GET /health shows its state.`,
    details: { connection: spec.name, retry_after_seconds: RETRY_AFTER_MS / 1000 },
  });
}

/**
 * Opens the engine of a connection; the drivers of DuckDB and PostgreSQL load only when used.
 * @example
 * const engine = await openEngine({ name: 'default', url: 'duckdb:data/sample.duckdb' }, { statementTimeoutMs: 30_000 });
 */
export async function openEngine(spec: ConnectionSpec, options: ConnectionsOptions): Promise<Engine> {
  const engine = engineOf(spec.url);
  if (engine === 'sqlite') {
    const [{ openDataDatabase }, { sqliteEngine }] = await Promise.all([import('./database.ts'), import('./engines/sqlite.ts')]);
    const file = fileOf(spec.url);
    if (!file) throw new Error('sqlite: needs a file path (sqlite:data/sample.db)');
    return sqliteEngine(openDataDatabase(file), withComputedColumns(sqliteDialect, spec.computed));
  }
  if (engine === 'duckdb') {
    const { openDuckdb } = await import('./engines/duckdb.ts');
    return openDuckdb({ file: fileOf(spec.url), files: spec.files ?? {}, computed: spec.computed, memoryLimit: spec.memoryLimit });
  }
  const { openPostgres } = await import('./engines/postgres.ts');
  return openPostgres({ url: spec.url, statementTimeoutMs: options.statementTimeoutMs, computed: spec.computed });
}
