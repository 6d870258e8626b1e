/**
 * `npm test`'s pretest step for the README's quick-start test (test/docs/readmeQuickStart.test.ts),
 * which runs the README's `curl` examples as a reader would. When curl is missing, install Debian's
 * package when this process can (root, apt-get); otherwise stop before any test runs, with the
 * exact command to run.
 */
import { spawnSync } from 'node:child_process';
import { installDebianPackage, runWhenMain, thisMachine, type AptMachine, type Provisioning } from './debianPackage.ts';

/** The command that installs curl on Debian and Ubuntu. */
export const INSTALL_COMMAND = 'apt-get update && apt-get install -y curl';

/** What the decision depends on; the CLI fills it from the machine, tests with fakes. */
export interface CurlSetup extends AptMachine {
  hasCurl: () => boolean;
}

/**
 * Makes sure curl is there for the README's examples, installing Debian's package when possible.
 * @example
 * const outcome = provisionCurl({ ...thisMachine(), hasCurl });
 */
export function provisionCurl(setup: CurlSetup): Provisioning {
  if (setup.hasCurl()) return { ok: true, message: 'curl for the README examples: found' };
  if (!setup.hasAptGet) return { ok: false, message: 'curl is not installed and this machine has no apt-get; the README quick-start test runs its curl examples. Install curl with your package manager, then run npm test again.' };
  if (!setup.isRoot) return { ok: false, message: `curl is not installed; the README quick-start test runs its curl examples. Run this once, then npm test again:\n  sudo sh -c '${INSTALL_COMMAND}'` };
  setup.log(`curl is not installed: installing Debian's curl (${INSTALL_COMMAND})`);
  if (installDebianPackage(setup, 'curl') && setup.hasCurl()) return { ok: true, message: 'Installed curl' };
  return { ok: false, message: `Installing curl failed (see apt-get's output above). Fix that and run:\n  ${INSTALL_COMMAND}` };
}

const hasCurl = () => spawnSync('curl', ['--version'], { stdio: 'ignore' }).status === 0;

runWhenMain(import.meta.url, () => provisionCurl({ ...thisMachine(), hasCurl }));
