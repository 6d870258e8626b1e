/**
 * The skills' durable records (skills/sdk/records.ts) in PostgreSQL (APP_DB=postgres://…), shared
 * by every instance: one row per record in `skill_records` (postgresSchema.ts). A write is one
 * statement, so a version check and the write are atomic across instances: of two writers naming
 * the same version, one gets RecordConflictError. Values are `json` (kept as written, U+0000
 * included, as the conversations' are). A delete leaves a tombstone keeping the version.
 */
import type pg from 'pg';
import { RecordConflictError } from '../errors/index.ts';
import { checkKey, expectedVersion, listOptions, recordText, type SkillRecord, type SkillRecords } from '../skills/sdk/records.ts';
import type { PostgresHealth } from './postgresHealth.ts';

interface Row {
  collection: string;
  id: string;
  value: unknown;
  version: number;
  updated_at: Date;
}

const record = <Value>(row: Row): SkillRecord<Value> => ({ collection: row.collection, id: row.id, value: row.value as Value, version: row.version, updatedAt: row.updated_at.toISOString() });
const COLUMNS = 'collection, id, value, version, updated_at';

/**
 * One skill's records in the shared database.
 * @example
 * const records = new PostgresSkillRecords(pool, health, 'month_end_close', Date.now);
 * await records.put('checks', 'fi-vs-bpc', { sources: ['fi_reporting', 'bpc_reporting'] }, { version: 0 });
 */
export class PostgresSkillRecords implements SkillRecords {
  constructor(
    private readonly pool: pg.Pool,
    private readonly health: PostgresHealth,
    private readonly namespace: string,
    private readonly now: () => number,
  ) {}

  async get<Value = unknown>(collection: string, id: string): Promise<SkillRecord<Value> | undefined> {
    checkKey(collection, id);
    const [row] = await this.query(`SELECT ${COLUMNS} FROM skill_records WHERE namespace = $1 AND collection = $2 AND id = $3 AND NOT deleted`, [this.namespace, collection, id]);
    return row && record<Value>(row);
  }

  async list<Value = unknown>(collection: string, options?: { prefix?: string; after?: string; limit?: number }): Promise<SkillRecord<Value>[]> {
    const { prefix, after, limit } = listOptions(collection, options);
    const rows = await this.query(
      `SELECT ${COLUMNS} FROM skill_records
       WHERE namespace = $1 AND collection = $2 AND NOT deleted AND left(id, $3) = $4 AND ($5::text IS NULL OR id > $5)
       ORDER BY id LIMIT $6`,
      [this.namespace, collection, [...prefix].length, prefix, after ?? null, limit],
    );
    return rows.map((row) => record<Value>(row));
  }

  async put<Value = unknown>(collection: string, id: string, value: Value, options?: { version?: number }): Promise<SkillRecord<Value>> {
    const text = recordText(collection, id, value);
    const expected = expectedVersion(options);
    const at = new Date(this.now()).toISOString();
    const parameters = [this.namespace, collection, id, text, at];
    const [row] =
      expected === undefined
        ? await this.query(
            `INSERT INTO skill_records (namespace, collection, id, value, version, updated_at) VALUES ($1, $2, $3, $4, 1, $5)
             ON CONFLICT (namespace, collection, id) DO UPDATE SET value = excluded.value, version = skill_records.version + 1, updated_at = excluded.updated_at, deleted = false
             RETURNING ${COLUMNS}`,
            parameters,
          )
        : expected === 0
          ? // Only where there is no record: none at all, or a tombstone (whose count goes on).
            await this.query(
              `INSERT INTO skill_records (namespace, collection, id, value, version, updated_at) VALUES ($1, $2, $3, $4, 1, $5)
               ON CONFLICT (namespace, collection, id) DO UPDATE SET value = excluded.value, version = skill_records.version + 1, updated_at = excluded.updated_at, deleted = false
               WHERE skill_records.deleted
               RETURNING ${COLUMNS}`,
              parameters,
            )
          : await this.query(`UPDATE skill_records SET value = $4, version = version + 1, updated_at = $5 WHERE namespace = $1 AND collection = $2 AND id = $3 AND version = $6 AND NOT deleted RETURNING ${COLUMNS}`, [...parameters, expected]);
    if (!row) throw new RecordConflictError(collection, id, expected!, (await this.get(collection, id))?.version);
    return record<Value>(row);
  }

  async delete(collection: string, id: string, options?: { version?: number }): Promise<boolean> {
    checkKey(collection, id);
    const expected = expectedVersion(options);
    const deleted = await this.query(
      `UPDATE skill_records SET deleted = true, value = 'null', version = version + 1, updated_at = $5
       WHERE namespace = $1 AND collection = $2 AND id = $3 AND NOT deleted AND ($4::integer IS NULL OR version = $4) RETURNING ${COLUMNS}`,
      [this.namespace, collection, id, expected ?? null, new Date(this.now()).toISOString()],
    );
    if (deleted.length === 0 && expected !== undefined && expected > 0) throw new RecordConflictError(collection, id, expected, (await this.get(collection, id))?.version);
    return deleted.length > 0;
  }

  private async query(sql: string, parameters: unknown[]): Promise<Row[]> {
    return (await this.health.guard(() => this.pool.query<Row>(sql, parameters))).rows;
  }
}
