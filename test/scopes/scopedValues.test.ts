/**
 * Values of a scoped key's unscoped dimensions, over real requests (POST /tools, /chat with the
 * offline model, MCP over HTTP) with a keys file: a key limited to company 1000 is shown only
 * the currencies, profit centres and documents its own rows hold; a value that exists only in
 * hidden rows (USD) is answered exactly like one that exists nowhere (CHF); a question naming a
 * hidden company beside its own is not answered as if it covered both; and a name is hinted
 * only when it is really close, never because it is the one name the key can see.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import supertest from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.ts';
import { silentLogger } from '../../src/logging/logger.ts';
import { createService, type Service } from '../../src/service.ts';

const GERMANY_KEY = 'germany-values-key-0123';
const OPEN_KEY = 'open-values-key-0123456';

const directory = mkdtempSync(path.join(tmpdir(), 'scoped-values-'));
let service: Service;
let server: Server;
let api: ReturnType<typeof supertest>;
let mcp: Client;

beforeAll(async () => {
  writeFileSync(path.join(directory, 'keys.yaml'), 'keys:\n  - name: germany\n    key_env: GERMANY_VALUES_KEY\n    scopes: { company: ["1000"] }\n');
  const environment = { LOG_LEVEL: 'silent', MODEL_PROVIDER: 'offline', RATE_LIMIT_PER_MINUTE: '0', APP_DB: path.join(directory, 'app.db'), API_KEYS: OPEN_KEY, API_KEYS_FILE: path.join(directory, 'keys.yaml'), GERMANY_VALUES_KEY: GERMANY_KEY };
  service = await createService(loadConfig(environment as NodeJS.ProcessEnv), silentLogger());
  api = supertest(service.app);
  server = await new Promise<Server>((resolve) => {
    const started = service.app.listen(0, '127.0.0.1', () => resolve(started));
  });
  mcp = new Client({ name: 'scoped-values-test', version: '1.0.0' });
  const url = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`);
  await mcp.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers: { authorization: `Bearer ${GERMANY_KEY}` } } }));
});
afterAll(async () => {
  await mcp?.close();
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  await service?.close();
  rmSync(directory, { recursive: true, force: true });
});

const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
const tool = (key: string, name: string, args: Record<string, unknown>) => api.post(`/tools/${name}`).set(bearer(key)).send(args);
const chat = async (key: string, message: string) => (await api.post('/chat').set(bearer(key)).send({ message }).expect(200)).body.answer as string;
const mcpError = async (args: Record<string, unknown>) => {
  const result = await mcp.callTool({ name: 'query_source', arguments: args });
  expect(result.isError).toBe(true);
  return (JSON.parse((result.content as { text: string }[])[0]!.text) as { error: unknown }).error;
};

interface ListedDimension {
  name: string;
  description: string;
  examples?: unknown[];
  value_names?: Record<string, string>;
}
/** The dimensions of every source, as list_sources shows them to `key`. */
async function listedDimensions(key: string): Promise<string> {
  const { body } = await tool(key, 'list_sources', {}).expect(200);
  return JSON.stringify(body.result.sources.flatMap((source: { dimensions: ListedDimension[] }) => source.dimensions));
}

