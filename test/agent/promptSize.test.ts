/**
 * What a question costs the model, measured on the wire: a scripted OpenAI-compatible server
 * records every request, and `promptTokens` (characters of messages and tool definitions / 4)
 * sizes it. Tools are bound on demand, so a question starts small, a skill's definitions come
 * with the call after it is loaded, and a local model with an 8,192-token window answers the
 * common questions. The figures printed here are docs/models.md's "prompt size" table.
 */
import { copyFileSync, cpSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import request from 'supertest';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig, projectRoot } from '../../src/config/config.ts';
import { silentLogger } from '../../src/logging/logger.ts';
import { createService, type Service } from '../../src/service.ts';
import { loadSkills } from '../../src/skills/loader.ts';
import { scaffoldSkill } from '../../src/skills/scaffold.ts';
import { temporarySkillsDirectory } from '../../src/skills/testing.ts';
import { temporaryDirectory } from '../support/catalogFixture.ts';
import { promptTokens, startMockOpenAI, toolDefinitionTokens, type MockOpenAI, type RecordedRequest, type ScriptedStep } from '../support/mockOpenAI.ts';

const LOCAL_CONTEXT = 8_192;

let mock: MockOpenAI;
let small: MockOpenAI;
const services: Service[] = [];
beforeAll(async () => {
  mock = await startMockOpenAI();
  small = await startMockOpenAI({ maxPromptTokens: LOCAL_CONTEXT });
});
afterAll(async () => {
  await Promise.all([mock.close(), small.close()]);
});
afterEach(async () => {
  await Promise.all(services.splice(0).map((service) => service.close()));
  mock.reset();
  small.reset();
});

async function serviceOn(server: MockOpenAI, environment: Record<string, string> = {}): Promise<Service> {
  const config = loadConfig({
    LOG_LEVEL: 'silent',
    OPENAI_BASE_URL: server.url,
    OPENAI_API_KEY: 'test-key',
    OPENAI_MODEL: 'mock-model',
    MODEL_MAX_RETRIES: '0',
    APP_DB: path.join(temporaryDirectory(), 'app.db'),
    ...environment,
  } as NodeJS.ProcessEnv);
  const service = await createService(config, silentLogger());
  services.push(service);
  return service;
}

/** The latest tool result the model was sent, parsed. */
const lastToolResult = (sent: RecordedRequest) => JSON.parse([...sent.body.messages].reverse().find((message: { role: string }) => message.role === 'tool').content);
const fiVsBpc = { source_a: 'fi_reporting', source_b: 'bpc_reporting', measure: 'amount', filters: { company: '1000', period: '2024012' } };
const loadDataAnalyst = { toolCalls: [{ name: 'load_skill', arguments: { name: 'data_analyst' } }] };

/** The three common question kinds, as a model that follows the system prompt asks them. */
const questions: { kind: string; message: string; replies: ScriptedStep[] }[] = [
  {
    kind: 'sources',
    message: 'Which sources can I ask about?',
    replies: [{ toolCalls: [{ name: 'list_sources', arguments: {} }] }, { content: 'You can ask about fi_reporting, consolidation_mart, bpc_reporting and fi_acquisition.' }],
  },
  {
    kind: 'total',
    message: 'What is the total amount in fi_reporting for company 1000 in December 2024?',
    replies: [loadDataAnalyst, { toolCalls: [{ name: 'query_source', arguments: { source: 'fi_reporting', measures: ['amount'], filters: { company: '1000', period: '2024012' } } }] }, { content: 'fi_reporting shows 443,100.00 EUR.' }],
  },
  {
    kind: 'comparison with explanation',
    message: 'Why do FI and BPC differ for company 1000 in December 2024?',
    replies: [
      loadDataAnalyst,
      { toolCalls: [{ name: 'compare_sources', arguments: fiVsBpc }] },
      (sent) => ({ toolCalls: [{ name: 'explain_difference', arguments: { comparison_id: lastToolResult(sent).comparison_id } }] }),
      { content: 'FI shows 110,000.00 EUR more than BPC: load request REQ_2024012_1000_02 is only in FI.' },
    ],
  },
  {
    // The three calls: a model that calls compare_sources by the name the system prompt lists gets the skill bound from the next call.
    kind: 'comparison with explanation, skill not loaded',
    message: 'Why do FI and BPC differ for company 1000 in December 2024?',
    replies: [
      { toolCalls: [{ name: 'compare_sources', arguments: fiVsBpc }] },
      (sent) => ({ toolCalls: [{ name: 'explain_difference', arguments: { comparison_id: lastToolResult(sent).comparison_id } }] }),
      { content: 'FI shows 110,000.00 EUR more than BPC: load request REQ_2024012_1000_02 is only in FI.' },
    ],
  },
];

