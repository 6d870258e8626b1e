/**
 * Access control over real HTTP: API keys (401 without a valid one, everywhere but GET /health
 * and the web chat's public files), sessions owned by the key that created them (404 for
 * another key), the rate limit per key or IP (429 with Retry-After and RateLimit headers),
 * helmet's headers, and keys never showing in logs, responses or the application database.
 */
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { Writable } from 'node:stream';
import Database from 'better-sqlite3';
import pino from 'pino';
import supertest from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.ts';
import { ConfigurationError } from '../../src/errors/index.ts';
import { ApiKeys, bearerToken, keyIdentity } from '../../src/access/apiKeys.ts';
import { createService, type Service } from '../../src/service.ts';
import { openSessionStore } from '../../src/sessions/sqliteSessionStore.ts';
import { temporaryDirectory } from '../support/catalogFixture.ts';

type Json = Record<string, unknown>;

const KEY_A = 'key-a-4f1c9e2b7d0a8e63';
const KEY_B = 'key-b-90d3a7c5e1f24b68';
const WRONG = 'key-x-0000000000000000';
const QUESTION = 'What is the total amount in fi_reporting for company 1000 in December 2024?';

/** Every log line a service writes, kept in memory. */
class LogCapture extends Writable {
  readonly lines: string[] = [];
  override _write(chunk: Buffer, _encoding: BufferEncoding, done: () => void): void {
    this.lines.push(chunk.toString('utf8'));
    done();
  }
  get text(): string {
    return this.lines.join('');
  }
}

interface Started {
  service: Service;
  api: ReturnType<typeof supertest>;
  logs: LogCapture;
  appDb: string;
}

const started: Started[] = [];

async function start(env: Record<string, string>): Promise<Started> {
  const appDb = path.join(temporaryDirectory('access-'), 'app.db');
  const logs = new LogCapture();
  const logger = pino({ level: 'trace' }, logs);
  const service = await createService(loadConfig({ LOG_LEVEL: 'trace', MODEL_PROVIDER: 'offline', APP_DB: appDb, ...env } as NodeJS.ProcessEnv), logger);
  const result = { service, api: supertest(service.app), logs, appDb };
  started.push(result);
  return result;
}

afterAll(async () => {
  await Promise.all(started.map((s) => s.service.close()));
});

/** Everything a client saw: status line, headers and body of every response, to check no key leaks. */
const seen: string[] = [];
function record(response: supertest.Response): supertest.Response {
  seen.push(`${response.status} ${JSON.stringify(response.headers)} ${response.text ?? ''}`);
  return response;
}

function expectProblem(response: supertest.Response, status: number, type: string): Json {
  expect(response.status, response.text).toBe(status);
  expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
  const body = response.body as Json;
  expect(body).toMatchObject({ type, status });
  expect(body.request_id).toBe(response.headers['x-request-id']);
  return body;
}

const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

/** The API routes: everything but GET /health and the web chat's files needs a key. */
const protectedRoutes: { method: 'get' | 'post' | 'delete'; path: string; body?: Json }[] = [
  { method: 'get', path: '/skills' },
  { method: 'post', path: '/tools/list_sources', body: {} },
  { method: 'post', path: '/chat', body: { message: QUESTION } },
  { method: 'get', path: '/sessions' },
  { method: 'get', path: `/sessions/${randomUUID()}` },
  { method: 'delete', path: `/sessions/${randomUUID()}` },
  { method: 'get', path: '/metrics' },
  { method: 'get', path: '/nowhere' },
];

const publicRoutes = ['/health', '/', '/embed', '/embed.js', '/openapi.yaml', '/app/api.js', '/app/chat.css', '/vendor/chart.js'];

function send(api: ReturnType<typeof supertest>, route: (typeof protectedRoutes)[number], headers: Record<string, string> = {}) {
  const request = api[route.method](route.path).set(headers);
  return route.body ? request.send(route.body) : request;
}

