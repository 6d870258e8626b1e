/**
 * Load tests: `npm run load -- [--scenario all|chat|fairness] [--connections 20] [--duration 15] [--turns 5] [--url http://127.0.0.1:3000] [--data FILE] [--seconds 20] [--workers 2]`.
 *
 * `chat` drives POST /chat. Without --url it starts the real service as a child process (offline
 * model, a temporary APP_DB, a free port) and stops it with SIGTERM at the end. Each autocannon
 * connection runs its own conversations: a new session, then follow-ups carrying its session_id
 * (--turns questions per conversation), for a bounded time. Meanwhile GET /health is probed every
 * 50 ms: no request may stall the service, so its p99 must stay under 50 ms. Prints requests/s,
 * p50/p99/max latency, non-2xx responses, errors and the /health figures; fails on any error,
 * non-2xx response or a /health p99 of 50 ms or more.
 *
 * `fairness` (loadFairness.ts) starts a service with two keys on DATA_DB=--data (default: the
 * sample) and measures one key's trivial query while the other floods or abandons work, --seconds
 * per phase; it fails when the trivial query's p99 exceeds twice its idle p99.
 *
 * `all` (the default) runs both; exits 1 when either fails. Only 127.0.0.1/localhost.
 */
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { percentile, pollHealth } from '../bench/healthProbe.ts';
import { runFairness } from './loadFairness.ts';
import { startService, type LoadService } from './loadService.ts';

const QUESTIONS = [
  'compare amount between fi_reporting and bpc_reporting for company 1000 in December 2024',
  'and for company 2000?',
  'Compare fi_reporting with bpc_reporting for company 3000 in period 2024010',
  'Which sources are available?',
];

const { values } = parseArgs({
  options: {
    scenario: { type: 'string', default: 'all' },
    connections: { type: 'string', default: '20' },
    duration: { type: 'string', default: '15' },
    turns: { type: 'string', default: '5' },
    url: { type: 'string' },
    data: { type: 'string' },
    // 20 s a phase: about 700 of B's queries, so p99 is a 7th-largest value rather than the 2nd of 200 (which swung 2.3–3.6× between runs).
    seconds: { type: 'string', default: '20' },
    workers: { type: 'string', default: '2' },
  },
});
const connections = positiveInteger('connections', values.connections);
const duration = positiveInteger('duration', values.duration);
const turns = positiveInteger('turns', values.turns);
const seconds = positiveInteger('seconds', values.seconds);
const workers = positiveInteger('workers', values.workers);
if (!['all', 'chat', 'fairness'].includes(values.scenario!)) {
  process.stderr.write(`--scenario must be all, chat or fairness, got '${values.scenario}'\n`);
  process.exit(2);
}

function positiveInteger(name: string, raw: string | undefined): number {
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1) {
    process.stderr.write(`--${name} must be a positive whole number, got '${raw}'\n`);
    process.exit(2);
  }
  return value;
}

async function main(): Promise<void> {
  let ok = true;
  if (values.scenario !== 'fairness') ok = (await chatLoad()) && ok;
  if (values.scenario !== 'chat') ok = (await runFairness({ data: values.data, seconds, workers })) && ok;
  if (!ok) process.exit(1);
}

/** The POST /chat scenario; resolves with whether its targets held. */
async function chatLoad(): Promise<boolean> {
  let service: LoadService | undefined;
  let url = values.url;
  if (url === undefined) {
    process.stdout.write('starting the service (offline model, temporary APP_DB)...\n');
    // No API keys and no rate limit: every connection comes from 127.0.0.1 and would share one client's budget.
    service = await startService(() => ({ API_KEYS: '', RATE_LIMIT_PER_MINUTE: '0' }));
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
    if (service) process.stdout.write(`service stopped with SIGTERM (exit ${await service.stop()})\n`);
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
  return errors === 0 && result.non2xx === 0 && health.p99 < 50;
}

main().catch((error: unknown) => {
  process.stderr.write(`load test failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
