/**
 * The data engines the SQL-injection corpus runs against (sqlInjection.test.ts), each with its
 * own private data, its proof that nothing was written, and its own read-only tests:
 *
 * - SQLite: a copy of data/sample.db (DATA_DB). Proof: the file is byte-identical (sha256), has
 *   the same mtime, and no file (journal, WAL, ATTACH target) appeared beside it. Its own test:
 *   the data connection itself refuses writes, ATTACH, pragma changes and load_extension.
 * - DuckDB: a private copy of the run's DuckDB sample (DATA_URL=duckdb:<copy>). Same file proof
 *   (a read-only DuckDB writes no .wal and no .tmp). Its own test: the engine as the service
 *   opens it refuses INSERT/UPDATE/DELETE/CREATE/DROP/ATTACH, COPY TO and EXPORT (file access
 *   is switched off and locked), and reading any file it was not given.
 * - PostgreSQL: the reader URL (DATA_URL=postgres://analyst_reader@…/analyst). Proof: a checksum
 *   of every table (rows, SUM(cs_trn_lc), md5 of the ordered rows) and the list of relations,
 *   taken through the admin URL, is unchanged. Its own tests: the reader role's writes are
 *   refused (read-only transactions, and SELECT-only privileges underneath), and the service's
 *   sessions are the reader's.
 */
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { openDuckdb } from '../../src/data/engines/duckdb.ts';
import pg from 'pg';
import { expect, it } from 'vitest';
import { fileSamples, postgresUrls } from '../support/engineServers.ts';
import type { FileSamples, PostgresUrls } from '../support/postgresServer.ts';
import { projectRoot } from '../../src/config/config.ts';
import { openDataDatabase } from '../../src/data/database.ts';
import { temporaryDirectory } from '../support/catalogFixture.ts';
import type { InjectionTarget } from './injectionHarness.ts';
import { ATTACH_TARGETS } from './injectionCorpus.ts';

export interface InjectionEngine {
  /** Shown in the describe title. */
  name: 'SQLite' | 'DuckDB' | 'PostgreSQL';
  /** Makes the engine's private data in `directory` (beforeAll) and returns the service's data settings. */
  prepare(directory: string): Promise<Record<string, string>>;
  /** Everything the corpus must leave alone; taken before the service starts and again at the end. */
  fingerprint(): Promise<unknown>;
  /** Declares the engine's own read-only tests (inside the engine's describe, after the corpus). */
  readOnlyTests(target: () => InjectionTarget): void;
}

const sha256 = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');

/** The data file's content and mtime, and every file beside it except the service's own app.db*. */
function fileFingerprint(file: string) {
  const stat = statSync(file);
  const files = readdirSync(path.dirname(file)).filter((name) => !name.startsWith('app.db')).sort();
  return { sha256: sha256(file), size: stat.size, mtimeMs: stat.mtimeMs, files };
}

/** Whether each ATTACH/VACUUM INTO target of the corpus exists, and its mtime. */
export function attachTargetState(): Map<string, number | null> {
  return new Map(ATTACH_TARGETS.map((file) => [file, existsSync(file) ? statSync(file).mtimeMs : null]));
}

function sqliteEngine(): InjectionEngine {
  let dataCopy = '';
  return {
    name: 'SQLite',
    prepare: async (directory) => {
      dataCopy = path.join(directory, 'data.db');
      copyFileSync(path.join(projectRoot, 'data/sample.db'), dataCopy);
      return { DATA_DB: dataCopy };
    },
    fingerprint: async () => fileFingerprint(dataCopy),
    readOnlyTests: () => {
      it('the data connection refuses every write, ATTACH and pragma change itself (read-only + query_only)', () => {
        const database = openDataDatabase(dataCopy);
        const vacuumDirectory = temporaryDirectory('analyst-security-vacuum-');
        try {
          const statements = [
            'DROP TABLE fi_reporting',
            'DELETE FROM fi_reporting',
            "INSERT INTO fi_reporting (compcode) VALUES ('pwned')",
            'UPDATE fi_reporting SET cs_trn_lc = 0',
            'CREATE TABLE pwned (a)',
            `ATTACH DATABASE '${ATTACH_TARGETS[0]}' AS x`,
            // Refused too, but SQLite creates the (empty) target file before refusing: see the report.
            `VACUUM INTO '${path.join(vacuumDirectory, 'copy.db')}'`,
          ];
          for (const statement of statements) expect(() => database.exec(statement), statement).toThrow();
          // A pragma write is refused too, or at least leaves the guard on.
          try {
            database.exec('PRAGMA query_only = 0');
          } catch {
            // refused: fine
          }
          expect(() => database.exec('DELETE FROM fi_reporting')).toThrow();
          // SQL cannot load extensions.
          expect(() => database.prepare("SELECT load_extension('/tmp/evil.so')").get()).toThrow();
        } finally {
          database.close();
          rmSync(vacuumDirectory, { recursive: true, force: true });
        }
      });
    },
  };
}

