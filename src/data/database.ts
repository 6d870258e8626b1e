/**
 * Opens the data database (the SQLite file with the source tables) strictly read-only:
 * the file is opened read-only and the connection refuses writes (query_only).
 */
import { existsSync } from 'node:fs';
import Database from 'better-sqlite3';
import { ConfigurationError } from '../errors/index.ts';
import { registerFoldFunction } from './engines/sqlite.ts';
import { hashPartsExtended } from './keyHash.ts';

export type DataDatabase = Database.Database;

/**
 * Opens the SQLite file read-only, with the aggregate that runs a merge's reducer (engines/sqlite.ts)
 * and the key hash of checksum bisection (keyHash.ts).
 * @throws ConfigurationError when the file is missing or not a SQLite database.
 */
export function openDataDatabase(filePath: string): DataDatabase {
  if (!existsSync(filePath)) {
    throw new ConfigurationError(`DATA_DB: the data database ${filePath} does not exist. Run 'npm run data:sample' to build the sample, or point DATA_DB at a SQLite file.`);
  }
  try {
    const database = new Database(filePath, { readonly: true, fileMustExist: true });
    database.pragma('query_only = ON');
    // Touch the schema now so a corrupt or non-SQLite file fails at startup, not on the first question.
    database.prepare('SELECT count(*) FROM sqlite_schema').get();
    registerFoldFunction(database);
    // The key hash of checksum bisection, PostgreSQL's hashtextextended(…, 0) of the parts joined (keyHash.ts).
    database.function('key_hash', { deterministic: true, varargs: true }, (...parts: unknown[]) => hashPartsExtended(parts));
    return database;
  } catch (error) {
    throw new ConfigurationError(`DATA_DB: ${filePath} cannot be opened as a SQLite database: ${(error as Error).message}`);
  }
}

/** Column names of a table, or undefined if there is no such table or view. */
export function tableColumns(database: DataDatabase, table: string): string[] | undefined {
  const rows = database.prepare('SELECT name FROM pragma_table_info(?)').all(table) as { name: string }[];
  return rows.length > 0 ? rows.map((row) => row.name) : undefined;
}
