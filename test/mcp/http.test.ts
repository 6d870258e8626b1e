/**
 * MCP over Streamable HTTP against the real service on a real socket, driven by the SDK's own
 * v1 client (revision 2025-11-25; 2026-07-28 is revisions.test.ts): the tools with the schemas GET /skills publishes, compare_sources with the sample's
 * figures (the same result as POST /tools), structured errors, the knowledge as resources, the
 * instructions as a prompt; and the guards every API route has: 401 without a key, 403 for a
 * foreign Origin or Host, 405 for GET/DELETE (stateless endpoint), 400 for a JSON-RPC batch.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { Writable } from 'node:stream';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.ts';
import { createService, type Service } from '../../src/service.ts';
import { temporaryDirectory } from '../support/catalogFixture.ts';
import { sampleCalls } from '../support/sampleCalls.ts';

type Json = Record<string, any>;

const KEY = 'mcp-key-7c1e5a9d3b2f4e60';
/** A key of the keys file that may see company 2000 only. */
const SCOPED_KEY = 'mcp-scoped-2000-b81d64fa0c3e';
const FI_VS_BPC = sampleCalls.compare_sources![0]!;

/** Every log line the service writes. */
class LogCapture extends Writable {
  readonly lines: string[] = [];
  override _write(chunk: Buffer, _encoding: BufferEncoding, done: () => void): void {
    this.lines.push(chunk.toString('utf8'));
    done();
  }
  records(): Json[] {
    return this.lines.join('').split('\n').filter(Boolean).map((line) => JSON.parse(line) as Json);
  }
}

let service: Service;
let server: Server;
let base: string;
const logs = new LogCapture();
const clients: Client[] = [];

beforeAll(async () => {
  const directory = temporaryDirectory('mcp-http-');
  const keysFile = path.join(directory, 'keys.yaml');
  writeFileSync(keysFile, 'keys:\n  - name: plant-2000\n    key_env: MCP_SCOPED_KEY\n    scopes: { company: ["2000"] }\n');
  const env = { LOG_LEVEL: 'info', MODEL_PROVIDER: 'offline', APP_DB: path.join(directory, 'app.db'), API_KEYS: KEY, API_KEYS_FILE: keysFile, MCP_SCOPED_KEY: SCOPED_KEY, RATE_LIMIT_PER_MINUTE: '0' };
  service = await createService(loadConfig(env as NodeJS.ProcessEnv), pino({ level: 'info' }, logs));
  server = await new Promise<Server>((resolve) => {
    const started = service.app.listen(0, '127.0.0.1', () => resolve(started));
  });
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await Promise.all(clients.map((client) => client.close()));
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await service.close();
});

/** An SDK client connected to /mcp, sending `key` as a bearer token (none: null). */
async function connect(key: string | null = KEY): Promise<Client> {
  const client = new Client({ name: 'mcp-http-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${base}/mcp`), key ? { requestInit: { headers: { authorization: `Bearer ${key}` } } } : {});
  await client.connect(transport);
  clients.push(client);
  return client;
}

/** A request with exactly these headers (fetch would not let a test set Host). */
function rawRequest(method: string, headers: Record<string, string>, body?: unknown): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Json }> {
  const { port } = server.address() as AddressInfo;
  const text = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const request = http.request(
      { host: '127.0.0.1', port, path: '/mcp', method, headers: { ...headers, ...(text ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) } : {}) } },
      (response) => {
        let received = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (received += chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: received ? (JSON.parse(received) as Json) : {} }));
      },
    );
    request.on('error', reject);
    request.end(text);
  });
}

/** POST /tools/{name} with a key: what a dashboard gets for the same call. */
async function postTool(name: string, args: unknown, key = KEY): Promise<Json> {
  const response = await fetch(`${base}/tools/${name}`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(args) });
  return (await response.json()) as Json;
}

const INITIALIZE = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } };
const MCP_ACCEPT = 'application/json, text/event-stream';

