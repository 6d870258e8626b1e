/**
 * The application database's schema in PostgreSQL (APP_DB=postgres://…): the same tables as the
 * SQLite file (appDatabase.ts) plus `session_leases`, which serialises a session's turns across
 * service instances. Every instance creates the schema when it opens; the creation runs in one
 * transaction under an advisory lock, so instances starting at once neither race on
 * `CREATE TABLE IF NOT EXISTS` (which is not safe against itself) nor see half a schema.
 */
import type pg from 'pg';
import { ConfigurationError } from '../errors/index.ts';

/** The schema this code writes, kept in `app_schema_version`. */
export const POSTGRES_SCHEMA_VERSION = 1;

/** Any fixed 64-bit number: the advisory lock every instance takes while it creates the schema. */
const SCHEMA_LOCK = 7_301_513_224_081_337;

/*
 * Ids sort bytewise (COLLATE "C") as SQLite's do, so pages follow the same order on both stores.
 * Tool calls, usage, messages and artifacts are `json` (kept as written, key order included):
 * they are only ever read back whole. `json` also keeps U+0000 (as the escape \u0000), which a
 * `text` column cannot hold: a turn whose question or answer has one keeps both exactly in
 * `exact_text` (postgresRows.ts), so both stores give back what was asked and answered. The
 * column is nullable and an earlier release, which names the columns it reads and writes,
 * ignores it; so the schema version stays 1 and such an instance still works beside this one.
 */
const schema = `
CREATE TABLE IF NOT EXISTS app_schema_version (
  version integer NOT NULL
);
CREATE TABLE IF NOT EXISTS sessions (
  id         text COLLATE "C" PRIMARY KEY,
  title      text,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  turns      integer NOT NULL DEFAULT 0,
  owner      text
);
CREATE INDEX IF NOT EXISTS sessions_by_updated_at ON sessions (updated_at, id);
CREATE INDEX IF NOT EXISTS sessions_by_owner ON sessions (owner, updated_at, id);
CREATE TABLE IF NOT EXISTS turns (
  session_id  text COLLATE "C" NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
  seq         integer NOT NULL,
  question    text NOT NULL,
  answer      text NOT NULL,
  finished    boolean NOT NULL,
  stop_reason text NOT NULL,
  iterations  integer NOT NULL,
  tool_calls  json NOT NULL,
  usage       json NOT NULL,
  started_at  timestamptz NOT NULL,
  finished_at timestamptz NOT NULL,
  exact_text  json,
  figures     json,
  PRIMARY KEY (session_id, seq)
);
-- Added after version 1 was released, so created here for older databases too. Only checked,
-- never altered, when present: ALTER TABLE would lock the table while other instances write.
DO $$ BEGIN
  IF NOT EXISTS (SELECT 1 FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = 'turns' AND column_name = 'exact_text') THEN
    ALTER TABLE turns ADD COLUMN exact_text json;
  END IF;
  IF NOT EXISTS (SELECT 1 FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = 'turns' AND column_name = 'figures') THEN
    ALTER TABLE turns ADD COLUMN figures json;
  END IF;
END $$;
CREATE TABLE IF NOT EXISTS messages (
  session_id text COLLATE "C" NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
  seq        integer NOT NULL,
  turn_seq   integer NOT NULL,
  message    json NOT NULL,
  PRIMARY KEY (session_id, seq)
);
CREATE TABLE IF NOT EXISTS session_artifacts (
  session_id text COLLATE "C" NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
  key        text NOT NULL,
  value      json NOT NULL,
  updated_at timestamptz NOT NULL,
  PRIMARY KEY (session_id, key)
);
-- The skills' own records (postgresSkillRecords.ts): a table of its own, which an earlier
-- release never reads, so the schema version stays 1. A deleted record is a tombstone keeping
-- its version, so one created again under its id continues the count.
CREATE TABLE IF NOT EXISTS skill_records (
  namespace  text COLLATE "C" NOT NULL,
  collection text COLLATE "C" NOT NULL,
  id         text COLLATE "C" NOT NULL,
  value      json NOT NULL,
  version    integer NOT NULL,
  updated_at timestamptz NOT NULL,
  deleted    boolean NOT NULL DEFAULT false,
  PRIMARY KEY (namespace, collection, id)
);
DO $$ BEGIN
  IF NOT EXISTS (SELECT 1 FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = 'skill_records' AND column_name = 'deleted') THEN
    ALTER TABLE skill_records ADD COLUMN deleted boolean NOT NULL DEFAULT false;
  END IF;
END $$;
-- Who runs a turn on a session now, until when (the server's clock). No foreign key: a lease
-- outlives a session deleted during its turn and is released by its holder as usual.
CREATE TABLE IF NOT EXISTS session_leases (
  session_id text COLLATE "C" PRIMARY KEY,
  holder     text NOT NULL,
  expires_at timestamptz NOT NULL
);
`;

/**
 * Creates the schema when missing and records its version; refuses a database a newer version
 * of the service wrote.
 * @throws ConfigurationError naming APP_DB for a newer schema; the driver's error otherwise.
 * @example
 * await migratePostgres(client); // client: a connection of the APP_DB pool
 */
export async function migratePostgres(client: pg.ClientBase): Promise<void> {
  await client.query('BEGIN');
  try {
    await client.query('SELECT pg_advisory_xact_lock($1)', [SCHEMA_LOCK]);
    await client.query(schema);
    const rows = (await client.query<{ version: number }>('SELECT version FROM app_schema_version')).rows;
    const version = rows.reduce((highest, row) => Math.max(highest, row.version), 0);
    if (version > POSTGRES_SCHEMA_VERSION) {
      throw new ConfigurationError(`APP_DB: the PostgreSQL database has schema version ${version}; this service knows version ${POSTGRES_SCHEMA_VERSION}. Upgrade the service or point APP_DB at another database.`);
    }
    if (rows.length === 0) await client.query('INSERT INTO app_schema_version (version) VALUES ($1)', [POSTGRES_SCHEMA_VERSION]);
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
}
