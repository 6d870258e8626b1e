/**
 * The fairness scenario of `npm run load` (issue 19): two keys share one service; key B runs a
 * trivial query over and over while key A (1) sends MCP JSON-RPC batches of 100 comparisons,
 * (2) floods POST /tools with concurrent comparisons, and (3) abandons large comparisons (each
 * aborted after 300 ms). Each phase lasts a bounded 20 s (B's client runs in a thread of its own).
 * Prints B's latency p50/p99/max
 * idle and under each phase, the ratio of its p99 to the idle p99, and what A got; fails when
 * a ratio exceeds 2 (the target: another key's trivial query stays within 2× of its idle p99)
 * or when B is refused at all. Only 127.0.0.1.
 */
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { percentile } from '../bench/healthProbe.ts';
import { startService } from './loadService.ts';

export interface FairnessOptions {
  /** The data database (DATA_DB): the sample by default; a generated 1M-row one shows abandoned work best. */
  data: string | undefined;
  /** Length of each phase in seconds. */
  seconds: number;
  workers: number;
}

interface PhaseFigures {
  phase: string;
  b_requests: number;
  b_refused: number;
  b_p50_ms: number;
  b_p99_ms: number;
  b_max_ms: number;
  /** B's p50 of the time the tool took inside the service (its `duration_ms`). */
  b_tool_p50_ms: number;
  ratio_p99: number | null;
  /** Worker restarts during the phase (killed abandoned queries cost one each, paced). */
  restarts: number;
  a: Record<string, number>;
}

/** Most B may slow down under A's load, as a multiple of its idle p99. */
const TARGET_RATIO = 2;
const ACCEPT_MCP = 'application/json, text/event-stream';
const TRIVIAL = { source: 'bpc_reporting' };
const BY_PERIOD = { source_a: 'fi_acquisition', source_b: 'fi_reporting', measure: 'amount', align_on: ['company', 'period'] };
const BY_DOCUMENT = { source_a: 'fi_acquisition', source_b: 'fi_reporting', measure: 'amount', align_on: ['document', 'document_line'] };

/**
 * Runs the scenario against a service it starts; resolves with whether every target held.
 * @example
 * const ok = await runFairness({ data: '/tmp/1m.db', seconds: 6, workers: 2 });
 */
