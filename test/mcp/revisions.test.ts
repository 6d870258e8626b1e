/**
 * The two MCP revisions /mcp serves, each driven by the SDK client that speaks it: the v2
 * client (`@modelcontextprotocol/client`) at 2026-07-28 — no handshake, no session,
 * `server/discover`, cacheable lists — and the v1 client (`@modelcontextprotocol/sdk`) at
 * 2025-11-25. Both see the same tools in the same order with the same schemas and annotations,
 * get the same results and errors, and meet the same guards (key, scope, Origin, Host, batches).
 */
import { writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { Client as CurrentClient, StreamableHTTPClientTransport as CurrentTransport } from '@modelcontextprotocol/client';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as LegacyTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { temporaryDirectory } from '../support/catalogFixture.ts';
import { listenService, type ListeningService } from '../support/listeningService.ts';
import { sampleCalls } from '../support/sampleCalls.ts';

type Json = Record<string, any>;

const KEY = 'mcp-revisions-key-5d2a9e71c4b8';
const SCOPED_KEY = 'mcp-revisions-scoped-2000-93fe0b';
const CURRENT = '2026-07-28';
/** A browser-based assistant's page, allowed by CORS_ORIGINS. */
const ASSISTANT_ORIGIN = 'https://assistant.example';
const FI_VS_BPC = sampleCalls.compare_sources![0]!;

let running: ListeningService;
const clients: { close(): Promise<void> }[] = [];

beforeAll(async () => {
  const directory = temporaryDirectory('mcp-revisions-');
  const keysFile = path.join(directory, 'keys.yaml');
  writeFileSync(keysFile, 'keys:\n  - name: plant-2000\n    key_env: MCP_SCOPED_KEY\n    scopes: { company: ["2000"] }\n');
  running = await listenService({ LOG_LEVEL: 'silent', MODEL_PROVIDER: 'offline', APP_DB: path.join(directory, 'app.db'), API_KEYS: KEY, API_KEYS_FILE: keysFile, MCP_SCOPED_KEY: SCOPED_KEY, RATE_LIMIT_PER_MINUTE: '0', CORS_ORIGINS: ASSISTANT_ORIGIN });
});

afterAll(async () => {
  await Promise.all(clients.map((client) => client.close()));
  await running.close();
});

/** A v2 client at 2026-07-28 (pinned, or `auto`: it probes with server/discover and falls back to initialize). */
async function currentClient(key = KEY, mode: 'pin' | 'auto' = 'pin'): Promise<CurrentClient> {
  const client = new CurrentClient({ name: 'mcp-revisions-test', version: '1.0.0' }, { versionNegotiation: { mode: mode === 'pin' ? { pin: CURRENT } : 'auto' } });
  await client.connect(new CurrentTransport(new URL(`${running.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${key}` } } }));
  clients.push(client);
  return client;
}

/** A v1 client: the 2025-11-25 `initialize` handshake. */
async function legacyClient(key = KEY): Promise<{ client: LegacyClient; transport: LegacyTransport }> {
  const client = new LegacyClient({ name: 'mcp-revisions-test', version: '1.0.0' });
  const transport = new LegacyTransport(new URL(`${running.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${key}` } } });
  await client.connect(transport);
  clients.push(client);
  return { client, transport };
}

