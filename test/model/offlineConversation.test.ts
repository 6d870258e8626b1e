/**
 * The offline model across turns, through POST /chat of a real service: follow-ups inherit
 * the question being discussed over any number of turns, complete questions start fresh,
 * small talk never re-runs an old question, the state survives a restart, and the answer is
 * written in the reader's locale.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import supertest from 'supertest';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.ts';
import { silentLogger } from '../../src/logging/logger.ts';
import { createService, type Service } from '../../src/service.ts';

const directory = mkdtempSync(path.join(tmpdir(), 'offline-conversation-'));
const start = () => createService(loadConfig({ LOG_LEVEL: 'silent', APP_DB: path.join(directory, 'app.db') } as NodeJS.ProcessEnv), silentLogger());
afterAll(() => rmSync(directory, { recursive: true, force: true }));

async function ask(service: Service, message: string, sessionId?: string, extra: Record<string, unknown> = {}) {
  const response = await supertest(service.app).post('/chat').send({ message, ...(sessionId ? { session_id: sessionId } : {}), ...extra });
  expect(response.status).toBe(200);
  return response.body as { session_id: string; answer: string; tool_calls: { name: string; args: Record<string, any> }[] };
}

describe('offline conversation', () => {
  it('carries a follow-up chain over several turns and across a restart', async () => {
    let service = await start();
    const first = await ask(service, 'budget of company 1000 in the mart for 2024');
    expect(first.answer).toContain('3,480,000.00 EUR');
    const actuals = await ask(service, 'and the actuals?', first.session_id);
    expect(actuals.tool_calls[0]!.args).toMatchObject({ source: 'consolidation_mart', filters: { company: '1000', version: 'ACTUAL' } });
    expect(actuals.answer).toContain('3,451,000.00 EUR');
    await service.close();
    service = await start();
    const q2 = await ask(service, 'same for Q2', first.session_id);
    expect(q2.tool_calls[0]!.args).toMatchObject({ source: 'consolidation_mart', filters: { company: '1000', version: 'ACTUAL', period: { from: '2024004', to: '2024006' } } });
    const other = await ask(service, 'and for 3000?', first.session_id);
    expect(other.tool_calls[0]!.args.filters).toMatchObject({ company: '3000', period: { from: '2024004', to: '2024006' } });
    await service.close();
  });

  it('starts fresh on a complete question after a comparison, and small talk re-runs nothing', async () => {
    const service = await start();
    const comparison = await ask(service, 'compare FI with BPC for company 1000 in December 2024');
    expect(comparison.tool_calls[0]!.name).toBe('compare_sources');
    const monthly = await ask(service, 'monthly amount for company 1000 by period in fi_reporting', comparison.session_id);
    expect(monthly.tool_calls.map((c) => c.name)).toEqual(['query_source']);
    expect(monthly.tool_calls[0]!.args).toMatchObject({ dimensions: ['period'], filters: { company: '1000' } });
    const failed = await ask(service, 'total amount for company 9999 in fi_reporting', comparison.session_id);
    expect(failed.answer).toContain('9999');
    const thanks = await ask(service, 'thanks! what else can you do?', comparison.session_id);
    expect(thanks.tool_calls).toEqual([]);
    expect(thanks.answer).not.toContain('9999');
    await service.close();
  });

  it('writes numbers in the locale the request names', async () => {
    const service = await start();
    const answer = await ask(service, 'total amount in fi_reporting for company 1000 in December 2024', undefined, { locale: 'de-DE' });
    expect(answer.answer).toContain('443.100,00 EUR');
    const invalid = await supertest(service.app).post('/chat').send({ message: 'hello', locale: 'not a locale!' });
    expect(invalid.status).toBe(400);
    await service.close();
  });
});
