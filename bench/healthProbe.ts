/**
 * Measures how /health answers while a large comparison runs: starts the real service on a
 * generated database, sends one compare_sources over HTTP, and polls /health until it returns.
 */
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
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

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;

/** Runs the probe against `databasePath` (rows per source) and stops the service afterwards. */
export async function probeHealth(databasePath: string, rows: number): Promise<HealthFigures> {
  const port = await freePort();
  const service = spawn(process.execPath, ['--import', 'tsx', path.join(projectRoot, 'src/main.ts')], {
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
    let done = false;
    const comparison = fetch(`${base}/tools/compare_sources`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ source_a: SOURCE_A.name, source_b: SOURCE_B.name, measure: MEASURE.name, align_on: [...ALIGNMENTS.high.alignOn] }),
    }).then(async (response) => {
      done = true;
      if (!response.ok) throw new Error(`comparison failed: ${response.status} ${await response.text()}`);
    });
    const latencies: number[] = [];
    while (!done) {
      const sent = performance.now();
      await fetch(`${base}/health`).then((r) => r.arrayBuffer());
      latencies.push(performance.now() - sent);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    await comparison;
    const comparisonMs = performance.now() - started;
    const sorted = latencies.sort((x, y) => x - y);
    return {
      rows,
      comparison_ms: Math.round(comparisonMs),
      health_requests: sorted.length,
      health_p50_ms: Math.round(percentile(sorted, 50) * 10) / 10,
      health_p99_ms: Math.round(percentile(sorted, 99) * 10) / 10,
      health_max_ms: Math.round(sorted[sorted.length - 1]! * 10) / 10,
    };
  } finally {
    service.kill('SIGTERM');
  }
}
