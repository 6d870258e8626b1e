/**
 * Durable conversations over real HTTP: /chat turns land in the application database, the
 * /sessions routes list, show and delete them, and a restarted service continues a
 * conversation where it stopped.
 */
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import Database from 'better-sqlite3';
import supertest from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.ts';
import { silentLogger } from '../../src/logging/logger.ts';
import { createService, type Service } from '../../src/service.ts';
import { temporaryDirectory } from '../support/catalogFixture.ts';

type Json = Record<string, unknown>;
interface ChatBody {
  session_id: string;
  answer: string;
  finished: boolean;
  stop_reason: string;
  iterations: number;
  tool_calls: { id: string; name: string; ok: boolean }[];
  usage: { input_tokens: number; output_tokens: number; total_tokens: number };
}
interface TurnBody {
  seq: number;
  question: string;
  answer: string;
  finished: boolean;
  stop_reason: string;
  iterations: number;
  tool_calls: ChatBody['tool_calls'];
  usage: ChatBody['usage'];
  started_at: string;
  finished_at: string;
}

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const COMPARE = 'compare amount between fi_reporting and bpc_reporting for company 1000 in December 2024';
const TOTAL = 'What is the total amount in fi_reporting for company 1000 in December 2024?';
const FOLLOW_UP = 'and for company 2000?';

const appDb = path.join(temporaryDirectory('sessions-http-'), 'app.db');
let service: Service;
let api: ReturnType<typeof supertest>;

async function start(): Promise<void> {
  service = await createService(loadConfig({ LOG_LEVEL: 'silent', MODEL_PROVIDER: 'offline', APP_DB: appDb } as NodeJS.ProcessEnv), silentLogger());
  api = supertest(service.app);
}

async function chat(message: string, sessionId?: string): Promise<ChatBody> {
  const response = await api.post('/chat').send({ message, ...(sessionId ? { session_id: sessionId } : {}) });
  expect(response.status, response.text).toBe(200);
  return response.body as ChatBody;
}

beforeAll(start);
afterAll(async () => {
  await service?.close();
});

describe('conversations are stored and survive a restart', () => {
  let sessionId: string;
  const answers: ChatBody[] = [];

  it('stores two /chat turns, listed by GET /sessions with a title and the turn count', async () => {
    answers.push(await chat(COMPARE));
    sessionId = answers[0]!.session_id;
    answers.push(await chat(TOTAL, sessionId));
    expect(answers[1]!.answer).toContain('443,100.00 EUR');

    const response = await api.get('/sessions');
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    const body = response.body as { sessions: Json[]; next_cursor: string | null };
    expect(body.next_cursor).toBeNull();
    expect(body.sessions).toHaveLength(1);
    const listed = body.sessions[0]!;
    expect(Object.keys(listed).sort()).toEqual(['created_at', 'id', 'title', 'turns', 'updated_at']);
    expect(listed).toMatchObject({ id: sessionId, turns: 2, title: `${COMPARE.slice(0, 79)}…` });
    expect(listed.created_at).toMatch(ISO);
    expect(listed.updated_at).toMatch(ISO);
    expect(Date.parse(listed.updated_at as string)).toBeGreaterThan(Date.parse(listed.created_at as string));
  });

  it('GET /sessions/{id} returns both turns with their tool calls and usage', async () => {
    const response = await api.get(`/sessions/${sessionId}`);
    expect(response.status).toBe(200);
    const body = response.body as Json & { turns: TurnBody[] };
    expect(Object.keys(body).sort()).toEqual(['created_at', 'id', 'title', 'turns', 'updated_at']);
    expect(body.id).toBe(sessionId);
    expect(body.turns.map((t) => [t.seq, t.question])).toEqual([
      [1, COMPARE],
      [2, TOTAL],
    ]);
    body.turns.forEach((turn, index) => {
      const answer = answers[index]!;
      expect(Object.keys(turn).sort()).toEqual(['answer', 'figures', 'finished', 'finished_at', 'iterations', 'question', 'seq', 'started_at', 'stop_reason', 'tool_calls', 'usage']);
      expect(turn).toMatchObject({ answer: answer.answer, finished: true, stop_reason: 'completed', iterations: answer.iterations });
      expect(turn.tool_calls).toEqual(answer.tool_calls);
      expect(turn.usage).toEqual(answer.usage);
      expect(turn.usage.total_tokens).toBeGreaterThan(0);
      expect(turn.started_at).toMatch(ISO);
      expect(turn.finished_at).toMatch(ISO);
      expect(Date.parse(turn.finished_at)).toBeGreaterThanOrEqual(Date.parse(turn.started_at));
    });
    expect(body.turns[0]!.tool_calls.map((c) => c.name)).toEqual(['compare_sources', 'explain_difference']);
    expect(body.turns[1]!.tool_calls.map((c) => c.name)).toEqual(['query_source']);
  });

  it('continues the conversation after a restart: the model sees the earlier turns', async () => {
    await service.close();
    await start();
    const followUp = await chat(FOLLOW_UP, sessionId);
    expect(followUp.session_id).toBe(sessionId);
    expect(followUp.answer).toContain('191,720.58 USD');
    const history = (await api.get(`/sessions/${sessionId}`)).body as { turns: TurnBody[] };
    expect(history.turns.map((t) => t.question)).toEqual([COMPARE, TOTAL, FOLLOW_UP]);
  });

  it('DELETE /sessions/{id} removes it (204); then GET, DELETE and /chat answer 404 session-not-found', async () => {
    const deleted = await api.delete(`/sessions/${sessionId}`);
    expect(deleted.status).toBe(204);
    expect(deleted.text).toBe('');
    for (const response of [
      await api.get(`/sessions/${sessionId}`),
      await api.delete(`/sessions/${sessionId}`),
      await api.post('/chat').send({ message: FOLLOW_UP, session_id: sessionId }),
    ]) {
      expect(response.status).toBe(404);
      expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(response.body).toMatchObject({ type: '/problems/session-not-found', status: 404, title: 'Session not found' });
      expect((response.body as Json).request_id).toBe(response.headers['x-request-id']);
    }
    expect(((await api.get('/sessions')).body as { sessions: Json[] }).sessions.map((s) => s.id)).not.toContain(sessionId);
  });
});

