/**
 * No zero that means "no data", over real requests (POST /tools, /chat with the offline model)
 * with a keys file: the forecast of bpc_reporting (which holds ACTUAL and BUDGET) is a statement
 * of what holds what, not "FORECAST: 0.00"; a side without rows is said as such; a genuine zero
 * still reads 0.00; and for a scoped key a value (or a source holding it) outside its scope
 * reads exactly like a value that exists nowhere.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import supertest from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.ts';
import { silentLogger } from '../../src/logging/logger.ts';
import { createService, type Service } from '../../src/service.ts';

const OPEN_KEY = 'open-not-held-key-0123456';
const GERMANY_KEY = 'germany-not-held-key-0123';
const NO_MART_KEY = 'no-mart-not-held-key-0123';
const FORECAST_STATEMENT = 'bpc_reporting holds versions ACTUAL and BUDGET, not FORECAST; consolidation_mart holds version FORECAST.';
const actualVsForecast = { source_a: 'bpc_reporting', source_b: 'bpc_reporting', measure: 'amount', filters_a: { version: 'ACTUAL' }, filters_b: { version: 'FORECAST' } };

const directory = mkdtempSync(path.join(tmpdir(), 'value-not-held-'));
let service: Service;
let api: ReturnType<typeof supertest>;

beforeAll(async () => {
  writeFileSync(
    path.join(directory, 'keys.yaml'),
    [
      'keys:',
      '  - name: germany',
      '    key_env: GERMANY_NOT_HELD_KEY',
      '    scopes: { company: ["1000"] }',
      '  - name: no-mart',
      '    key_env: NO_MART_NOT_HELD_KEY',
      '    scopes: { sources: [fi_reporting, bpc_reporting, fi_acquisition] }',
      '',
    ].join('\n'),
  );
  const environment = {
    LOG_LEVEL: 'silent',
    MODEL_PROVIDER: 'offline',
    RATE_LIMIT_PER_MINUTE: '0',
    APP_DB: path.join(directory, 'app.db'),
    API_KEYS: OPEN_KEY,
    API_KEYS_FILE: path.join(directory, 'keys.yaml'),
    GERMANY_NOT_HELD_KEY: GERMANY_KEY,
    NO_MART_NOT_HELD_KEY: NO_MART_KEY,
  };
  service = await createService(loadConfig(environment as NodeJS.ProcessEnv), silentLogger());
  api = supertest(service.app);
});
afterAll(async () => {
  await service?.close();
  rmSync(directory, { recursive: true, force: true });
});

const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
const tool = (key: string, name: string, args: Record<string, unknown>) => api.post(`/tools/${name}`).set(bearer(key)).send(args);
const chat = async (key: string, message: string) => (await api.post('/chat').set(bearer(key)).send({ message }).expect(200)).body.answer as string;

describe('a value the source does not hold', () => {
  it('is a 422 value_not_held from POST /tools/compare_sources, naming what each source holds', async () => {
    const response = await tool(OPEN_KEY, 'compare_sources', actualVsForecast);
    expect(response.status).toBe(422);
    expect(response.body).toMatchObject({ ok: false, error: { code: 'value_not_held', message: FORECAST_STATEMENT, side: 'b', choices: ['ACTUAL', 'BUDGET'], held_by: ['consolidation_mart'], closest_source: 'consolidation_mart' } });
    expect(JSON.stringify(response.body)).not.toContain('total_b');
  });

  it('is said plainly in /chat, with no side of 0.00', async () => {
    const answer = await chat(OPEN_KEY, 'Compare the forecast in bpc_reporting with the actuals');
    expect(answer).toContain(FORECAST_STATEMENT);
    expect(answer).not.toMatch(/0\.00|only in/);
    expect(await chat(OPEN_KEY, 'What is the forecast of bpc_reporting for company 3000?')).toContain(FORECAST_STATEMENT);
  });

  it('in /chat, a side without rows for values each held is "no rows", and a genuine zero is 0.00', async () => {
    const missing = await chat(OPEN_KEY, 'Compare actual and budget in consolidation_mart for company 2000 in September 2024 for intercompany purchases');
    expect(missing).toContain('consolidation_mart ACTUAL: no rows; consolidation_mart BUDGET: -166,000.00 USD.');
    expect(missing).toContain('consolidation_mart (ACTUAL) has no rows for these filters');
    expect(missing).not.toContain('0.00 USD;');
    const zero = await chat(OPEN_KEY, 'What is the intercompany elimination in group currency in consolidation_mart for August 2024?');
    expect(zero).toMatch(/: 0\.00 EUR\.$/);
  });
});

describe('for a scoped key', () => {
  /** The error for `value`, with the value itself replaced, and the status. */
  const asked = async (key: string, name: string, args: Record<string, unknown>, value: string) => {
    const response = await tool(key, name, args);
    return { status: response.status, error: JSON.stringify(response.body.error).replaceAll(value, '<value>') };
  };

  it('reads a value held only by a hidden source like one held nowhere', async () => {
    const hidden = await asked(NO_MART_KEY, 'compare_sources', actualVsForecast, 'FORECAST');
    expect(hidden.status).toBe(422);
    expect(hidden).toEqual(await asked(NO_MART_KEY, 'compare_sources', { ...actualVsForecast, filters_b: { version: 'ROLLING' } }, 'ROLLING'));
    expect(hidden.error).not.toContain('consolidation_mart');
    expect(hidden.error).toContain('unknown_value');
  });

  it('reads a value of hidden rows like one that exists nowhere, and still names a source it sees', async () => {
    const compareCurrency = (currency: string) => ({ source_a: 'fi_reporting', source_b: 'bpc_reporting', measure: 'amount', filters_b: { currency } });
    const hidden = await asked(GERMANY_KEY, 'compare_sources', compareCurrency('USD'), 'USD');
    expect(hidden.status).toBe(422);
    expect(hidden).toEqual(await asked(GERMANY_KEY, 'compare_sources', compareCurrency('CHF'), 'CHF'));
    // The open key sees USD in bpc_reporting: the same call compares (the test above can fail).
    expect((await tool(OPEN_KEY, 'compare_sources', compareCurrency('USD'))).status).toBe(200);
    // consolidation_mart holds company 1000's forecast, so the key is pointed to it as the open key is.
    const visible = await tool(GERMANY_KEY, 'compare_sources', actualVsForecast);
    expect(visible.body.error).toMatchObject({ code: 'value_not_held', message: FORECAST_STATEMENT, held_by: ['consolidation_mart'] });
  });
});
