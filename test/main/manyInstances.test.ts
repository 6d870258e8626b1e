/**
 * Two real service processes sharing conversations through one PostgreSQL APP_DB (and the same
 * sample data), with a scripted OpenAI-wire model both call (test/support/mockOpenAI.ts), which
 * records every request so the test can see what history each turn was answered from:
 * (a) 16 turns sent at once to one session, alternately to both instances, are all answered,
 *     stored in order, never overlap, and each is answered from every turn before it;
 * (b) a comparison_id made on one instance is used by a follow-up on the other;
 * (c) an instance killed (SIGKILL) in the middle of a turn: the other serves the session once
 *     the dead one's lease expires (SESSION_LEASE_SECONDS=3), and no acknowledged turn is lost.
 * Prints the figures (turns, order checks, failover time).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresUrls } from '../support/engineServers.ts';
import { startMockOpenAI, type MockOpenAI } from '../support/mockOpenAI.ts';
import { scratchDatabase, type ScratchDatabase } from '../sessions/support/postgresDatabase.ts';
import { startServer, type ServerProcess } from './support/serverProcess.ts';

const LEASE_SECONDS = 3;
const CONCURRENT_TURNS = 16;

interface ChatAnswer {
  session_id: string;
  answer: string;
  tool_calls: { name: string; ok: boolean; result: Record<string, unknown> }[];
}

interface StoredSession {
  turns: { seq: number; question: string; answer: string; started_at: string; finished_at: string; tool_calls: { name: string; ok: boolean }[] }[];
}

interface ModelRequest {
  messages: { role: string; content: string | null }[];
}

let mock: MockOpenAI;
let database: ScratchDatabase;
let instances: [ServerProcess, ServerProcess];
/** Every turn a client got a 200 for, in this file: none may be missing at the end. */
const acknowledged: { sessionId: string; question: string }[] = [];


async function chat(server: ServerProcess, message: string, sessionId?: string): Promise<{ status: number; body: ChatAnswer }> {
  const response = await fetch(`${server.url}/chat`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(sessionId ? { message, session_id: sessionId } : { message }),
  });
  const body = (await response.json()) as ChatAnswer;
  if (response.status === 200) acknowledged.push({ sessionId: body.session_id, question: message });
  return { status: response.status, body };
}

async function storedSession(server: ServerProcess, sessionId: string): Promise<StoredSession> {
  const response = await fetch(`${server.url}/sessions/${sessionId}`);
  expect(response.status).toBe(200);
  return (await response.json()) as StoredSession;
}

/** The questions (user messages) the model was sent in one request, in order. */
const questionsIn = (request: ModelRequest) => request.messages.filter((message) => message.role === 'user').map((message) => message.content);

beforeAll(async () => {
  mock = await startMockOpenAI();
  database = await scratchDatabase((await postgresUrls()).adminUrl, 'instances');
  const environment = {
    APP_DB: database.url,
    SESSION_LEASE_SECONDS: String(LEASE_SECONDS),
    MODEL_PROVIDER: 'openai',
    OPENAI_BASE_URL: mock.url,
    OPENAI_API_KEY: 'test-key',
    OPENAI_MODEL: 'mock-model',
    MODEL_MAX_RETRIES: '0',
  };
  // Started together: both create (or find) the schema in the same fresh database at once.
  instances = await Promise.all([startServer(environment), startServer(environment)]);
}, 60_000);

afterAll(async () => {
  await Promise.all((instances ?? []).map((instance) => instance.kill()));
  await mock?.close();
  await database?.drop();
});

