/**
 * `npm test`'s pretest step after ensureChromium: the engine tests run against a real PostgreSQL
 * that test/support/postgresServer.ts starts from the server binaries (initdb, pg_ctl) under
 * /usr/lib/postgresql/<version>/bin (or PG_BIN), unless PG_TEST_URL points at a running server.
 * When neither is there, install Debian's postgresql when this process can (root, apt-get
 * present: `apt-get update && apt-get install -y postgresql`, non-interactive); otherwise stop
 * before any test runs, with the exact command to run.
 */
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { safeUrl } from '../src/shared/redact.ts';
import { installDebianPackage, runWhenMain, thisMachine, type AptMachine, type Provisioning } from './debianPackage.ts';

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
export interface PostgresSetup extends AptMachine {
  /** PG_TEST_URL, when set: the tests use that server and need no binaries. */
  testUrl: string | undefined;
  /** PG_BIN, when set. */
  customBin: string | undefined;
  /** The server binary directory, looked up again after an install. */
  findBin: () => string | undefined;
}

/**
 * Makes sure the tests have a PostgreSQL server to start (or PG_TEST_URL), installing Debian's package when possible.
 * @returns ok, or the reason to stop with the command that fixes it.
 * @example
 * const outcome = provisionPostgres(machineSetup());
 * if (!outcome.ok) { console.error(outcome.message); process.exit(1); }
 */
export function provisionPostgres(setup: PostgresSetup): Provisioning {
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
  const bin = installDebianPackage(setup, 'postgresql') ? setup.findBin() : undefined;
  if (bin !== undefined) return { ok: true, message: `Installed PostgreSQL at ${bin}` };
  return { ok: false, message: `Installing PostgreSQL failed (see apt-get's output above). Fix that and run:\n  ${INSTALL_COMMAND}` };
}

/** The real machine. */
function machineSetup(): PostgresSetup {
  const testUrl = process.env.PG_TEST_URL?.trim();
  const customBin = process.env.PG_BIN?.trim() || undefined;
  return { ...thisMachine(), testUrl: testUrl ? testUrl : undefined, customBin, findBin: () => findPostgresBin(customBin) };
}

runWhenMain(import.meta.url, () => provisionPostgres(machineSetup()));