describe('API keys (API_KEYS)', () => {
  let s: Started;
  beforeAll(async () => {
    s = await start({ API_KEYS: ` ${KEY_A}, ${KEY_B} `, RATE_LIMIT_PER_MINUTE: '0' });
  });

  it.each(protectedRoutes.map((r) => [`${r.method.toUpperCase()} ${r.path.replace(/[0-9a-f-]{36}/, '{id}')}`, r] as const))(
    '%s without a key, with a wrong key or another scheme is a 401 unauthorized problem with WWW-Authenticate',
    async (_name, route) => {
      const missing = record(await send(s.api, route));
      expectProblem(missing, 401, '/problems/unauthorized');
      expect(missing.headers['www-authenticate']).toBe('Bearer realm="analyst-agent"');

      for (const authorization of [`Bearer ${WRONG}`, `Bearer ${KEY_A}x`, `Bearer ${KEY_A.slice(0, -1)}`, `Basic ${Buffer.from(`u:${KEY_A}`).toString('base64')}`, KEY_A, 'Bearer ']) {
        const wrong = record(await send(s.api, route, { authorization }));
        expectProblem(wrong, 401, '/problems/unauthorized');
        expect(wrong.headers['www-authenticate']).toBe('Bearer realm="analyst-agent", error="invalid_token"');
      }
    },
  );

  it('refuses before reading the body: invalid JSON or an oversized body without a key is a 401', async () => {
    const invalid = record(await s.api.post('/chat').set('content-type', 'application/json').send('{"message": '));
    expectProblem(invalid, 401, '/problems/unauthorized');
    const large = record(await s.api.post('/chat').send({ message: 'x'.repeat(70_000) }));
    expectProblem(large, 401, '/problems/unauthorized');
  });

  it.each(publicRoutes)('GET %s stays public (the web chat loads without a key)', async (route) => {
    const response = record(await s.api.get(route));
    expect(response.status, response.text).toBe(200);
  });

  it('a valid key (either one, scheme in any case) opens every API route', async () => {
    expect(record(await s.api.get('/skills').set(bearer(KEY_A))).status).toBe(200);
    expect(record(await s.api.get('/skills').set('authorization', `bearer ${KEY_B}`)).status).toBe(200);
    const tool = record(await s.api.post('/tools/list_sources').set(bearer(KEY_B)).send({}));
    expect(tool.status, tool.text).toBe(200);
    expect(record(await s.api.get('/metrics').set(bearer(KEY_A))).status).toBe(200);
    expectProblem(record(await s.api.get('/nowhere').set(bearer(KEY_A))), 404, '/problems/not-found');
  });

  it('streams POST /chat as Server-Sent Events with a key', async () => {
    const response = record(await s.api.post('/chat').set(bearer(KEY_A)).set('accept', 'text/event-stream').send({ message: QUESTION }));
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toMatch(/^text\/event-stream/);
    expect(response.text).toContain('event: final');
  });

  describe('sessions belong to the key that created them', () => {
    let sessionA: string;
    let sessionB: string;

    beforeAll(async () => {
      const a = record(await s.api.post('/chat').set(bearer(KEY_A)).send({ message: QUESTION }));
      expect(a.status, a.text).toBe(200);
      sessionA = (a.body as { session_id: string }).session_id;
      const b = record(await s.api.post('/chat').set(bearer(KEY_B)).send({ message: QUESTION }));
      expect(b.status, b.text).toBe(200);
      sessionB = (b.body as { session_id: string }).session_id;
    });

    it("another key's session is a 404 on GET and DELETE /sessions/{id} and POST /chat", async () => {
      expectProblem(record(await s.api.get(`/sessions/${sessionA}`).set(bearer(KEY_B))), 404, '/problems/session-not-found');
      expectProblem(record(await s.api.delete(`/sessions/${sessionA}`).set(bearer(KEY_B))), 404, '/problems/session-not-found');
      const chat = record(await s.api.post('/chat').set(bearer(KEY_B)).send({ message: 'and for company 2000?', session_id: sessionA }));
      expectProblem(chat, 404, '/problems/session-not-found');
      // Exactly what an unknown session looks like, apart from the id.
      const unknown = record(await s.api.get(`/sessions/${randomUUID()}`).set(bearer(KEY_B)));
      expect(Object.keys(unknown.body as Json).sort()).toEqual(Object.keys((await s.api.get(`/sessions/${sessionA}`).set(bearer(KEY_B))).body as Json).sort());

      // The owner still has it, untouched: one turn, and a follow-up continues it.
      const own = record(await s.api.get(`/sessions/${sessionA}`).set(bearer(KEY_A)));
      expect(own.status).toBe(200);
      expect((own.body as { turns: unknown[] }).turns).toHaveLength(1);
      const next = record(await s.api.post('/chat').set(bearer(KEY_A)).send({ message: 'and for company 2000?', session_id: sessionA }));
      expect(next.status, next.text).toBe(200);
      expect((next.body as Json).session_id).toBe(sessionA);
    });

    it('GET /sessions lists only the caller’s own sessions', async () => {
      const listA = ((record(await s.api.get('/sessions?limit=100').set(bearer(KEY_A))).body as { sessions: Json[] }).sessions).map((x) => x.id);
      const listB = ((record(await s.api.get('/sessions?limit=100').set(bearer(KEY_B))).body as { sessions: Json[] }).sessions).map((x) => x.id);
      expect(listA).toContain(sessionA);
      expect(listA).not.toContain(sessionB);
      expect(listB).toContain(sessionB);
      expect(listB).not.toContain(sessionA);
    });

    it('pages through only the caller’s own sessions', async () => {
      for (let i = 0; i < 3; i += 1) expect(record(await s.api.post('/chat').set(bearer(KEY_B)).send({ message: QUESTION })).status).toBe(200);
      const ids: string[] = [];
      let cursor: string | null = null;
      do {
        const response = record(await s.api.get('/sessions').query({ limit: 2, ...(cursor ? { cursor } : {}) }).set(bearer(KEY_A)));
        expect(response.status).toBe(200);
        const body = response.body as { sessions: { id: string }[]; next_cursor: string | null };
        ids.push(...body.sessions.map((x) => x.id));
        cursor = body.next_cursor;
      } while (cursor);
      expect(ids).toContain(sessionA);
      expect(ids).not.toContain(sessionB);
    });

    it('stores a short hash of the key as the owner, never the key', () => {
      const raw = new Database(s.appDb, { readonly: true });
      const rows = raw.prepare('SELECT id, owner FROM sessions').all() as { id: string; owner: string | null }[];
      const dump = JSON.stringify(raw.prepare('SELECT * FROM sessions').all()) + JSON.stringify(raw.prepare('SELECT * FROM turns').all());
      raw.close();
      expect(rows.find((r) => r.id === sessionA)?.owner).toBe(keyIdentity(KEY_A));
      expect(rows.find((r) => r.id === sessionB)?.owner).toBe(keyIdentity(KEY_B));
      expect(keyIdentity(KEY_A)).toMatch(/^[0-9a-f]{16}$/);
      expect(dump).not.toContain(KEY_A);
      expect(dump).not.toContain(KEY_B);
    });

    it('the owner deletes it (204); afterwards it is gone for everyone', async () => {
      expect(record(await s.api.delete(`/sessions/${sessionA}`).set(bearer(KEY_A))).status).toBe(204);
      expectProblem(record(await s.api.get(`/sessions/${sessionA}`).set(bearer(KEY_A))), 404, '/problems/session-not-found');
    });
  });

  it('sets helmet headers on API responses, keeps the pages’ own CSP and lets /embed be framed', async () => {
    const api = record(await s.api.get('/skills').set(bearer(KEY_A)));
    expect(api.headers['x-content-type-options']).toBe('nosniff');
    expect(api.headers['x-frame-options']).toBe('SAMEORIGIN');
    expect(api.headers['strict-transport-security']).toMatch(/max-age=\d+/);
    expect(api.headers['cross-origin-opener-policy']).toBe('same-origin');
    expect(api.headers['referrer-policy']).toBe('no-referrer');
    expect(api.headers['x-powered-by']).toBeUndefined();
    expect(api.headers['content-security-policy']).toBeUndefined();

    const page = record(await s.api.get('/'));
    expect(page.headers['content-security-policy']).toContain("script-src 'self'");
    expect(page.headers['content-security-policy']).toContain("frame-ancestors 'self'");
    expect(page.headers['x-frame-options']).toBe('SAMEORIGIN');

    const embed = record(await s.api.get('/embed'));
    expect(embed.headers['x-frame-options']).toBeUndefined();
    expect(embed.headers['content-security-policy']).not.toContain('frame-ancestors');
    expect(embed.headers['x-content-type-options']).toBe('nosniff');

    const script = record(await s.api.get('/embed.js'));
    expect(script.headers['cross-origin-resource-policy']).toBe('cross-origin');
  });

  it('never writes a key to the logs or into a response', () => {
    expect(s.logs.lines.length).toBeGreaterThan(20);
    expect(s.logs.text).toContain('"statusCode":401');
    for (const key of [KEY_A, KEY_B, WRONG, KEY_A.slice(0, -1)]) {
      expect(s.logs.text).not.toContain(key);
      expect(seen.join('\n')).not.toContain(key);
    }
    expect(seen.length).toBeGreaterThan(50);
  });
});

