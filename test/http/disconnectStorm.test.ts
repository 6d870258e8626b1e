/**
 * A storm of clients that open a streamed /chat and hang up as soon as its first tool starts,
 * against a real service on 127.0.0.1 with real query workers: the disconnects must not cost
 * a process each (restarts stay bounded) and another client's trivial query stays fast.
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

async function trivialQuery(): Promise<{ clientMs: number; serverMs: number }> {
  const started = performance.now();
  const response = await fetch(`${url}/tools/query_source`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(TRIVIAL) });
  const body = (await response.json()) as { duration_ms: number };
  expect(response.status).toBe(200);
  return { clientMs: performance.now() - started, serverMs: body.duration_ms };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

describe('a storm of disconnecting streamed chats', () => {
  it('costs a bounded number of worker restarts and keeps another client\'s trivial query fast', async () => {
    const restartsBefore = service.queries.stats().restarts;
    let started = 0;
    let stormOver = false;
    const samples: { clientMs: number; serverMs: number }[] = [];
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
    expect(samples.length).toBeGreaterThanOrEqual(3);
    expect(median(samples.map((s) => s.serverMs)), JSON.stringify(samples)).toBeLessThan(100);
    expect(median(samples.map((s) => s.clientMs)), JSON.stringify(samples)).toBeLessThan(400);
    // Every worker is back and idle once the storm is over (the last abandoned query may still
    // be inside its 250 ms grace when the storm ends: allow it a few seconds, not forever).
    await vi.waitFor(() => expect(service.queries.stats()).toMatchObject({ ready: 2, busy: 0, queued: 0 }), { timeout: 5_000, interval: 50 });
  }, 60_000);
});
