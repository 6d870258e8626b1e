/**
 * A skill's own durable records (ToolContext.records): JSON values by collection and id, kept
 * in the application database (APP_DB: the SQLite file or PostgreSQL), so they survive restarts
 * and every instance sharing a PostgreSQL APP_DB sees the same ones. Each skill has its own
 * namespace: one skill never reads another's records. A version on every record makes a
 * read-modify-write safe across instances: pass the version you read, and a record that
 * changed meanwhile is not overwritten (RecordConflictError).
 *
 * @example
 * // Save a check once, whoever asks first; read it back in a later call.
 * const saved = await context.records?.put('checks', 'fi-vs-bpc', { sources: ['fi_reporting', 'bpc_reporting'] }, { version: 0 });
 * const check = await context.records?.get('checks', 'fi-vs-bpc'); // { collection: 'checks', id: 'fi-vs-bpc', value: {...}, version: 1, updatedAt: '2026-…' }
 */
import { RecordConflictError, ToolError } from '../../errors/index.ts';

export { RecordConflictError };

/** One stored record. */
export interface SkillRecord<Value = unknown> {
  collection: string;
  id: string;
  value: Value;
  /** 1 when first written, one more with every write. */
  version: number;
  /** ISO 8601 time of the last write. */
  updatedAt: string;
}

/** A skill's records, in its own namespace. Every method answers with a promise. */
export interface SkillRecords {
  /** The record, or undefined when there is none. */
  get<Value = unknown>(collection: string, id: string): Promise<SkillRecord<Value> | undefined>;
  /**
   * Records of a collection in the order of their ids (bytewise), at most `limit` (default 100,
   * at most 1,000), those whose id starts with `prefix`, after the id `after` (the last one of
   * the previous page).
   */
  list<Value = unknown>(collection: string, options?: { prefix?: string; after?: string; limit?: number }): Promise<SkillRecord<Value>[]>;
  /**
   * Writes the record (durably, once the promise resolves). With `version`, only if the record
   * is still at that version (0: only if it does not exist yet); otherwise RecordConflictError.
   */
  put<Value = unknown>(collection: string, id: string, value: Value, options?: { version?: number }): Promise<SkillRecord<Value>>;
  /** Deletes the record; false when there was none. With `version`, as put. */
  delete(collection: string, id: string, options?: { version?: number }): Promise<boolean>;
}

/** Collections are names a skill chooses: lower case, digits and underscores. */
const COLLECTION = /^[a-z][a-z0-9_]{0,63}$/;
/** Ids may come from what a user typed (a check's name): any text but control characters. */
const MAX_ID_CHARACTERS = 200;
/** A record is a document, not a table: past this, keep rows in the data and a reference here. */
export const MAX_RECORD_BYTES = 1_000_000;
const MAX_LIST = 1_000;
/** The largest version every store holds (PostgreSQL's integer). */
const MAX_VERSION = 2_147_483_647;

/**
 * Checks a collection and id, and returns the value as JSON text: what both stores write.
 * @throws ToolError `invalid_value` naming what is wrong (a tool passes it on to the model).
 * @example
 * recordText('checks', 'fi-vs-bpc', { a: 1 }) // '{"a":1}'
 */
export function recordText(collection: string, id: string, value: unknown): string {
  checkKey(collection, id);
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch (error) {
    throw new ToolError('invalid_value', `The record ${collection}/${id} cannot be stored as JSON: ${(error as Error).message}`);
  }
  if (text === undefined) throw new ToolError('invalid_value', `The record ${collection}/${id} has no JSON value (undefined or a function).`);
  const bytes = Buffer.byteLength(text);
  if (bytes > MAX_RECORD_BYTES) throw new ToolError('invalid_value', `The record ${collection}/${id} is ${bytes} bytes as JSON; a record holds at most ${MAX_RECORD_BYTES}.`, { hint: 'Keep large results in the data and store a reference to them.' });
  return text;
}

/** Whether `text` is well-formed Unicode (no lone surrogate, which each store would keep differently). */
function wellFormed(text: string): boolean {
  try {
    encodeURIComponent(text);
    return true;
  } catch {
    return false;
  }
}

/**
 * Checks a collection and id. @throws ToolError `invalid_value`.
 * @example
 * checkKey('checks', 'fi-vs-bpc'); // fine
 */
export function checkKey(collection: string, id: string): void {
  if (typeof collection !== 'string' || !COLLECTION.test(collection)) {
    throw new ToolError('invalid_value', `'${String(collection).slice(0, 80)}' is not a collection name: lower-case letters, digits and underscores, starting with a letter, at most 64.`);
  }
  // eslint-disable-next-line no-control-regex
  if (typeof id !== 'string' || id.length === 0 || id.length > MAX_ID_CHARACTERS || /[\u0000-\u001f\u007f]/.test(id) || !wellFormed(id)) {
    throw new ToolError('invalid_value', `A record id is 1 to ${MAX_ID_CHARACTERS} characters without control characters (well-formed Unicode); got ${typeof id === 'string' ? `${id.length} characters` : typeof id}.`);
  }
}