function duckdbEngine(samples: FileSamples): InjectionEngine {
  let dataCopy = '';
  return {
    name: 'DuckDB',
    prepare: async (directory) => {
      // A private copy: the run's sample file is shared by other test files.
      dataCopy = path.join(directory, 'data.duckdb');
      copyFileSync(samples.duckdbPath, dataCopy);
      return { DATA_URL: `duckdb:${dataCopy}` };
    },
    fingerprint: async () => fileFingerprint(dataCopy),
    readOnlyTests: () => {
      it('the engine refuses writes, DDL, ATTACH, file reads and writes, and turning file access back on', async () => {
        // The engine exactly as the service opens it (src/data/engines/duckdb.ts).
        const engine = await openDuckdb({ file: dataCopy, files: {} });
        const scratch = temporaryDirectory('analyst-security-duckdb-');
        try {
          const refused = [
            "INSERT INTO fi_reporting (compcode) VALUES ('pwned')",
            'UPDATE fi_reporting SET cs_trn_lc = 0',
            'DELETE FROM fi_reporting',
            'CREATE TABLE pwned (a INTEGER)',
            'DROP TABLE fi_reporting',
            `ATTACH '${ATTACH_TARGETS[1]}' AS p`,
            "SET access_mode = 'READ_WRITE'",
            // Read-only protects the database file; switched-off file access protects the rest.
            `COPY (SELECT 1 AS a) TO '${path.join(scratch, 'copy.csv')}'`,
            `EXPORT DATABASE '${path.join(scratch, 'export')}'`,
            "SELECT * FROM read_csv_auto('/etc/passwd')",
            'SET enable_external_access = true',
          ];
          for (const statement of refused) await expect(engine.all(statement, []), statement).rejects.toThrow();
          expect(readdirSync(scratch)).toEqual([]);
        } finally {
          await engine.close();
          rmSync(scratch, { recursive: true, force: true });
        }
        expect(fileFingerprint(dataCopy).files).toEqual([path.basename(dataCopy)]);
      });
    },
  };
}

/** The admin URL pointed at the reader's database (`analyst`). */
function adminUrlOfReaderDatabase(urls: PostgresUrls): string {
  const url = new URL(urls.adminUrl);
  url.pathname = new URL(urls.readerUrl).pathname;
  return url.toString();
}

