/**
 * What the pretest provisioning steps (ensureChromium, ensurePostgres) share: the machine as
 * they see it (root? apt-get? how to run a command), installing one Debian package
 * non-interactively, and the command-line ending (message, exit status). Each step keeps its own
 * decisions and messages.
 */
import { spawnSync } from 'node:child_process';
import { pathToFileURL } from 'node:url';

/** The machine a provisioning step acts on; the CLI fills it from this process, tests with fakes. */
export interface AptMachine {
  isRoot: boolean;
  hasAptGet: boolean;
  /** Runs a command with the given environment additions; returns its exit status. */
  run: (command: string, args: string[], env: Record<string, string>) => number;
  log: (line: string) => void;
}

/** What a provisioning step decided: ready, or the reason to stop with the command that fixes it. */
export interface Provisioning {
  ok: boolean;
  message: string;
}

/**
 * This process's machine.
 * @example
 * provisionChromium({ ...thisMachine(), customPath: undefined, exists: existsSync });
 */
export function thisMachine(): AptMachine {
  return {
    isRoot: typeof process.getuid === 'function' && process.getuid() === 0,
    hasAptGet: spawnSync('sh', ['-c', 'command -v apt-get'], { stdio: 'ignore' }).status === 0,
    run: (command, args, env) => spawnSync(command, args, { stdio: 'inherit', env: { ...process.env, ...env } }).status ?? 1,
    log: (line) => process.stdout.write(`${line}\n`),
  };
}

/**
 * `apt-get update && apt-get install -y <name>`, non-interactive; true when both succeeded.
 * @example
 * if (installDebianPackage(setup, 'chromium') && setup.exists('/usr/bin/chromium')) …
 */
export function installDebianPackage(machine: AptMachine, name: string): boolean {
  const env = { DEBIAN_FRONTEND: 'noninteractive' };
  return machine.run('apt-get', ['update'], env) === 0 && machine.run('apt-get', ['install', '-y', name], env) === 0;
}

/**
 * Runs a step when `moduleUrl` is the script node was started with: prints the message (to
 * stderr when it failed) and exits 1 on failure.
 * @example
 * runWhenMain(import.meta.url, () => provisionChromium(machineSetup()));
 */
export function runWhenMain(moduleUrl: string, step: () => Provisioning): void {
  if (moduleUrl !== pathToFileURL(process.argv[1] ?? '').href) return;
  const outcome = step();
  (outcome.ok ? process.stdout : process.stderr).write(`${outcome.message}\n`);
  if (!outcome.ok) process.exit(1);
}
