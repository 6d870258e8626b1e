/**
 * `npm run mcp` as an MCP client starts it: the SDK's StdioClientTransport spawns
 * `node --import tsx src/mcp/stdio.ts` with info-level logging on. The protocol works although
 * the service logs (every line goes to stderr, stdout carries nothing but JSON-RPC), the tools
 * answer with the sample's figures and structured errors, and the process stops cleanly when
 * the client closes stdin or sends SIGTERM. The v1 client speaks 2025-11-25 (the `initialize`
 * handshake); the v2 client (`@modelcontextprotocol/client`) 2026-07-28 (`server/discover`).
 */
import { spawn } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client as CurrentClient } from '@modelcontextprotocol/client';
import { StdioClientTransport as CurrentStdioTransport } from '@modelcontextprotocol/client/stdio';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterEach, describe, expect, it } from 'vitest';
import { temporaryDirectory } from '../support/catalogFixture.ts';
import { sampleCalls } from '../support/sampleCalls.ts';
import { until } from '../support/until.ts';

type Json = Record<string, any>;

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

interface Started {
  client: Client;
  transport: StdioClientTransport;
  /** Everything the process wrote to stderr so far. */
  stderr: () => string;
  /** Transport errors, such as a stdout line that is not JSON-RPC. */
  errors: Error[];
  closed: Promise<void>;
}

const started: Started[] = [];
afterEach(async () => {
  for (const { client } of started.splice(0)) await client.close();
});

/** The command line an MCP client is configured with: node directly, or the README's `npm run --silent mcp`. */
const COMMANDS = {
  node: { command: process.execPath, args: ['--import', 'tsx', 'src/mcp/stdio.ts'] },
  npm: { command: 'npm', args: ['run', '--silent', 'mcp'] },
};

