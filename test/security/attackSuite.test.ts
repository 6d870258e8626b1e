/**
 * The attack suite: the findings of "No request can stall the service", replayed against the
 * real service (a child process on 127.0.0.1) while GET /health is probed throughout, with the
 * data file checksummed before and after. Each attack must be answered correctly (a stall
 * outlasts the test's timeout); /health must answer every probe throughout and the data must
 * not change. The latencies (/health p99, the slowest refusal) are `npm run bench:latency`'s.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type ServerProcess } from '../main/support/serverProcess.ts';
import { sampleDatabasePath } from '../support/sampleContext.ts';
import { temporaryDirectory } from '../support/catalogFixture.ts';
import { adversarialStrings, LONG } from './adversarialCorpus.ts';
import { send, sendWithoutLength } from './support/rawHttp.ts';

const KEY = 'attack-suite-key-0123456789';
const SECRET_IN_QUERY = 'sk-never-log-this-0123456789';
const MAX_TURNS = 3;

const sha256 = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let server: ServerProcess;
let dataHash: string;
let keyedSession: string;
/** What GET /health answered during the attacks: each status (or 'failed': no answer). */
const probe = { answers: [] as (number | 'failed')[], stopped: false, done: Promise.resolve() };

/** GET /health every 10 ms (at most 3,000 times) until stopped. */
async function startProbe(url: string): Promise<void> {
  probe.done = (async () => {
    while (!probe.stopped && probe.answers.length < 3_000) {
      const response = await fetch(`${url}/health`).catch(() => undefined);
      await response?.arrayBuffer();
      probe.answers.push(response ? response.status : 'failed');
      await sleep(10);
    }
  })();
}

const post = (pathname: string, body: string, headers: Record<string, string> = {}) =>
  send(server.url, { method: 'POST', path: pathname, body, headers: { 'content-type': 'application/json', host: `127.0.0.1:${server.port}`, ...headers } });
const get = (pathname: string, headers: Record<string, string> = {}) => send(server.url, { path: pathname, headers: { host: `127.0.0.1:${server.port}`, ...headers } });

beforeAll(async () => {
  dataHash = sha256(sampleDatabasePath);
  const appDb = path.join(temporaryDirectory('analyst-attack-'), 'app.db');
  // A conversation created under an API key, before the service restarts without keys.
  const keyed = await startServer({ APP_DB: appDb, API_KEYS: KEY });
  try {
    const answer = await send(keyed.url, { method: 'POST', path: '/chat', body: JSON.stringify({ message: 'Which sources are available?' }), headers: { 'content-type': 'application/json', authorization: `Bearer ${KEY}`, host: `127.0.0.1:${keyed.port}` } });
    expect(answer.status).toBe(200);
    keyedSession = answer.json.session_id;
  } finally {
    await keyed.kill();
  }
  server = await startServer({ APP_DB: appDb, SESSION_MAX_TURNS: String(MAX_TURNS) });
  await startProbe(server.url);
}, 60_000);

afterAll(async () => {
  probe.stopped = true;
  await probe.done;
  await server?.kill();
});

