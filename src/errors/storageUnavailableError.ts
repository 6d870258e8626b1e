/**
 * The application database (APP_DB) cannot store a turn durably: its file was deleted or
 * replaced while the service runs, or SQLite found it damaged. Requests that need it answer
 * 503 (`/problems/storage-unavailable`) instead of acknowledging what would be lost.
 */
import { AnalystError } from './analystError.ts';

const marker = Symbol.for('analyst.error.storage-unavailable');

/** Conversations cannot be read or stored right now; the message says why and what to do. */
export class StorageUnavailableError extends AnalystError {
  readonly [marker] = true;

  static override isInstance(error: unknown): error is StorageUnavailableError {
    return typeof error === 'object' && error !== null && marker in error;
  }
}
