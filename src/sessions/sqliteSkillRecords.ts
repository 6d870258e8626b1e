/**
 * The skills' durable records (skills/sdk/records.ts) in the SQLite application database: one
 * row per record in `skill_records`, keyed by the skill's namespace, the collection and the id.
 * A write is one statement, so a version check and the write are atomic without a transaction.
 */
import type Database from 'better-sqlite3';
import { RecordConflictError } from '../errors/index.ts';
import { checkKey, expectedVersion, listOptions, recordText, type SkillRecord, type SkillRecords } from '../skills/sdk/records.ts';
import type { AppDatabaseGuard } from './appDatabaseGuard.ts';

/**
 * Created with the rest of the schema (appDatabase.ts); additive, so older services ignore it.
 * A deleted record stays as a tombstone (`deleted` = 1) keeping its version, so a record created
 * again under the same id continues the count: a writer still holding a version of the old one
 * can never match the new one.
 */
export const skillRecordsSchema = `
CREATE TABLE IF NOT EXISTS skill_records (
  namespace  TEXT NOT NULL,
  collection TEXT NOT NULL,
  id         TEXT NOT NULL,
  value      TEXT NOT NULL,
  version    INTEGER NOT NULL,
  updated_at TEXT NOT NULL,
  deleted    INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (namespace, collection, id)
);
`;

interface Row {
  collection: string;
  id: string;
  value: string;
  version: number;
  updated_at: string;
}

const record = <Value>(row: Row): SkillRecord<Value> => ({ collection: row.collection, id: row.id, value: JSON.parse(row.value) as Value, version: row.version, updatedAt: row.updated_at });

/**
 * One skill's records in the file.
 * @example
 * const records = new SqliteSkillRecords(database, guard, 'month_end_close', () => new Date().toISOString());
 * await records.put('checks', 'fi-vs-bpc', { sources: ['fi_reporting', 'bpc_reporting'] });
 */
export class SqliteSkillRecords implements SkillRecords {
  constructor(
    private readonly database: Database.Database,
    private readonly guard: AppDatabaseGuard,
    private readonly namespace: string,
    private readonly timestamp: () => string,
  ) {}

  async get<Value = unknown>(collection: string, id: string): Promise<SkillRecord<Value> | undefined> {
    checkKey(collection, id);
    const row = this.guard.read(() => this.database.prepare<[string, string, string], Row>('SELECT collection, id, value, version, updated_at FROM skill_records WHERE namespace = ? AND collection = ? AND id = ? AND deleted = 0').get(this.namespace, collection, id));
    return row && record<Value>(row);
  }

  async list<Value = unknown>(collection: string, options?: { prefix?: string; after?: string; limit?: number }): Promise<SkillRecord<Value>[]> {
    const { prefix, after, limit } = listOptions(collection, options);
    const rows = this.guard.read(() =>
      this.database
        .prepare<[string, string, number, string, string | null, string | null, number], Row>(
          `SELECT collection, id, value, version, updated_at FROM skill_records
           WHERE namespace = ? AND collection = ? AND deleted = 0 AND substr(id, 1, ?) = ? AND (? IS NULL OR id > ?)
           ORDER BY id LIMIT ?`,
        )
        // substr counts characters: so does [...prefix] (prefix.length counts UTF-16 units).
        .all(this.namespace, collection, [...prefix].length, prefix, after ?? null, after ?? null, limit),
    );
    return rows.map((row) => record<Value>(row));
  }

  async put<Value = unknown>(collection: string, id: string, value: Value, options?: { version?: number }): Promise<SkillRecord<Value>> {
    const text = recordText(collection, id, value);
    const expected = expectedVersion(options);
    const at = this.timestamp();
    const written = this.guard.write(() => {
      if (expected === undefined) {
        return this.database
          .prepare<[string, string, string, string, string], { version: number }>(
            `INSERT INTO skill_records (namespace, collection, id, value, version, updated_at) VALUES (?, ?, ?, ?, 1, ?)
             ON CONFLICT (namespace, collection, id) DO UPDATE SET value = excluded.value, version = skill_records.version + 1, updated_at = excluded.updated_at, deleted = 0
             RETURNING version`,
          )
          .get(this.namespace, collection, id, text, at);
      }
      if (expected === 0) {
        return this.database
          .prepare<[string, string, string, string, string], { version: number }>(
            // Only where there is no record: none at all, or a tombstone (whose count goes on).
            `INSERT INTO skill_records (namespace, collection, id, value, version, updated_at) VALUES (?, ?, ?, ?, 1, ?)
             ON CONFLICT (namespace, collection, id) DO UPDATE SET value = excluded.value, version = skill_records.version + 1, updated_at = excluded.updated_at, deleted = 0
             WHERE skill_records.deleted = 1
             RETURNING version`,
          )
          .get(this.namespace, collection, id, text, at);
      }
      return this.database
        .prepare<[string, string, string, string, string, number], { version: number }>('UPDATE skill_records SET value = ?, version = version + 1, updated_at = ? WHERE namespace = ? AND collection = ? AND id = ? AND version = ? AND deleted = 0 RETURNING version')
        .get(text, at, this.namespace, collection, id, expected);
    });
    if (!written) throw new RecordConflictError(collection, id, expected!, (await this.get(collection, id))?.version);
    return { collection, id, value: JSON.parse(text) as Value, version: written.version, updatedAt: at };
  }

  async delete(collection: string, id: string, options?: { version?: number }): Promise<boolean> {
    checkKey(collection, id);
    const expected = expectedVersion(options);
    const changes = this.guard.write(
      () =>
        this.database
          .prepare<[string, string, string, string, number | null, number | null]>(
            "UPDATE skill_records SET deleted = 1, value = 'null', version = version + 1, updated_at = ? WHERE namespace = ? AND collection = ? AND id = ? AND deleted = 0 AND (? IS NULL OR version = ?)",
          )
          .run(this.timestamp(), this.namespace, collection, id, expected ?? null, expected ?? null).changes,
    );
    if (changes === 0 && expected !== undefined && expected > 0) throw new RecordConflictError(collection, id, expected, (await this.get(collection, id))?.version);
    return changes > 0;
  }
}
