import path from 'node:path';
import supertest from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.ts';
import { buildKnowledgeBase, type KnowledgeIndex } from '../../src/knowledge/knowledgeBase.ts';
import { silentLogger } from '../../src/logging/logger.ts';
import { createService, type Service } from '../../src/service.ts';
import type { SkillRegistry } from '../../src/skills/registry.ts';
import type { ToolContext } from '../../src/skills/api.ts';
import { temporaryDirectory } from '../support/catalogFixture.ts';
import { runTool, sampleToolbox } from '../support/sampleContext.ts';

const eliminationsHeading = 'Reconciliation › Why consolidation differs from FI: eliminations and adjustments';

describe('search_knowledge through the skill registry', () => {
  let toolbox: { registry: SkillRegistry; context: ToolContext; close: () => void };
  let knowledge: KnowledgeIndex;

  beforeAll(async () => {
    const sample = await sampleToolbox();
    knowledge = buildKnowledgeBase(sample.registry.skills);
    toolbox = { ...sample, context: { ...sample.context, knowledge } };
  });
  afterAll(() => {
    toolbox?.close();
    knowledge?.close();
  });

  it('is declared by the knowledge skill, and every skill with knowledge files is indexed', () => {
    expect(toolbox.registry.get('search_knowledge')?.skill.name).toBe('knowledge');
    expect(knowledge.skills()).toContain('data_analyst');
    expect(knowledge.documents().every((d) => d.file.startsWith(`skills/${d.skill}/knowledge/`))).toBe(true);
  });

  it('returns ranked passages with citations', async () => {
    const result = await runTool(toolbox, 'search_knowledge', { query: 'why does consolidation differ from FI', skill: 'data_analyst', limit: 3 });
    expect(result.query).toBe('why does consolidation differ from FI');
    expect(result.results).toHaveLength(3);
    expect(result.results[0]).toEqual({
      citation: `skills/data_analyst/knowledge/reconciliation.md § ${eliminationsHeading}`,
      skill: 'data_analyst',
      file: 'skills/data_analyst/knowledge/reconciliation.md',
      heading: eliminationsHeading,
      text: expect.stringContaining('Intercompany eliminations'),
      score: expect.any(Number),
    });
    expect(result.note).toBeUndefined();
  });

  it('accepts the arguments as a JSON string and defaults to 5 results across every skill', async () => {
    const result = await runTool(toolbox, 'search_knowledge', JSON.stringify({ query: 'currency translation at the average rate' }));
    expect(result.results).toHaveLength(5);
    expect(result.results.map((r: { file: string }) => r.file)).toContain('skills/data_analyst/knowledge/currency.md');
  });

  it('answers no match with an empty list and a note', async () => {
    const result = await runTool(toolbox, 'search_knowledge', { query: 'xylophone zebra quokka' });
    expect(result.results).toEqual([]);
    expect(result.note).toMatch(/No passage matches.*data_analyst/);
  });

  it('returns structured errors the model can act on', async () => {
    expect((await runTool(toolbox, 'search_knowledge', { query: 'why is it so?' })).error).toMatchObject({ code: 'invalid_value', hint: expect.any(String) });
    expect((await runTool(toolbox, 'search_knowledge', { query: 'eliminations', skill: 'data_analyts' })).error).toMatchObject({
      code: 'unknown_value',
      choices: expect.arrayContaining(['data_analyst']),
      closest: 'data_analyst',
    });
    expect((await runTool(toolbox, 'search_knowledge', { query: 'rates', limit: 11 })).error.code).toBe('invalid_arguments');
    expect((await runTool(toolbox, 'search_knowledge', { query: '' })).error.code).toBe('invalid_arguments');
    expect((await runTool(toolbox, 'search_knowledge', { querry: 'rates' })).error.code).toBe('invalid_arguments');
    const withoutIndex = await toolbox.registry.execute('search_knowledge', { query: 'rates' }, { ...toolbox.context, knowledge: undefined });
    expect(withoutIndex).toMatchObject({ ok: false, error: { code: 'internal_error', message: expect.stringContaining('knowledge base is not available') } });
  });
});

describe('POST /tools/search_knowledge', () => {
  let service: Service;

  beforeAll(async () => {
    const appDatabase = path.join(temporaryDirectory(), 'app.db');
    service = await createService(loadConfig({ LOG_LEVEL: 'silent', APP_DB: appDatabase, QUERY_WORKERS: '1' } as NodeJS.ProcessEnv), silentLogger());
  });
  afterAll(async () => {
    await service?.close();
  });

  it('searches the knowledge the service indexed at startup', async () => {
    const response = await supertest(service.app).post('/tools/search_knowledge').send({ query: 'Why does consolidation differ from FI?', skill: 'data_analyst' });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ tool: 'search_knowledge', ok: true, duration_ms: expect.any(Number) });
    expect(response.body.result.results[0]).toMatchObject({ heading: eliminationsHeading, file: 'skills/data_analyst/knowledge/reconciliation.md' });
  });

  it('answers a query without words with a 422 tool-error problem', async () => {
    const response = await supertest(service.app).post('/tools/search_knowledge').send({ query: '"()*:-' });
    expect(response.status).toBe(422);
    expect(response.headers['content-type']).toMatch(/application\/problem\+json/);
    expect(response.body).toMatchObject({ type: '/problems/tool-error', tool: 'search_knowledge', ok: false, error: { code: 'invalid_value' } });
  });

  it('lists the knowledge skill and its tool on GET /skills', async () => {
    const response = await supertest(service.app).get('/skills');
    expect(response.status).toBe(200);
    expect(JSON.stringify(response.body)).toContain('search_knowledge');
  });
});