describe('input that used to stall the event loop', () => {
  const period = adversarialStrings['period, spaces, junk']!;
  const attacks: [string, unknown][] = [
    ['compare_sources', { source_a: 'fi_reporting', source_b: 'bpc_reporting', measure: 'amount', filters: { period } }],
    ['compare_sources', { source_a: 'consolidation_mart', source_b: 'consolidation_mart', measure: 'amount', filters_b: { period: [period] } }],
    ['query_source', { source: 'fi_reporting', filters: { period } }],
    ['query_source', { source: 'fi_reporting', filters: { period: { from: period, to: '2024012' } } }],
    ['find_duplicates', { source: 'fi_reporting', filters: { period } }],
    ['find_blank_values', { source: 'fi_reporting', filters: { period } }],
    ['find_outlier_periods', { source: 'fi_reporting', filters: { period: { to: period } } }],
    ['explain_difference', { comparison: { source_a: 'fi_reporting', source_b: 'bpc_reporting', measure: 'amount', filters: { period } } }],
  ];

  it.each(attacks)('%s with a 65 KB period filter is refused at once, naming the limit (422)', async (tool, args) => {
    const response = await post(`/tools/${tool}`, JSON.stringify(args));
    expect(response.status).toBe(422);
    expect(response.json.error).toMatchObject({ code: 'invalid_arguments', message: expect.stringMatching(/at most|<=\s?200/) });
    expect(JSON.stringify(args).length).toBeGreaterThan(LONG);
  });

  it('answers the whole corpus in every filter and name slot, four at a time, with 422', async () => {
    // Each string cut so its JSON (escapes included) fits one 64 KB body.
    const fit = (text: string): string => (JSON.stringify(text).length <= 64_000 ? text : fit(text.slice(0, Math.floor(text.length * 0.9))));
    const bodies = Object.values(adversarialStrings).map(fit).flatMap((text) => [
      ['query_source', { source: 'fi_reporting', filters: { period: text } }],
      ['query_source', { source: 'fi_reporting', filters: { company: text }, order_by: 'amount desc' }],
      ['query_source', { source: text }],
      ['compare_sources', { source_a: 'fi_reporting', source_b: 'bpc_reporting', measure: text }],
      ['compare_sources', { source_a: 'fi_reporting', source_b: 'bpc_reporting', measure: 'amount', filters: { period: { from: text } } }],
      ['find_duplicates', { source: 'fi_reporting', key: [text] }],
      ['find_outlier_periods', { source: 'fi_reporting', by: [text] }],
      ['explain_difference', { comparison_id: text }],
      ['search_knowledge', { query: text }],
      ['load_skill', { name: text }],
    ] as [string, unknown][]);
    for (let start = 0; start < bodies.length; start += 4) {
      const batch = bodies.slice(start, start + 4);
      const answers = await Promise.all(batch.map(([tool, args]) => post(`/tools/${tool}`, JSON.stringify(args))));
      answers.forEach((answer, index) => expect(answer.status, `${batch[index]![0]}: ${answer.body.slice(0, 200)}`).toBe(422));
    }
    expect(bodies.length).toBeGreaterThan(150);
  });

  it('refuses a __proto__ filter key as an unknown dimension instead of dropping it (422)', async () => {
    for (const [tool, body] of [
      ['query_source', '{"source":"fi_reporting","filters":{"__proto__":"1000"}}'],
      ['compare_sources', '{"source_a":"fi_reporting","source_b":"bpc_reporting","measure":"amount","filters":{"__proto__":{"from":"2024001"}}}'],
    ]) {
      const response = await post(`/tools/${tool}`, body!);
      expect(response.status, `${tool}: ${response.body.slice(0, 200)}`).toBe(422);
      expect(response.json.error.code).toBe('unknown_dimension');
    }
  });
});

describe('secrets and requests that are not ours', () => {
  it('refuses an API key in the query string (400) and never logs it', async () => {
    for (const name of ['api_key', 'apikey', 'key', 'token', 'access_token', 'API_KEY']) {
      const response = await post(`/tools/list_sources?${name}=${SECRET_IN_QUERY}`, '{}');
      expect(response.status, name).toBe(400);
      expect(response.json).toMatchObject({ type: '/problems/credentials-in-query', detail: expect.stringContaining('Authorization') });
      expect(response.body).not.toContain(SECRET_IN_QUERY);
    }
    expect((await get(`/health?token=${SECRET_IN_QUERY}`)).status).toBe(400);
    await sleep(200);
    expect(JSON.stringify(server.logs)).not.toContain(SECRET_IN_QUERY);
  });

  it('logs request paths without their query strings', async () => {
    const response = await get('/sessions?limit=7');
    expect(response.status).toBe(200);
    await sleep(200);
    const line = server.logs.find((entry) => (entry.req as { id?: string } | undefined)?.id === response.headers['x-request-id']);
    expect((line?.req as { url?: string } | undefined)?.url).toBe('/sessions?[redacted]');
    expect(JSON.stringify(server.logs)).not.toContain('limit=7');
  });

  it('refuses a Host that is not a name of this service (403), as a DNS-rebound page would send', async () => {
    for (const host of ['attacker.example', `attacker.example:${server.port}`, '127.0.0.1.nip.io']) {
      const response = await send(server.url, { method: 'POST', path: '/tools/list_sources', body: '{}', headers: { host, 'content-type': 'application/json' } });
      expect(response.status, host).toBe(403);
      expect(response.json.type).toBe('/problems/forbidden-host');
    }
    for (const host of [`localhost:${server.port}`, `127.0.0.1:${server.port}`, `[::1]:${server.port}`]) {
      expect((await get('/health', { host })).status, host).toBe(200);
    }
  });

  it('refuses an API call from a foreign page (403) but serves the service’s own origin', async () => {
    const foreign = await post('/tools/list_sources', '{}', { origin: 'https://evil.example' });
    expect(foreign.status).toBe(403);
    expect(foreign.json.type).toBe('/problems/forbidden-origin');
    expect((await post('/tools/list_sources', '{}', { origin: `http://127.0.0.1:${server.port}` })).status).toBe(200);
    expect((await get('/embed.js', { origin: 'https://dashboard.example' })).status).toBe(200);
  });
});