export async function runFairness(options: FairnessOptions): Promise<boolean> {
  const keyA = `load-a-${randomBytes(12).toString('hex')}`;
  const keyB = `load-b-${randomBytes(12).toString('hex')}`;
  const service = await startService((directory) => {
    const keysFile = path.join(directory, 'keys.yaml');
    writeFileSync(keysFile, 'keys:\n  - name: flood-a\n    key_env: LOAD_KEY_A\n  - name: probe-b\n    key_env: LOAD_KEY_B\n');
    // No rate limit: A stands for many clients sharing one key (or a key with a generous limit).
    // Only fatal lines: the 503s A is meant to get would each log an error line.
    return {
      LOG_LEVEL: 'fatal',
      API_KEYS: '',
      API_KEYS_FILE: keysFile,
      LOAD_KEY_A: keyA,
      LOAD_KEY_B: keyB,
      RATE_LIMIT_PER_MINUTE: '0',
      QUERY_WORKERS: String(options.workers),
      ...(options.data ? { DATA_DB: path.resolve(options.data) } : {}),
    };
  });
  process.stdout.write(`fairness: ${service.url}, data ${options.data ?? 'the sample'}, ${options.workers} workers, ${options.seconds} s per phase\n`);
  const figures: PhaseFigures[] = [];
  try {
    const { url } = service;
    const post = (key: string, tool: string, body: unknown, signal?: AbortSignal) =>
      fetch(`${url}/tools/${tool}`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` }, body: JSON.stringify(body), ...(signal ? { signal } : {}) });
    // Warm-up: the first queries open the workers' page caches.
    for (let index = 0; index < 5; index += 1) await (await post(keyB, 'query_source', TRIVIAL)).arrayBuffer();
    const phases: [string, ((deadline: number, tally: Tally) => Promise<void>) | undefined][] = [
      ['idle', undefined],
      ['A sends 50 MCP batches of 100 comparisons', (deadline, tally) => mcpBatches(url, keyA, deadline, tally)],
      ['A floods POST /tools (12 concurrent comparisons)', (deadline, tally) => loops(12, deadline, async () => tally.add(String((await drain(post(keyA, 'compare_sources', BY_PERIOD))).status)))],
      ['A abandons document-level comparisons (8 at a time, aborted after 300 ms)', (deadline, tally) =>
        loops(8, deadline, async () => {
          try {
            tally.add(String((await drain(post(keyA, 'compare_sources', BY_DOCUMENT, AbortSignal.timeout(300)))).status));
          } catch {
            tally.add('aborted');
          }
        })],
    ];
    for (const [name, attack] of phases) {
      await quiet(url);
      const deadline = Date.now() + options.seconds * 1000;
      const tally = new Tally();
      const restartsBefore = await restarts(url);
      const [samples] = await Promise.all([probe(`${url}/tools/query_source`, keyB, TRIVIAL, deadline), attack?.(deadline, tally)]);
      // A refusal counts with the time it took: it is what B waited for.
      const latencies = samples.map((sample) => sample.ms).sort((x, y) => x - y);
      const p99 = percentile(latencies, 99);
      const idleP99 = figures[0]?.b_p99_ms;
      figures.push({
        phase: name,
        b_requests: samples.length,
        b_refused: samples.filter((sample) => !sample.ok).length,
        b_p50_ms: percentile(latencies, 50),
        b_p99_ms: p99,
        b_max_ms: percentile(latencies, 100),
        b_tool_p50_ms: percentile(samples.map((sample) => sample.toolMs).sort((x, y) => x - y), 50),
        ratio_p99: idleP99 ? Math.round((p99 / idleP99) * 100) / 100 : null,
        restarts: (await restarts(url)) - restartsBefore,
        a: tally.counts,
      });
      const last = figures.at(-1)!;
      process.stdout.write(`  ${name}: B ${last.b_requests} queries, p50 ${last.b_p50_ms} ms, p99 ${last.b_p99_ms} ms, max ${last.b_max_ms} ms, refused ${last.b_refused}, in the service p50 ${last.b_tool_p50_ms} ms, ${last.restarts} worker restarts${last.ratio_p99 === null ? '' : `, p99 ${last.ratio_p99}× idle`}; A: ${JSON.stringify(last.a)}\n`);
    }
  } finally {
    const code = await service.stop();
    process.stdout.write(`service stopped with SIGTERM (exit ${code})\n`);
  }
  process.stdout.write(`${JSON.stringify({ fairness: figures })}\n`);
  const failed = figures.filter((phase) => phase.b_refused > 0 || (phase.ratio_p99 ?? 0) > TARGET_RATIO);
  for (const phase of failed) process.stdout.write(`FAIL ${phase.phase}: B's p99 ${phase.ratio_p99}× its idle p99 (target ≤ ${TARGET_RATIO}×), ${phase.b_refused} refused\n`);
  return failed.length === 0;
}

/** Counts of outcomes by name (HTTP status, `aborted`, …). */
class Tally {
  readonly counts: Record<string, number> = {};
  add(outcome: string, count = 1): void {
    this.counts[outcome] = (this.counts[outcome] ?? 0) + count;
  }
}

/**
 * B's client, in a thread of its own as another client would be: its trivial query one at a
 * time with a 20 ms pause, until the deadline. (In A's event loop, B's clock also counted the
 * time the load generator spent on A's hundreds of requests and aborts.)
 */
const PROBE = `
const { parentPort, workerData: { url, key, body, deadline } } = require('node:worker_threads');
(async () => {
  const samples = [];
  while (Date.now() < deadline) {
    const started = performance.now();
    const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer ' + key }, body });
    const answer = await response.json().catch(() => ({}));
    samples.push({ ms: performance.now() - started, ok: response.ok, toolMs: answer.duration_ms ?? 0 });
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  parentPort.postMessage(samples);
})();
`;

function probe(url: string, key: string, body: unknown, deadline: number): Promise<{ ms: number; ok: boolean; toolMs: number }[]> {
  return new Promise((resolve, reject) => {
    const thread = new Worker(PROBE, { eval: true, workerData: { url, key, body: JSON.stringify(body), deadline } });
    thread.once('message', resolve);
    thread.once('error', reject);
  });
}

/** `count` loops each running `step` until the deadline. */
async function loops(count: number, deadline: number, step: () => Promise<void>): Promise<void> {
  await Promise.all(Array.from({ length: count }, async () => {
    while (Date.now() < deadline) await step();
  }));
}

/** The issue's reproduction: 50 JSON-RPC batches of 100 tools/call each, 5 in flight. */
async function mcpBatches(url: string, key: string, deadline: number, tally: Tally): Promise<void> {
  const batch = JSON.stringify(Array.from({ length: 100 }, (_unused, id) => ({ jsonrpc: '2.0', id: id + 1, method: 'tools/call', params: { name: 'compare_sources', arguments: BY_PERIOD } })));
  let sent = 0;
  await loops(5, deadline, async () => {
    if (sent >= 50) return new Promise((resolve) => setTimeout(resolve, 20));
    sent += 1;
    const response = await fetch(`${url}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json', accept: ACCEPT_MCP, authorization: `Bearer ${key}` }, body: batch });
    tally.add(`http ${response.status}`);
    const body = (await response.json().catch(() => undefined)) as unknown;
    if (!Array.isArray(body)) return;
    for (const answer of body as { result?: { isError?: boolean } }[]) tally.add(answer.result && !answer.result.isError ? 'calls ran' : 'calls refused');
  });
}

/** Reads a response's body so its connection is free again. */
async function drain(pending: Promise<Response>): Promise<Response> {
  const response = await pending;
  await response.arrayBuffer().catch(() => undefined);
  return response;
}

/** The pool's worker restarts since startup (GET /health). */
async function restarts(url: string): Promise<number> {
  const { data } = (await (await fetch(`${url}/health`)).json()) as { data: { queries?: { restarts: number } } };
  return data.queries?.restarts ?? 0;
}

/** Waits (at most 60 s) until no query runs or waits, so phases do not overlap. */
async function quiet(url: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    const { data } = (await (await fetch(`${url}/health`)).json()) as { data: { queries?: { busy: number; queued: number } } };
    if (!data.queries || (data.queries.busy === 0 && data.queries.queued === 0)) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
