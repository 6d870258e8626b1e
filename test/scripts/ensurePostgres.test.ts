/**
 * `npm test`'s pretest step (scripts/ensurePostgres.ts): PostgreSQL's server binaries present or
 * PG_TEST_URL set → nothing to do; missing → installed with apt-get when running as root,
 * otherwise the run stops with the exact command. Also checks where the binaries are looked for.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../../src/config/config.ts';
import { fakeApt } from '../support/fakeApt.ts';
import { findPostgresBin, INSTALL_COMMAND, provisionPostgres, type PostgresSetup } from '../../scripts/ensurePostgres.ts';

function machine(overrides: Partial<PostgresSetup> & { installed?: boolean; aptFails?: boolean }): { setup: PostgresSetup; commands: string[] } {
  const apt = fakeApt(overrides);
  const setup: PostgresSetup = {
    testUrl: undefined,
    customBin: undefined,
    findBin: () => (apt.installed() ? '/usr/lib/postgresql/15/bin' : undefined),
    isRoot: true,
    hasAptGet: true,
    run: apt.run,
    log: () => undefined,
    ...overrides,
  };
  return { setup, commands: apt.commands };
}

describe('provisioning PostgreSQL for the engine tests', () => {
  it('does nothing when the server binaries are there, or PG_TEST_URL names a server (shown without its password)', () => {
    const present = machine({ installed: true });
    expect(provisionPostgres(present.setup)).toEqual({ ok: true, message: 'PostgreSQL for the tests: /usr/lib/postgresql/15/bin' });
    const external = machine({ testUrl: 'postgres://ci:hunter2@db.internal:5432/analyst' });
    const outcome = provisionPostgres(external.setup);
    expect(outcome).toMatchObject({ ok: true });
    expect(outcome.message).not.toContain('hunter2');
    expect([...present.commands, ...external.commands]).toEqual([]);
  });

  it("installs Debian's postgresql, non-interactively, as root with apt-get", () => {
    const { setup, commands } = machine({});
    expect(provisionPostgres(setup)).toEqual({ ok: true, message: 'Installed PostgreSQL at /usr/lib/postgresql/15/bin' });
    expect(commands).toEqual(['noninteractive: apt-get update', 'noninteractive: apt-get install -y postgresql']);
  });

  it('stops with the exact command when it cannot install', () => {
    const notRoot = provisionPostgres(machine({ isRoot: false }).setup);
    expect(notRoot.ok).toBe(false);
    expect(notRoot.message).toContain(`sudo sh -c '${INSTALL_COMMAND}'`);
    expect(notRoot.message).toContain('PG_TEST_URL=');
    expect(provisionPostgres(machine({ aptFails: true }).setup)).toMatchObject({ ok: false, message: expect.stringContaining(INSTALL_COMMAND) });
    expect(provisionPostgres(machine({ hasAptGet: false }).setup).message).toContain('PG_BIN');
    expect(provisionPostgres(machine({ customBin: '/opt/pg/bin' }).setup).message).toContain('PG_BIN is /opt/pg/bin');
  });

  it('finds the newest complete bin directory under /usr/lib/postgresql, or PG_BIN', () => {
    const files = new Set(['/usr/lib/postgresql/9.6/bin', '/usr/lib/postgresql/15/bin', '/usr/lib/postgresql/16/bin'].flatMap((bin) => ['initdb', 'pg_ctl', 'postgres'].map((tool) => `${bin}/${tool}`)));
    files.delete('/usr/lib/postgresql/16/bin/initdb'); // client-only leftovers do not count
    const list = () => ['9.6', '15', '16', 'README'];
    expect(findPostgresBin(undefined, (file) => files.has(file), list)).toBe('/usr/lib/postgresql/15/bin');
    expect(findPostgresBin('/usr/lib/postgresql/9.6/bin', (file) => files.has(file), list)).toBe('/usr/lib/postgresql/9.6/bin');
    expect(findPostgresBin('/opt/none', (file) => files.has(file), list)).toBeUndefined();
    expect(findPostgresBin(undefined, () => false, () => [])).toBeUndefined();
  });

  it('runs in pretest after ensureChromium and stops npm test (exit 1) for a PG_BIN without a server', () => {
    const packageJson = JSON.parse(readFileSync(path.join(projectRoot, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    expect(packageJson.scripts.pretest).toMatch(/^tsx scripts\/ensureChromium.ts && tsx scripts\/ensurePostgres.ts( |$)/);
    const env: NodeJS.ProcessEnv = { ...process.env, PG_BIN: '/nonexistent/pg/bin' };
    delete env.PG_TEST_URL;
    const run = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/ensurePostgres.ts'], { cwd: projectRoot, encoding: 'utf8', env });
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('PG_BIN is /nonexistent/pg/bin, which has no initdb');
  });
});
