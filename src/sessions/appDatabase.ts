/**
 * The application database (SQLite, separate from the read-only data database): opening it
 * with the settings the session store's durability promise rests on, refusing a damaged file
 * (with how to recover), and creating its schema or refusing a file a newer version of the
 * service wrote. appDatabaseGuard.ts watches the file once the service runs.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { ConfigurationError } from '../errors/index.ts';
import { isDamaged, sqliteCode } from '../shared/sqliteErrors.ts';
import { RECOVERY } from './appDatabaseGuard.ts';
import { skillRecordsSchema } from './sqliteSkillRecords.ts';

/** The schema this code writes, kept in `PRAGMA user_version`. */
export const SCHEMA_VERSION = 1;

const schema = `
CREATE TABLE IF NOT EXISTS sessions (
  id         TEXT PRIMARY KEY,
  title      TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  turns      INTEGER NOT NULL DEFAULT 0,
  owner      TEXT
);
CREATE INDEX IF NOT EXISTS sessions_by_updated_at ON sessions (updated_at, id);
CREATE INDEX IF NOT EXISTS sessions_by_owner ON sessions (owner, updated_at, id);
CREATE TABLE IF NOT EXISTS turns (
  session_id  TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
  seq         INTEGER NOT NULL,
  question    TEXT NOT NULL,
  answer      TEXT NOT NULL,
  finished    INTEGER NOT NULL,
  stop_reason TEXT NOT NULL,
  iterations  INTEGER NOT NULL,
  tool_calls  TEXT NOT NULL,
  usage       TEXT NOT NULL,
  started_at  TEXT NOT NULL,
  finished_at TEXT NOT NULL,
  PRIMARY KEY (session_id, seq)
);
CREATE TABLE IF NOT EXISTS messages (
  session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
  seq        INTEGER NOT NULL,
  turn_seq   INTEGER NOT NULL,
  message    TEXT NOT NULL,
  PRIMARY KEY (session_id, seq)
);
`;

/**
 * Values tools keep for follow-ups in a session (SessionStore.saveArtifact), deleted with it.
 * Additive: created on any file that lacks it, older versions never read it.
 */
const artifactsSchema = `
CREATE TABLE IF NOT EXISTS session_artifacts (
  session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
  key        TEXT NOT NULL,
  value      TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  PRIMARY KEY (session_id, key)
);
`;

/**
 * Opens the database at `file`, creating it, its folder and its schema when missing, and checks
 * an existing file's integrity (`PRAGMA quick_check`, about 15 ms a megabyte): a damaged file
 * stops startup rather than losing conversations a little at a time.
 * @throws ConfigurationError when the file is damaged or has a newer schema; the SQLite error when it cannot be opened.
 * @example
 * const database = openAppDatabase('data/app.db');
 */
export function openAppDatabase(file: string): Database.Database {
  mkdirSync(path.dirname(file), { recursive: true });
  const database = new Database(file);
  try {
    database.pragma('busy_timeout = 5000');
    database.pragma('journal_mode = WAL');
    // FULL: a committed transaction is on disk before commit returns, even in WAL mode.
    database.pragma('synchronous = FULL');
    database.pragma('foreign_keys = ON');
    checkIntegrity(database, file);
    migrate(database);
  } catch (error) {
    database.close();
    throw isDamaged(sqliteCode(error)) ? damaged(file, (error as Error).message) : error;
  }
  return database;
}

/** @throws ConfigurationError when SQLite's quick check finds the file damaged. */
function checkIntegrity(database: Database.Database, file: string): void {
  const rows = database.pragma('quick_check(3)') as { quick_check: string }[];
  const findings = rows.map((row) => row.quick_check).filter((finding) => finding !== 'ok');
  if (findings.length > 0) throw damaged(file, findings.join('; ').replace(/\s+/g, ' ').trim());
}

function damaged(file: string, detail: string): ConfigurationError {
  return new ConfigurationError(`APP_DB: ${file} is damaged (${detail}); the service does not start on it, so that no conversation is lost silently. ${RECOVERY}`);
}

/**
 * Creates the schema on a new file; refuses a file written by a newer version. A file from before
 * sessions had owners gets the nullable `owner` column (and its index) added: an additive change
 * older versions of the service read without noticing, so the schema version stays the same.
 */
function migrate(database: Database.Database): void {
  database
    .transaction(() => {
      const version = database.pragma('user_version', { simple: true }) as number;
      if (version > SCHEMA_VERSION) {
        throw new ConfigurationError(`APP_DB: ${database.name} has schema version ${version}; this service knows version ${SCHEMA_VERSION}. Upgrade the service or point APP_DB at another file.`);
      }
      if (version < SCHEMA_VERSION) {
        database.exec(schema);
        database.pragma(`user_version = ${SCHEMA_VERSION}`);
      }
      const columns = database.prepare<[], { name: string }>("SELECT name FROM pragma_table_info('sessions')").all();
      if (!columns.some((column) => column.name === 'owner')) {
        database.exec('ALTER TABLE sessions ADD COLUMN owner TEXT; CREATE INDEX IF NOT EXISTS sessions_by_owner ON sessions (owner, updated_at, id);');
      }
      // Receipts of an answer's figures, added beside the turn (nullable: older turns have none).
      const turnColumns = database.prepare<[], { name: string }>("SELECT name FROM pragma_table_info('turns')").all();
      if (!turnColumns.some((column) => column.name === 'figures')) database.exec('ALTER TABLE turns ADD COLUMN figures TEXT');
      database.exec(artifactsSchema);
      // The skills' own records (sqliteSkillRecords.ts): a table of its own, which older services never read.
      database.exec(skillRecordsSchema);
      const recordColumns = database.prepare<[], { name: string }>("SELECT name FROM pragma_table_info('skill_records')").all();
      if (!recordColumns.some((column) => column.name === 'deleted')) database.exec('ALTER TABLE skill_records ADD COLUMN deleted INTEGER NOT NULL DEFAULT 0');
    })
    .immediate();
}