describe('values of dimensions the scope does not filter', () => {
  it('lists only the currencies, profit centres and documents of the key\'s rows, on /tools and MCP', async () => {
    // The open key sees every listed value: the catalog names them all.
    const open = await listedDimensions(OPEN_KEY);
    for (const value of ['PC2010', 'PC3020', 'USD', 'GBP', '0200000001', 'dollar']) expect(open).toContain(value);
    const scoped = await listedDimensions(GERMANY_KEY);
    for (const value of ['PC2010', 'PC3020', 'USD', 'GBP', '0200000001', 'dollar', 'pound']) expect(scoped).not.toContain(value);
    // What its rows hold is still there, with its business name, and the description names it.
    expect(scoped).toContain('PC1010');
    expect(scoped).toContain('0100000001');
    const currency = (JSON.parse(scoped) as ListedDimension[]).find((dimension) => dimension.name === 'currency')!;
    expect(currency).toMatchObject({ examples: ['EUR'], value_names: { EUR: 'euro' } });
    expect(currency.description).toContain('(EUR)');
    const overMcp = await mcp.callTool({ name: 'list_sources', arguments: {} });
    expect(JSON.stringify(overMcp.content)).not.toMatch(/PC2010|PC3020|USD|GBP|0200000001/);
  });

  it('answers a value of hidden rows exactly like a value that exists nowhere, on /tools and MCP', async () => {
    const asked = async (currency: string) => {
      const response = await tool(GERMANY_KEY, 'query_source', { source: 'fi_reporting', filters: { currency } });
      expect(await mcpError({ source: 'fi_reporting', filters: { currency } })).toEqual(response.body.error);
      return { status: response.status, error: JSON.stringify(response.body.error).replaceAll(currency, '<value>') };
    };
    const hidden = await asked('USD');
    expect(hidden.status).toBe(422);
    expect(hidden).toEqual(await asked('CHF'));
    // A business name of a hidden value points nowhere either: "dollar" reads like "franc".
    const named = await asked('dollar');
    expect(named.error).not.toContain('USD');
    expect(named).toEqual(await asked('franc'));
    // The open key is told the code of a business name (the hint names it, so this test can fail).
    const open = await tool(OPEN_KEY, 'query_source', { source: 'fi_reporting', filters: { currency: 'dollar' } });
    expect(open.body.error.hint).toContain("currency 'USD'");
  });

  it('answers a hidden currency in /chat like one that exists nowhere', async () => {
    for (const [hidden, missing] of [
      ['Total amount in fi_reporting in USD in December 2024', 'Total amount in fi_reporting in CHF in December 2024'],
      ['Total amount in fi_reporting for currency USD in December 2024', 'Total amount in fi_reporting for currency CHF in December 2024'],
      ['Total amount in fi_reporting in dollars in December 2024', 'Total amount in fi_reporting in francs in December 2024'],
    ] as const) {
      const [a, b] = [await chat(GERMANY_KEY, hidden), await chat(GERMANY_KEY, missing)];
      expect(a.replace(/USD|dollars/g, '<value>')).toBe(b.replace(/CHF|francs/g, '<value>'));
    }
    // The open key is answered in dollars: the question is one the model understands.
    expect(await chat(OPEN_KEY, 'Total amount in fi_reporting in dollars in December 2024')).toMatch(/USD/);
  });
});

describe('the offline model for a scoped key', () => {
  it('does not answer "company 1000 or company 2000" as if it covered 2000: it asks back, as for 9999', async () => {
    const hidden = await chat(GERMANY_KEY, 'Total amount in fi_reporting for company 1000 or company 2000 in December 2024');
    const missing = await chat(GERMANY_KEY, 'Total amount in fi_reporting for company 1000 or company 9999 in December 2024');
    expect(hidden.replaceAll('2000', '<value>')).toBe(missing.replaceAll('9999', '<value>'));
    // 2000 appears only as the word it could not place, never among what it answers for, and no figure is given.
    expect(hidden.replaceAll("'2000'", '')).not.toContain('2000');
    expect(hidden).toMatch(/could not place '2000'/);
    expect(hidden).not.toMatch(/443,100\.00/);
    // The open key, which sees both companies, gets both figures.
    const open = await chat(OPEN_KEY, 'Total amount in fi_reporting for company 1000 or company 2000 in December 2024');
    expect(open).toMatch(/443,100\.00 EUR/);
    expect(open).toMatch(/USD/);
    // And a company that exists nowhere is asked back for the open key too.
    expect(await chat(OPEN_KEY, 'Total amount in fi_reporting for company 1000 or company 9999 in December 2024')).toMatch(/could not place '9999'/);
  });

  it('hints a company only from a real closeness, never because it is the only one the key sees', async () => {
    for (const key of [GERMANY_KEY, OPEN_KEY]) {
      const answer = await chat(key, 'Total amount in fi_reporting for Contoso XX in December 2024');
      expect(answer).toMatch(/could not place 'Contoso', 'XX'/);
      expect(answer).not.toMatch(/closest I know|1000|Deutschland|contoso de/i);
      const error = (await tool(key, 'query_source', { source: 'fi_reporting', filters: { company: 'Contoso XX' } })).body.error;
      expect(error.closest).toBeNull();
      expect(error.hint).not.toContain("catalog's name");
      // A misspelt name is still pointed to its code.
      const misspelt = (await tool(key, 'query_source', { source: 'fi_reporting', filters: { company: 'Contoso Germny' } })).body.error;
      expect(misspelt.hint).toContain("catalog's name of company '1000'");
    }
  });
});
