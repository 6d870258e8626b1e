/**
 * Model spend per key: the real service with a keys file, the real OpenAI client against the
 * mock OpenAI server reporting usage, so the tokens counted are the provider's numbers. Each
 * key's tokens show in /metrics under its name; a key with `max_model_tokens_per_day` finishes the
 * question that crosses the cap and is refused (429, Retry-After, reset time) from the next one
 * on, streamed or not, while other keys and POST /tools go on. A bad cap stops startup.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule, { type FormatsPlugin } from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { loadConfig, projectRoot } from '../../src/config/config.ts';
import { keyIdentity } from '../../src/access/apiKeys.ts';
import { ModelTokenBudgets } from '../../src/http/security/tokenBudget.ts';
import { temporaryDirectory } from '../support/catalogFixture.ts';
import { listenService, type ListeningService } from '../support/listeningService.ts';
import { startMockOpenAI, type MockOpenAI } from '../support/mockOpenAI.ts';

const CAPPED_KEY = 'capped-dashboard-key-0001';
const FREE_KEY = 'uncapped-analyst-key-0002';
const OPEN_KEY = 'open-api-keys-key-000003';

const directory = temporaryDirectory('analyst-token-budget-');

/** The schema openapi.yaml gives /chat's 429 body. */
function chat429Schema() {
  const spec = parse(readFileSync(path.join(projectRoot, 'openapi.yaml'), 'utf8')) as { paths: Record<string, any> };
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  // ajv-formats is CommonJS: depending on the loader the default import is the plugin or its module.
  const addFormats = ((addFormatsModule as unknown as { default?: FormatsPlugin }).default ?? addFormatsModule) as unknown as FormatsPlugin;
  addFormats(ajv);
  ajv.addSchema(spec, 'spec');
  const reference = String(spec.paths['/chat'].post.responses['429'].$ref).slice(1);
  return ajv.getSchema(`spec#${reference}/content/application~1problem+json/schema`)!;
}
let mock: MockOpenAI;
let running: ListeningService;

beforeAll(async () => {
  mock = await startMockOpenAI();
  const keysFile = path.join(directory, 'keys.yaml');
  writeFileSync(
    keysFile,
    ['keys:', '  - name: dashboards', '    key_env: CAPPED_KEY', '    max_model_tokens_per_day: 1000', '  - name: analysts', '    key_env: FREE_KEY', ''].join('\n'),
  );
  running = await listenService({
    LOG_LEVEL: 'silent',
    RATE_LIMIT_PER_MINUTE: '0',
    APP_DB: path.join(directory, 'app.db'),
    API_KEYS: OPEN_KEY,
    API_KEYS_FILE: keysFile,
    CAPPED_KEY,
    FREE_KEY,
    MODEL_PROVIDER: 'openai',
    OPENAI_BASE_URL: mock.url,
    OPENAI_API_KEY: 'test-key',
    OPENAI_MODEL: 'mock-model',
    MODEL_MAX_RETRIES: '0',
    MODEL_TIMEOUT_MS: '5000',
  });
}, 30_000);

afterAll(async () => {
  await running?.close();
  await mock?.close();
});

const post = (route: string, key: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${running.url}${route}`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${key}`, ...headers }, body: JSON.stringify(body) });

async function metrics(): Promise<string> {
  return (await fetch(`${running.url}/metrics`, { headers: { authorization: `Bearer ${OPEN_KEY}` } })).text();
}

/** The value of one series of /metrics, 0 when absent. */
function series(text: string, name: string, labels: string): number {
  const line = text.split('\n').find((each) => each.startsWith(`${name}{${labels}} `));
  return line === undefined ? 0 : Number(line.split(' ').at(-1));
}

describe('model tokens per key', () => {
  it('counts the tokens the model reports under the key name in /metrics, never the key', async () => {
    mock.enqueue({ content: 'Three sources are available.', usage: { prompt_tokens: 120, completion_tokens: 30 } });
    const answer = await post('/chat', FREE_KEY, { message: 'Which sources are available?' });
    expect(answer.status).toBe(200);
    expect(((await answer.json()) as { usage: { total_tokens: number } }).usage.total_tokens).toBe(150);

    // Streamed answers (the web chat's) are counted too: the client asks the stream for its usage.
    mock.enqueue({ content: 'Still three.', usage: { prompt_tokens: 7, completion_tokens: 3 } });
    const streamed = await post('/chat', FREE_KEY, { message: 'Which sources are available?', stream: true });
    expect(await streamed.text()).toContain('event: final');

    mock.enqueue({ content: 'Hello.', usage: { prompt_tokens: 11, completion_tokens: 2 } });
    expect((await post('/chat', OPEN_KEY, { message: 'hello' })).status).toBe(200);

    const text = await metrics();
    expect(series(text, 'model_tokens_by_key_total', 'key="analysts",kind="input"')).toBe(127);
    expect(series(text, 'model_tokens_by_key_total', 'key="analysts",kind="output"')).toBe(33);
    // An API_KEYS key is counted under its short hash, as in the audit log.
    expect(series(text, 'model_tokens_by_key_total', `key="key:${keyIdentity(OPEN_KEY)}",kind="input"`)).toBe(11);
    for (const key of [CAPPED_KEY, FREE_KEY, OPEN_KEY]) expect(text).not.toContain(key);
  });
});

