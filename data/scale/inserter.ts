/**
 * Fast streaming INSERTs: rows are bound into multi-row INSERT statements (many rows per
 * statement call) and committed in transactions of a bounded number of rows, so memory
 * stays flat however many rows go in.
 */
import type Database from 'better-sqlite3';

export type SqlValue = string | number | null;

/** Rows per multi-row INSERT statement (SQLite allows 32,766 parameters). */
const ROWS_PER_STATEMENT = 100;

export class BatchInserter {
  private readonly many: Database.Statement;
  private readonly one: Database.Statement;
  private readonly buffer: SqlValue[] = [];
  private readonly width: number;
  private pendingInTransaction = 0;
  /** Rows written so far (flushed or buffered). */
  count = 0;

  constructor(
    private readonly db: Database.Database,
    table: string,
    columns: readonly string[],
    private readonly rowsPerTransaction = 50_000,
  ) {
    this.width = columns.length;
    const tuple = `(${columns.map(() => '?').join(', ')})`;
    const head = `INSERT INTO ${table} (${columns.join(', ')}) VALUES `;
    this.many = db.prepare(head + Array.from({ length: ROWS_PER_STATEMENT }, () => tuple).join(', '));
    this.one = db.prepare(head + tuple);
  }

  /** Adds one row (values in column order). */
  add(...values: SqlValue[]): void {
    if (values.length !== this.width) throw new Error(`expected ${this.width} values, got ${values.length}`);
    if (!this.db.inTransaction) this.db.exec('BEGIN');
    for (const value of values) this.buffer.push(value);
    this.count += 1;
    this.pendingInTransaction += 1;
    if (this.buffer.length === this.width * ROWS_PER_STATEMENT) {
      this.many.run(this.buffer);
      this.buffer.length = 0;
    }
    if (this.pendingInTransaction >= this.rowsPerTransaction) this.commit();
  }

  /** Writes buffered rows and commits the open transaction. */
  flush(): void {
    this.commit();
  }

  private commit(): void {
    for (let offset = 0; offset < this.buffer.length; offset += this.width) {
      this.one.run(this.buffer.slice(offset, offset + this.width));
    }
    this.buffer.length = 0;
    if (this.db.inTransaction) this.db.exec('COMMIT');
    this.pendingInTransaction = 0;
  }
}
