import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig, projectRoot } from '../../src/config/config.ts';

const env = (values: Record<string, string>) => values as NodeJS.ProcessEnv;

describe('loadConfig', () => {
  it('runs offline on the bundled sample with no variables set', () => {
    const config = loadConfig(env({}));
    expect(config).toMatchObject({
      port: 3000,
      dataDatabasePath: path.join(projectRoot, 'data/sample.db'),
      catalogPath: path.join(projectRoot, 'data/sources.yaml'),
      model: { provider: 'offline' },
      logLevel: 'info',
    });
  });

  it('uses an OpenAI-compatible endpoint when a base URL or key is set', () => {
    expect(loadConfig(env({ OPENAI_BASE_URL: 'http://localhost:11434/v1', OPENAI_MODEL: 'llama3.1', MODEL_TIMEOUT_MS: '5000' })).model).toEqual({
      provider: 'openai',
      apiKey: undefined,
      baseUrl: 'http://localhost:11434/v1',
      modelName: 'llama3.1',
      timeoutMs: 5000,
      maxRetries: 2,
    });
    expect(loadConfig(env({ OPENAI_API_KEY: 'sk-test', MODEL_PROVIDER: 'offline' })).model).toEqual({ provider: 'offline' });
  });

  it('names every invalid variable, what is wrong and what it got', () => {
    expect(() => loadConfig(env({ PORT: 'eighty', LOG_LEVEL: 'loud', OPENAI_BASE_URL: 'localhost:1234' }))).toThrow(
      /Invalid configuration:\n {2}PORT: must be a number \(got 'eighty'\)\n {2}OPENAI_BASE_URL: must be an http\(s\) URL .*\(got 'localhost:1234'\)\n {2}LOG_LEVEL: must be one of fatal, error, warn, info, debug, trace, silent \(got 'loud'\)/,
    );
    expect(() => loadConfig(env({ PORT: '70000' }))).toThrow(/PORT: must be at most 65535/);
    expect(() => loadConfig(env({ MODEL_PROVIDER: 'openai' }))).toThrow(/MODEL_PROVIDER: is 'openai' but neither OPENAI_API_KEY nor OPENAI_BASE_URL is set/);
  });

  it('takes the default data connection from DATA_URL, keeps its password out of errors, and refuses it next to DATA_DB', () => {
    expect(loadConfig(env({ DATA_URL: 'postgres://reader:secret@db:5432/finance' }))).toMatchObject({ dataUrl: 'postgres://reader:secret@db:5432/finance', dataDatabasePath: undefined });
    expect(loadConfig(env({ DATA_URL: 'duckdb:data/x.duckdb' }))).toMatchObject({ dataUrl: `duckdb:${path.resolve('data/x.duckdb')}`, dataDatabasePath: path.resolve('data/x.duckdb') });
    expect(loadConfig(env({})).dataUrl).toBe(`sqlite:${path.join(projectRoot, 'data/sample.db')}`);
    expect(() => loadConfig(env({ DATA_URL: 'postgres://a@b/c', DATA_DB: 'x.db' }))).toThrow(/DATA_URL: set either DATA_URL or DATA_DB/);
    const invalid = (() => {
      try {
        loadConfig(env({ DATA_URL: 'mysql://reader:secret@db/finance' }));
      } catch (error) {
        return (error as Error).message;
      }
      return '';
    })();
    expect(invalid).toMatch(/DATA_URL: must be sqlite:FILE, duckdb:FILE or postgres:/);
    expect(invalid).not.toContain('secret');
  });
});

describe('notification webhook settings', () => {
  const SECRET = 'whsec-0123456789abcdef';
  const message = (variables: Record<string, string>) => {
    try {
      loadConfig(env(variables));
    } catch (error) {
      return (error as Error).message;
    }
    return '';
  };

  it('has no webhook by default, and one with its secret when both are set', () => {
    expect(loadConfig(env({})).notifications).toEqual({ webhooks: [] });
    expect(loadConfig(env({ NOTIFY_WEBHOOK_URL: ' https://hooks.example.com/services/T0/B0/token ', NOTIFY_WEBHOOK_SECRET: SECRET })).notifications).toEqual({
      webhooks: [{ url: 'https://hooks.example.com/services/T0/B0/token', secret: SECRET }],
    });
  });

  it('refuses a bad URL, a missing or short secret, with the variable named and neither value shown', () => {
    const cases: [Record<string, string>, RegExp][] = [
      [{ NOTIFY_WEBHOOK_URL: 'hooks.example.com/T0KEN', NOTIFY_WEBHOOK_SECRET: SECRET }, /NOTIFY_WEBHOOK_URL: must be an http\(s\) URL/],
      [{ NOTIFY_WEBHOOK_URL: 'ftp://hooks.example.com/T0KEN', NOTIFY_WEBHOOK_SECRET: SECRET }, /NOTIFY_WEBHOOK_URL: must be an http\(s\) URL/],
      [{ NOTIFY_WEBHOOK_URL: 'https://user:T0KEN@hooks.example.com/x', NOTIFY_WEBHOOK_SECRET: SECRET }, /NOTIFY_WEBHOOK_URL: must not hold a user name or password/],
      [{ NOTIFY_WEBHOOK_URL: 'https://hooks.example.com/T0KEN' }, /NOTIFY_WEBHOOK_SECRET: is required when NOTIFY_WEBHOOK_URL is set/],
      [{ NOTIFY_WEBHOOK_URL: 'https://hooks.example.com/T0KEN', NOTIFY_WEBHOOK_SECRET: 'whsec-short' }, /NOTIFY_WEBHOOK_SECRET: must be at least 16 characters/],
      [{ NOTIFY_WEBHOOK_SECRET: SECRET }, /NOTIFY_WEBHOOK_SECRET: is set but NOTIFY_WEBHOOK_URL is not/],
    ];
    for (const [variables, expected] of cases) {
      const text = message(variables);
      expect(text).toMatch(/^Invalid configuration:\n/);
      expect(text).toMatch(expected);
      expect(text).not.toMatch(/T0KEN|whsec/);
    }
  });
});

describe('startup', () => {
  const start = (variables: Record<string, string>) =>
    spawnSync(process.execPath, ['--import', 'tsx', path.join(projectRoot, 'src/main.ts')], {
      env: { ...process.env, LOG_LEVEL: 'silent', PORT: '0', ...variables },
      encoding: 'utf8',
      timeout: 20_000,
    });

  it('stops with one clear message for a missing data database', () => {
    const result = start({ DATA_DB: '/nonexistent/finance.db' });
    expect(result.status).toBe(1);
    expect(result.stderr.trim()).toBe("DATA_DB: the data database /nonexistent/finance.db does not exist. Run 'npm run data:sample' to build the sample, or point DATA_DB at a SQLite file.");
  });

  it('stops with the variable name for invalid configuration, without a stack trace', () => {
    const result = start({ MODEL_TIMEOUT_MS: '-5' });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('MODEL_TIMEOUT_MS: must be at least 1000');
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });
});
