/**
 * The request guards' rules, one by one: which host names are allowed by default and with
 * ALLOWED_HOSTS, how a Host header is read, and the configuration checks of the new variables.
 * The attack suite (test/security/attackSuite.test.ts) replays them against the real service.
 */
import os from 'node:os';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.ts';
import { allowedHostNames, hostName } from '../../src/http/security/requestGuards.ts';

describe('allowed hosts', () => {
  it('reads host names out of Host headers', () => {
    expect(hostName('LocalHost:3000')).toBe('localhost');
    expect(hostName('[::1]:3000')).toBe('::1');
    expect(hostName('analyst.example.com.')).toBe('analyst.example.com');
    expect(hostName('10.0.0.5')).toBe('10.0.0.5');
  });

  it('allows loopback names and the listening host by default', () => {
    expect([...allowedHostNames([], '127.0.0.1')!].sort()).toEqual(['127.0.0.1', '::1', 'localhost']);
    expect(allowedHostNames([], 'analyst.internal')).toContain('analyst.internal');
    expect(allowedHostNames([], 'analyst.internal')).not.toContain('attacker.example');
    expect([...allowedHostNames([], '::1')!].sort()).toEqual(['127.0.0.1', '::1', 'localhost']);
  });

  it('allows every interface address and the machine name when listening on all interfaces', () => {
    const names = allowedHostNames([], '0.0.0.0')!;
    expect(names).toContain(os.hostname().toLowerCase());
    for (const address of Object.values(os.networkInterfaces()).flat()) expect(names).toContain(address!.address.toLowerCase());
  });

  it('adds ALLOWED_HOSTS entries; * turns the check off', () => {
    expect(allowedHostNames(['analyst.example.com'], '127.0.0.1')).toContain('analyst.example.com');
    expect(allowedHostNames(['*'], '127.0.0.1')).toBeUndefined();
  });

  it('validates ALLOWED_HOSTS and SESSION_MAX_TURNS at startup', () => {
    const config = loadConfig({ ALLOWED_HOSTS: 'Analyst.Example.com, 10.0.0.5, [::1]', SESSION_MAX_TURNS: '50' } as NodeJS.ProcessEnv);
    expect(config.allowedHosts).toEqual(['analyst.example.com', '10.0.0.5', '[::1]']);
    expect(config.sessionMaxTurns).toBe(50);
    expect(loadConfig({} as NodeJS.ProcessEnv)).toMatchObject({ allowedHosts: [], sessionMaxTurns: 200 });
    expect(() => loadConfig({ ALLOWED_HOSTS: 'https://analyst.example.com' } as NodeJS.ProcessEnv)).toThrow(/ALLOWED_HOSTS: each entry must be a host name/);
    expect(() => loadConfig({ SESSION_MAX_TURNS: '0' } as NodeJS.ProcessEnv)).toThrow(/SESSION_MAX_TURNS: must be at least 1/);
  });

  it('never echoes credentials of an invalid model URL', () => {
    expect(() => loadConfig({ OPENAI_BASE_URL: 'user:hunter2@llm/v1?token=abc' } as NodeJS.ProcessEnv)).toThrow(/got 'llm\/v1'/);
  });
});