describe('MCP over Streamable HTTP', () => {
  it('lists every tool of the registry with its description and the schemas GET /skills publishes', async () => {
    const client = await connect();
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(service.registry.names());
    const skills = (await (await fetch(`${base}/skills`, { headers: { authorization: `Bearer ${KEY}` } })).json()) as Json;
    const published = new Map<string, Json>(skills.skills.flatMap((skill: Json) => skill.tools.map((tool: Json) => [tool.name, tool])));
    for (const tool of tools) {
      const registered = service.registry.get(tool.name)!;
      expect(tool.description, tool.name).toBe(registered.tool.description);
      expect(tool.inputSchema, tool.name).toEqual(registered.inputSchema);
      expect(tool.outputSchema, tool.name).toEqual(registered.outputSchema);
      // Skills' tools are on GET /skills with the very same schemas (the built-in load_skill is not).
      const listed = published.get(tool.name);
      if (listed) expect([tool.inputSchema, tool.outputSchema], tool.name).toEqual([listed.input_schema, listed.output_schema]);
    }
    expect(published.size).toBe(tools.length - service.registry.list().filter((tool) => tool.builtin).length);
  });

  it('marks every tool that only reads read-only, non-destructive and idempotent, the close tools that write not, each with a title a tool picker can show', async () => {
    const client = await connect();
    const { tools } = await client.listTools();
    const writing = ['save_check', 'run_check', 'sign_off_run', 'delete_check'];
    for (const tool of tools.filter((listed) => !writing.includes(listed.name))) expect(tool.annotations, tool.name).toMatchObject({ readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false });
    for (const name of writing) expect(tools.find((tool) => tool.name === name)?.annotations, name).toMatchObject({ readOnlyHint: false, destructiveHint: true, idempotentHint: false });
    const compare = tools.find((tool) => tool.name === 'compare_sources')!;
    expect([compare.title, compare.annotations?.title]).toEqual(['Compare sources', 'Compare sources']);
  });

  it("calls compare_sources and gets the sample's figures, the result POST /tools gives, and a one-line summary", async () => {
    const client = await connect();
    const result = await client.callTool({ name: 'compare_sources', arguments: FI_VS_BPC });
    expect(result.isError).toBeFalsy();
    const structured = result.structuredContent as Json;
    expect(structured.summary.totals).toEqual([{ currency: 'EUR', total_a: 443100, total_b: 333100, difference: 110000, difference_percent: 24.83 }]);
    const direct = await postTool('compare_sources', FI_VS_BPC);
    expect(direct.ok).toBe(true);
    expect({ ...structured, comparison_id: 'id' }).toEqual({ ...direct.result, comparison_id: 'id' });
    const [json, summary] = result.content as { type: string; text: string }[];
    expect(JSON.parse(json!.text)).toEqual(structured);
    expect(summary!.text).toMatch(/^compare_sources\b/);
    expect(summary!.text.split('\n')).toHaveLength(1);
    // One log line per call, as POST /tools writes; the key never appears in a log.
    const line = logs.records().find((record) => record.msg === 'tool call' && record.transport === 'mcp' && record.tool === 'compare_sources');
    expect(line).toMatchObject({ ok: true, duration_ms: expect.any(Number) });
    expect(logs.lines.join('')).not.toContain(KEY);
  });

  it("every tool's results on the sample data pass the client's check against the output schema it lists", async () => {
    const client = await connect();
    await client.listTools(); // the client checks structured results against the listed output schemas
    let comparisonId = '';
    for (const registered of service.registry.list()) {
      const name = registered.tool.name;
      const calls = sampleCalls[name] ?? registered.tool.examples ?? [];
      expect(calls.length, name).toBeGreaterThan(0);
      for (const args of calls) {
        const filled = JSON.parse(JSON.stringify(args).replace('{comparison_id}', comparisonId)) as Json;
        const result = await client.callTool({ name, arguments: filled });
        // A key of API_KEYS has no permissions (those are granted in the keys file): it may not sign off.
        if (name === 'sign_off_run') {
          expect(result.isError).toBe(true);
          expect(JSON.stringify(result.content)).toContain('forbidden');
          continue;
        }
        expect(result.isError ? result.content : [], `${name} ${JSON.stringify(filled)}`).toEqual([]);
        expect(result.structuredContent, name).toBeDefined();
        if (name === 'compare_sources' && !comparisonId) comparisonId = (result.structuredContent as Json).comparison_id as string;
      }
    }
  });

  it('answers a bad argument with the structured error POST /tools gives, as an error result', async () => {
    const client = await connect();
    await client.listTools();
    const args = { ...FI_VS_BPC, measure: undefined, mesure: 'amount' };
    const result = await client.callTool({ name: 'compare_sources', arguments: args });
    expect(result.isError).toBe(true);
    const payload = JSON.parse((result.content as { text: string }[])[0]!.text) as Json;
    expect(payload.error).toMatchObject({ code: 'invalid_arguments', hint: expect.stringContaining('measure') });
    expect(payload.error.message).toContain("did you mean 'measure'?");
    expect(payload.error).toEqual((await postTool('compare_sources', args)).error);

    const unknown = await client.callTool({ name: 'compare_source', arguments: {} });
    expect(unknown.isError).toBe(true);
    expect(JSON.parse((unknown.content as { text: string }[])[0]!.text).error).toMatchObject({ code: 'unknown_tool', closest: 'compare_sources' });
  });

  it("offers the skills' knowledge files as resources, read as they are on disk", async () => {
    const client = await connect();
    const { resources } = await client.listResources();
    const skillsWithKnowledge = service.registry.skills.filter((skill) => resources.some((resource) => resource.uri.startsWith(`analyst://knowledge/${skill.name}/`)));
    expect(skillsWithKnowledge.map((skill) => skill.name)).toContain('data_analyst');
    for (const resource of resources) expect(resource).toMatchObject({ uri: expect.stringMatching(/^analyst:\/\/knowledge\/[a-z0-9_]+\/[^/]+\.md$/), mimeType: 'text/markdown', title: expect.any(String) });
    const first = resources.find((resource) => resource.uri.startsWith('analyst://knowledge/data_analyst/'))!;
    const [skill, file] = first.uri.replace('analyst://knowledge/', '').split('/');
    const directory = service.registry.skill(skill!)!.directory;
    const { contents } = await client.readResource({ uri: first.uri });
    expect(contents).toEqual([{ uri: first.uri, mimeType: 'text/markdown', text: readFileSync(path.join(directory, 'knowledge', decodeURIComponent(file!)), 'utf8') }]);
    // Only listed files are served: no path reaches the skill's other files.
    await expect(client.readResource({ uri: 'analyst://knowledge/data_analyst/..%2FSKILL.md' })).rejects.toThrow(/No knowledge resource/);
  });

  it("offers the skills' instructions as the prompt 'analyst', with an optional question", async () => {
    const client = await connect();
    const { prompts } = await client.listPrompts();
    expect(prompts.map((prompt) => prompt.name)).toEqual(['analyst']);
    const prompt = await client.getPrompt({ name: 'analyst', arguments: { question: 'Why does FI differ from BPC for company 1000 in December 2024?' } });
    const [instructions, question] = prompt.messages;
    const text = (instructions!.content as { text: string }).text;
    expect(text).toContain('never invent numbers');
    for (const skill of service.registry.skills) expect(text, skill.name).toContain(skill.instructions.trim().slice(0, 200));
    expect(question).toEqual({ role: 'user', content: { type: 'text', text: 'Why does FI differ from BPC for company 1000 in December 2024?' } });
  });
});

