/**
 * What a SQLite error says about the database file rather than the statement: one place for
 * the codes, so the query pool, its workers and the application database agree on them.
 */

/**
 * SQLite's error code (`SQLITE_CORRUPT`…) of an error, or undefined when it is not a SQLite error.
 * @example
 * sqliteCode(Object.assign(new Error('disk I/O error'), { code: 'SQLITE_IOERR_WRITE' })); // 'SQLITE_IOERR_WRITE'
 * sqliteCode(new Error('boom')); // undefined
 */
export function sqliteCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('SQLITE_') ? code : undefined;
}

/**
 * The file is damaged (corrupt, or not a database): it stays so until it is replaced.
 * @example
 * isDamaged('SQLITE_CORRUPT_INDEX'); // true
 */
export function isDamaged(code: string | undefined): boolean {
  return code !== undefined && /^SQLITE_(CORRUPT|NOTADB)/.test(code);
}

/**
 * The file or the disk failed (I/O, cannot open, read-only, full), not the statement: this request fails.
 * @example
 * isUnavailable('SQLITE_FULL'); // true
 */
export function isUnavailable(code: string | undefined): boolean {
  return code !== undefined && /^SQLITE_(IOERR|CANTOPEN|READONLY|FULL)/.test(code);
}

/**
 * The file itself is damaged or gone, not the query wrong: worth checking the file at once.
 * @example
 * isFileFailure('SQLITE_CANTOPEN'); // true
 * isFileFailure('SQLITE_ERROR'); // false
 */
export function isFileFailure(code: string | undefined): boolean {
  return code !== undefined && /^SQLITE_(CORRUPT|NOTADB|IOERR|CANTOPEN)/.test(code);
}