/** Spawns the stdio server as an MCP client would and connects to it. */
async function startStdio(via: keyof typeof COMMANDS = 'node', environment: Record<string, string> = {}): Promise<Started> {
  const appDb = path.join(temporaryDirectory('mcp-stdio-'), 'app.db');
  const transport = new StdioClientTransport({
    ...COMMANDS[via],
    cwd: root,
    env: { ...getDefaultEnvironment(), APP_DB: appDb, LOG_LEVEL: 'info', LOG_FORMAT: 'json', MODEL_PROVIDER: 'offline', ...environment },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const errors: Error[] = [];
  const client = new Client({ name: 'mcp-stdio-test', version: '1.0.0' });
  client.onerror = (error) => errors.push(error);
  const closed = new Promise<void>((resolve) => (client.onclose = resolve));
  await client.connect(transport);
  const result = { client, transport, stderr: () => stderr, errors, closed };
  started.push(result);
  return result;
}

/** The JSON log lines written to stderr. */
function logLines(stderr: string): Json[] {
  return stderr.split('\n').filter((line) => line.startsWith('{')).map((line) => JSON.parse(line) as Json);
}

// Each test starts the service in a new process: seconds on a busy machine.
describe('MCP over stdio (npm run mcp)', { timeout: 60_000 }, () => {
  it("lists the tools, answers compare_sources with the sample's figures and a bad argument with a structured error; logs go to stderr", async () => {
    const { client, stderr, errors } = await startStdio();
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(Object.keys(sampleCalls)));
    for (const tool of tools) expect(tool, tool.name).toMatchObject({ description: expect.any(String), inputSchema: { type: 'object' }, outputSchema: { type: 'object' } });

    const result = await client.callTool({ name: 'compare_sources', arguments: sampleCalls.compare_sources![0]! });
    expect(result.isError).toBeFalsy();
    expect((result.structuredContent as Json).summary.totals).toEqual([{ currency: 'EUR', total_a: 443100, total_b: 333100, difference: 110000, difference_percent: 24.83 }]);

    const failed = await client.callTool({ name: 'query_source', arguments: { source: 'fi_reporting', dimension: ['period'] } });
    expect(failed.isError).toBe(true);
    const { error } = JSON.parse((failed.content as { text: string }[])[0]!.text) as Json;
    expect(error).toMatchObject({ code: 'invalid_arguments', message: expect.stringContaining("did you mean 'dimensions'?"), hint: expect.stringContaining('source (required)') });

    // The service logged at info level, all of it on stderr; stdout held only protocol messages.
    await until(() => logLines(stderr()).filter((line) => line.msg === 'tool call').length === 2, 10_000, 'two tool call log lines');
    expect(logLines(stderr()).filter((line) => line.msg === 'tool call').map(({ tool, ok, error_code }) => ({ tool, ok, error_code }))).toEqual([
      { tool: 'compare_sources', ok: true, error_code: undefined },
      { tool: 'query_source', ok: false, error_code: 'invalid_arguments' },
    ]);
    expect(logLines(stderr()).some((line) => /MCP server on stdio with \d+ tools/.test(line.msg))).toBe(true);
    expect(errors).toEqual([]);
  });

  it('answers a 2026-07-28 client (no handshake) with the same tools, annotations and results as a 2025-11-25 client', async () => {
    const appDb = path.join(temporaryDirectory('mcp-stdio-'), 'app.db');
    const current = new CurrentClient({ name: 'mcp-stdio-test', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
    const errors: Error[] = [];
    current.onerror = (error) => errors.push(error);
    await current.connect(
      new CurrentStdioTransport({ ...COMMANDS.node, cwd: root, env: { ...getDefaultEnvironment(), APP_DB: appDb, LOG_LEVEL: 'warn', MODEL_PROVIDER: 'offline' }, stderr: 'ignore' }),
    );
    started.push({ client: current } as unknown as Started);
    expect([current.getNegotiatedProtocolVersion(), current.getServerVersion()?.name]).toEqual(['2026-07-28', 'analyst-agent']);
    const { client: legacy } = await startStdio();

    const [now, before] = [await current.listTools(), await legacy.listTools()];
    expect(now.tools).toEqual(before.tools);
    expect(now.tools.find((tool) => tool.name === 'compare_sources')).toMatchObject({ title: 'Compare sources', annotations: { readOnlyHint: true, destructiveHint: false } });
    const result = await current.callTool({ name: 'compare_sources', arguments: sampleCalls.compare_sources![0]! });
    expect((result.structuredContent as Json).summary.totals).toEqual([{ currency: 'EUR', total_a: 443100, total_b: 333100, difference: 110000, difference_percent: 24.83 }]);
    expect(errors).toEqual([]);
  });

  it("serves one key's data scope when MCP_API_KEY names a scoped key", async () => {
    const directory = temporaryDirectory('mcp-stdio-keys-');
    writeFileSync(path.join(directory, 'keys.yaml'), 'keys:\n  - name: uk-assistant\n    key_env: UK_KEY\n    scopes: { company: ["3000"] }\n');
    const key = 'uk-assistant-key-0123456789';
    const { client, stderr } = await startStdio('node', { API_KEYS_FILE: path.join(directory, 'keys.yaml'), UK_KEY: key, MCP_API_KEY: key });
    const result = await client.callTool({ name: 'query_source', arguments: { source: 'fi_reporting', dimensions: ['company'] } });
    expect((result.structuredContent as Json).rows.map((row: Json) => row.company)).toEqual(['3000']);
    await until(() => logLines(stderr()).some((line) => line.msg === 'tool call'), 10_000, 'the tool call line');
    expect(logLines(stderr()).find((line) => line.msg === 'tool call')).toMatchObject({ key: 'uk-assistant', scope: 'company=3000' });
    expect(stderr()).not.toContain(key);
  });

  it('answers and logs an unknown 60,000-character tool name cut to 100 characters', async () => {
    const { client, stderr } = await startStdio();
    const name = `no_such_tool_${'x'.repeat(60_000)}`;
    const result = await client.callTool({ name, arguments: {} });
    expect(result.isError).toBe(true);
    const text = (result.content as { text: string }[])[0]!.text;
    const error = (JSON.parse(text) as Json).error;
    expect(error).toMatchObject({ code: 'unknown_tool', message: `There is no tool named '${name.slice(0, 99)}…'.` });
    expect(text.length).toBeLessThan(2_000);
    await until(() => stderr().includes('tool call refused: no such tool'), 10_000, 'the refusal to be logged');
    const refusal = stderr().split('\n').find((line) => line.includes('tool call refused: no such tool'))!;
    expect(JSON.parse(refusal)).toMatchObject({ tool: `${name.slice(0, 99)}…`, error_code: 'unknown_tool' });
    expect(Math.max(...stderr().split('\n').map((line) => line.length))).toBeLessThan(2_000);
  });

  it('stops cleanly, with status 0 and no stack trace, when the client gives up during startup (stdin closed, then SIGTERM)', async () => {
    // As an MCP client that closes at once: stdin ends immediately, a SIGTERM follows while the service still starts.
    const appDb = path.join(temporaryDirectory('mcp-stdio-'), 'app.db');
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/mcp/stdio.ts'], {
      cwd: root,
      env: { ...process.env, APP_DB: appDb, LOG_LEVEL: 'info', LOG_FORMAT: 'json', MODEL_PROVIDER: 'offline' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.stdin.end();
    // 'close': the process has exited and every holder of its stderr (query workers too) has let go.
    const closed = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    // The application database is created early in startup, before the query workers start and the MCP server is up.
    await until(() => existsSync(appDb) || child.exitCode !== null, 30_000, 'the service to begin starting');
    expect(stderr).not.toContain('MCP server on stdio');
    child.kill('SIGTERM');
    expect(await closed).toBe(0);
    expect(stderr).toContain('MCP server stopping');
    expect(stderr).not.toContain('ERR_IPC_CHANNEL_CLOSED');
    expect(stderr).not.toMatch(/\n\s+at /);
  });

  it('stops cleanly when the client closes stdin', async () => {
    const { client, closed, stderr, errors } = await startStdio();
    await client.listTools();
    await client.close();
    await closed;
    await until(() => stderr().includes('MCP server stopping: stdin closed'), 10_000, 'the stop on stdin close');
    expect(stderr()).not.toContain('closing the service failed');
    expect(errors).toEqual([]);
  });

  it('stops cleanly on SIGTERM, also started as `npm run --silent mcp` (npm passes the signal on; nothing but JSON-RPC on stdout)', async () => {
    const { client, transport, closed, stderr, errors } = await startStdio('npm');
    await client.listTools();
    process.kill(transport.pid!, 'SIGTERM');
    await closed;
    await until(() => stderr().includes('MCP server stopping: SIGTERM'), 10_000, 'the stop on SIGTERM');
    expect(stderr()).not.toContain('closing the service failed');
    expect(errors).toEqual([]);
  });
});
