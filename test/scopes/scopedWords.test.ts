/**
 * A data scope covers words as well as rows: a key scoped to the FI sources, and one scoped to
 * company 1000, search the knowledge, load every skill and read every MCP resource and prompt
 * the way an attacker would, and never meet a hidden source's name or alias, a hidden value, a
 * measure only hidden sources have, or a figure about hidden data. An unscoped key meets them
 * all on the same paths, so each assertion can fail. A key scoped to company 2000 shows that a
 * passage declared (front matter) about company 1000 stays hidden where no word gives it away.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { pino } from 'pino';
import supertest from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.ts';
import { createService, type Service } from '../../src/service.ts';
import { temporaryDirectory } from '../support/catalogFixture.ts';

const OPEN_KEY = 'words-open-key-0123456789';
const FI_KEY = 'words-fi-key-0123456789ab';
const GERMANY_KEY = 'words-de-key-0123456789ab';
const US_KEY = 'words-us-key-0123456789ab';

/** What an attacker searches for to learn about the consolidation sources and the other companies. */
export const PROBES = [
  'BPC',
  'consolidation mart',
  'ADJ_MANUAL',
  'amount_gc',
  'duplicate delta load',
  'currency translation',
  'group currency',
  'intercompany',
  'December',
  'manual adjustment',
  'top-side adjustment audit trail',
  'budget forecast version',
  'year-to-date balance',
  'which source to use',
  'how the four sources relate',
  'local currency of each company',
];

/** Whole words (any case) a key scoped to fi_reporting and fi_acquisition must never read. */
const HIDDEN_FROM_FI = [
  'bpc_reporting', 'consolidation_mart', 'BPC', 'SAP BPC', 'consolidation mart', 'mart', 'data mart', 'conso', 'group reporting',
  'legal consolidation', 'planning and consolidation', 'ADJ_MANUAL', 'S_LEGAL', 'audit_trail', 'audittrail', 'amount_gc', 'amount_ytd',
  'cs_trn_gc', 'cs_ytd_lc', 'group currency', 'currency translation', 'year-to-date', 'BUDGET', 'FORECAST', 'top-side adjustment', '333,100.00',
];
/** Whole words a key scoped to company 1000 must never read: the other companies and their names. */
const HIDDEN_FROM_GERMANY = ['2000', '3000', 'Contoso Inc', 'Contoso US', 'Contoso UK', 'Contoso UK Ltd', 'USA', 'United States', 'United Kingdom'];

/** The words of `words` that `text` names as whole words, any case. */
function named(text: string, words: readonly string[]): string[] {
  return words.filter((word) => new RegExp(`(?<![\\p{L}\\p{N}_])${word.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![\\p{L}\\p{N}_])`, 'iu').test(text));
}

let service: Service;
let server: Server;
let base: string;
let api: ReturnType<typeof supertest>;
const clients: Client[] = [];

beforeAll(async () => {
  const directory = temporaryDirectory('scoped-words-');
  const keysFile = path.join(directory, 'keys.yaml');
  writeFileSync(
    keysFile,
    `keys:
  - name: fi-only
    key_env: WORDS_FI_KEY
    scopes: { sources: [fi_reporting, fi_acquisition] }
  - name: germany
    key_env: WORDS_DE_KEY
    scopes: { company: ["1000"] }
  - name: us
    key_env: WORDS_US_KEY
    scopes: { company: ["2000"] }
`,
  );
  const env = { LOG_LEVEL: 'silent', MODEL_PROVIDER: 'offline', APP_DB: path.join(directory, 'app.db'), API_KEYS: OPEN_KEY, API_KEYS_FILE: keysFile, WORDS_FI_KEY: FI_KEY, WORDS_DE_KEY: GERMANY_KEY, WORDS_US_KEY: US_KEY, RATE_LIMIT_PER_MINUTE: '0' };
  service = await createService(loadConfig(env as NodeJS.ProcessEnv), pino({ level: 'silent' }));
  api = supertest(service.app);
  server = await new Promise<Server>((resolve) => {
    const started = service.app.listen(0, '127.0.0.1', () => resolve(started));
  });
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await Promise.all(clients.map((client) => client.close()));
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  await service?.close();
});

const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

/** Every passage text (heading, citation and body) the probe searches return to `key`, by probe. */
async function searches(key: string): Promise<Map<string, string>> {
  const found = new Map<string, string>();
  for (const query of PROBES) {
    const response = await api.post('/tools/search_knowledge').set(bearer(key)).send({ query, limit: 10 });
    expect(response.status, query).toBe(200);
    // The results and the note, not the query echoed back.
    found.set(query, JSON.stringify({ results: response.body.result.results, note: response.body.result.note }));
  }
  return found;
}

/** What load_skill returns to `key` for every enabled skill, as text. */
async function loadedSkills(key: string): Promise<string[]> {
  const texts: string[] = [];
  for (const skill of service.registry.skills) {
    const response = await api.post('/tools/load_skill').set(bearer(key)).send({ name: skill.name });
    expect(response.status, skill.name).toBe(200);
    texts.push(JSON.stringify(response.body.result));
  }
  return texts;
}

