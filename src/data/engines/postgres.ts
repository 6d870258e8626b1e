/**
 * The PostgreSQL engine (`pg`): anything that speaks the Postgres wire protocol. Every statement
 * runs in a read-only session with a server-side `statement_timeout`; a timeout or a cancelled
 * question cancels the statement on the server (the protocol's cancel request), so no work
 * outlives its question. Numerics and big integers come back as numbers; large results are read
 * through a cursor. TLS options in the URL mean what they mean to libpq (postgresTls.ts).
 */
import pg from 'pg';
import Cursor from 'pg-cursor';
import { postgresDialect } from '../dialect.ts';
import { withComputedColumns, type ComputedColumns } from '../periodColumns.ts';
import type { Value } from '../query.ts';
import type { Engine } from './engine.ts';
import { connectLibpq } from '../../shared/postgresTls.ts';

const CHUNK_ROWS = 2_048;
/** int8 (COUNT, SUM of integers) and numeric (SUM, ROUND) as JavaScript numbers, not strings. */
const NUMERIC_TYPES = new Set([20, 1700]);
const types = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') => (NUMERIC_TYPES.has(oid) ? (value: string) => Number(value) : pg.types.getTypeParser(oid, format))) as typeof pg.types.getTypeParser,
};

export interface PostgresOptions {
  /** postgres://user:password@host:port/database?sslmode=require (TLS options as in libpq's URL). */
  url: string;
  /** Server-side limit for one statement (a backstop behind the pool's own timeout). */
  statementTimeoutMs: number;
  /** Tables with computed period columns (periodColumns.ts). */
  computed?: ComputedColumns | undefined;
}

/**
 * Connects one client for one query at a time (a query worker runs one query at a time).
 * @example
 * const engine = await openPostgres({ url: process.env.FI_WAREHOUSE_URL!, statementTimeoutMs: 30_000 });
 */
export async function openPostgres(options: PostgresOptions): Promise<Engine> {
  const requested = { connectionString: options.url, types, statement_timeout: options.statementTimeoutMs, application_name: 'analyst-agent', options: '-c default_transaction_read_only=on', connectionTimeoutMillis: 5_000 };
  const { client, connectionString } = await connectLibpq(requested);
  // The cancel connection goes the way this one went (TLS or, for `prefer`, plain).
  const settings = { ...requested, connectionString };
  let broken = false;
  client.on('error', () => {
    broken = true;
  });
  let running = false;
  let sibling: Promise<Engine> | undefined;
  const usable = () => {
    if (broken) throw new Error('the connection to PostgreSQL was lost');
  };
  return {
    kind: 'postgres',
    dialect: withComputedColumns(postgresDialect, options.computed),
    all: async (sql, params) => {
      usable();
      running = true;
      try {
        return (await client.query({ text: sql, values: params as Value[], rowMode: 'array' })).rows;
      } finally {
        running = false;
      }
    },
    chunks: (sql, params) => {
      usable();
      return readCursor(client, sql, params, (busy) => (running = busy));
    },
    columns: async (table) => {
      usable();
      const result = await client.query<{ column_name: string }>(
        "SELECT column_name FROM information_schema.columns WHERE table_name = $1 AND table_schema = ANY (current_schemas(false)) ORDER BY ordinal_position",
        [table],
      );
      return result.rows.length > 0 ? result.rows.map((row) => row.column_name) : undefined;
    },
    broken: () => broken,
    // The way this connection went (TLS or plain), so the sibling does not negotiate it again.
    sibling: () => (sibling ??= openPostgres({ ...options, url: connectionString })),
    interrupt: () => {
      void sibling?.then((other) => other.interrupt());
      // The server process id the driver learnt at connect (not in @types/pg).
      const processId = (client as pg.Client & { processID?: number }).processID;
      if (!running || processId === undefined) return;
      // Cancelled from a connection of its own (a role may cancel its own sessions): the server stops the statement.
      void cancelBackend(settings, processId);
    },
    close: async () => {
      await sibling?.then((other) => other.close()).catch(() => undefined);
      await client.end().catch(() => undefined);
    },
  };
}

async function cancelBackend(settings: pg.ClientConfig, processId: number): Promise<void> {
  const canceller = new pg.Client({ ...settings, options: undefined });
  try {
    await canceller.connect();
    await canceller.query('SELECT pg_cancel_backend($1)', [processId]);
  } catch {
    // Best effort: the statement_timeout and the pool's kill remain.
  } finally {
    await canceller.end().catch(() => undefined);
  }
}

async function* readCursor(client: pg.Client, sql: string, params: readonly Value[], track: (busy: boolean) => void): AsyncIterable<unknown[][]> {
  const cursor = client.query(new Cursor(sql, params as Value[], { rowMode: 'array' }));
  track(true);
  try {
    for (;;) {
      const rows = (await cursor.read(CHUNK_ROWS)) as unknown[][];
      if (rows.length === 0) return;
      yield rows;
    }
  } finally {
    track(false);
    await cursor.close();
  }
}
