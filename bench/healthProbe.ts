/**
 * Measures how /health answers while a large comparison runs: starts the real service on a
 * generated database, sends one compare_sources over HTTP, and polls /health until it returns.
 * The poller, the percentile, the free port and `npm start`'s command are also the load test's
 * (scripts/load.ts) and the cold-start figure's (coldStart.ts).
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import path from 'node:path';
import { projectRoot } from '../src/config/config.ts';
import { ALIGNMENTS, MEASURE, SOURCE_A, SOURCE_B } from './cases.ts';

export interface HealthFigures {
  rows: number;
  comparison_ms: number;
  health_requests: number;
  health_p50_ms: number;
  health_p99_ms: number;
  health_max_ms: number;
}

/**
 * The node arguments of an npm script such as `exec node --import tsx src/main.ts`.
 * @example
 * scriptCommand('mcp'); // ['scripts/launch.mjs', 'src/mcp/stdio.ts'] (whatever package.json says)
 */
export function scriptCommand(script: string): string[] {
  const scripts = (JSON.parse(readFileSync(path.join(projectRoot, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
  const words = (scripts[script] ?? '').trim().split(/\s+/);
  while (words[0] === 'exec') words.shift();
  if (words[0] !== 'node') throw new Error(`npm run ${script} does not start node directly: '${scripts[script]}'`);
  return words.slice(1);
}

/**
 * A port nothing listens on now.
 * @example
 * const port = await freePort(); // e.g. 41237
 */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/**
 * The `p`-th percentile of ascending latencies in ms, to 0.1 ms (0 when there are none).
 * @example
 * percentile([1, 2, 3, 4], 50); // 3
 * percentile([1, 2, 3, 4], 100); // 4 (the maximum)
 */
export function percentile(sorted: number[], p: number): number {
  const value = sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
  return Math.round(value * 10) / 10;
}

/**
 * GET /health one probe at a time, pausing `pauseMs` between probes, until stopped; `stop()`
 * resolves with the latencies in ms once the probe under way has ended (a failed probe counts
 * as infinitely slow).
 * @example
 * const probe = pollHealth('http://127.0.0.1:3000', 50);
 * const latencies = await probe.stop();
 */
export function pollHealth(origin: string, pauseMs: number): { stop(): Promise<number[]> } {
  const latencies: number[] = [];
  let running = true;
  const loop = (async () => {
    while (running) {
      const started = performance.now();
      try {
        await (await fetch(`${origin}/health`)).arrayBuffer();
        latencies.push(performance.now() - started);
      } catch {
        latencies.push(Number.POSITIVE_INFINITY);
      }
      await new Promise((resolve) => setTimeout(resolve, pauseMs));
    }
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
      return latencies;
    },
  };
}

/** Runs the probe against `databasePath` (rows per source) and stops the service afterwards. */
export async function probeHealth(databasePath: string, rows: number): Promise<HealthFigures> {
  const port = await freePort();
  const service = spawn(process.execPath, scriptCommand('start'), {
    cwd: projectRoot,
    env: { ...process.env, PORT: String(port), DATA_DB: databasePath, LOG_LEVEL: 'warn', MODEL_PROVIDER: 'offline', QUERY_TIMEOUT_MS: '600000' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const base = `http://127.0.0.1:${port}`;
  try {
    for (let attempt = 0; ; attempt += 1) {
      if (attempt > 200) throw new Error('the service did not start');
      const ok = await fetch(`${base}/health`).then((r) => r.ok, () => false);
      if (ok) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const started = performance.now();
    const probe = pollHealth(base, 5);
    const comparison = fetch(`${base}/tools/compare_sources`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ source_a: SOURCE_A.name, source_b: SOURCE_B.name, measure: MEASURE.name, align_on: [...ALIGNMENTS.high.alignOn] }),
    });
    // /health is probed for as long as the comparison runs, and no longer.
    await comparison.catch(() => undefined);
    const sorted = (await probe.stop()).sort((x, y) => x - y);
    const comparisonMs = performance.now() - started;
    const response = await comparison;
    if (!response.ok) throw new Error(`comparison failed: ${response.status} ${await response.text()}`);
    return {
      rows,
      comparison_ms: Math.round(comparisonMs),
      health_requests: sorted.length,
      health_p50_ms: percentile(sorted, 50),
      health_p99_ms: percentile(sorted, 99),
      health_max_ms: percentile(sorted, 100),
    };
  } finally {
    service.kill('SIGTERM');
  }
}
