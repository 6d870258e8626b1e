/**
 * `npm run checks:load`: checks kept in a YAML file are saved through a running service as the
 * key given, each line of output naming the check and its first run, or what was refused and
 * where; a name already saved is refused unless --replace.
 */
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig, projectRoot } from '../../src/config/config.ts';
import { silentLogger } from '../../src/logging/logger.ts';
import { createService, type Service } from '../../src/service.ts';
import { temporaryDirectory } from '../support/catalogFixture.ts';

let service: Service;
let server: ReturnType<Service['app']['listen']>;
let url = '';
const directory = temporaryDirectory('checks-load-');
const KEY = 'controller-key-0123456789';

beforeAll(async () => {
  writeFileSync(path.join(directory, 'keys.yaml'), 'keys:\n  - name: controller\n    key_env: CONTROLLER_KEY\n    permissions: [sign_off]\n');
  service = await createService(loadConfig({ APP_DB: path.join(directory, 'app.db'), API_KEYS_FILE: path.join(directory, 'keys.yaml'), CONTROLLER_KEY: KEY, LOG_LEVEL: 'silent', MODEL_PROVIDER: 'offline' } as NodeJS.ProcessEnv), silentLogger());
  server = service.app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await service.close();
});

function checksLoad(args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'skills/month_end_close/loadChecks.ts', ...args], { cwd: projectRoot, env: { ...process.env, CONTROLLER_KEY: KEY } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('exit', (status) => resolve({ status, stdout, stderr }));
  });
}

describe('npm run checks:load', () => {
  it('saves the checks of a YAML file as the key, names the line of one refused, and replaces on --replace', async () => {
    const file = path.join(directory, 'checks.yaml');
    writeFileSync(
      file,
      `checks:
  - name: FI vs BPC 1000
    comparison: { source_a: fi_reporting, source_b: bpc_reporting, measure: amount, filters: { company: "1000" } }
    period: { kind: fixed, period: "2024-12" }
    schedule: { kind: monthly_working_day, day: 3 }
  - name: FI vs BPC 3000
    comparison: { source_a: fi_reporting, source_b: bpc_reporting, measure: amount, filters: { company: "3000" } }
    period: { kind: fixed, period: "2024-12" }
  - name: Typo
    comparison: { source_a: fi_reporting, source_b: bpc_reporting, measure: amount }
    schedule: { kind: monthly, day: 3 }
`,
    );
    const first = await checksLoad(['--file', file, '--url', url, '--key-env', 'CONTROLLER_KEY']);
    expect(first.status).toBe(1);
    expect(first.stdout.trim().split('\n')).toEqual([
      `${file}:2: FI vs BPC 1000: saved; first run break; monthly on the 3rd working day at 06:00 (UTC)`,
      `${file}:6: FI vs BPC 3000: saved; first run tie`,
      expect.stringMatching(new RegExp(`^${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:9: Typo: invalid_arguments: .*kind must be 'monthly_working_day', 'daily' or 'cron'; got "monthly"$`)),
    ]);
    const listed = await fetch(`${url}/tools/list_checks`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${KEY}` }, body: '{}' });
    expect(((await listed.json()) as { result: { checks: { check: string; owner: string }[] } }).result.checks.map(({ check, owner }) => [check, owner])).toEqual([
      ['FI vs BPC 1000', 'controller'],
      ['FI vs BPC 3000', 'controller'],
    ]);

    const again = await checksLoad(['--file', file, '--url', url, '--key-env', 'CONTROLLER_KEY']);
    expect(again.stdout).toContain(':2: FI vs BPC 1000: invalid_value: A check called \'FI vs BPC 1000\' exists already.');
    const replaced = await checksLoad(['--file', file, '--url', url, '--key-env', 'CONTROLLER_KEY', '--replace']);
    expect(replaced.stdout).toContain(':2: FI vs BPC 1000: saved; first run break');
  }, 60_000);

  it('stops with the usage (exit 2) without --file, and names the line of a file that is not YAML', async () => {
    expect(await checksLoad([])).toMatchObject({ status: 2, stderr: expect.stringContaining('usage: npm run checks:load') });
    const broken = path.join(directory, 'broken.yaml');
    writeFileSync(broken, 'checks:\n  - name: [unclosed\n');
    expect(await checksLoad(['--file', broken, '--url', url])).toMatchObject({ status: 1, stderr: expect.stringMatching(/broken\.yaml:\d: not valid YAML/) });
  }, 60_000);
});
