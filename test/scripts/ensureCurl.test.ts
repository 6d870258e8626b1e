/**
 * `npm test`'s pretest step for the README's curl examples (scripts/ensureCurl.ts): curl present →
 * nothing to do; missing → installed with apt-get when running as root, otherwise the run stops
 * with the exact command.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../../src/config/config.ts';
import { fakeApt } from '../support/fakeApt.ts';
import { INSTALL_COMMAND, provisionCurl, type CurlSetup } from '../../scripts/ensureCurl.ts';

function machine(overrides: Partial<CurlSetup> & { installed?: boolean; aptFails?: boolean }): { setup: CurlSetup; commands: string[] } {
  const apt = fakeApt(overrides);
  const setup: CurlSetup = { hasCurl: apt.installed, isRoot: true, hasAptGet: true, run: apt.run, log: () => undefined, ...overrides };
  return { setup, commands: apt.commands };
}

describe('provisioning curl for the README examples', () => {
  it('does nothing when curl is there', () => {
    const { setup, commands } = machine({ installed: true });
    expect(provisionCurl(setup)).toMatchObject({ ok: true });
    expect(commands).toEqual([]);
  });

  it("installs Debian's curl, non-interactively, as root with apt-get", () => {
    const { setup, commands } = machine({});
    expect(provisionCurl(setup)).toEqual({ ok: true, message: 'Installed curl' });
    expect(commands).toEqual(['noninteractive: apt-get update', 'noninteractive: apt-get install -y curl']);
  });

  it('stops with the exact command when it cannot install', () => {
    expect(provisionCurl(machine({ isRoot: false }).setup)).toMatchObject({ ok: false, message: expect.stringContaining(`sudo sh -c '${INSTALL_COMMAND}'`) });
    expect(provisionCurl(machine({ aptFails: true }).setup)).toMatchObject({ ok: false, message: expect.stringContaining(INSTALL_COMMAND) });
    expect(provisionCurl(machine({ hasAptGet: false }).setup)).toMatchObject({ ok: false, message: expect.stringContaining('package manager') });
  });

  it('runs before the tests', () => {
    const packageJson = JSON.parse(readFileSync(path.join(projectRoot, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    expect(packageJson.scripts.pretest).toContain('tsx scripts/ensureCurl.ts');
  });
});
