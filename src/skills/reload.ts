/**
 * Development reload (SKILLS_RELOAD=true): watches the skills directory and, once edits settle,
 * calls `reload` — which rebuilds the registry and the system prompt for new requests. A reload
 * that fails (a broken edit) is logged and the previous skills stay in use.
 */
import { watch, type FSWatcher } from 'node:fs';
import path from 'node:path';
import type { Logger } from '../logging/logger.ts';
import { isEditorFile } from '../shared/editorFiles.ts';

export interface SkillWatcherOptions {
  directory: string;
  logger: Logger;
  /** Loads the skills again and swaps them in; throws (and changes nothing) when they are broken. Returns a summary to log. */
  reload: () => Promise<Record<string, unknown> | void>;
  /** Quiet time after the last change before reloading (editors write several times per save). */
  debounceMs?: number;
}

export interface SkillWatcher {
  /** Completed reload attempts, successful or not. */
  readonly attempts: number;
  /** Successful reloads. */
  readonly reloads: number;
  /** Resolves once no reload is pending or running. */
  settled(): Promise<void>;
  close(): void;
}

/** Editor and system files whose changes do not matter. */
function ignored(filename: string | null): boolean {
  if (!filename) return false;
  const parts = filename.split(/[\\/]/);
  const base = parts.at(-1) ?? '';
  return parts.some((part) => part === 'node_modules' || part === '.git') || isEditorFile(base);
}

export function watchSkills(options: SkillWatcherOptions): SkillWatcher {
  const { directory, logger } = options;
  const debounceMs = options.debounceMs ?? 150;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let again = false;
  let closed = false;
  let attempts = 0;
  let reloads = 0;
  let waiters: (() => void)[] = [];

  const idle = () => timer === undefined && running === undefined;
  const notifyIfIdle = () => {
    if (!idle()) return;
    const pending = waiters;
    waiters = [];
    for (const resolve of pending) resolve();
  };

  const run = async (): Promise<void> => {
    timer = undefined;
    if (closed) return notifyIfIdle();
    if (running) {
      again = true;
      return;
    }
    running = (async () => {
      const started = performance.now();
      try {
        const summary = await options.reload();
        reloads += 1;
        logger.info({ ...(summary ?? {}), duration_ms: Math.round(performance.now() - started) }, 'skills reloaded');
      } catch (error) {
        logger.error({ err: error }, `skills reload failed; the previous skills stay in use: ${(error as Error).message}`);
      } finally {
        attempts += 1;
      }
    })();
    await running;
    running = undefined;
    if (again && !closed) {
      again = false;
      schedule();
    }
    notifyIfIdle();
  };

  const schedule = () => {
    if (closed) return;
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => void run(), debounceMs);
  };

  const watcher: FSWatcher = watch(directory, { recursive: true }, (_event, filename) => {
    if (ignored(typeof filename === 'string' ? filename : null)) return;
    schedule();
  });
  watcher.on('error', (error) => logger.warn({ err: error, directory }, 'watching the skills directory failed; reload is off'));
  watcher.unref();
  logger.info({ directory: path.resolve(directory) }, 'watching skills: edits reload them without a restart');

  return {
    get attempts() {
      return attempts;
    },
    get reloads() {
      return reloads;
    },
    settled: () =>
      new Promise<void>((resolve) => {
        waiters.push(resolve);
        notifyIfIdle();
      }),
    close: () => {
      closed = true;
      if (timer) clearTimeout(timer);
      timer = undefined;
      watcher.close();
      notifyIfIdle();
    },
  };
}
