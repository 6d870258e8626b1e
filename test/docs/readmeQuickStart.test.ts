/**
 * The README's examples are what a newcomer types first, so they run here as written: the service
 * started with `npm start` (offline model, bundled sample, a free port), every `curl` of the README
 * run by the shell, and each output the README shows (a block marked `output` after the command)
 * compared with the real response: an answer word for word, JSON field by field.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type ServerProcess } from '../main/support/serverProcess.ts';
import { temporaryDirectory } from '../support/catalogFixture.ts';
import { fencedBlocks, readDoc, shownDifferences, type FencedBlock } from './readmeMarkdown.ts';

const run = promisify(execFile);

/** One `curl` of the README and the outputs shown right after its block. */
interface Example {
  command: string;
  line: number;
  outputs: FencedBlock[];
}

/** The README's curl commands in order, each with the output blocks that follow it. */
function examples(markdown: string): Example[] {
  const found: Example[] = [];
  for (const block of fencedBlocks(markdown)) {
    if (block.attributes.includes('output')) {
      const last = found.at(-1);
      if (!last) throw new Error(`README line ${block.line}: an output block with no command before it`);
      last.outputs.push(block);
      continue;
    }
    if (block.lang !== 'sh') continue;
    const commands = block.text
      .replace(/\\\n\s*/g, '')
      .split('\n')
      .filter((line) => /^curl\b.*localhost:3000/.test(line));
    for (const command of commands) found.push({ command, line: block.line, outputs: [] });
  }
  return found;
}

let server: ServerProcess;
beforeAll(async () => {
  // The README's examples are curl commands; say so plainly where curl is missing.
  await run('curl', ['--version']).catch(() => {
    throw new Error('the README examples run with curl: install it (apt-get install -y curl)');
  });
  // As the README says, `npm start`, on a free port so it runs beside anything else.
  server = await startServer({ APP_DB: path.join(temporaryDirectory(), 'app.db') }, 90_000, ['npm', 'start', '--silent']);
}, 120_000);
afterAll(async () => {
  if (!server) return;
  // npm forwards SIGTERM to the service and exits with it; SIGKILL to npm alone (server.kill)
  // would leave the service running after the suite, as it did on every run before.
  const servicePid = server.logs.find((entry) => typeof entry.port === 'number')?.pid as number | undefined;
  server.child.kill('SIGTERM');
  await Promise.race([server.exited, new Promise((resolve) => setTimeout(resolve, 10_000))]);
  if (servicePid !== undefined) {
    try {
      process.kill(servicePid, 'SIGKILL');
    } catch {
      // Already gone: the graceful way worked.
    }
  }
  await server.kill();
}, 30_000);

describe("the README's quick start", () => {
  const all = examples(readDoc('README.md'));

  it('shows commands with their real output', () => {
    expect(all.length).toBeGreaterThanOrEqual(5);
    expect(all.filter((example) => example.outputs.length > 0).length).toBeGreaterThanOrEqual(5);
  });

  it('answers every example as the README shows it', async () => {
    let sessionId: string | undefined;
    const differences: string[] = [];
    for (const example of all) {
      const command = example.command.replaceAll('localhost:3000', `127.0.0.1:${server.port}`).replaceAll('<session_id>', sessionId ?? '<no session yet>');
      const { stdout } = await run('bash', ['-c', command], { maxBuffer: 10 * 1024 * 1024 });
      expect(stdout.length, `README line ${example.line}: ${example.command}`).toBeGreaterThan(0);
      let body: Record<string, unknown> | undefined;
      try {
        body = JSON.parse(stdout) as Record<string, unknown>;
      } catch {
        body = undefined; // /openapi.yaml: not JSON, and the README shows none of it
      }
      if (typeof body?.session_id === 'string') sessionId = body.session_id;
      if (example.outputs.length === 0) {
        // A command shown without output must still succeed (no problem document).
        expect(String(body?.type ?? ''), `README line ${example.line}`).not.toMatch(/^\/problems\//);
      }
      for (const output of example.outputs) {
        const where = `README line ${output.line} (${example.command.slice(0, 60)}…)`;
        if (output.lang === 'json') {
          differences.push(...shownDifferences(JSON.parse(output.text), body).map((difference) => `${where}: ${difference}`));
        } else if (body?.answer !== output.text.trim()) {
          differences.push(`${where}: the answer is now\n${String(body?.answer)}`);
        }
      }
    }
    expect(differences).toEqual([]);
  }, 120_000);
});