describe('rate limit (RATE_LIMIT_PER_MINUTE)', () => {
  let s: Started;
  beforeAll(async () => {
    s = await start({ API_KEYS: `${KEY_A},${KEY_B}`, RATE_LIMIT_PER_MINUTE: '3' });
  });

  it('allows N requests a minute per key with RateLimit headers, then answers 429 with Retry-After', async () => {
    for (let i = 0; i < 3; i += 1) {
      const response = record(await s.api.get('/skills').set(bearer(KEY_A)));
      expect(response.status).toBe(200);
      expect(response.headers.ratelimit).toMatch(new RegExp(`^"per-minute"; r=${2 - i}; t=\\d+$`));
      expect(response.headers['ratelimit-policy']).toMatch(/^"per-minute"; q=3; w=60; pk=:[^:]+:$/);
      expect(response.headers['x-ratelimit-limit']).toBeUndefined();
    }
    const limited = record(await s.api.get('/skills').set(bearer(KEY_A)));
    const body = expectProblem(limited, 429, '/problems/rate-limited');
    const retryAfter = Number(limited.headers['retry-after']);
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(body.retry_after).toBe(retryAfter);
    expect(limited.headers.ratelimit).toMatch(/^"per-minute"; r=0; t=\d+$/);

    // Another key has its own quota.
    expect(record(await s.api.get('/skills').set(bearer(KEY_B))).status).toBe(200);
  });

  it('limits requests without a valid key by client IP (401s count), and never /health', async () => {
    for (let i = 0; i < 3; i += 1) expectProblem(record(await s.api.get('/skills').set(bearer(WRONG))), 401, '/problems/unauthorized');
    const limited = record(await s.api.get('/skills'));
    expectProblem(limited, 429, '/problems/rate-limited');
    expect(limited.headers['retry-after']).toMatch(/^\d+$/);
    // The public pages share the IP's quota.
    expectProblem(record(await s.api.get('/')), 429, '/problems/rate-limited');
    for (let i = 0; i < 10; i += 1) {
      const health = record(await s.api.get('/health'));
      expect(health.status).toBe(200);
      expect(health.headers.ratelimit).toBeUndefined();
    }
    // The page's modules are not: a page load fetches a dozen of them, which is no API work.
    for (const asset of ['/app/chat.js', '/app/turn.js', '/app/chat.css', '/embed.js']) {
      const response = record(await s.api.get(asset));
      expect(response.status, asset).toBe(200);
      expect(response.headers.ratelimit, asset).toBeUndefined();
    }
  });

  it('limits by IP when API keys are off', async () => {
    const open = await start({ RATE_LIMIT_PER_MINUTE: '2' });
    expect(record(await open.api.get('/sessions')).status).toBe(200);
    expect(record(await open.api.get('/sessions').set(bearer(KEY_A))).status).toBe(200);
    expectProblem(record(await open.api.get('/sessions')), 429, '/problems/rate-limited');
  });

  it('keeps keys out of the logs and responses here too', () => {
    for (const key of [KEY_A, KEY_B, WRONG]) {
      expect(s.logs.text).not.toContain(key);
      expect(seen.join('\n')).not.toContain(key);
    }
  });
});

