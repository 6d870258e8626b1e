/**
 * `npm test`'s pretest step: the browser tests (test/web/*.browser.test.ts) drive Debian's
 * Chromium at /usr/bin/chromium (or CHROMIUM_PATH). When it is missing, install it when this
 * process can (root, apt-get present: `apt-get update && apt-get install -y chromium`,
 * non-interactive); otherwise stop before any test runs, with the exact command to run.
 */
import { existsSync } from 'node:fs';
import { installDebianPackage, runWhenMain, thisMachine, type AptMachine, type Provisioning } from './debianPackage.ts';

/** Where the browser tests look for Chromium when CHROMIUM_PATH is not set (test/web/support/browser.ts). */
export const DEFAULT_CHROMIUM_PATH = '/usr/bin/chromium';
/** The command that installs it on Debian and Ubuntu. */
export const INSTALL_COMMAND = 'apt-get update && apt-get install -y chromium';

/** What the decision depends on; the CLI fills it from the machine, tests with fakes. */
export interface ChromiumSetup extends AptMachine {
  /** CHROMIUM_PATH, when set. */
  customPath: string | undefined;
  exists: (file: string) => boolean;
}

/**
 * Makes sure Chromium is there for the browser tests, installing Debian's package when possible.
 * @returns ok, or the reason to stop with the command that fixes it.
 * @example
 * const outcome = provisionChromium(machineSetup());
 * if (!outcome.ok) { console.error(outcome.message); process.exit(1); }
 */
export function provisionChromium(setup: ChromiumSetup): Provisioning {
  const target = setup.customPath ?? DEFAULT_CHROMIUM_PATH;
  if (setup.exists(target)) return { ok: true, message: `Chromium for the browser tests: ${target}` };
  if (setup.customPath !== undefined) {
    return { ok: false, message: `CHROMIUM_PATH is ${setup.customPath}, which does not exist. Point it at a Chromium binary, or unset it to use Debian's ${DEFAULT_CHROMIUM_PATH} (${INSTALL_COMMAND}).` };
  }
  if (!setup.hasAptGet) {
    return { ok: false, message: `Chromium is not installed at ${DEFAULT_CHROMIUM_PATH} and this machine has no apt-get. Install Chromium with your package manager and run the tests with CHROMIUM_PATH=/path/to/chromium npm test.` };
  }
  if (!setup.isRoot) {
    return { ok: false, message: `Chromium is not installed at ${DEFAULT_CHROMIUM_PATH}; the browser tests need it. Run this once, then npm test again:\n  sudo sh -c '${INSTALL_COMMAND}'` };
  }
  setup.log(`Chromium is not installed at ${DEFAULT_CHROMIUM_PATH}: installing Debian's chromium (${INSTALL_COMMAND})`);
  if (installDebianPackage(setup, 'chromium') && setup.exists(DEFAULT_CHROMIUM_PATH)) return { ok: true, message: `Installed Chromium at ${DEFAULT_CHROMIUM_PATH}` };
  return { ok: false, message: `Installing Chromium failed (see apt-get's output above). Fix that and run:\n  ${INSTALL_COMMAND}` };
}

/** The real machine. */
function machineSetup(): ChromiumSetup {
  const custom = process.env.CHROMIUM_PATH?.trim();
  return { ...thisMachine(), customPath: custom ? custom : undefined, exists: existsSync };
}

runWhenMain(import.meta.url, () => provisionChromium(machineSetup()));
