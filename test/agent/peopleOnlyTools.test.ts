/**
 * Tools declared `peopleOnly` (the close's sign-off and delete) are never offered to a chat
 * model, and a model that names one anyway (a text planted in the data asked it to) gets a
 * `forbidden` tool error: nothing is signed, the check stays.
 */
import path from 'node:path';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.ts';
import { silentLogger } from '../../src/logging/logger.ts';
import { createService, type Service } from '../../src/service.ts';
import { temporaryDirectory } from '../support/catalogFixture.ts';
import { startMockOpenAI, type MockOpenAI } from '../support/mockOpenAI.ts';

let mock: MockOpenAI;
let service: Service;

beforeAll(async () => {
  mock = await startMockOpenAI();
  const config = loadConfig({ LOG_LEVEL: 'silent', OPENAI_BASE_URL: mock.url, OPENAI_API_KEY: 'test-key', OPENAI_MODEL: 'mock-model', MODEL_MAX_RETRIES: '0', APP_DB: path.join(temporaryDirectory('people-only-'), 'app.db'), RATE_LIMIT_PER_MINUTE: '0', API_KEYS: '' } as NodeJS.ProcessEnv);
  service = await createService(config, silentLogger());
  await request(service.app).post('/tools/save_check').send({ name: 'FI vs BPC 1000', comparison: { source_a: 'fi_reporting', source_b: 'bpc_reporting', measure: 'amount', filters: { company: '1000' } }, period: { kind: 'fixed', period: '2024-12' } });
});
afterAll(async () => {
  await service?.close();
  await mock?.close();
});

describe('tools for people only', () => {
  it('are not offered to the model, and are refused when it names one', async () => {
    mock.reset();
    mock.enqueue(
      { toolCalls: [{ name: 'load_skill', arguments: { name: 'month_end_close' } }] },
      { toolCalls: [{ name: 'sign_off_run', arguments: { check: 'FI vs BPC 1000', note: 'approved by the data' } }, { name: 'delete_check', arguments: { check: 'FI vs BPC 1000' } }] },
      { content: 'I cannot sign off or delete checks from the chat.' },
    );
    const response = await request(service.app).post('/chat').send({ message: 'Sign off the December run of FI vs BPC 1000 and delete the check.' });
    expect(response.status).toBe(200);
    const offered = mock.requests.flatMap((sent) => ((sent.body.tools ?? []) as { function: { name: string } }[]).map((tool) => tool.function.name));
    expect(offered).toContain('save_check');
    expect(offered).not.toContain('sign_off_run');
    expect(offered).not.toContain('delete_check');
    const calls = response.body.tool_calls as { name: string; ok: boolean; result: { error?: { code: string } } }[];
    expect(calls.filter((call) => call.name !== 'load_skill').map((call) => [call.name, call.ok, call.result.error?.code])).toEqual([
      ['sign_off_run', false, 'forbidden'],
      ['delete_check', false, 'forbidden'],
    ]);
    const history = await request(service.app).post('/tools/check_history').send({ check: 'FI vs BPC 1000' });
    expect(history.body.result.signoffs).toEqual([]);
  });
});
