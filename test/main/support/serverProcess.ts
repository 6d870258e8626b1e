/**
 * Runs the real service (`node --import tsx src/main.ts`) as a child process on a free port
 * (PORT=0; the port is read from the startup log line), for the shutdown and crash tests.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

export interface ServerProcess {
  url: string;
  port: number;
  child: ChildProcess;
  /** Every JSON log line so far. */
  logs: Record<string, unknown>[];
  /** Resolves when the process has exited. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Kills the process (SIGKILL) if it is still running. */
  kill(): Promise<void>;
}

/**
 * Starts the service with `env` added to the environment; resolves once it listens.
 * `command` runs it another way (e.g. `['npm', 'start']`, as the README says). `timeoutMs` only
 * catches a service that never listens: a start takes seconds of CPU, far longer on a busy machine.
 */
export async function startServer(
  env: Record<string, string>,
  timeoutMs = 60_000,
  command: [string, ...string[]] = [process.execPath, '--import', 'tsx', 'src/main.ts'],
  /** A process group of its own (with its query workers), for signals sent to the group as a terminal or systemd sends them. */
  { detached = false }: { detached?: boolean } = {},
): Promise<ServerProcess> {
  const child = spawn(command[0], command.slice(1), {
    cwd: projectRoot,
    detached,
    env: { ...process.env, HOST: '127.0.0.1', PORT: '0', LOG_FORMAT: 'json', LOG_LEVEL: 'info', MODEL_PROVIDER: 'offline', QUERY_WORKERS: '2', API_KEYS: '', RATE_LIMIT_PER_MINUTE: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const logs: Record<string, unknown>[] = [];
  let stderr = '';
  let buffered = '';
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the service did not start within ${timeoutMs} ms: ${stderr}`)), timeoutMs);
    child.stdout!.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      const lines = buffered.split('\n');
      buffered = lines.pop()!;
      for (const line of lines) {
        let entry: Record<string, unknown>;
        try {
          entry = JSON.parse(line) as Record<string, unknown>;
        } catch {
          continue;
        }
        logs.push(entry);
        if (typeof entry.port === 'number' && typeof entry.url === 'string') {
          clearTimeout(timer);
          resolve(entry.port);
        }
      }
    });
    void exited.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(new Error(`the service exited (${code ?? signal}) before listening: ${stderr}`));
    });
  });
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    child,
    logs,
    exited,
    kill: async () => {
      if (child.exitCode === null && child.signalCode === null) {
        // A process group of its own is killed whole (its query workers too): nothing else signals it.
        if (detached) process.kill(-child.pid!, 'SIGKILL');
        else child.kill('SIGKILL');
      }
      await exited;
    },
  };
}

/** Waits until `condition` holds, polling every 20 ms. */
export async function waitFor(condition: () => boolean, timeoutMs = 10_000, what = 'the condition'): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
