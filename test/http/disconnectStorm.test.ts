/**
 * A storm of clients that open a streamed /chat and hang up as soon as its first tool starts,
 * against a real service on 127.0.0.1 with real query workers: the disconnects must not cost
 * a process each (restarts stay bounded) and another client's trivial query is answered all
 * along. How fast it is answered is measured by `npm run bench:latency`.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Service } from '../../src/service.ts';
import { temporaryDirectory } from '../support/catalogFixture.ts';
import { listenService, type ListeningService } from '../support/listeningService.ts';

const DISCONNECTS = 60;
const CONCURRENCY = 6;
const QUESTION = 'compare amount between fi_reporting and bpc_reporting for company 1000 in December 2024';
const TRIVIAL = { source: 'fi_reporting', filters: { company: '1000', period: '2024012' } };

let listening: ListeningService;
let service: Service;
let url: string;
beforeAll(async () => {
  listening = await listenService({ LOG_LEVEL: 'silent', MODEL_PROVIDER: 'offline', APP_DB: path.join(temporaryDirectory('storm-'), 'app.db'), RATE_LIMIT_PER_MINUTE: '0', QUERY_WORKERS: '2' });
  ({ service, url } = listening);
});
afterAll(() => listening.close());

/** Opens a streamed chat and hangs up at its first `tool_start` event. */
async function hangUpAtFirstTool(): Promise<void> {
  const controller = new AbortController();
  try {
    const response = await fetch(`${url}/chat`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ message: QUESTION, stream: true }), signal: controller.signal });
    const decoder = new TextDecoder();
    let text = '';
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      text += decoder.decode(chunk, { stream: true });
      if (text.includes('event: tool_start')) break;
    }
  } catch {
    // the abort below, or the server ending the stream: either way the client is gone
  } finally {
    controller.abort();
  }
}

/** The other client's query: its status and what it answered. */
async function trivialQuery(): Promise<{ status: number; result: string }> {
  const response = await fetch(`${url}/tools/query_source`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(TRIVIAL) });
  const body = (await response.json()) as { result?: unknown };
  return { status: response.status, result: JSON.stringify(body.result) };
}

describe('a storm of disconnecting streamed chats', () => {
  it('costs a bounded number of worker restarts and answers another client\'s trivial query throughout', async () => {
    const restartsBefore = service.queries.stats().restarts;
    const expected = await trivialQuery();
    expect(expected.status).toBe(200);
    let started = 0;
    let stormOver = false;
    const samples: { status: number; result: string }[] = [];
    const prober = (async () => {
      while (!stormOver) {
        samples.push(await trivialQuery());
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    })();
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (started < DISCONNECTS) {
          started += 1;
          await hangUpAtFirstTool();
        }
      }),
    );
    stormOver = true;
    await prober;
    const restarts = service.queries.stats().restarts - restartsBefore;
    // Each disconnect used to kill and respawn a worker (about one restart per disconnect).
    expect(restarts, JSON.stringify(service.queries.stats())).toBeLessThanOrEqual(5);
    // The other client was answered during the storm, every time, with the same rows.
    expect(samples.length).toBeGreaterThanOrEqual(3);
    expect(expected.result).toMatch(/amount/);
    expect(samples.filter((sample) => sample.status !== 200 || sample.result !== expected.result)).toEqual([]);
    // Every worker is back and idle once the storm is over (the last abandoned query may still
    // be inside its grace period when the storm ends).
    await vi.waitFor(() => expect(service.queries.stats()).toMatchObject({ ready: 2, busy: 0, queued: 0 }), { timeout: 20_000, interval: 50 });
  }, 90_000);
});