describe("a scoped key's MCP view", () => {
  /** Every knowledge file and the prompt, as `client` gets them. */
  async function textsOf(client: Client): Promise<string[]> {
    const { resources } = await client.listResources();
    const files = await Promise.all(resources.map(async (resource) => ((await client.readResource({ uri: resource.uri })).contents[0] as { text: string }).text));
    const prompt = await client.getPrompt({ name: 'analyst' });
    return [...files, ...prompt.messages.map((message) => (message.content as { text: string }).text)];
  }
  const namesCompany1000 = (text: string) => /(?<![\p{L}\p{N}_])1000(?![\p{L}\p{N}_])/u.test(text);

  it('answers data outside the scope like data that does not exist, as POST /tools does for the key', async () => {
    const client = await connect(SCOPED_KEY);
    const inScope = await client.callTool({ name: 'query_source', arguments: { source: 'fi_reporting', filters: { company: '2000' } } });
    expect(inScope.isError).toBeFalsy();
    const errorOf = async (company: string) => {
      const args = { ...FI_VS_BPC, filters: { company, period: '2024012' } };
      const result = await client.callTool({ name: 'compare_sources', arguments: args });
      expect(result.isError, company).toBe(true);
      const { error } = JSON.parse((result.content as { text: string }[])[0]!.text) as Json;
      expect(error, company).toEqual((await postTool('compare_sources', args, SCOPED_KEY)).error);
      return error as Json;
    };
    const hidden = await errorOf('1000');
    // 4000 is in no source, and as close to the scope's 2000 as 1000 is (the same suggestion).
    const missing = await errorOf('4000');
    expect(JSON.stringify(hidden).replaceAll('1000', 'X')).toBe(JSON.stringify(missing).replaceAll('4000', 'X'));
  });

  it('never shows knowledge or instructions naming a company outside the scope', async () => {
    const unscoped = await textsOf(await connect());
    expect(unscoped.some(namesCompany1000)).toBe(true);
    const scoped = await textsOf(await connect(SCOPED_KEY));
    expect(scoped.filter(namesCompany1000)).toEqual([]);
    expect(scoped.length).toBe(unscoped.length);
  });
});