/** Asks one question and returns the size of each model call. */
async function ask(service: Service, server: MockOpenAI, question: (typeof questions)[number]) {
  server.reset();
  server.enqueue(...question.replies);
  const response = await request(service.app).post('/chat').send({ message: question.message });
  return { response, calls: server.requests.map((sent) => promptTokens(sent.body)), definitions: server.requests.map((sent) => toolDefinitionTokens(sent.body)) };
}

describe('prompt size with tools bound on demand', () => {
  it('keeps the first call of every question under 2,000 tokens and a comparison with its explanation under 8,000 in all', async () => {
    const service = await serviceOn(mock);
    const figures: Record<string, { calls: number[]; definitions: number[]; total: number }> = {};
    for (const question of questions) {
      const { response, calls, definitions } = await ask(service, mock, question);
      expect(response.status, question.kind).toBe(200);
      expect(response.body.finished).toBe(true);
      expect(response.body.tool_calls.every((call: { ok: boolean }) => call.ok)).toBe(true);
      expect(calls.length).toBe(question.replies.length);
      expect(calls[0], `first call of "${question.message}"`).toBeLessThanOrEqual(2_000);
      figures[question.kind] = { calls, definitions, total: calls.reduce((sum, size) => sum + size, 0) };
      // What the service reports matches what was sent: a usage entry per call, definitions counted.
      expect(response.body.usage.calls).toHaveLength(calls.length);
      expect(response.body.usage.tool_definition_tokens).toBeGreaterThan(0);
      expect(response.body.usage.tool_definition_share).toBeGreaterThan(0);
      expect(response.body.usage.tool_definition_share).toBeLessThan(1);
    }
    console.log(`prompt tokens per call (chars/4 of messages + tools):\n${JSON.stringify(figures, null, 1)}`);
    // 8,000 tokens with the four analysis skills; each further skill adds its one line of the
    // system prompt to every call (at most 60 tokens, test/skills/systemPrompt.test.ts), no more.
    const budget = (kind: string) => 8_000 + (service.registry.skills.length - 4) * 60 * figures[kind]!.calls.length;
    expect(figures['comparison with explanation']!.total).toBeLessThanOrEqual(budget('comparison with explanation'));
    expect(figures['comparison with explanation, skill not loaded']!.total).toBeLessThanOrEqual(budget('comparison with explanation, skill not loaded'));
    // /metrics: one observation of the prompt size per model call.
    const metrics = (await request(service.app).get('/metrics')).text;
    const calls = Object.values(figures).reduce((sum, figure) => sum + figure.calls.length, 0);
    expect(metrics).toContain(`model_prompt_tokens_count{provider="openai"} ${calls}`);
    expect(metrics).toMatch(/model_prompt_tokens_bucket\{le="2000",provider="openai"\} [1-9]/);
    // The definitions of a question that needs no skill stay the few that start every question.
    expect(figures.sources!.definitions[1]).toBe(figures.sources!.definitions[0]);
  });

  it('adds under 60 tokens to the first call for each installed skill that is not loaded', async () => {
    const directory = temporarySkillsDirectory('prompt-size-');
    // The real skills, each as a folder whose index.ts re-exports the real one (the loader skips symbolic links).
    for (const skill of await loadSkills(path.join(projectRoot, 'skills'))) {
      const folder = path.join(directory, path.basename(skill.directory));
      mkdirSync(folder);
      copyFileSync(path.join(skill.directory, 'SKILL.md'), path.join(folder, 'SKILL.md'));
      // A page is served from the folder that declares it.
      if (existsSync(path.join(skill.directory, 'web'))) cpSync(path.join(skill.directory, 'web'), path.join(folder, 'web'), { recursive: true });
      writeFileSync(path.join(folder, 'index.ts'), `export { default } from ${JSON.stringify(pathToFileURL(path.join(skill.directory, 'index.ts')).href)};\n`);
    }
    const extra = 10;
    for (let index = 1; index <= extra; index += 1) scaffoldSkill({ name: `extra_${String(index).padStart(2, '0')}`, skillsDirectory: directory });

    const real = await serviceOn(mock);
    const sources = questions[0]!;
    const before = (await ask(real, mock, sources)).calls[0]!;
    const more = await serviceOn(mock, { SKILLS_DIR: directory });
    expect(more.registry.skills).toHaveLength(real.registry.skills.length + extra);
    const after = (await ask(more, mock, sources)).calls[0]!;
    console.log(`first call: ${before} tokens with the real skills, ${after} with ${extra} more (${(after - before) / extra} each)`);
    expect(after).toBeGreaterThan(before);
    expect((after - before) / extra).toBeLessThanOrEqual(60);
  });

  it('answers every common question through a local server that refuses prompts over 8,192 tokens', async () => {
    const service = await serviceOn(small, { MODEL_CONTEXT_TOKENS: String(LOCAL_CONTEXT) });
    for (const question of questions) {
      const { response, calls } = await ask(service, small, question);
      expect(response.status, `${question.kind}: ${JSON.stringify(response.body)}`).toBe(200);
      expect(response.body.finished).toBe(true);
      for (const size of calls) expect(size).toBeLessThanOrEqual(LOCAL_CONTEXT);
    }
  });

  it('without MODEL_CONTEXT_TOKENS a long conversation overflows that server: the provider error is a clear 502', async () => {
    const service = await serviceOn(small);
    let sessionId: string | undefined;
    let refused: request.Response | undefined;
    // Each turn adds the 100-row result of a query; the default window (128,000) never cuts the history to 8,192.
    for (let turn = 0; turn < 8 && !refused; turn += 1) {
      small.enqueue({ toolCalls: [{ name: 'query_source', arguments: { source: 'fi_reporting', dimensions: ['document'], filters: { company: '1000' } } }] }, { content: 'Listed.' });
      const response = await request(service.app).post('/chat').send({ message: 'amount by document for company 1000', ...(sessionId ? { session_id: sessionId } : {}) });
      sessionId = response.body.session_id;
      if (response.status !== 200) refused = response;
    }
    expect(refused?.status, JSON.stringify(refused?.body)).toBe(502);
    expect(refused?.body).toMatchObject({ type: '/problems/model-unavailable', reason: 'context_too_small' });
    expect(refused?.body.detail).toMatch(/context window.*MODEL_CONTEXT_TOKENS/);
  });

  it('with MODEL_CONTEXT_TOKENS the same conversation fits: the history is cut to the window, not by the provider', async () => {
    const service = await serviceOn(small, { MODEL_CONTEXT_TOKENS: String(LOCAL_CONTEXT) });
    let sessionId: string | undefined;
    for (let turn = 0; turn < 8; turn += 1) {
      small.enqueue({ toolCalls: [{ name: 'query_source', arguments: { source: 'fi_reporting', dimensions: ['document'], filters: { company: '1000' } } }] }, { content: 'Listed.' });
      const response = await request(service.app).post('/chat').send({ message: 'amount by document for company 1000', ...(sessionId ? { session_id: sessionId } : {}) });
      expect(response.status, JSON.stringify(response.body)).toBe(200);
      sessionId = response.body.session_id;
    }
    for (const sent of small.requests) expect(promptTokens(sent.body)).toBeLessThanOrEqual(LOCAL_CONTEXT);
  });

  it('refuses a question that cannot fit the window with a problem that says so, before calling the model', async () => {
    const service = await serviceOn(small, { MODEL_CONTEXT_TOKENS: '2048' });
    const response = await request(service.app).post('/chat').send({ message: `Total FI for 1000? ${'Please be precise. '.repeat(400)}` });
    expect(response.status).toBe(502);
    expect(response.body).toMatchObject({ type: '/problems/model-unavailable', reason: 'context_too_small' });
    expect(response.body.detail).toMatch(/does not fit the model's context window.*2048 tokens \(MODEL_CONTEXT_TOKENS\)/);
    expect(small.requests).toHaveLength(0);
  });
});
