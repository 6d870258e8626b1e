/**
 * SIGTERM shuts the real service down gracefully: it stops accepting connections, a request
 * in flight finishes and gets its answer, an event stream still open at the end of the grace
 * period ends with a `/problems/shutting-down` event, the application database is closed
 * cleanly (no WAL left behind, every turn there) and the process exits 0.
 */
import { existsSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { SqliteSessionStore } from '../../src/sessions/sqliteSessionStore.ts';
import { temporaryDirectory, twoSourceCatalog, writeCatalog, writeHeavyDatabase } from '../support/catalogFixture.ts';
import { startMockOpenAI, type MockOpenAI } from '../support/mockOpenAI.ts';
import { startServer, waitFor, type ServerProcess } from './support/serverProcess.ts';

let server: ServerProcess | undefined;
let mock: MockOpenAI | undefined;
/** Two sources of 1.5 M keys (made once: a few seconds). */
let heavy: { dataDb: string; catalog: string };
beforeAll(() => {
  const directory = temporaryDirectory('main-heavy-');
  heavy = { dataDb: writeHeavyDatabase(directory), catalog: writeCatalog(directory, twoSourceCatalog()) };
}, 120_000);
afterEach(async () => {
  await server?.kill();
  await mock?.close();
  server = undefined;
  mock = undefined;
});

function chat(url: string, body: Record<string, unknown>): Promise<Response> {
  return fetch(`${url}/chat`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
}

/** Whether a fresh TCP connection to the port is refused. */
function connectionRefused(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(true));
  });
}

