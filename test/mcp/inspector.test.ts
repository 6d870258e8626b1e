/**
 * The MCP Inspector's command-line mode against both transports, as a developer runs it to
 * check a server by hand. The Inspector package itself (`@modelcontextprotocol/inspector`)
 * declares Node >= 22.7.5 in every version that has a CLI (its web UI needs it); its CLI part,
 * `@modelcontextprotocol/inspector-cli` 1.0.3, declares no engine, runs on Node 20 offline and
 * speaks 2025-11-25 (SDK v1). The 2026-07-28 revision is covered by the v2 SDK client
 * (revisions.test.ts, stdio.test.ts); no Inspector that speaks it runs on Node 20.
 */
import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { temporaryDirectory } from '../support/catalogFixture.ts';
import { listenService, type ListeningService } from '../support/listeningService.ts';

type Json = Record<string, any>;

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const KEY = 'mcp-inspector-key-4f0c2e8a71d9';
/** The CLI's command, `mcp-inspector-cli` (`build/cli.js` beside its package.json). */
const inspector = path.join(path.dirname(createRequire(import.meta.url).resolve('@modelcontextprotocol/inspector-cli/package.json')), 'build/cli.js');

let running: ListeningService;
beforeAll(async () => {
  running = await listenService({ LOG_LEVEL: 'silent', MODEL_PROVIDER: 'offline', APP_DB: path.join(temporaryDirectory('mcp-inspector-'), 'app.db'), API_KEYS: KEY, RATE_LIMIT_PER_MINUTE: '0' });
});
afterAll(() => running.close());

/**
 * Runs the Inspector CLI and parses the JSON it prints. Its working directory is `src/`: the
 * CLI 1.0.3 looks for its own package.json at `../package.json` relative to the working
 * directory, and fails unless a file is there.
 */
async function inspect(args: string[], environment: Record<string, string> = {}): Promise<Json> {
  const { stdout } = await promisify(execFile)(process.execPath, [inspector, '--cli', ...args], {
    cwd: path.join(root, 'src'),
    env: { ...process.env, ...environment },
    timeout: 90_000,
    maxBuffer: 8 * 1024 * 1024,
  });
  return JSON.parse(stdout) as Json;
}

describe('the MCP Inspector CLI', { timeout: 120_000 }, () => {
  it('lists the tools with their annotations and calls one over HTTP with a key', async () => {
    const headers = ['--header', `Authorization: Bearer ${KEY}`];
    const { tools } = await inspect([`${running.url}/mcp`, '--transport', 'http', ...headers, '--method', 'tools/list']);
    expect(tools.map((tool: Json) => tool.name)).toEqual(running.service.registry.names());
    expect(tools.find((tool: Json) => tool.name === 'compare_sources')).toMatchObject({ title: 'Compare sources', annotations: { readOnlyHint: true } });
    const result = await inspect([`${running.url}/mcp`, '--transport', 'http', ...headers, '--method', 'tools/call', '--tool-name', 'query_source', '--tool-arg', 'source=fi_reporting', 'dimensions=["company"]']);
    expect(result.structuredContent.rows.map((row: Json) => row.company)).toEqual(['1000', '2000', '3000']);
  });

  it('lists the tools and reads the prompt over stdio (npm run mcp)', async () => {
    const environment = { MODEL_PROVIDER: 'offline', LOG_LEVEL: 'warn', APP_DB: path.join(temporaryDirectory('mcp-inspector-stdio-'), 'app.db') };
    const { tools } = await inspect(['npm', 'run', '--silent', 'mcp', '--method', 'tools/list'], environment);
    expect(tools.map((tool: Json) => tool.name)).toEqual(running.service.registry.names());
    const prompt = await inspect(['npm', 'run', '--silent', 'mcp', '--method', 'prompts/get', '--prompt-name', 'analyst'], environment);
    expect(prompt.messages[0].content.text).toContain('never invent numbers');
  });
});