/** Every resource (listing and text), the prompt listing and the prompt an MCP client of `key` gets. */
async function mcpTexts(key: string): Promise<string[]> {
  const client = new Client({ name: 'scoped-words-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers: bearer(key) } }));
  clients.push(client);
  const { resources } = await client.listResources();
  const texts = [JSON.stringify(resources)];
  for (const resource of resources) texts.push(...(await client.readResource({ uri: resource.uri })).contents.map((content) => ('text' in content ? content.text : '')));
  texts.push(JSON.stringify(await client.listPrompts()));
  texts.push(JSON.stringify((await client.listTools()).tools.map(({ name, description }) => ({ name, description }))));
  texts.push(JSON.stringify(await client.getPrompt({ name: 'analyst', arguments: { question: 'What is a delta load?' } })));
  return texts;
}

/** The probes (or texts) whose answer names one of `words`, with the words named. */
function leaks(texts: Iterable<[string, string]>, words: readonly string[]): Record<string, string[]> {
  return Object.fromEntries([...texts].map(([where, text]): [string, string[]] => [where, named(text, words)]).filter(([, found]) => found.length > 0));
}

describe('a key scoped to the FI sources', () => {
  it('finds no passage about the consolidation sources, their measures, values or figures', async () => {
    const open = await searches(OPEN_KEY);
    // The same probes do reach hidden words for a key that sees everything.
    expect(Object.keys(leaks(open, HIDDEN_FROM_FI)).length).toBeGreaterThan(PROBES.length / 2);
    expect(named([...open.values()].join('\n'), HIDDEN_FROM_FI)).toEqual(expect.arrayContaining(['BPC', 'ADJ_MANUAL', 'amount_gc', '333,100.00']));
    const scoped = await searches(FI_KEY);
    expect(leaks(scoped, HIDDEN_FROM_FI)).toEqual({});
    // What concerns only its own sources is still found.
    expect(scoped.get('duplicate delta load')).toMatch(/load request/i);
  });

  it('loads every skill without instructions or tool descriptions naming hidden data', async () => {
    const open = await loadedSkills(OPEN_KEY);
    expect(named(open.join('\n'), HIDDEN_FROM_FI).length).toBeGreaterThan(0);
    const scoped = await loadedSkills(FI_KEY);
    expect(leaks(scoped.map((text, index) => [service.registry.skills[index]!.name, text]), HIDDEN_FROM_FI)).toEqual({});
    expect(scoped.length).toBe(open.length);
  });

  it('reads no MCP resource or prompt naming hidden data', async () => {
    const open = await mcpTexts(OPEN_KEY);
    expect(named(open.join('\n'), HIDDEN_FROM_FI)).toEqual(expect.arrayContaining(['BPC', 'ADJ_MANUAL', 'amount_gc', '333,100.00']));
    const scoped = await mcpTexts(FI_KEY);
    expect(leaks(scoped.map((text, index) => [String(index), text]), HIDDEN_FROM_FI)).toEqual({});
    expect(scoped.join('\n')).toMatch(/fi_acquisition/);
  });
});

describe('a key scoped to company 1000', () => {
  it('finds, loads and reads nothing naming another company', async () => {
    const open = [...(await searches(OPEN_KEY)).values(), ...(await loadedSkills(OPEN_KEY)), ...(await mcpTexts(OPEN_KEY))];
    expect(named(open.join('\n'), HIDDEN_FROM_GERMANY)).toEqual(expect.arrayContaining(['2000', '3000']));
    const scoped = [...(await searches(GERMANY_KEY)).entries(), ...(await loadedSkills(GERMANY_KEY)).map((text, index) => [`load_skill ${index}`, text] as [string, string])];
    expect(leaks(scoped, HIDDEN_FROM_GERMANY)).toEqual({});
    const mcp = await mcpTexts(GERMANY_KEY);
    expect(leaks(mcp.map((text, index) => [String(index), text]), HIDDEN_FROM_GERMANY)).toEqual({});
    // Its own company's figures are its data: the duplicated load of company 1000 is explained with them.
    expect([...(await searches(GERMANY_KEY)).values()].join('\n')).toMatch(/333,100\.00 EUR/);
  });
});

describe('a key scoped to company 2000', () => {
  it("is not shown a passage declared about company 1000, though no whole word of it names 1000", async () => {
    const citations = async (key: string) =>
      ((await api.post('/tools/search_knowledge').set(bearer(key)).send({ query: 'load requests in SAP BW', limit: 10 })).body.result.results as { citation: string; text: string }[]);
    const aboutRequests = (results: { citation: string }[]) => results.some((result) => result.citation.endsWith('§ Duplicate records and repeated loads › Load requests in SAP BW'));
    expect(aboutRequests(await citations(OPEN_KEY))).toBe(true);
    const scoped = await citations(US_KEY);
    expect(scoped.length).toBeGreaterThan(0);
    expect(aboutRequests(scoped)).toBe(false);
    expect(JSON.stringify(scoped)).not.toMatch(/_1000_|\b1000\b|333,100/);
  });
});