describe('MCP endpoint guards', () => {
  it('refuses a client without a valid key (401), like every API route', async () => {
    await expect(connect(null)).rejects.toThrow(/401/);
    await expect(connect('wrong-key-0000000000')).rejects.toThrow(/401/);
    const response = await rawRequest('POST', { accept: MCP_ACCEPT }, INITIALIZE);
    expect(response.status).toBe(401);
    expect(response.headers['www-authenticate']).toMatch(/^Bearer/);
    expect(response.body.type).toBe('/problems/unauthorized');
    expect((await rawRequest('GET', { accept: 'text/event-stream' })).status).toBe(401);
  });

  it('refuses a call from a foreign page (Origin) and a request addressed to a foreign Host (DNS rebinding)', async () => {
    const authorization = `Bearer ${KEY}`;
    for (const method of ['POST', 'GET', 'DELETE']) {
      const foreignOrigin = await rawRequest(method, { authorization, accept: MCP_ACCEPT, origin: 'https://attacker.example' }, method === 'POST' ? INITIALIZE : undefined);
      expect([method, foreignOrigin.status, foreignOrigin.body.type]).toEqual([method, 403, '/problems/forbidden-origin']);
      const foreignHost = await rawRequest(method, { authorization, accept: MCP_ACCEPT, host: 'attacker.example' }, method === 'POST' ? INITIALIZE : undefined);
      expect([method, foreignHost.status, foreignHost.body.type]).toEqual([method, 403, '/problems/forbidden-host']);
    }
    // The same request from the service's own name is answered.
    const allowed = await rawRequest('POST', { authorization, accept: MCP_ACCEPT }, INITIALIZE);
    expect(allowed.status).toBe(200);
    expect(allowed.body.result.serverInfo.name).toBe('analyst-agent');
  });

  it('refuses a JSON-RPC batch with 400 before running any of it; one request per POST is answered', async () => {
    const authorization = `Bearer ${KEY}`;
    const call = (id: number) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'compare_sources', arguments: FI_VS_BPC } });
    const toolCalls = () => logs.records().filter((record) => record.msg === 'tool call').length;
    const before = toolCalls();
    const batch = await rawRequest('POST', { authorization, accept: MCP_ACCEPT }, Array.from({ length: 100 }, (_unused, index) => call(index + 1)));
    expect(batch.status).toBe(400);
    expect(batch.body).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32600, message: 'batches are not supported: send one request per HTTP request; MCP 2025-06-18 removed batching' },
    });
    // A batch of one is a batch too.
    expect((await rawRequest('POST', { authorization, accept: MCP_ACCEPT }, [INITIALIZE])).status).toBe(400);
    expect(toolCalls()).toBe(before);
    // The same call alone, in its own POST, runs.
    const single = await rawRequest('POST', { authorization, accept: MCP_ACCEPT }, call(7));
    expect(single.status).toBe(200);
    expect(single.body).toMatchObject({ jsonrpc: '2.0', id: 7, result: { structuredContent: { summary: { totals: [{ currency: 'EUR', difference: 110000 }] } } } });
    expect(single.body.result.isError).toBeFalsy();
    expect(toolCalls()).toBe(before + 1);
  });

  it('answers GET and DELETE with 405: the endpoint is stateless (no stream to open, no session to end)', async () => {
    for (const method of ['GET', 'DELETE']) {
      const response = await rawRequest(method, { authorization: `Bearer ${KEY}`, accept: MCP_ACCEPT });
      expect([method, response.status, response.headers.allow]).toEqual([method, 405, 'POST']);
      expect(response.body.error.code).toBe(-32000);
    }
  });
});
