import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig, projectRoot } from '../../src/config/config.ts';
import { temporaryDirectory } from '../support/catalogFixture.ts';

const env = (values: Record<string, string>) => values as NodeJS.ProcessEnv;

describe('APP_DB and SESSION_TTL_HOURS', () => {
  it('default to data/app.db under the project root and a week', () => {
    expect(loadConfig(env({}))).toMatchObject({ appDatabasePath: path.join(projectRoot, 'data/app.db'), sessionTtlHours: 168 });
  });

  it('resolve a relative APP_DB from the current directory and accept a TTL of 0 (never expire)', () => {
    expect(loadConfig(env({ APP_DB: 'var/conversations.db', SESSION_TTL_HOURS: '0' }))).toMatchObject({
      appDatabasePath: path.resolve('var/conversations.db'),
      sessionTtlHours: 0,
    });
  });

  it('name the variable when invalid', () => {
    expect(() => loadConfig(env({ SESSION_TTL_HOURS: 'a week' }))).toThrow(/SESSION_TTL_HOURS: must be a number \(got 'a week'\)/);
    expect(() => loadConfig(env({ SESSION_TTL_HOURS: '-1' }))).toThrow(/SESSION_TTL_HOURS: must be at least 0/);
    expect(() => loadConfig(env({ SESSION_TTL_HOURS: '1.5' }))).toThrow(/SESSION_TTL_HOURS: must be a whole number/);
    expect(() => loadConfig(env({ APP_DB: '' }))).toThrow(/APP_DB: must be a file path/);
    expect(() => loadConfig(env({ APP_DB: 'data/sample.db', DATA_DB: path.resolve('data/sample.db') }))).toThrow(/APP_DB: must not be the data database/);
  });

  it('stop startup with one clear message when APP_DB cannot be opened', () => {
    const directory = temporaryDirectory('sessions-config-');
    const result = spawnSync(process.execPath, ['--import', 'tsx', path.join(projectRoot, 'src/main.ts')], {
      env: { ...process.env, LOG_LEVEL: 'silent', PORT: '0', MODEL_PROVIDER: 'offline', APP_DB: directory },
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect(result.status).toBe(1);
    expect(result.stderr.trim()).toMatch(new RegExp(`^APP_DB: ${directory} cannot be opened as the application database: `));
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });
});
