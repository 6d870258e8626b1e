import { readFileSync } from 'node:fs';
import path from 'node:path';
import supertest from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig, projectRoot } from '../../src/config/config.ts';
import { silentLogger } from '../../src/logging/logger.ts';
import { createService, type Service } from '../../src/service.ts';
import { offlineQuestions } from '../fixtures/offlineQuestions.ts';

let service: Service;
beforeAll(async () => {
  service = await createService(loadConfig({ LOG_LEVEL: 'silent' } as NodeJS.ProcessEnv), silentLogger());
});
afterAll(async () => {
  await service.close();
});

describe('offline model on the question set', () => {
  it('runs on the embedded offline model by default', async () => {
    const health = await supertest(service.app).get('/health');
    expect(health.body.model).toEqual({ provider: 'offline', name: 'offline-planner' });
  });

  let sessionId: string | undefined;
  it.each(offlineQuestions.map((q) => [q.question, q] as const))('%s', async (_question, item) => {
    const response = await supertest(service.app)
      .post('/chat')
      .send({ message: item.question, ...(item.followUp ? { session_id: sessionId } : {}) });
    expect(response.status).toBe(200);
    sessionId = response.body.session_id;
    expect(response.body).toMatchObject({ finished: true, stop_reason: 'completed' });
    expect(response.body.tool_calls.map((c: { name: string }) => c.name)).toEqual(item.tools.map((t) => t.name));
    item.tools.forEach((tool, index) => {
      if (tool.args) expect(response.body.tool_calls[index].args).toMatchObject(tool.args);
    });
    expect(response.body.iterations).toBe(item.tools.length + 1);
    for (const text of item.answerContains) expect(response.body.answer).toContain(text);
  });

  it('uses only figures that data/README.md documents as ground truth', () => {
    const readme = readFileSync(path.join(projectRoot, 'data/README.md'), 'utf8');
    for (const item of offlineQuestions) {
      const figures = item.groundTruth ?? item.answerContains.flatMap((text) => text.match(/-?\d{1,3}(?:,\d{3})*\.\d{2}/g) ?? []);
      for (const figure of figures) expect(readme, `${item.question}: ${figure}`).toContain(figure);
    }
  });
});
