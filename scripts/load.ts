/**
 * Load test of POST /chat: `npm run load -- [--connections 20] [--duration 15] [--turns 5] [--url http://127.0.0.1:3000]`.
 *
 * Without --url it starts the real service as a child process (offline model, a temporary
 * APP_DB, a free port) and stops it with SIGTERM at the end. Each autocannon connection runs
 * its own conversations: a new session, then follow-ups carrying its session_id (--turns
 * questions per conversation), for a bounded time. Meanwhile GET /health is probed every 50 ms:
 * no request may stall the service, so its p99 must stay under 50 ms. Prints requests/s,
 * p50/p99/max latency, non-2xx responses, errors and the /health figures; exits 1 on any error,
 * non-2xx response or a /health p99 of 50 ms or more. Only 127.0.0.1/localhost.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { freePort, percentile, pollHealth } from '../bench/healthProbe.ts';

const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

const QUESTIONS = [
  'compare amount between fi_reporting and bpc_reporting for company 1000 in December 2024',
  'and for company 2000?',
  'Compare fi_reporting with bpc_reporting for company 3000 in period 2024010',
  'Which sources are available?',
];

const { values } = parseArgs({
  options: {
    connections: { type: 'string', default: '20' },
    duration: { type: 'string', default: '15' },
    turns: { type: 'string', default: '5' },
    url: { type: 'string' },
  },
});
const connections = positiveInteger('connections', values.connections);
const duration = positiveInteger('duration', values.duration);
const turns = positiveInteger('turns', values.turns);

function positiveInteger(name: string, raw: string | undefined): number {
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1) {
    process.stderr.write(`--${name} must be a positive whole number, got '${raw}'\n`);
    process.exit(2);
  }
  return value;
}

/** Starts the service on a free port with the offline model and a temporary APP_DB; resolves once /health answers. */
async function startService(): Promise<{ url: string; child: ChildProcess; directory: string }> {
  const directory = mkdtempSync(path.join(os.tmpdir(), 'analyst-load-'));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: projectRoot,
    // Request logs off (warn): the figures measure the service, not its logging. No API keys and no
    // rate limit: every connection comes from 127.0.0.1 and would share one client's budget.
    env: {
      ...process.env,
      HOST: '127.0.0.1',
      PORT: String(port),
      MODEL_PROVIDER: 'offline',
      APP_DB: path.join(directory, 'app.db'),
      API_KEYS: '',
      RATE_LIMIT_PER_MINUTE: '0',
      LOG_FORMAT: 'json',
      LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  let exited = false;
  child.once('exit', () => (exited = true));
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline && !exited) {
    try {
      if ((await fetch(`${url}/health`)).ok) return { url, child, directory };
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  child.kill('SIGKILL');
  throw new Error(exited ? 'the service exited before listening' : 'the service did not start within 30 s');
}

async function main(): Promise<void> {
  let service: Awaited<ReturnType<typeof startService>> | undefined;
  let url = values.url;
  if (url === undefined) {
    process.stdout.write('starting the service (offline model, temporary APP_DB)...\n');
    service = await startService();
    url = service.url;
  }
  const target = new URL(url);
  if (!['127.0.0.1', 'localhost', '[::1]'].includes(target.hostname)) {
    process.stderr.write(`--url must point at this machine (127.0.0.1), got ${target.hostname}\n`);
    process.exit(2);
  }
  process.stdout.write(`driving POST ${target.origin}/chat: ${connections} connections, ${duration} s, conversations of ${turns} turns\n`);

  // One request per turn; autocannon clears the context after the last one, so the next loop starts a new conversation.
  type Context = { session_id?: string };
  const requests = Array.from({ length: turns }, (_unused, turn) => ({
    method: 'POST' as const,
    path: '/chat',
    headers: { 'content-type': 'application/json' },
    setupRequest: (request: autocannon.Request, context: Context) => {
      const question = QUESTIONS[turn % QUESTIONS.length]!;
      request.body = JSON.stringify(turn > 0 && context.session_id ? { message: question, session_id: context.session_id } : { message: question });
      return request;
    },
    onResponse: (status: number, body: string, context: Context) => {
      if (status === 200 && turn === 0) context.session_id = (JSON.parse(body) as { session_id: string }).session_id;
    },
  }));
  let result: autocannon.Result;
  // No request may stall the service: GET /health every 50 ms meanwhile.
  const probe = pollHealth(target.origin, 50);
  let latencies: number[];
  try {
    result = await autocannon({ url: target.origin, connections, duration, requests: requests as unknown as autocannon.Request[], timeout: 60 });
  } finally {
    latencies = await probe.stop();
    if (service) {
      const exited = new Promise<number | null>((resolve) => service!.child.once('exit', (code) => resolve(code)));
      service.child.kill('SIGTERM');
      const code = await exited;
      rmSync(service.directory, { recursive: true, force: true });
      process.stdout.write(`service stopped with SIGTERM (exit ${code})\n`);
    }
  }
  const errors = result.errors + result.timeouts;
  const sorted = latencies.sort((x, y) => x - y);
  const health = { probes: sorted.length, p50: percentile(sorted, 50), p99: percentile(sorted, 99), max: percentile(sorted, 100) };
  const figures = {
    connections,
    duration_s: duration,
    requests: result.requests.total,
    requests_per_s: result.requests.average,
    latency_ms: { p50: result.latency.p50, p90: result.latency.p90, p99: result.latency.p99, max: result.latency.max, mean: result.latency.mean },
    non_2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    health_ms: health,
  };
  process.stdout.write(
    [
      '',
      `requests:   ${figures.requests} in ${duration} s (${figures.requests_per_s} req/s)`,
      `latency:    p50 ${figures.latency_ms.p50} ms, p90 ${figures.latency_ms.p90} ms, p99 ${figures.latency_ms.p99} ms, max ${figures.latency_ms.max} ms`,
      `non-2xx:    ${figures.non_2xx}`,
      `errors:     ${errors} (${result.errors} errors, ${result.timeouts} timeouts)`,
      `/health:    ${health.probes} probes, p50 ${health.p50} ms, p99 ${health.p99} ms, max ${health.max} ms`,
      JSON.stringify(figures),
      '',
    ].join('\n'),
  );
  if (errors > 0 || result.non2xx > 0 || health.p99 >= 50) process.exit(1);
}

main().catch((error: unknown) => {
  process.stderr.write(`load test failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
