/**
 * The service the load scenarios (scripts/load.ts, scripts/loadFairness.ts) drive: the real entry
 * point as a child process on a free port of 127.0.0.1, with the offline model and a temporary
 * APP_DB, stopped with SIGTERM at the end. Kept apart so each scenario states only what it changes.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, scriptCommand } from '../bench/healthProbe.ts';

const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export interface LoadService {
  url: string;
  /** A temporary folder for the run (APP_DB, keys files), removed by stop(). */
  directory: string;
  /** SIGTERM, then the folder is removed. @returns the exit code. */
  stop(): Promise<number | null>;
}

/**
 * Starts the service; resolves once /health answers. `environment(directory)` adds or overrides
 * variables (it may write files into the run's folder first).
 * @example
 * const service = await startService(() => ({ QUERY_WORKERS: '2' }));
 * await fetch(`${service.url}/health`);
 * await service.stop();
 */
export async function startService(environment: (directory: string) => Record<string, string> = () => ({})): Promise<LoadService> {
  const directory = mkdtempSync(path.join(os.tmpdir(), 'analyst-load-'));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  // What `npm start` runs (the built service), without npm in between.
  const child: ChildProcess = spawn(process.execPath, scriptCommand('start'), {
    cwd: projectRoot,
    // Request logs off (warn): the figures measure the service, not its logging.
    env: {
      ...process.env,
      HOST: '127.0.0.1',
      PORT: String(port),
      MODEL_PROVIDER: 'offline',
      APP_DB: path.join(directory, 'app.db'),
      LOG_FORMAT: 'json',
      LOG_LEVEL: 'warn',
      ...environment(directory),
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  let exited = false;
  child.once('exit', () => (exited = true));
  const stop = async () => {
    const code = exited ? child.exitCode : await new Promise<number | null>((resolve) => (child.once('exit', (status) => resolve(status)), child.kill('SIGTERM')));
    rmSync(directory, { recursive: true, force: true });
    return code;
  };
  const deadline = Date.now() + 90_000;
  while (Date.now() < deadline && !exited) {
    try {
      if ((await fetch(`${url}/health`)).ok) return { url, directory, stop };
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  child.kill('SIGKILL');
  rmSync(directory, { recursive: true, force: true });
  throw new Error(exited ? 'the service exited before listening' : 'the service did not start within 90 s');
}