/** One raw JSON-RPC POST with exactly these headers (fetch would not let a test set Host). */
function post(headers: Record<string, string>, body: unknown, target: ListeningService = running): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Json }> {
  const { port } = target.server.address() as AddressInfo;
  const text = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const request = http.request(
      { host: '127.0.0.1', port, path: '/mcp', method: 'POST', headers: { accept: 'application/json, text/event-stream', 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers } },
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

/** A 2026-07-28 request as it goes on the wire: the revision in a header and in the `_meta` envelope, the method in `Mcp-Method`; no handshake before it. */
function currentRequest(id: number, method: string, params: Json = {}, headers: Record<string, string> = {}, target: ListeningService = running) {
  const meta = { 'io.modelcontextprotocol/protocolVersion': CURRENT, 'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' }, 'io.modelcontextprotocol/clientCapabilities': {} };
  const name: Record<string, string> = typeof params.name === 'string' ? { 'mcp-name': params.name } : {};
  return post({ authorization: `Bearer ${KEY}`, 'mcp-protocol-version': CURRENT, 'mcp-method': method, ...name, ...headers }, { jsonrpc: '2.0', id, method, params: { ...params, _meta: meta } }, target);
}

describe('MCP 2026-07-28 over HTTP (the v2 SDK client)', () => {
  it('connects without a handshake or a session, at 2026-07-28, pinned or negotiated with server/discover', async () => {
    const pinned = await currentClient();
    expect([pinned.getNegotiatedProtocolVersion(), pinned.getProtocolEra()]).toEqual([CURRENT, 'modern']);
    expect(pinned.getServerVersion()?.name).toBe('analyst-agent');
    const negotiated = await currentClient(KEY, 'auto');
    expect(negotiated.getNegotiatedProtocolVersion()).toBe(CURRENT);
    expect(negotiated.getDiscoverResult()?.capabilities).toMatchObject({ tools: {}, resources: {}, prompts: {} });
    expect(negotiated.getInstructions()).toContain("Get the prompt 'analyst'");
  });

  it('answers server/discover and tools/list as first requests, with cache hints, in the registry order, and no Mcp-Session-Id', async () => {
    const discover = await currentRequest(1, 'server/discover');
    expect(discover.status).toBe(200);
    expect(discover.body.result).toMatchObject({
      supportedVersions: [CURRENT],
      capabilities: { tools: {}, resources: {}, prompts: {} },
      ttlMs: 60_000,
      cacheScope: 'private',
      _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'analyst-agent' } },
    });
    const first = await currentRequest(2, 'tools/list');
    const second = await currentRequest(3, 'tools/list');
    expect(first.status).toBe(200);
    expect(first.headers['mcp-session-id']).toBeUndefined();
    expect(first.body.result).toMatchObject({ ttlMs: 60_000, cacheScope: 'private' });
    const names = (first.body.result.tools as Json[]).map((tool) => tool.name);
    expect(names).toEqual(running.service.registry.names());
    expect((second.body.result.tools as Json[]).map((tool) => tool.name)).toEqual(names);
  });

  it('lists the same tools, schemas, titles and annotations as a 2025-11-25 client sees', async () => {
    const current = await (await currentClient()).listTools();
    const legacy = await (await legacyClient()).client.listTools();
    expect(current.tools.map(({ name, title, description, inputSchema, outputSchema, annotations }) => ({ name, title, description, inputSchema, outputSchema, annotations }))).toEqual(
      legacy.tools.map(({ name, title, description, inputSchema, outputSchema, annotations }) => ({ name, title, description, inputSchema, outputSchema, annotations })),
    );
    // The close tools write records; every other tool only reads.
    const writing = new Set(['save_check', 'run_check', 'sign_off_run', 'delete_check']);
    for (const tool of current.tools) expect(tool.annotations, tool.name).toMatchObject({ readOnlyHint: !writing.has(tool.name), destructiveHint: writing.has(tool.name), idempotentHint: !writing.has(tool.name), openWorldHint: false, title: expect.any(String) });
    expect(current.tools.find((tool) => tool.name === 'compare_sources')?.title).toBe('Compare sources');
  });

  it("calls compare_sources with the sample's figures and a bad argument with the structured error, as a 2025-11-25 client gets them", async () => {
    const current = await currentClient();
    const { client: legacy } = await legacyClient();
    const [now, before] = await Promise.all([current.callTool({ name: 'compare_sources', arguments: FI_VS_BPC }), legacy.callTool({ name: 'compare_sources', arguments: FI_VS_BPC })]);
    expect(now.isError).toBeFalsy();
    expect((now.structuredContent as Json).summary.totals).toEqual([{ currency: 'EUR', total_a: 443100, total_b: 333100, difference: 110000, difference_percent: 24.83 }]);
    expect({ ...(now.structuredContent as Json), comparison_id: 'id' }).toEqual({ ...(before.structuredContent as Json), comparison_id: 'id' });
    const args = { ...FI_VS_BPC, measure: undefined, mesure: 'amount' };
    const failed = await current.callTool({ name: 'compare_sources', arguments: args });
    expect(failed.isError).toBe(true);
    expect(JSON.parse((failed.content as { text: string }[])[0]!.text)).toEqual(JSON.parse(((await legacy.callTool({ name: 'compare_sources', arguments: args })).content as { text: string }[])[0]!.text));
  });

  it("reads the knowledge and the prompt; a scoped key's data outside its scope reads as missing", async () => {
    const client = await currentClient();
    const { resources } = await client.listResources();
    expect(resources.length).toBeGreaterThan(0);
    const read = await client.readResource({ uri: resources[0]!.uri });
    expect((read.contents[0] as { text: string }).text.length).toBeGreaterThan(0);
    await expect(client.readResource({ uri: 'analyst://knowledge/data_analyst/..%2FSKILL.md' })).rejects.toThrow(/No knowledge resource/);
    expect((await client.getPrompt({ name: 'analyst' })).messages[0]!.content).toMatchObject({ type: 'text', text: expect.stringContaining('never invent numbers') });

    const scoped = await currentClient(SCOPED_KEY);
    const rows = await scoped.callTool({ name: 'query_source', arguments: { source: 'fi_reporting', dimensions: ['company'] } });
    expect((rows.structuredContent as Json).rows.map((row: Json) => row.company)).toEqual(['2000']);
    const errorOf = async (company: string) => {
      const result = await scoped.callTool({ name: 'compare_sources', arguments: { ...FI_VS_BPC, filters: { company, period: '2024012' } } });
      expect(result.isError, company).toBe(true);
      return JSON.stringify(JSON.parse((result.content as { text: string }[])[0]!.text)).replaceAll(company, 'X');
    };
    expect(await errorOf('1000')).toBe(await errorOf('4000'));
  });

  it('a 2025-11-25 client negotiates 2025-11-25 on the same endpoint', async () => {
    const { client, transport } = await legacyClient();
    expect(transport.protocolVersion).toBe('2025-11-25');
    expect(client.getServerVersion()?.name).toBe('analyst-agent');
  });
});

