/**
 * Attacks that need a model behind the real service (a child process on 127.0.0.1, the
 * OpenAI-compatible mock in this process):
 * - a session deleted while its question is being answered: the answer must not be a 200 (the
 *   turn could not be stored), but a 404, streamed or not;
 * - a model URL with credentials and a token in its query string: neither may appear in any
 *   log line or any response.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import path from 'node:path';
import { startServer, type ServerProcess } from '../main/support/serverProcess.ts';
import { temporaryDirectory } from '../support/catalogFixture.ts';
import { startMockOpenAI, type MockOpenAI } from '../support/mockOpenAI.ts';
import { send } from './support/rawHttp.ts';

const PASSWORD = 's3cret-pass-0123';
const TOKEN = 'tok-query-0123456';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const modelEnv = (url: string) => ({ MODEL_PROVIDER: 'openai', OPENAI_BASE_URL: url, OPENAI_API_KEY: 'test-key', OPENAI_MODEL: 'mock-model', MODEL_MAX_RETRIES: '0', MODEL_TIMEOUT_MS: '5000' });

let mock: MockOpenAI;
beforeAll(async () => {
  mock = await startMockOpenAI();
});
afterAll(async () => {
  await mock?.close();
});

const chat = (server: ServerProcess, body: Record<string, unknown>) =>
  send(server.url, { method: 'POST', path: '/chat', body: JSON.stringify(body), headers: { 'content-type': 'application/json', host: `127.0.0.1:${server.port}` } });
const remove = (server: ServerProcess, id: string) => send(server.url, { method: 'DELETE', path: `/sessions/${id}`, headers: { host: `127.0.0.1:${server.port}` } });

describe('a session deleted while its question is answered', () => {
  let server: ServerProcess;
  beforeAll(async () => {
    server = await startServer({ ...modelEnv(mock.url), APP_DB: path.join(temporaryDirectory('analyst-midflight-'), 'app.db') });
  }, 30_000);
  afterAll(async () => {
    await server?.kill();
  });

  for (const stream of [false, true]) {
    it(`answers 404 instead of an unstored 200${stream ? ' (streamed: the last event is the 404 problem)' : ''}`, async () => {
      mock.enqueue({ content: 'First answer.' });
      const first = await chat(server, { message: 'first question' });
      expect(first.status).toBe(200);
      const sessionId = first.json.session_id as string;

      mock.enqueue({ content: 'An answer nobody may receive as stored.', delayMs: 1_500 });
      const pending = chat(server, { message: 'second question', session_id: sessionId, stream });
      await sleep(500);
      expect((await remove(server, sessionId)).status).toBe(204);
      const answer = await pending;
      if (stream) {
        expect(answer.status).toBe(200);
        expect(answer.body).not.toContain('event: final');
        expect(answer.body).toMatch(/event: error\ndata: .*"type":"\/problems\/session-not-found"/);
      } else {
        expect(answer.status, answer.body.slice(0, 300)).toBe(404);
        expect(answer.json).toMatchObject({ type: '/problems/session-not-found', session_id: sessionId });
      }
      expect((await send(server.url, { path: `/sessions/${sessionId}`, headers: { host: `127.0.0.1:${server.port}` } })).status).toBe(404);
    });
  }
});

describe('a model URL with credentials and a query token', () => {
  let server: ServerProcess;
  let output = '';
  beforeAll(async () => {
    const secretUrl = mock.url.replace('http://', `http://analyst:${PASSWORD}@`) + `?token=${TOKEN}`;
    server = await startServer({ ...modelEnv(secretUrl), APP_DB: path.join(temporaryDirectory('analyst-secret-url-'), 'app.db') });
    server.child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    server.child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  }, 30_000);
  afterAll(async () => {
    await server?.kill();
  });

  it('never shows the password or the token: not at startup, not in errors, not in problems', async () => {
    const answer = await chat(server, { message: 'Which sources are available?' });
    expect(answer.status).toBeGreaterThanOrEqual(500);
    expect(answer.body).not.toContain(PASSWORD);
    expect(answer.body).not.toContain(TOKEN);
    await sleep(300);
    const everything = `${JSON.stringify(server.logs)}\n${output}`;
    expect(server.logs.some((entry) => entry.msg === 'chat failed: model provider')).toBe(true);
    expect(everything).not.toContain(PASSWORD);
    expect(everything).not.toContain(TOKEN);
    // What is left of the URL still says where the model is.
    const started = server.logs.find((entry) => typeof entry.port === 'number') as { model?: { base_url?: string } };
    expect(started.model?.base_url).toBe(mock.url);
  });
});