/**
 * A list's options, checked, with the default limit. @throws ToolError `invalid_value`.
 * @example
 * listOptions('checks', { limit: 10 }) // { prefix: '', after: undefined, limit: 10 }
 */
export function listOptions(collection: string, options: { prefix?: string; after?: string; limit?: number } = {}): { prefix: string; after: string | undefined; limit: number } {
  checkKey(collection, 'x');
  for (const [name, text] of [['prefix', options.prefix], ['after', options.after]] as const) {
    // Compared as text by every store: a number or a broken surrogate would sort differently in each.
    if (text !== undefined && (typeof text !== 'string' || !wellFormed(text) || text.length > MAX_ID_CHARACTERS)) throw new ToolError('invalid_value', `A list's ${name} is text of at most ${MAX_ID_CHARACTERS} characters (well-formed Unicode); got ${typeof text}.`);
  }
  const limit = options.limit ?? 100;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIST) throw new ToolError('invalid_value', `A list's limit is a whole number from 1 to ${MAX_LIST}; got ${limit}.`);
  return { prefix: options.prefix ?? '', after: options.after, limit };
}

/**
 * A version to check against, or undefined. @throws ToolError `invalid_value` for anything but a whole number ≥ 0.
 * @example
 * expectedVersion({ version: 0 }) // 0
 */
export function expectedVersion(options: { version?: number } | undefined): number | undefined {
  const version = options?.version;
  if (version === undefined) return undefined;
  if (!Number.isInteger(version) || version < 0 || version > MAX_VERSION) throw new ToolError('invalid_value', `A record version is a whole number from 0 (the record must not exist yet) to ${MAX_VERSION}; got ${version}.`);
  return version;
}

/**
 * Records kept in memory, with the same rules as the service's stores (validation, versions,
 * order, pages): for a skill's tests (skillTestKit gives each skill these) and scripts.
 * @example
 * const records = memoryRecords();
 * await records.put('checks', 'a', { x: 1 }); // version 1
 */
export function memoryRecords(now: () => number = Date.now): SkillRecords {
  // A deleted record stays as a tombstone keeping its version, as in the stores: one created again continues the count.
  type Entry = { collection: string; id: string; text: string; version: number; updatedAt: string; deleted: boolean };
  const stored = new Map<string, Entry>();
  const keyOf = (collection: string, id: string) => JSON.stringify([collection, id]);
  const live = (collection: string, id: string) => {
    const entry = stored.get(keyOf(collection, id));
    return entry && !entry.deleted ? entry : undefined;
  };
  const read = <Value>(entry: Entry): SkillRecord<Value> => ({ collection: entry.collection, id: entry.id, value: JSON.parse(entry.text) as Value, version: entry.version, updatedAt: entry.updatedAt });
  // Bytewise order of UTF-8, as SQLite's BINARY and PostgreSQL's "C" collation sort.
  const bytewise = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));
  return {
    async get<Value>(collection: string, id: string) {
      checkKey(collection, id);
      const entry = live(collection, id);
      return entry && read<Value>(entry);
    },
    async list<Value>(collection: string, options?: { prefix?: string; after?: string; limit?: number }) {
      const { prefix, after, limit } = listOptions(collection, options);
      return [...stored.values()]
        .filter((entry) => !entry.deleted && entry.collection === collection && entry.id.startsWith(prefix) && (after === undefined || bytewise(entry.id, after) > 0))
        .sort((a, b) => bytewise(a.id, b.id))
        .slice(0, limit)
        .map((entry) => read<Value>(entry));
    },
    async put<Value>(collection: string, id: string, value: Value, options?: { version?: number }) {
      const text = recordText(collection, id, value);
      const expected = expectedVersion(options);
      const current = live(collection, id);
      if (expected !== undefined && (current?.version ?? 0) !== expected) throw new RecordConflictError(collection, id, expected, current?.version);
      const previous = stored.get(keyOf(collection, id));
      const entry = { collection, id, text, version: (previous?.version ?? 0) + 1, updatedAt: new Date(now()).toISOString(), deleted: false };
      stored.set(keyOf(collection, id), entry);
      return read<Value>(entry);
    },
    async delete(collection: string, id: string, options?: { version?: number }) {
      checkKey(collection, id);
      const expected = expectedVersion(options);
      const current = live(collection, id);
      if (expected !== undefined && expected > 0 && current?.version !== expected) throw new RecordConflictError(collection, id, expected, current?.version);
      if (!current || expected === 0) return false;
      stored.set(keyOf(collection, id), { ...current, text: 'null', version: current.version + 1, updatedAt: new Date(now()).toISOString(), deleted: true });
      return true;
    },
  };
}