describe('MCP 2026-07-28 endpoint guards', () => {
  it('refuses a request without a valid key (401), from a foreign page (Origin) or to a foreign Host (403)', async () => {
    await expect(currentClient('wrong-key-0000000000')).rejects.toThrow(/401|nauthori/);
    expect((await currentRequest(1, 'tools/list', {}, { authorization: '' })).status).toBe(401);
    const origin = await currentRequest(2, 'tools/list', {}, { origin: 'https://attacker.example' });
    expect([origin.status, origin.body.type]).toEqual([403, '/problems/forbidden-origin']);
    const host = await currentRequest(3, 'tools/list', {}, { host: 'attacker.example' });
    expect([host.status, host.body.type]).toEqual([403, '/problems/forbidden-host']);
  });

  it("lets an allowed page's browser client send the 2026-07-28 headers (CORS preflight)", async () => {
    const preflight = await fetch(`${running.url}/mcp`, {
      method: 'OPTIONS',
      headers: { origin: ASSISTANT_ORIGIN, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type, mcp-protocol-version, mcp-method, mcp-name' },
    });
    expect(preflight.headers.get('access-control-allow-origin')).toBe(ASSISTANT_ORIGIN);
    expect(preflight.headers.get('access-control-allow-headers')?.split(',')).toEqual(expect.arrayContaining(['mcp-protocol-version', 'mcp-method', 'mcp-name']));
    expect((await currentRequest(1, 'tools/list', {}, { origin: ASSISTANT_ORIGIN })).status).toBe(200);
  });

  it('refuses a batch of 2026-07-28 requests with 400 before running any of it', async () => {
    const meta = { 'io.modelcontextprotocol/protocolVersion': CURRENT, 'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' }, 'io.modelcontextprotocol/clientCapabilities': {} };
    const call = (id: number) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'compare_sources', arguments: FI_VS_BPC, _meta: meta } });
    const batch = await post({ authorization: `Bearer ${KEY}`, 'mcp-protocol-version': CURRENT, 'mcp-method': 'tools/call' }, [call(1), call(2)]);
    expect(batch.status).toBe(400);
    expect(batch.body.error).toEqual({ code: -32600, message: 'batches are not supported: send one request per HTTP request; MCP 2025-06-18 removed batching' });
  });

  it('refuses a body over 64 kB (413) and counts each request against the rate limit (429 past it)', async () => {
    const large = await currentRequest(1, 'tools/call', { name: 'query_source', arguments: { source: 'x'.repeat(70_000) } });
    expect([large.status, large.body.type]).toEqual([413, '/problems/payload-too-large']);
    const limited = await listenService({ LOG_LEVEL: 'silent', MODEL_PROVIDER: 'offline', APP_DB: path.join(temporaryDirectory('mcp-revisions-limit-'), 'app.db'), API_KEYS: KEY, RATE_LIMIT_PER_MINUTE: '2' });
    try {
      const statuses = [];
      for (let id = 1; id <= 3; id += 1) statuses.push((await currentRequest(id, 'tools/list', {}, {}, limited)).status);
      expect(statuses).toEqual([200, 200, 429]);
    } finally {
      await limited.close();
    }
  });

  it('answers a revision it does not serve with the versions it does, and headers the body contradicts with -32020', async () => {
    const meta = { 'io.modelcontextprotocol/protocolVersion': '2027-01-01', 'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' }, 'io.modelcontextprotocol/clientCapabilities': {} };
    const answer = await post({ authorization: `Bearer ${KEY}`, 'mcp-protocol-version': '2027-01-01', 'mcp-method': 'tools/list' }, { jsonrpc: '2.0', id: 9, method: 'tools/list', params: { _meta: meta } });
    expect(answer.body.error).toMatchObject({ code: -32022, data: { supported: [CURRENT] } });
    // The headers a load balancer may route on must agree with the body; the revision has no ping.
    const unnamed = await currentRequest(10, 'tools/call', { name: 'list_sources', arguments: {} }, { 'mcp-name': 'compare_sources' });
    expect([unnamed.status, unnamed.body.error?.code]).toEqual([400, -32020]);
    const ping = await currentRequest(11, 'ping');
    expect([ping.status, ping.body.error?.code]).toEqual([404, -32601]);
  });
});