async function withClient<T>(config: pg.ClientConfig, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client(config);
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** The SQLSTATE a statement fails with, or 'ran' when it succeeds. */
async function errorCode(client: pg.Client, statement: string): Promise<string> {
  try {
    await client.query(statement);
    return 'ran';
  } catch (error) {
    return String((error as { code?: unknown }).code);
  }
}

/** Writes a reader must never manage, whatever its session settings. */
const READER_WRITES = [
  "INSERT INTO fi_reporting (compcode) VALUES ('pwned')",
  'UPDATE fi_reporting SET cs_trn_lc = 0',
  'DELETE FROM fi_reporting',
  'TRUNCATE fi_reporting',
  'DROP TABLE fi_reporting',
  'CREATE TABLE pwned (a int)',
  'CREATE SCHEMA pwned',
  "COPY fi_reporting TO '/tmp/analyst-injection-pwned.csv'",
];

function postgresEngine(urls: PostgresUrls): InjectionEngine {
  const adminUrl = adminUrlOfReaderDatabase(urls);
  const readerUrl = urls.readerUrl;
  const database = new URL(readerUrl).pathname.slice(1);
  const reader = new URL(readerUrl).username;
  return {
    name: 'PostgreSQL',
    prepare: async () => ({ DATA_URL: readerUrl }),
    fingerprint: () =>
      withClient({ connectionString: adminUrl }, async (client) => {
        const relations = (
          await client.query<{ relation: string }>(
            "SELECT n.nspname || '.' || c.relname || ':' || c.relkind::text AS relation FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg_toast%' AND n.nspname NOT LIKE 'pg_temp%' ORDER BY 1",
          )
        ).rows.map((row) => row.relation);
        const tables = (await client.query<{ table_name: string }>("SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE' ORDER BY 1")).rows.map((row) => row.table_name);
        const checksums: Record<string, unknown> = {};
        for (const table of tables) {
          const hasAmount = (await client.query("SELECT 1 FROM information_schema.columns WHERE table_schema = 'public' AND table_name = $1 AND column_name = 'cs_trn_lc'", [table])).rowCount === 1;
          const name = client.escapeIdentifier(table);
          const sql = `SELECT COUNT(*)::text AS rows, ${hasAmount ? 'SUM(cs_trn_lc)::text' : 'NULL'} AS amount, md5(COALESCE(string_agg(t::text, E'\\n' ORDER BY t::text), '')) AS content FROM ${name} AS t`;
          checksums[table] = (await client.query(sql)).rows[0];
        }
        return { relations, checksums };
      }),
    readOnlyTests: (target) => {
      it(`the reader role's writes are refused: read-only transactions (25006), and SELECT-only privileges underneath (42501)`, async () => {
        await withClient({ connectionString: readerUrl }, async (client) => {
          // The role's default_transaction_read_only = on.
          for (const statement of READER_WRITES) expect(['25006', '42501'], statement).toContain(await errorCode(client, statement));
          // A session may switch its own default off: the privileges still refuse every write.
          await client.query('SET default_transaction_read_only = off');
          for (const statement of READER_WRITES) expect(await errorCode(client, statement), statement).toBe('42501');
        });
        expect(existsSync('/tmp/analyst-injection-pwned.csv')).toBe(false);
      });

      it("the service's sessions (application_name 'analyst-agent') are the reader's, and a session opened like them refuses writes", async () => {
        target();
        const sessions = await withClient({ connectionString: urls.adminUrl }, async (client) =>
          (await client.query<{ usename: string; datname: string }>("SELECT usename, datname FROM pg_stat_activity WHERE application_name = 'analyst-agent' AND datname = $1", [database])).rows,
        );
        // The query workers hold their connections while the service runs.
        expect(sessions.length).toBeGreaterThanOrEqual(1);
        expect(new Set(sessions.map((session) => session.usename))).toEqual(new Set([reader]));
        // Opened with the engine's session options (src/data/engines/postgres.ts).
        await withClient({ connectionString: readerUrl, application_name: 'analyst-agent-check', options: '-c default_transaction_read_only=on' }, async (client) => {
          expect((await client.query<{ default_transaction_read_only: string }>('SHOW default_transaction_read_only')).rows[0]!.default_transaction_read_only).toBe('on');
          for (const statement of READER_WRITES) expect(['25006', '42501'], statement).toContain(await errorCode(client, statement));
          expect(await errorCode(client, "INSERT INTO fi_reporting (compcode) VALUES ('pwned')")).toBe('25006');
        });
      });
    },
  };
}

/**
 * A fresh descriptor per engine (each holds its own data paths), for `describe.each`.
 * @example
 * describe.each((await injectionEngines()).map((engine) => [engine.name, engine] as const))('on %s', …);
 */
export async function injectionEngines(): Promise<InjectionEngine[]> {
  const [urls, samples] = await Promise.all([postgresUrls(), fileSamples()]);
  return [sqliteEngine(), duckdbEngine(samples), postgresEngine(urls)];
}
