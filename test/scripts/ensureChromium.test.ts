/**
 * `npm test`'s pretest step (scripts/ensureChromium.ts): Chromium present → nothing to do;
 * missing → installed with apt-get when running as root, otherwise the run stops with the exact
 * command. The real script is also run once with a CHROMIUM_PATH that does not exist.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../../src/config/config.ts';
import { fakeApt } from '../support/fakeApt.ts';
import { INSTALL_COMMAND, provisionChromium, type ChromiumSetup } from '../../scripts/ensureChromium.ts';

function machine(overrides: Partial<ChromiumSetup> & { installed?: boolean; aptFails?: boolean }): { setup: ChromiumSetup; commands: string[] } {
  const apt = fakeApt(overrides);
  const setup: ChromiumSetup = {
    customPath: undefined,
    exists: apt.installed,
    isRoot: true,
    hasAptGet: true,
    run: apt.run,
    log: () => undefined,
    ...overrides,
  };
  return { setup, commands: apt.commands };
}

describe('provisioning Chromium for the browser tests', () => {
  it('does nothing when Chromium is there', () => {
    const { setup, commands } = machine({ installed: true });
    expect(provisionChromium(setup)).toMatchObject({ ok: true });
    expect(commands).toEqual([]);
  });

  it("installs Debian's chromium, non-interactively, as root with apt-get", () => {
    const { setup, commands } = machine({});
    expect(provisionChromium(setup)).toEqual({ ok: true, message: 'Installed Chromium at /usr/bin/chromium' });
    expect(commands).toEqual(['noninteractive: apt-get update', 'noninteractive: apt-get install -y chromium']);
  });

  it('stops with the exact command when it cannot install', () => {
    const notRoot = provisionChromium(machine({ isRoot: false }).setup);
    expect(notRoot.ok).toBe(false);
    expect(notRoot.message).toContain(`sudo sh -c '${INSTALL_COMMAND}'`);
    const failed = provisionChromium(machine({ aptFails: true }).setup);
    expect(failed).toMatchObject({ ok: false, message: expect.stringContaining(INSTALL_COMMAND) });
    expect(provisionChromium(machine({ hasAptGet: false }).setup).message).toContain('CHROMIUM_PATH');
  });

  it('is the pretest step and stops npm test (exit 1) for a CHROMIUM_PATH that does not exist', () => {
    const packageJson = JSON.parse(readFileSync(path.join(projectRoot, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    expect(packageJson.scripts.pretest).toMatch(/^tsx scripts\/ensureChromium.ts && tsx scripts\/ensurePostgres.ts/);
    const run = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/ensureChromium.ts'], { cwd: projectRoot, encoding: 'utf8', env: { ...process.env, CHROMIUM_PATH: '/nonexistent/chromium' } });
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('CHROMIUM_PATH is /nonexistent/chromium, which does not exist');
  });
});