describe('without API_KEYS', () => {
  it('everything stays open and sessions have no owner', async () => {
    const s = await start({ RATE_LIMIT_PER_MINUTE: '0' });
    const chat = record(await s.api.post('/chat').send({ message: QUESTION }));
    expect(chat.status, chat.text).toBe(200);
    const id = (chat.body as { session_id: string }).session_id;
    // A stray Authorization header changes nothing.
    expect(record(await s.api.get(`/sessions/${id}`).set(bearer(WRONG))).status).toBe(200);
    expect(record(await s.api.get('/skills')).status).toBe(200);
    expect(record(await s.api.get('/skills')).headers.ratelimit).toBeUndefined();
    const raw = new Database(s.appDb, { readonly: true });
    expect(raw.prepare('SELECT owner FROM sessions WHERE id = ?').get(id)).toEqual({ owner: null });
    raw.close();
  });
});

describe('configuration and key checks', () => {
  it('reads API_KEYS (trimmed, deduplicated) and RATE_LIMIT_PER_MINUTE (default 120, 0 disables)', () => {
    const base = { MODEL_PROVIDER: 'offline' } as NodeJS.ProcessEnv;
    expect(loadConfig(base)).toMatchObject({ apiKeys: [], rateLimitPerMinute: 120 });
    expect(loadConfig({ ...base, API_KEYS: ` ${KEY_A} ,,${KEY_B},${KEY_A}`, RATE_LIMIT_PER_MINUTE: '0' })).toMatchObject({ apiKeys: [KEY_A, KEY_B], rateLimitPerMinute: 0 });
    expect(() => loadConfig({ ...base, RATE_LIMIT_PER_MINUTE: '-1' })).toThrow(/RATE_LIMIT_PER_MINUTE: must be at least 0/);
  });

  it('refuses a short key without echoing any key', () => {
    let error: unknown;
    try {
      loadConfig({ MODEL_PROVIDER: 'offline', API_KEYS: `${KEY_A},short-secret` } as NodeJS.ProcessEnv);
    } catch (caught) {
      error = caught;
    }
    expect(ConfigurationError.isInstance(error)).toBe(true);
    expect((error as Error).message).toMatch(/API_KEYS: each key must be 16 to 200 visible ASCII characters/);
    expect((error as Error).message).not.toContain('short-secret');
    expect((error as Error).message).not.toContain(KEY_A);
  });

  it('identifies exactly the configured keys', () => {
    const keys = new ApiKeys([KEY_A, KEY_B]);
    expect(keys.enabled).toBe(true);
    expect(keys.identify(KEY_A)?.identity).toBe(keyIdentity(KEY_A));
    expect(keys.identify(KEY_B)?.identity).toBe(keyIdentity(KEY_B));
    expect(keyIdentity(KEY_A)).not.toBe(keyIdentity(KEY_B));
    for (const other of [WRONG, '', KEY_A.toUpperCase(), `${KEY_A} `, KEY_A.slice(1)]) expect(keys.identify(other)).toBeUndefined();
    expect(new ApiKeys([]).enabled).toBe(false);
    expect(bearerToken(`Bearer ${KEY_A}`)).toBe(KEY_A);
    expect(bearerToken(`bearer   ${KEY_A}`)).toBe(KEY_A);
    expect(bearerToken(`Basic ${KEY_A}`)).toBeUndefined();
    expect(bearerToken(`Bearer ${KEY_A} extra`)).toBeUndefined();
    expect(bearerToken(undefined)).toBeUndefined();
  });

  it('adds the owner column to an application database from before owners, keeping its sessions', () => {
    const file = path.join(temporaryDirectory('access-migrate-'), 'app.db');
    const old = new Database(file);
    old.exec(`CREATE TABLE sessions (id TEXT PRIMARY KEY, title TEXT, created_at TEXT NOT NULL, updated_at TEXT NOT NULL, turns INTEGER NOT NULL DEFAULT 0);
      CREATE TABLE turns (session_id TEXT NOT NULL, seq INTEGER NOT NULL, question TEXT NOT NULL, answer TEXT NOT NULL, finished INTEGER NOT NULL, stop_reason TEXT NOT NULL, iterations INTEGER NOT NULL, tool_calls TEXT NOT NULL, usage TEXT NOT NULL, started_at TEXT NOT NULL, finished_at TEXT NOT NULL, PRIMARY KEY (session_id, seq));
      CREATE TABLE messages (session_id TEXT NOT NULL, seq INTEGER NOT NULL, turn_seq INTEGER NOT NULL, message TEXT NOT NULL, PRIMARY KEY (session_id, seq));
      PRAGMA user_version = 1;`);
    const now = new Date().toISOString();
    old.prepare('INSERT INTO sessions (id, title, created_at, updated_at, turns) VALUES (?, NULL, ?, ?, 0)').run('old-session', now, now);
    old.close();

    const store = openSessionStore({ path: file, ttlMs: 0, expiryIntervalMs: 0 });
    try {
      // An unowned (pre-keys) session is visible without keys, and to no key.
      expect(store.get('old-session')?.id).toBe('old-session');
      expect(store.get('old-session', keyIdentity(KEY_A))).toBeUndefined();
      expect(store.list({ owner: keyIdentity(KEY_A) }).sessions).toEqual([]);
      expect(store.delete('old-session', keyIdentity(KEY_A))).toBe(false);
      const mine = store.create(keyIdentity(KEY_A));
      expect(store.list({ owner: keyIdentity(KEY_A) }).sessions.map((x) => x.id)).toEqual([mine.id]);
      // Without keys only unowned sessions: a key's session stays private (404) after a restart without API_KEYS.
      expect(store.list().sessions.map((x) => x.id)).toEqual(['old-session']);
      expect(store.get(mine.id)).toBeUndefined();
      expect(store.history(mine.id)).toBeUndefined();
      expect(store.delete(mine.id)).toBe(false);
      expect(store.get(mine.id, keyIdentity(KEY_A))?.id).toBe(mine.id);
    } finally {
      store.close();
    }
  });
});