describe('graceful shutdown (SIGTERM)', () => {
  it('finishes the request in flight, ends an open stream with a shutdown event, closes the database and exits 0', async () => {
    mock = await startMockOpenAI();
    // 1: a quick turn before the shutdown; 2: a slow answer in flight at SIGTERM; 3: a stream that never gets its answer.
    mock.enqueue({ content: 'first answer' }, { content: 'slow answer', delayMs: 1_500 }, { hang: true });
    const appDb = path.join(temporaryDirectory('main-shutdown-'), 'app.db');
    server = await startServer({
      APP_DB: appDb,
      MODEL_PROVIDER: 'openai',
      OPENAI_BASE_URL: mock.url,
      OPENAI_API_KEY: 'test-key',
      OPENAI_MODEL: 'mock-model',
      MODEL_MAX_RETRIES: '0',
      MODEL_TIMEOUT_MS: '20000',
      // Long enough for the slow answer (1.5 s) to finish first even on a loaded machine.
      SHUTDOWN_GRACE_MS: '8000',
    });
    const { url, port } = server;

    const first = await chat(url, { message: 'first question' });
    expect(first.status).toBe(200);
    const firstBody = (await first.json()) as { session_id: string; answer: string };
    expect(firstBody.answer).toBe('first answer');

    const slow = chat(url, { message: 'slow question' });
    await waitFor(() => mock!.requests.length === 2, 10_000, 'the slow request to reach the model');
    const stream = await chat(url, { message: 'streamed question', stream: true });
    expect(stream.status).toBe(200);
    const streamText = stream.text();
    await waitFor(() => mock!.requests.length === 3, 10_000, 'the streamed request to reach the model');

    server.child.kill('SIGTERM');
    await waitFor(() => server!.logs.some((entry) => entry.msg === 'shutdown: stopped accepting connections; waiting for in-flight requests'), 15_000, 'the shutdown to start');
    expect(await connectionRefused(port)).toBe(true);

    // The request in flight completes normally.
    const slowResponse = await slow;
    expect(slowResponse.status).toBe(200);
    const slowBody = (await slowResponse.json()) as { session_id: string; answer: string };
    expect(slowBody.answer).toBe('slow answer');

    // The stream still open at the end of the grace period gets the shutdown event.
    const events = await streamText;
    expect(events).toMatch(/event: error\ndata: .*"type":"\/problems\/shutting-down"/);
    const errorData = /event: error\ndata: (.*)\n/.exec(events)![1]!;
    expect(JSON.parse(errorData)).toMatchObject({ type: '/problems/shutting-down', status: 503 });

    expect(await server.exited).toEqual({ code: 0, signal: null });
    // The stream was ended once the grace period was over, not at the signal.
    const shutdownMessages = server.logs.map((entry) => String(entry.msg)).filter((msg) => msg.startsWith('shutdown: '));
    expect(shutdownMessages[0]).toBe('shutdown: stopped accepting connections; waiting for in-flight requests');
    expect(shutdownMessages[1]).toMatch(/^shutdown: grace period over; ended 1 open event stream\(s\)/);
    const messages = server.logs.map((entry) => entry.msg);
    expect(messages).toContain('received SIGTERM: shutting down');
    expect(messages).toContain('shutdown: query workers stopped and application database closed');
    expect(messages).toContain('shutdown complete');

    // Closed cleanly: the WAL was checkpointed into the file and removed; every answered turn is there.
    expect(existsSync(`${appDb}-wal`)).toBe(false);
    const raw = new Database(appDb, { readonly: true });
    expect(raw.pragma('integrity_check', { simple: true })).toBe('ok');
    raw.close();
    const store = new SqliteSessionStore({ path: appDb, ttlMs: 0, expiryIntervalMs: 0 });
    try {
      expect(store.history(firstBody.session_id)!.turnRecords.map((turn) => turn.question)).toEqual(['first question']);
      expect(store.history(slowBody.session_id)!.turnRecords.map((turn) => [turn.question, turn.answer])).toEqual([['slow question', 'slow answer']]);
    } finally {
      store.close();
    }
  }, 90_000);

  it('finishes a query in flight when the whole process group gets SIGINT (Ctrl-C, systemd), query workers included', async () => {
    server = await startServer({ DATA_DB: heavy.dataDb, CATALOG: heavy.catalog, APP_DB: path.join(temporaryDirectory('main-group-'), 'app.db'), QUERY_TIMEOUT_MS: '60000', SHUTDOWN_GRACE_MS: '60000' }, 60_000, undefined, { detached: true });
    // 1.5 M keys a side: a comparison of a second or more.
    const answer = fetch(`${server.url}/tools/compare_sources`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ source_a: 'left', source_b: 'right', measure: 'amount', align_on: ['key'] }) });
    // Signalled once a worker runs it (GET /metrics counts busy workers).
    const deadline = Date.now() + 20_000;
    while (!/query_pool_workers\{state="busy"\} [1-9]/.test(await (await fetch(`${server.url}/metrics`)).text())) {
      if (Date.now() > deadline) throw new Error('the comparison never reached a query worker');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    process.kill(-server.child.pid!, 'SIGINT');
    const response = await answer;
    expect(response.status).toBe(200);
    expect(((await response.json()) as { ok: boolean; result: { summary: { aligned_rows: number } } }).result.summary.aligned_rows).toBe(1_500_000);
    expect(await server.exited).toEqual({ code: 0, signal: null });
    // Every log line read (the last one is written just before the exit).
    await waitFor(() => server!.logs.some((entry) => entry.msg === 'shutdown complete'), 10_000, 'the last log line');
    const messages = server.logs.map((entry) => String(entry.msg));
    expect(messages).toContain('received SIGINT: shutting down');
    // No worker died at the signal, nor was one started in its place.
    expect(messages).not.toContainEqual(expect.stringMatching(/query worker (stopped unexpectedly|could not start)/));
  }, 150_000);

  it('exits 0 at once when nothing is in flight', async () => {
    const appDb = path.join(temporaryDirectory('main-shutdown-'), 'app.db');
    // A grace period longer than the test: a shutdown that waited for it would not end in time.
    server = await startServer({ APP_DB: appDb, SHUTDOWN_GRACE_MS: '600000' });
    const answered = await chat(server.url, { message: 'Which sources are available?' });
    expect(answered.status).toBe(200);
    await answered.json();
    server.child.kill('SIGINT');
    expect(await server.exited).toEqual({ code: 0, signal: null });
    // The idle keep-alive connection did not hold the shutdown for the grace period.
    expect(server.logs.map((entry) => String(entry.msg))).not.toContainEqual(expect.stringMatching(/grace period over/));
    expect(existsSync(`${appDb}-wal`)).toBe(false);
  }, 90_000);
});