describe('max_model_tokens_per_day', () => {
  it('finishes the question that crosses the cap, then refuses the next with 429, Retry-After and the reset time', async () => {
    // The first call alone (900 + 200) crosses the cap of 1,000: the question still gets its answer.
    mock.enqueue(
      { toolCalls: [{ name: 'query_source', arguments: { source: 'fi_reporting', filters: { company: '1000', period: '2024012' } } }], usage: { prompt_tokens: 900, completion_tokens: 200 } },
      { content: 'FI shows 443,100.00 EUR for company 1000 in December 2024.', usage: { prompt_tokens: 950, completion_tokens: 40 } },
    );
    const first = await post('/chat', CAPPED_KEY, { message: 'Total FI for 1000 in Dec 2024?' });
    expect(first.status).toBe(200);
    const answered = (await first.json()) as { answer: string; finished: boolean; session_id: string };
    expect(answered).toMatchObject({ answer: 'FI shows 443,100.00 EUR for company 1000 in December 2024.', finished: true });
    expect(series(await metrics(), 'model_tokens_by_key_total', 'key="dashboards",kind="input"')).toBe(1850);

    const calls = mock.requests.length;
    const refused = await post('/chat', CAPPED_KEY, { message: 'and for company 2000?', session_id: answered.session_id });
    expect(refused.status).toBe(429);
    expect(refused.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    const problem = (await refused.json()) as Record<string, unknown>;
    expect(problem).toMatchObject({ type: '/problems/token-budget-exhausted', status: 429, max_model_tokens_per_day: 1000, used_tokens: 2090 });
    const valid = chat429Schema();
    expect(valid(problem), JSON.stringify(valid.errors)).toBe(true);
    // It resets at the next UTC midnight, which Retry-After counts down to.
    const resetsAt = new Date(problem.resets_at as string);
    expect(problem.resets_at).toMatch(/^\d{4}-\d{2}-\d{2}T00:00:00\.000Z$/);
    expect(resetsAt.getTime()).toBeGreaterThan(Date.now());
    expect(resetsAt.getTime() - Date.now()).toBeLessThanOrEqual(86_400_000);
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBe(problem.retry_after);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(86_400);
    expect(problem.detail).toContain('2090 of its 1000 model tokens');
    expect(problem.detail).toContain(problem.resets_at as string);
    expect(mock.requests.length, 'a refused question asks the model nothing').toBe(calls);

    // Streamed too: the refusal comes before any event, as a plain problem.
    const streamed = await post('/chat', CAPPED_KEY, { message: 'and for company 2000?', stream: true }, { accept: 'text/event-stream' });
    expect(streamed.status).toBe(429);
    expect(((await streamed.json()) as { type: string }).type).toBe('/problems/token-budget-exhausted');
    expect(mock.requests.length).toBe(calls);
  });

  it('leaves the other keys and POST /tools (no model) alone', async () => {
    const tools = await post('/tools/list_sources', CAPPED_KEY, {});
    expect(tools.status).toBe(200);
    mock.enqueue({ content: 'Still answering.', usage: { prompt_tokens: 5_000, completion_tokens: 10 } });
    expect((await post('/chat', FREE_KEY, { message: 'Which sources are available?' })).status).toBe(200);
    expect((await post('/chat', CAPPED_KEY, { message: 'Which sources are available?' })).status).toBe(429);
  });
});

describe('a day of budget', () => {
  it('resets at the next UTC midnight, and only capped keys are tracked', () => {
    let now = new Date('2026-03-01T23:59:30.000Z');
    const budgets = new ModelTokenBudgets(new Map([['dashboards', 100]]), () => now);
    budgets.spend('dashboards', 60);
    expect(budgets.refusal('dashboards')).toBeUndefined();
    budgets.spend('dashboards', 60);
    budgets.spend('analysts', 1_000_000);
    expect(budgets.refusal('dashboards')).toEqual({ maxTokensPerDay: 100, usedTokens: 120, resetsAt: new Date('2026-03-02T00:00:00.000Z'), retryAfterSeconds: 30 });
    expect(budgets.refusal('analysts')).toBeUndefined();
    expect(budgets.usedToday('analysts')).toBe(0);
    now = new Date('2026-03-02T00:00:00.000Z');
    expect(budgets.refusal('dashboards')).toBeUndefined();
    expect(budgets.usedToday('dashboards')).toBe(0);
  });
});

describe('a keys file with a bad max_model_tokens_per_day', () => {
  const start = (value: string) => () => {
    writeFileSync(path.join(directory, 'bad.yaml'), `keys:\n  - name: dashboards\n    key_env: CAPPED_KEY\n    max_model_tokens_per_day: ${value}\n`);
    loadConfig({ API_KEYS_FILE: path.join(directory, 'bad.yaml'), APP_DB: path.join(directory, 'bad.db'), CAPPED_KEY } as NodeJS.ProcessEnv);
  };

  it('stops startup naming the variable, the entry, the field and the file', () => {
    const where = /API_KEYS_FILE: keys\[0\]\.max_model_tokens_per_day: .*\(key 'dashboards' in bad\.yaml\)/;
    for (const value of ['0', '-5', '1.5', 'lots', '"1000"', '[1000]']) expect(start(value), value).toThrow(where);
    expect(start('0')).toThrow(/must be at least 1/);
    expect(start('lots')).toThrow(/must be a whole number of tokens/);
    expect(start('1000')).not.toThrow();
  });
});
