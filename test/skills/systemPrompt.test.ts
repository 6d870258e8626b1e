import { readFileSync } from 'node:fs';
import path from 'node:path';
import { SystemMessage } from '@langchain/core/messages';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { buildSystemPrompt } from '../../src/agent/systemPrompt.ts';
import { estimateTokens } from '../../src/agent/tokenEstimate.ts';
import { loadConfig, projectRoot } from '../../src/config/config.ts';
import { silentLogger } from '../../src/logging/logger.ts';
import { createService, type Service } from '../../src/service.ts';
import { defineTool } from '../../src/skills/api.ts';
import { loadSkills, type Skill } from '../../src/skills/loader.ts';
import { scaffoldSkill } from '../../src/skills/scaffold.ts';
import { temporarySkillsDirectory } from '../../src/skills/testing.ts';
import { temporaryDirectory } from '../support/catalogFixture.ts';
import { startMockOpenAI, type MockOpenAI } from '../support/mockOpenAI.ts';

const tokens = (prompt: string) => estimateTokens([new SystemMessage(prompt)]);
const echo = (name: string) => defineTool({ name, description: 'echoes its input back', input: z.strictObject({}), handler: () => 'echo' });
const skill = (name: string, overrides: Partial<Skill> = {}): Skill => ({
  name,
  description: `Does ${name} things`,
  version: '1.0.0',
  instructions: `SECRET INSTRUCTIONS OF ${name}`,
  directory: `/skills/${name}`,
  tools: [echo(`${name}_one`), echo(`${name}_two`)],
  ...overrides,
});

describe('buildSystemPrompt', () => {
  it('lists each enabled skill on one line with its tools, and asks for load_skill instead of inlining instructions', () => {
    const prompt = buildSystemPrompt([skill('alpha'), skill('beta', { description: 'Spans\n  two lines.' }), skill('gamma', { enabled: false })]);
    expect(prompt).toContain('- alpha: Does alpha things. Tools: alpha_one, alpha_two.\n- beta: Spans two lines. Tools: beta_one, beta_two.');
    expect(prompt).toContain("call load_skill with its name");
    expect(prompt).not.toContain('SECRET INSTRUCTIONS');
    expect(prompt).not.toContain('gamma');
  });

  it("keeps the former prompt, with every skill's instructions, as the 'inline' option", () => {
    const prompt = buildSystemPrompt([skill('alpha')], { instructions: 'inline' });
    expect(prompt).toContain('## Skill: alpha (v1.0.0)\nDoes alpha things\n\nSECRET INSTRUCTIONS OF alpha');
  });

  it('grows by one line per skill: ten scaffolded skills add under 60 tokens each, against their full instructions inline', async () => {
    const real = (await loadSkills(path.join(projectRoot, 'skills'))).filter((s) => s.enabled !== false);
    const directory = temporarySkillsDirectory('prompt-');
    for (let index = 1; index <= 10; index += 1) scaffoldSkill({ name: `generated_${String(index).padStart(2, '0')}`, skillsDirectory: directory });
    const generated = await loadSkills(directory);
    const onDemand = { real: tokens(buildSystemPrompt(real)), all: tokens(buildSystemPrompt([...real, ...generated])) };
    const inline = { real: tokens(buildSystemPrompt(real, { instructions: 'inline' })), all: tokens(buildSystemPrompt([...real, ...generated], { instructions: 'inline' })) };
    expect((onDemand.all - onDemand.real) / 10).toBeLessThan(60);
    expect((inline.all - inline.real) / 10).toBeGreaterThan(150);
    expect(onDemand.real).toBeLessThan(inline.real);
    expect(onDemand.all).toBeLessThan(inline.real);
  });
});

describe('load_skill with a model', () => {
  let mock: MockOpenAI;
  let service: Service;
  beforeAll(async () => {
    mock = await startMockOpenAI();
    service = await createService(
      loadConfig({
        LOG_LEVEL: 'silent',
        OPENAI_BASE_URL: mock.url,
        OPENAI_API_KEY: 'test-key',
        OPENAI_MODEL: 'mock-model',
        MODEL_MAX_RETRIES: '0',
        APP_DB: path.join(temporaryDirectory(), 'app.db'),
      } as NodeJS.ProcessEnv),
      silentLogger(),
    );
  });
  afterAll(async () => {
    await service.close();
    await mock.close();
  });

  it("sends the one-line skill list and load_skill, and answers load_skill with the SKILL.md body", async () => {
    mock.enqueue({ toolCalls: [{ name: 'load_skill', arguments: { name: 'data_analyst' }, id: 'call_load' }] }, { content: 'Ready.' });
    const response = await request(service.app).post('/chat').send({ message: 'What can you do?' });
    expect(response.status).toBe(200);
    const [first, second] = mock.requests.map((r) => r.body as { messages: { role: string; content: string; tool_call_id?: string }[]; tools: { function: { name: string } }[] });
    const system = first!.messages[0]!.content;
    expect(system).toMatch(/^- data_analyst: Explore and reconcile finance reporting sources .* Tools: list_sources, query_source, compare_sources, list_differences, explain_difference\.$/m);
    const instructions = readFileSync(path.join(projectRoot, 'skills/data_analyst/SKILL.md'), 'utf8').replace(/^---\r?\n[\s\S]*?\r?\n---\r?\n/, '').trim();
    expect(system).not.toContain(instructions);
    expect(first!.tools.map((t) => t.function.name)).toContain('load_skill');
    const result = JSON.parse(second!.messages.find((m) => m.role === 'tool' && m.tool_call_id === 'call_load')!.content);
    expect(result).toMatchObject({ skill: 'data_analyst', instructions, tools: expect.arrayContaining([expect.objectContaining({ name: 'query_source' })]) });
    expect(response.body.tool_calls).toMatchObject([{ name: 'load_skill', ok: true }]);
  });
});
