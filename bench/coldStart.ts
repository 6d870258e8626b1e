/**
 * Cold start: how long from spawning the process to a usable service, median of N starts.
 *  - HTTP: the command `npm start` runs (read from package.json, without npm itself) → the
 *    first `/health` 200;
 *  - MCP stdio: the command `npm run mcp` runs → the reply to `tools/list` (after the
 *    initialize handshake), spoken as raw JSON-RPC lines so no SDK version is assumed.
 * Each start gets its own application database; the data is the sample. Run by `npm run bench`
 * (after the reconciliation table; `npm run bench -- --only-cold-start` for this alone), or
 * `npx tsx bench/coldStart.ts [--runs 5] [--tsx]`: `--tsx` times the TypeScript entries through
 * tsx instead (`npm run dev`, and the fallback when the build cannot be made), for comparison.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { projectRoot } from '../src/config/config.ts';
import { freePort, scriptCommand } from './healthProbe.ts';

export interface ColdStartFigures {
  runs: number;
  /** `built`: what `npm start` / `npm run mcp` run; `tsx`: the TypeScript entries through tsx. */
  via: 'built' | 'tsx';
  /** Median ms from spawn to the first /health 200. */
  health_median_ms: number;
  health_ms: number[];
  /** Median ms from spawn to the tools/list reply on stdio. */
  mcp_tools_list_median_ms: number;
  mcp_tools_list_ms: number[];
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

function environment(appDirectory: string, extra: Record<string, string>): NodeJS.ProcessEnv {
  return { ...process.env, APP_DB: path.join(appDirectory, 'app.db'), LOG_LEVEL: 'warn', MODEL_PROVIDER: 'offline', API_KEYS: '', ...extra };
}

function stopped(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    child.once('exit', () => (clearTimeout(timer), resolve()));
    child.kill('SIGTERM');
  });
}

/** The node arguments that start `script` (start, mcp). */
function command(script: 'start' | 'mcp', via: ColdStartFigures['via']): string[] {
  return via === 'built' ? scriptCommand(script) : ['--import', 'tsx', script === 'start' ? 'src/main.ts' : 'src/mcp/stdio.ts'];
}

/** Milliseconds from spawning `npm start`'s command to /health answering 200. */
async function healthStart(appDirectory: string, via: ColdStartFigures['via']): Promise<number> {
  const port = await freePort();
  const started = performance.now();
  const child = spawn(process.execPath, command('start', via), { cwd: projectRoot, env: environment(appDirectory, { PORT: String(port), HOST: '127.0.0.1' }), stdio: ['ignore', 'ignore', 'inherit'] });
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`the service exited with ${child.exitCode} before /health answered`);
      if (performance.now() - started > 60_000) throw new Error('the service did not answer /health within 60 s');
      const ok = await fetch(`http://127.0.0.1:${port}/health`).then((r) => r.ok, () => false);
      if (ok) return performance.now() - started;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  } finally {
    await stopped(child);
  }
}

/** Milliseconds from spawning `npm run mcp`'s command to its tools/list reply. */
async function mcpStart(appDirectory: string, via: ColdStartFigures['via']): Promise<number> {
  const started = performance.now();
  const child = spawn(process.execPath, command('mcp', via), { cwd: projectRoot, env: environment(appDirectory, {}), stdio: ['pipe', 'pipe', 'inherit'] });
  const send = (message: object) => child.stdin!.write(`${JSON.stringify(message)}\n`);
  try {
    const replied = new Promise<number>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('no tools/list reply within 60 s')), 60_000);
      child.once('exit', (code) => reject(new Error(`the MCP server exited with ${code} before replying`)));
      createInterface({ input: child.stdout! }).on('line', (line) => {
        const message = JSON.parse(line) as { id?: number; result?: { tools?: unknown[] } };
        if (message.id === 1) {
          send({ jsonrpc: '2.0', method: 'notifications/initialized' });
          send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
        } else if (message.id === 2 && Array.isArray(message.result?.tools)) {
          clearTimeout(timer);
          resolve(performance.now() - started);
        }
      });
    });
    send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'cold-start-bench', version: '1' } } });
    return await replied;
  } finally {
    child.stdin!.end();
    await stopped(child);
  }
}

/**
 * Starts the service `runs` times and the MCP stdio server `runs` times, one at a time.
 * @example
 * const figures = await measureColdStart(5); // { health_median_ms: 640, mcp_tools_list_median_ms: 580, … }
 */
export async function measureColdStart(runs: number, via: ColdStartFigures['via'] = 'built'): Promise<ColdStartFigures> {
  const appDirectory = mkdtempSync(path.join(os.tmpdir(), 'cold-start-'));
  try {
    const health: number[] = [];
    const mcp: number[] = [];
    for (let run = 0; run < runs; run += 1) health.push(Math.round(await healthStart(appDirectory, via)));
    for (let run = 0; run < runs; run += 1) mcp.push(Math.round(await mcpStart(appDirectory, via)));
    return { runs, via, health_median_ms: median(health), health_ms: health, mcp_tools_list_median_ms: median(mcp), mcp_tools_list_ms: mcp };
  } finally {
    rmSync(appDirectory, { recursive: true, force: true });
  }
}

/** One line per figure, for the bench's output. */
export function describeColdStart(figures: ColdStartFigures): string {
  const how = figures.via === 'built' ? '' : ' through tsx';
  return [
    `cold start${how}, median of ${figures.runs}: spawn → /health 200 ${figures.health_median_ms} ms (${figures.health_ms.join(', ')})`,
    `cold start${how}, median of ${figures.runs}: spawn → MCP stdio tools/list reply ${figures.mcp_tools_list_median_ms} ms (${figures.mcp_tools_list_ms.join(', ')})`,
  ].join('\n');
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { values } = parseArgs({ options: { runs: { type: 'string', default: '5' }, tsx: { type: 'boolean', default: false } } });
  measureColdStart(Number(values.runs), values.tsx ? 'tsx' : 'built').then(
    (figures) => console.log(describeColdStart(figures)),
    (error: unknown) => {
      process.stderr.write(`cold start failed: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exit(1);
    },
  );
}
