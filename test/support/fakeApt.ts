/**
 * A machine's apt-get for the provisioning tests (ensureChromium, ensurePostgres): records the
 * commands it is given and "installs" the package unless told to fail.
 */

/**
 * @example
 * const apt = fakeApt({ installed: false });
 * provisionChromium({ ..., exists: () => apt.installed(), run: apt.run });
 * apt.commands; // ['noninteractive: apt-get update', 'noninteractive: apt-get install -y chromium']
 */
export function fakeApt(options: { installed?: boolean; aptFails?: boolean }) {
  const commands: string[] = [];
  let installed = options.installed ?? false;
  return {
    commands,
    installed: () => installed,
    run: (command: string, args: string[], env: Record<string, string>) => {
      commands.push(`${env.DEBIAN_FRONTEND}: ${command} ${args.join(' ')}`);
      if (options.aptFails) return 100;
      if (args[0] === 'install') installed = true;
      return 0;
    },
  };
}