describe('sessions and smaller holes', () => {
  it('runs a tool for a JSON content type with no body at all, as {} (200, not 415)', async () => {
    const response = await sendWithoutLength(server.url, '/tools/list_sources', { 'Content-Type': 'application/json' });
    expect(response.status, response.body.slice(0, 300)).toBe(200);
    expect(JSON.parse(response.body).tool).toBe('list_sources');
  });

  it('keeps a session created under an API key private when the service runs without keys (404)', async () => {
    expect(keyedSession).toMatch(/^[0-9a-f-]{36}$/);
    expect((await get(`/sessions/${keyedSession}`)).status).toBe(404);
    expect((await get('/sessions')).json.sessions.map((s: { id: string }) => s.id)).not.toContain(keyedSession);
    expect((await post('/chat', JSON.stringify({ message: 'and for 2000?', session_id: keyedSession }))).status).toBe(404);
    expect((await send(server.url, { method: 'DELETE', path: `/sessions/${keyedSession}`, headers: { host: `127.0.0.1:${server.port}` } })).status).toBe(404);
  });

  it(`caps a conversation at SESSION_MAX_TURNS (${MAX_TURNS}) with a 409 asking for a new one, and pages its history`, async () => {
    let sessionId: string | undefined;
    for (let turn = 1; turn <= MAX_TURNS; turn += 1) {
      const answer = await post('/chat', JSON.stringify({ message: 'Which sources are available?', ...(sessionId ? { session_id: sessionId } : {}) }));
      expect(answer.status).toBe(200);
      sessionId = answer.json.session_id;
    }
    const full = await post('/chat', JSON.stringify({ message: 'one more?', session_id: sessionId }));
    expect(full.status).toBe(409);
    expect(full.json).toMatchObject({ type: '/problems/session-turn-limit', session_id: sessionId, max_turns: MAX_TURNS, detail: expect.stringContaining('new conversation') });

    const first = await get(`/sessions/${sessionId}?limit=2`);
    expect(first.json.turns.map((t: { seq: number }) => t.seq)).toEqual([1, 2]);
    expect(first.json.next_after).toBe(2);
    const rest = await get(`/sessions/${sessionId}?limit=2&after=2`);
    expect(rest.json.turns.map((t: { seq: number }) => t.seq)).toEqual([3]);
    expect(rest.json.next_after).toBeNull();
    expect((await get(`/sessions/${sessionId}`)).json.turns).toHaveLength(MAX_TURNS);
  });
});

describe('throughout the attacks', () => {
  it('kept GET /health answering 200 to every probe and the data file unchanged', async () => {
    probe.stopped = true;
    await probe.done;
    expect(probe.answers.length).toBeGreaterThan(10);
    expect(probe.answers.filter((answer) => answer !== 200)).toEqual([]);
    expect(sha256(sampleDatabasePath)).toBe(dataHash);
  });
});
