/**
 * `npm test`'s pretest step after ensureChromium: the engine tests run against a real PostgreSQL
 * that test/support/postgresServer.ts starts from the server binaries (initdb, pg_ctl) under
 * /usr/lib/postgresql/<version>/bin (or PG_BIN), unless PG_TEST_URL points at a running server.
 * When neither is there, install Debian's postgresql when this process can (root, apt-get
 * present: `apt-get update && apt-get install -y postgresql`, non-interactive); otherwise stop
 * before any test runs, with the exact command to run.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { safeUrl } from '../src/shared/redact.ts';

/** Where Debian and Ubuntu put one directory per installed server version. */
export const DEBIAN_POSTGRES_ROOT = '/usr/lib/postgresql';
/** The command that installs it on Debian and Ubuntu. */
export const INSTALL_COMMAND = 'apt-get update && apt-get install -y postgresql';

/**
 * The newest server binary directory holding initdb, pg_ctl and postgres: PG_BIN when given,
 * else /usr/lib/postgresql/<highest version>/bin; undefined when there is none.
 * @example
 * findPostgresBin(undefined); // '/usr/lib/postgresql/15/bin' on Debian 12 with postgresql installed
 */
export function findPostgresBin(customBin: string | undefined, exists: (file: string) => boolean = existsSync, list: (directory: string) => string[] = listDirectory): string | undefined {
  const complete = (bin: string) => ['initdb', 'pg_ctl', 'postgres'].every((tool) => exists(path.join(bin, tool)));
  if (customBin !== undefined) return complete(customBin) ? customBin : undefined;
  const versions = list(DEBIAN_POSTGRES_ROOT)
    .filter((name) => /^\d+(\.\d+)?$/.test(name))
    .sort((a, b) => Number(b) - Number(a));
  return versions.map((version) => path.join(DEBIAN_POSTGRES_ROOT, version, 'bin')).find(complete);
}

function listDirectory(directory: string): string[] {
  try {
    return readdirSync(directory);
  } catch {
    return [];
  }
}

/** What the decision depends on; the CLI fills it from the machine, tests with fakes. */
export interface PostgresSetup {
  /** PG_TEST_URL, when set: the tests use that server and need no binaries. */
  testUrl: string | undefined;
  /** PG_BIN, when set. */
  customBin: string | undefined;
  /** The server binary directory, looked up again after an install. */
  findBin: () => string | undefined;
  isRoot: boolean;
  hasAptGet: boolean;
  /** Runs a command with the given environment additions; returns its exit status. */
  run: (command: string, args: string[], env: Record<string, string>) => number;
  log: (line: string) => void;
}

/**
 * Makes sure the tests have a PostgreSQL server to start (or PG_TEST_URL), installing Debian's package when possible.
 * @returns ok, or the reason to stop with the command that fixes it.
 * @example
 * const outcome = provisionPostgres(machineSetup());
 * if (!outcome.ok) { console.error(outcome.message); process.exit(1); }
 */
export function provisionPostgres(setup: PostgresSetup): { ok: boolean; message: string } {
  if (setup.testUrl !== undefined) return { ok: true, message: `PostgreSQL for the tests: PG_TEST_URL (${safeUrl(setup.testUrl)})` };
  const found = setup.findBin();
  if (found !== undefined) return { ok: true, message: `PostgreSQL for the tests: ${found}` };
  if (setup.customBin !== undefined) {
    return { ok: false, message: `PG_BIN is ${setup.customBin}, which has no initdb, pg_ctl and postgres. Point it at a PostgreSQL server's bin directory, or unset it to use Debian's ${DEBIAN_POSTGRES_ROOT}/<version>/bin (${INSTALL_COMMAND}).` };
  }
  if (!setup.hasAptGet) {
    return { ok: false, message: `PostgreSQL's server binaries are not installed under ${DEBIAN_POSTGRES_ROOT} and this machine has no apt-get. Install a PostgreSQL server and run the tests with PG_BIN=/path/to/postgresql/bin npm test, or use a running server: PG_TEST_URL=postgres://USER:PASSWORD@HOST:PORT/DATABASE npm test.` };
  }
  if (!setup.isRoot) {
    return { ok: false, message: `PostgreSQL's server binaries are not installed under ${DEBIAN_POSTGRES_ROOT}; the engine tests need them. Run this once, then npm test again:\n  sudo sh -c '${INSTALL_COMMAND}'\n(or use a running server: PG_TEST_URL=postgres://USER:PASSWORD@HOST:PORT/DATABASE npm test)` };
  }
  setup.log(`PostgreSQL is not installed under ${DEBIAN_POSTGRES_ROOT}: installing Debian's postgresql (${INSTALL_COMMAND})`);
  const env = { DEBIAN_FRONTEND: 'noninteractive' };
  const installed = setup.run('apt-get', ['update'], env) === 0 && setup.run('apt-get', ['install', '-y', 'postgresql'], env) === 0;
  const bin = installed ? setup.findBin() : undefined;
  if (bin !== undefined) return { ok: true, message: `Installed PostgreSQL at ${bin}` };
  return { ok: false, message: `Installing PostgreSQL failed (see apt-get's output above). Fix that and run:\n  ${INSTALL_COMMAND}` };
}

/** The real machine. */
function machineSetup(): PostgresSetup {
  const testUrl = process.env.PG_TEST_URL?.trim();
  const customBin = process.env.PG_BIN?.trim() || undefined;
  return {
    testUrl: testUrl ? testUrl : undefined,
    customBin,
    findBin: () => findPostgresBin(customBin),
    isRoot: typeof process.getuid === 'function' && process.getuid() === 0,
    hasAptGet: spawnSync('sh', ['-c', 'command -v apt-get'], { stdio: 'ignore' }).status === 0,
    run: (command, args, env) => spawnSync(command, args, { stdio: 'inherit', env: { ...process.env, ...env } }).status ?? 1,
    log: (line) => process.stdout.write(`${line}\n`),
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const outcome = provisionPostgres(machineSetup());
  (outcome.ok ? process.stdout : process.stderr).write(`${outcome.message}\n`);
  if (!outcome.ok) process.exit(1);
}
