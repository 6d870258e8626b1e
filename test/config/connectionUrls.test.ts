/**
 * A postgres:// URL the driver would refuse on every connection (a malformed percent-escape in
 * the user name, password or database) stops startup naming the variable and the part, and never
 * shows the password; before, the service started "healthy" and failed every query with
 * "URI malformed". Well-formed escapes (%40 for '@', %25 for '%') still load.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig, projectRoot } from '../../src/config/config.ts';

const env = (values: Record<string, string>) => values as NodeJS.ProcessEnv;

/** The message loadConfig stops with, or '' when it loads. */
function refusal(values: Record<string, string>): string {
  try {
    loadConfig(env(values));
    return '';
  } catch (error) {
    return (error as Error).message;
  }
}

describe('postgres:// URLs with malformed percent-escapes', () => {
  it.each([
    ['DATA_URL', 'password', 'postgres://reader:s3cr%zzet@db:5432/finance'],
    ['DATA_URL', 'password', 'postgres://reader:s3cr%e9et@db:5432/finance'],
    ['APP_DB', 'password', 'postgres://app:s3cr%zzet@db:5432/conversations'],
    ['APP_DB', 'user name', 'postgres://ap%p:s3cr%25et@db:5432/conversations'],
    ['DATA_URL', 'database name', 'postgres://reader:s3cr%25et@db:5432/fin%ance'],
  ])('%s with a bad escape in the %s stops startup, naming them and not the password', (variable, part, url) => {
    const message = refusal({ [variable]: url });
    expect(message).toMatch(new RegExp(`^Invalid configuration:\\n {2}${variable}: the ${part} has a malformed percent-escape`));
    expect(message).toContain("write a '%' itself as %25");
    expect(message).not.toMatch(/s3cr/);
  });

  it('loads well-formed escapes as they are', () => {
    expect(loadConfig(env({ DATA_URL: 'postgres://reader:p%40ss%25word@db:5432/finance' })).dataUrl).toBe('postgres://reader:p%40ss%25word@db:5432/finance');
    expect(loadConfig(env({ APP_DB: 'postgres://app:p%C3%A9@db/conversations' })).appDatabaseUrl).toBe('postgres://app:p%C3%A9@db/conversations');
  });

  it('stops the real entry point with exit status 1, the variable named, no password and no stack trace', () => {
    const result = spawnSync(process.execPath, ['--import', 'tsx', path.join(projectRoot, 'src/main.ts')], {
      env: { ...process.env, LOG_LEVEL: 'silent', PORT: '0', MODEL_PROVIDER: 'offline', APP_DB: 'postgres://app:s3cr%zzet@127.0.0.1:1/conversations' },
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('APP_DB: the password has a malformed percent-escape');
    expect(result.stderr).toContain("(got 'postgres://127.0.0.1:1/conversations')");
    expect(result.stderr).not.toMatch(/s3cr/);
    expect(result.stderr).not.toMatch(/\n\s+at /);
  }, 40_000);
});
