import supertest from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HISTORY_TOKEN_BUDGET } from '../../src/agent/constants.ts';
import { loadConfig } from '../../src/config/config.ts';
import { silentLogger } from '../../src/logging/logger.ts';
import { createService, type Service } from '../../src/service.ts';
import { temporaryDirectory } from '../support/catalogFixture.ts';

let service: Service;
beforeAll(async () => {
  service = await createService(loadConfig({ LOG_LEVEL: 'silent', APP_DB: `${temporaryDirectory()}/app.db` } as NodeJS.ProcessEnv), silentLogger());
});
afterAll(async () => {
  await service.close();
});

describe('history sent to the model', () => {
  it('stays within the token budget however long the conversation, and reports prompt tokens per turn', async () => {
    const api = supertest(service.app);
    let sessionId: string | undefined;
    const promptTokens: number[] = [];
    // Each answer carries a 100-row tool result (~5k tokens): without a budget the prompt would grow by that every turn.
    for (let turn = 0; turn < 12; turn += 1) {
      const response = await api.post('/chat').send({ message: `amount by document in fi_reporting for company ${['1000', '2000', '3000'][turn % 3]}`, ...(sessionId ? { session_id: sessionId } : {}) });
      expect(response.status).toBe(200);
      expect(response.body.tool_calls[0].result.row_count).toBe(100);
      sessionId = response.body.session_id;
      promptTokens.push(response.body.usage.prompt_tokens);
    }
    const systemPromptAllowance = 4_000;
    expect(Math.max(...promptTokens)).toBeLessThan(HISTORY_TOKEN_BUDGET + systemPromptAllowance);
    expect(promptTokens[0]).toBeLessThan(promptTokens.at(-1)!);
    // A follow-up still works: the earlier turns are summarised, not lost.
    const followUp = await api.post('/chat').send({ message: 'and for company 2000?', session_id: sessionId });
    expect(followUp.body.answer).toContain('by document');
  });
});