describe('two instances on one PostgreSQL APP_DB', () => {
  it('answers 16 concurrent turns on one session, spread over both, one after another, each from all turns before it', async () => {
    mock.enqueue({ content: 'Opened.' });
    const opened = await chat(instances[0], 'question 0');
    expect(opened.status).toBe(200);
    const sessionId = opened.body.session_id;
    mock.reset();
    // Each answer takes a while, so turns that were not serialised would overlap.
    mock.enqueue(...Array.from({ length: CONCURRENT_TURNS }, (_unused, index) => ({ content: `answer ${index + 1}`, delayMs: 40 })));

    const started = performance.now();
    const results = await Promise.all(Array.from({ length: CONCURRENT_TURNS }, (_unused, index) => chat(instances[index % 2]!, `question ${index + 1}`, sessionId)));
    const elapsedMs = Math.round(performance.now() - started);
    expect(results.map((result) => result.status)).toEqual(Array(CONCURRENT_TURNS).fill(200));

    // Both instances show the same 17 turns, numbered in order.
    const [onA, onB] = [await storedSession(instances[0], sessionId), await storedSession(instances[1], sessionId)];
    expect(onB).toEqual(onA);
    expect(onA.turns.map((turn) => turn.seq)).toEqual(Array.from({ length: CONCURRENT_TURNS + 1 }, (_unused, index) => index + 1));
    expect(new Set(onA.turns.map((turn) => turn.question)).size).toBe(CONCURRENT_TURNS + 1);
    // The model calls came one at a time in store order: the k-th was answered with the k-th reply…
    expect(onA.turns.slice(1).map((turn) => turn.answer)).toEqual(Array.from({ length: CONCURRENT_TURNS }, (_unused, index) => `answer ${index + 1}`));
    // …and was sent every question stored before it, in store order, then its own.
    const requests = mock.requests.map((request) => request.body as ModelRequest);
    expect(requests).toHaveLength(CONCURRENT_TURNS);
    const sawPredecessors = requests.filter((request, index) => JSON.stringify(questionsIn(request)) === JSON.stringify(onA.turns.slice(0, index + 2).map((turn) => turn.question))).length;
    expect(sawPredecessors).toBe(CONCURRENT_TURNS);
    // No two turns overlapped: each started after the one before it had finished.
    const overlaps = onA.turns.slice(1).filter((turn, index) => Date.parse(turn.started_at) < Date.parse(onA.turns[index]!.finished_at)).length;
    expect(overlaps).toBe(0);
    // Every answer a client got is the one stored for its question.
    for (const [index, result] of results.entries()) expect(onA.turns.find((turn) => turn.question === `question ${index + 1}`)?.answer).toBe(result.body.answer);
    console.log(
      `many instances: ${CONCURRENT_TURNS} concurrent turns on one session over 2 instances answered 200 in ${elapsedMs} ms; ` +
        `${onA.turns.length} turns stored in seq order on both; ${sawPredecessors}/${CONCURRENT_TURNS} model calls saw every earlier turn in order; ${overlaps} overlapping turns`,
    );
  }, 60_000);

  it('uses a comparison_id made on one instance in a follow-up on the other', async () => {
    mock.reset();
    const fiVsBpc = { source_a: 'fi_reporting', source_b: 'bpc_reporting', measure: 'amount', filters: { company: '1000', period: '2024012' } };
    mock.enqueue({ toolCalls: [{ name: 'compare_sources', arguments: fiVsBpc }] }, { content: 'They differ.' });
    const compared = await chat(instances[0], 'Compare FI with BPC for company 1000 in December 2024');
    expect(compared.status).toBe(200);
    const comparisonId = compared.body.tool_calls[0]?.result.comparison_id;
    expect(comparisonId).toMatch(/^cmp_/);

    mock.enqueue({ toolCalls: [{ name: 'explain_difference', arguments: { comparison_id: comparisonId } }] }, { content: 'Explained.' });
    const explained = await chat(instances[1], 'Why do they differ?', compared.body.session_id);
    expect(explained.status).toBe(200);
    expect(explained.body.tool_calls).toMatchObject([{ name: 'explain_difference', ok: true }]);
    expect(JSON.stringify(explained.body.tool_calls[0]!.result)).not.toMatch(/unknown or has expired/);
  }, 30_000);

  it('serves a session on the other instance once a SIGKILLed instance lease expires, losing no acknowledged turn', async () => {
    mock.reset();
    const [doomed, survivor] = instances;
    mock.enqueue({ content: 'Acknowledged before the kill.' });
    const before = await chat(doomed, 'question before the kill');
    expect(before.status).toBe(200);
    const sessionId = before.body.session_id;

    // The next turn hangs in the model call: the instance holds the session's lease when it dies.
    mock.enqueue({ hang: true });
    const interrupted = chat(doomed, 'question in flight at the kill', sessionId).catch(() => 'connection lost');
    const deadline = Date.now() + 10_000;
    while (mock.requests.length < 2 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(mock.requests).toHaveLength(2);
    doomed.child.kill('SIGKILL');
    expect((await doomed.exited).signal).toBe('SIGKILL');
    expect(await interrupted).toBe('connection lost');

    mock.enqueue({ content: 'Answered by the survivor.' });
    // Answered once the dead instance's lease expired (a lease that never expired would hang past the test's timeout).
    const after = await chat(survivor, 'question after the kill', sessionId);
    expect(after.status).toBe(200);
    expect(after.body.answer).toBe('Answered by the survivor.');

    const stored = await storedSession(survivor, sessionId);
    expect(stored.turns.map((turn) => [turn.seq, turn.question])).toEqual([
      [1, 'question before the kill'],
      [2, 'question after the kill'],
    ]);
    // The survivor answered from the acknowledged turn (the interrupted one was never stored).
    expect(questionsIn(mock.requests[2]!.body as ModelRequest)).toEqual(['question before the kill', 'question after the kill']);
    // Every turn acknowledged in this file, on either instance, is stored (read from the survivor).
    let kept = 0;
    for (const turn of acknowledged) {
      const questions = (await storedSession(survivor, turn.sessionId)).turns.map((stored) => stored.question);
      if (questions.includes(turn.question)) kept++;
    }
    expect(kept).toBe(acknowledged.length);
    console.log(`many instances: SIGKILL mid-turn -> the other instance answered the session once the lease expired (SESSION_LEASE_SECONDS=${LEASE_SECONDS}); acknowledged turns still stored: ${kept}/${acknowledged.length}`);
  }, 60_000);
});