describe('two turns sent at once to one session', () => {
  it('are both stored, in order, one after the other', async () => {
    const { session_id: sessionId } = await chat(TOTAL);
    const questions = ['Which sources are available?', 'Compare fi_reporting with bpc_reporting for company 3000 in period 2024010'];
    const [first, second] = await Promise.all(questions.map((question) => api.post('/chat').send({ message: question, session_id: sessionId })));
    expect([first!.status, second!.status]).toEqual([200, 200]);

    const turns = ((await api.get(`/sessions/${sessionId}`)).body as { turns: TurnBody[] }).turns;
    expect(turns.map((t) => t.seq)).toEqual([1, 2, 3]);
    expect(turns[0]!.question).toBe(TOTAL);
    expect(turns.slice(1).map((t) => t.question).sort()).toEqual([...questions].sort());
    // Serialised: each turn started after the one before it had finished.
    for (let index = 1; index < turns.length; index += 1) {
      expect(Date.parse(turns[index]!.started_at)).toBeGreaterThanOrEqual(Date.parse(turns[index - 1]!.finished_at));
    }
    // The stored model history is whole turns, in turn order, each starting with its question.
    const raw = new Database(appDb, { readonly: true });
    const rows = raw.prepare('SELECT seq, turn_seq, message FROM messages WHERE session_id = ? ORDER BY seq').all(sessionId) as { seq: number; turn_seq: number; message: string }[];
    raw.close();
    expect(rows.map((r) => r.turn_seq)).toEqual([...rows.map((r) => r.turn_seq)].sort((a, b) => a - b));
    const firstOfTurn = rows.filter((row, index) => index === 0 || rows[index - 1]!.turn_seq !== row.turn_seq);
    expect(firstOfTurn.map((r) => r.turn_seq)).toEqual([1, 2, 3]);
    expect(firstOfTurn.map((r) => (JSON.parse(r.message) as { type: string; data: { content: string } }).data.content)).toEqual(turns.map((t) => t.question));
    expect(firstOfTurn.map((r) => (JSON.parse(r.message) as { type: string }).type)).toEqual(['human', 'human', 'human']);
  });
});

describe('GET /sessions pagination and validation', () => {
  it('pages with limit and next_cursor', async () => {
    for (let index = 0; index < 3; index += 1) await chat(`Which sources are available? (${index})`);
    const all = ((await api.get('/sessions?limit=100')).body as { sessions: { id: string; updated_at: string }[] }).sessions;
    expect(all.length).toBeGreaterThanOrEqual(4);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const response = await api.get('/sessions').query({ limit: 3, ...(cursor ? { cursor } : {}) });
      expect(response.status).toBe(200);
      const body = response.body as { sessions: { id: string }[]; next_cursor: string | null };
      expect(body.sessions.length).toBeLessThanOrEqual(3);
      seen.push(...body.sessions.map((s) => s.id));
      cursor = body.next_cursor;
    } while (cursor);
    expect(seen).toEqual(all.map((s) => s.id));
    const updated = all.map((s) => s.updated_at);
    expect(updated).toEqual([...updated].sort().reverse());
  });

  it.each([
    ['limit=0', 'limit'],
    ['limit=101', 'limit'],
    ['limit=abc', 'limit'],
    ['limit=1.5', 'limit'],
    ['limit=1&limit=2', 'limit'],
    ['cursor=bm9wZQ', 'cursor'],
    ['cursor=', 'cursor'],
    ['page=2', 'page'],
  ])('refuses ?%s (400 invalid-request naming %s)', async (query, errorPath) => {
    const response = await api.get(`/sessions?${query}`);
    expect(response.status).toBe(400);
    expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(response.body).toMatchObject({ type: '/problems/invalid-request', status: 400 });
    expect((response.body as { errors: { path: string; message: string }[] }).errors).toEqual([expect.objectContaining({ path: errorPath, message: expect.any(String) })]);
  });

  it('answers 404 session-not-found for an unknown id', async () => {
    for (const id of [randomUUID(), 'not-a-uuid']) {
      const response = await api.get(`/sessions/${id}`);
      expect(response.status).toBe(404);
      expect(response.body).toMatchObject({ type: '/problems/session-not-found' });
    }
  });
});
