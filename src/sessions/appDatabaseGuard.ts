/**
 * Keeps the application database honest while the service runs. SQLite keeps writing to a file
 * that was deleted (`rm app.db*`) through its open handle, so turns would be acknowledged and
 * lost at the next restart; and a damaged file fails each request with a bare 500. The guard
 * checks before every write that APP_DB still names the file that was opened (device and inode,
 * one `stat`), turns SQLite's corruption and I/O errors into StorageUnavailableError (503), and
 * keeps a status for GET /health, refreshed in the background (watchFile: asynchronous stat and header read).
 */
import path from 'node:path';
import { StorageUnavailableError } from '../errors/index.ts';
import type { Logger } from '../logging/logger.ts';
import { fileIdentitySync, sameFile, watchFile, type FileIdentity, type FileState, type FileWatch } from '../shared/fileIdentity.ts';
import type { HealthStatus } from '../shared/health.ts';
import { isDamaged, isUnavailable, sqliteCode } from '../shared/sqliteErrors.ts';

/** GET /health's view of the application database (never 'degraded': turns are stored or refused). */
export interface StorageHealth {
  status: Exclude<HealthStatus, 'degraded'>;
  reason?: string;
}

/**
 * Watches one application database file.
 * @example
 * const guard = new AppDatabaseGuard('data/app.db', logger);
 * guard.write(() => insert.run(...)); // throws StorageUnavailableError when the file was deleted
 */
export class AppDatabaseGuard {
  private readonly name: string;
  private readonly identity: FileIdentity | undefined;
  /** Set once SQLite reported the file damaged (or its header was overwritten): until a restart. */
  private damaged: string | undefined;
  /** The last check's finding about the path (deleted, replaced), cleared when it names the file again. */
  private displaced: string | undefined;
  private watch: FileWatch | undefined;

  constructor(
    private readonly file: string,
    private readonly logger?: Logger,
  ) {
    this.name = path.basename(file);
    this.identity = fileIdentitySync(file);
  }

  /** Why turns cannot be stored now, or undefined. Synchronous: one `stat`. */
  check(): string | undefined {
    if (this.damaged) return this.damaged;
    this.note(fileIdentitySync(this.file));
    return this.displaced;
  }

  /** @throws StorageUnavailableError when turns cannot be stored durably now. */
  assertWritable(): void {
    const reason = this.check();
    if (reason) throw new StorageUnavailableError(reason);
  }

  /** Runs a write after checking the file; storage failures become StorageUnavailableError. */
  write<T>(work: () => T): T {
    this.assertWritable();
    return this.guarded(work);
  }

  /** Runs a read; storage failures become StorageUnavailableError. */
  read<T>(work: () => T): T {
    if (this.damaged) throw new StorageUnavailableError(this.damaged);
    return this.guarded(work);
  }

  /** The last known state, for GET /health (no I/O on the request). */
  status(): StorageHealth {
    const reason = this.damaged ?? this.displaced;
    return reason ? { status: 'down', reason } : { status: 'ok' };
  }

  /** Refreshes the status every `intervalMs` in the background. */
  startMonitor(intervalMs: number): void {
    if (intervalMs <= 0 || this.watch) return;
    // Only the header: the service's own checkpoints make the size lag the header for a moment.
    this.watch = watchFile(this.file, intervalMs, (state) => this.inspect(state), { checkSize: false });
  }

  stop(): void {
    this.watch?.stop();
  }

  private guarded<T>(work: () => T): T {
    try {
      return work();
    } catch (error) {
      const code = sqliteCode(error);
      if (isDamaged(code)) {
        this.markDamaged(`the application database ${this.name} (APP_DB) is damaged (${(error as Error).message}). ${RECOVERY}`);
        throw new StorageUnavailableError(this.damaged!, { cause: error });
      }
      if (isUnavailable(code)) {
        throw new StorageUnavailableError(this.check() ?? `the application database ${this.name} (APP_DB) cannot be written now (${(error as Error).message}).`, { cause: error });
      }
      throw error;
    }
  }

  /** Background check: the path still names the opened file, and it is still a whole SQLite file (watchFile reads its header). */
  private inspect(state: FileState): void {
    if (!state.present && state.problem) {
      this.markDamaged(`the application database ${this.name} (APP_DB) ${state.problem}. ${RECOVERY}`);
      return;
    }
    this.note(state.present ? state.identity : undefined);
  }

  private note(found: FileIdentity | undefined): void {
    const reason = sameFile(found, this.identity)
      ? undefined
      : found
        ? `the application database ${this.name} (APP_DB) was replaced by another file while the service runs; new turns are refused so that none is lost. Restart the service to use the new file.`
        : `the application database ${this.name} (APP_DB) was deleted or moved while the service runs; new turns are refused so that none is lost. Move it back, or restart the service (a new, empty one is created).`;
    if (reason !== this.displaced) {
      if (reason) this.logger?.error({ reason }, 'the application database is unavailable');
      else this.logger?.info({ database: this.name }, 'the application database file is back');
    }
    this.displaced = reason;
  }

  private markDamaged(reason: string): void {
    if (this.damaged) return;
    this.damaged = reason;
    this.logger?.error({ reason }, 'the application database is damaged; conversations are refused until a restart');
  }
}

/** What to do about a damaged application database (also in the startup error). */
export const RECOVERY = 'Stop the service, move the file and its -wal and -shm files aside (keep them to salvage conversations with `sqlite3 <file> .recover`), then start again with a new, empty database or a restored backup.';
