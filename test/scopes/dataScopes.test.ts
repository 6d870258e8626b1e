/**
 * Per-key data scopes over real requests: two keys from a keys file, one limited to company
 * 1000, one to company 3000 in two sources. Every tool and /chat answer within the key's scope;
 * a hidden value or source is answered exactly like one that does not exist; widening attempts
 * (filters, align_on, explain_difference, comparison ids, another key's session) get nothing
 * more; and each tool call leaves an audit line with the key's name and scope, never the key.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import supertest from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.ts';
import { createService, type Service } from '../../src/service.ts';
import { sampleCalls } from '../support/sampleCalls.ts';

const GERMANY_KEY = 'germany-key-0123456789';
const UK_KEY = 'uk-fi-key-0123456789ab';
const OPEN_KEY = 'open-key-0123456789abcd';
const keysFile = `keys:
  - name: germany
    key_env: GERMANY_KEY
    scopes: { company: ["1000"] }
  - name: uk-fi
    key_env: UK_KEY
    scopes: { company: [3000], sources: [fi_reporting, bpc_reporting] }
`;

const directory = mkdtempSync(path.join(tmpdir(), 'data-scopes-'));
const lines: Record<string, unknown>[] = [];
let service: Service;
let api: ReturnType<typeof supertest>;

beforeAll(async () => {
  writeFileSync(path.join(directory, 'keys.yaml'), keysFile);
  const stream = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      for (const text of chunk.toString('utf8').split('\n')) if (text.trim()) lines.push(JSON.parse(text) as Record<string, unknown>);
      callback();
    },
  });
  const environment = { LOG_LEVEL: 'info', RATE_LIMIT_PER_MINUTE: '0', APP_DB: path.join(directory, 'app.db'), API_KEYS: OPEN_KEY, API_KEYS_FILE: path.join(directory, 'keys.yaml'), GERMANY_KEY, UK_KEY };
  service = await createService(loadConfig(environment as NodeJS.ProcessEnv), pino({ level: 'info' }, stream));
  api = supertest(service.app);
});
afterAll(async () => {
  await service?.close();
  rmSync(directory, { recursive: true, force: true });
});

const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
const tool = (key: string, name: string, args: Record<string, unknown>) => api.post(`/tools/${name}`).set(bearer(key)).send(args);

/** Every value of a `company` field anywhere in a result (rows, keys, differences, examples). */
function companiesIn(value: unknown, found = new Set<string>()): Set<string> {
  if (Array.isArray(value)) value.forEach((item) => companiesIn(item, found));
  else if (value && typeof value === 'object') {
    for (const [name, inner] of Object.entries(value)) {
      if (name === 'company' && (typeof inner === 'string' || typeof inner === 'number')) found.add(String(inner));
      else companiesIn(inner, found);
    }
  }
  return found;
}

/** A response with its varying parts (request ids, durations, the value asked about) made equal. */
function comparable(body: unknown, value: string): string {
  return JSON.stringify(body)
    .replaceAll(value, '<value>')
    .replace(/"(request_id|duration_ms)":("[^"]*"|[0-9.]+)/g, '"$1":0');
}

describe('a key scoped to company 1000', () => {
  it('gets only company 1000 from every tool on the sample calls', async () => {
    let comparisonId = '';
    for (const [name, calls] of Object.entries(sampleCalls)) {
      for (const call of calls) {
        const args = JSON.parse(JSON.stringify(call).replace('{comparison_id}', comparisonId)) as Record<string, unknown>;
        const response = await tool(GERMANY_KEY, name, args);
        expect(response.status, `${name} ${JSON.stringify(args)}: ${JSON.stringify(response.body).slice(0, 300)}`).toBeLessThan(500);
        if (name === 'compare_sources' && !comparisonId) comparisonId = response.body.result.comparison_id;
        expect([...companiesIn(response.body)].filter((company) => company !== '1000'), `${name} ${JSON.stringify(args)}`).toEqual([]);
      }
    }
  });

  it('sees totals of its company only: an unfiltered total equals the unscoped total of company 1000', async () => {
    const scoped = await tool(GERMANY_KEY, 'query_source', { source: 'fi_reporting', dimensions: ['currency'] });
    const open = await tool(OPEN_KEY, 'query_source', { source: 'fi_reporting', dimensions: ['currency'], filters: { company: '1000' } });
    expect(scoped.body.result.rows).toEqual(open.body.result.rows);
    const everything = await tool(OPEN_KEY, 'query_source', { source: 'fi_reporting', dimensions: ['company'] });
    expect(everything.body.result.rows.length).toBe(3);
  });

  it('is answered for a hidden company exactly as for a company that does not exist', async () => {
    const ask = (company: string) => [
      tool(GERMANY_KEY, 'query_source', { source: 'fi_reporting', filters: { company } }),
      tool(GERMANY_KEY, 'compare_sources', { source_a: 'fi_reporting', source_b: 'bpc_reporting', measure: 'amount', filters: { company, period: '2024012' } }),
      tool(GERMANY_KEY, 'explain_difference', { comparison: { source_a: 'fi_reporting', source_b: 'bpc_reporting', measure: 'amount', filters: { company } } }),
      tool(GERMANY_KEY, 'find_duplicates', { source: 'fi_reporting', filters: { company } }),
    ];
    // 2000 exists (hidden from this key); 5000 does not exist at all.
    const hidden = await Promise.all(ask('2000'));
    const missing = await Promise.all(ask('5000'));
    for (const [index, response] of hidden.entries()) {
      expect(response.status).toBe(missing[index]!.status);
      expect(comparable(response.body, '2000')).toBe(comparable(missing[index]!.body, '5000'));
    }
    expect(hidden[0]!.status).toBe(422);
  });

  it('cannot widen its scope through a list of values, align_on or an explanation key', async () => {
    // A list with hidden values reads like a list with missing ones: company 1000's rows only.
    const widened = await tool(GERMANY_KEY, 'query_source', { source: 'fi_reporting', dimensions: ['company'], filters: { company: ['1000', '2000'] } });
    const padded = await tool(GERMANY_KEY, 'query_source', { source: 'fi_reporting', dimensions: ['company'], filters: { company: ['1000', '5000'] } });
    expect(widened.body.result.rows).toEqual([{ company: '1000', currency: 'EUR', amount: expect.any(Number) }]);
    expect(comparable(widened.body, '2000')).toBe(comparable(padded.body, '5000'));
    const aligned = await tool(GERMANY_KEY, 'compare_sources', { source_a: 'fi_reporting', source_b: 'bpc_reporting', measure: 'amount', align_on: ['company', 'period'] });
    expect(aligned.status).toBe(200);
    expect([...companiesIn(aligned.body)]).toEqual(['1000']);
    const explained = await tool(GERMANY_KEY, 'explain_difference', { comparison: { source_a: 'fi_reporting', source_b: 'bpc_reporting', measure: 'amount', align_on: ['company', 'period'] }, key: { company: '2000', period: '2024012' } });
    expect(explained.status).toBe(422);
    expect([...companiesIn(explained.body)].filter((company) => company !== '2000')).toEqual([]);
  });

  it('lists only its company in the catalog: examples, business names and descriptions', async () => {
    const { body } = await tool(GERMANY_KEY, 'list_sources', {});
    const companies = body.result.sources.flatMap((source: { dimensions: { name: string }[] }) => source.dimensions.filter((dimension) => dimension.name === 'company'));
    expect(companies.length).toBeGreaterThan(0);
    for (const company of companies) {
      expect(company).toMatchObject({ examples: ['1000'] });
      expect(JSON.stringify(company)).not.toMatch(/2000|3000|USD|GBP/);
    }
    // Partner companies are values of company 1000's own rows; the other companies' names appear nowhere.
    expect(JSON.stringify(body)).toContain('Contoso Deutschland');
    expect(JSON.stringify(body)).not.toMatch(/Contoso Inc|Contoso UK/);
  });
  it('finds no knowledge passage that names a hidden company', async () => {
    const search = async (key: string) => (await tool(key, 'search_knowledge', { query: 'local currency of each company functional currency' })).body.result.results as { text: string }[];
    const open = await search(OPEN_KEY);
    expect(open.some((passage) => /2000 in USD/.test(passage.text))).toBe(true);
    const scoped = await search(GERMANY_KEY);
    expect(scoped.length).toBeGreaterThan(0);
    expect(scoped.some((passage) => /\b(2000|3000)\b/.test(passage.text))).toBe(false);
  });
});

describe('a key scoped to company 3000 in two sources', () => {
  it('lists only its sources, and a hidden source is answered like a source that does not exist', async () => {
    const { body } = await tool(UK_KEY, 'list_sources', {});
    expect(body.result.sources.map((source: { name: string }) => source.name).sort()).toEqual(['bpc_reporting', 'fi_reporting']);
    const hidden = await tool(UK_KEY, 'query_source', { source: 'consolidation_mart' });
    const missing = await tool(UK_KEY, 'query_source', { source: 'consolidation_ma' });
    expect(hidden.status).toBe(422);
    expect(comparable(hidden.body, 'consolidation_mart')).toBe(comparable(missing.body, 'consolidation_ma'));
  });

  it('cannot use a comparison id made by another key', async () => {
    const made = await tool(GERMANY_KEY, 'compare_sources', { source_a: 'fi_reporting', source_b: 'bpc_reporting', measure: 'amount' });
    const id = made.body.result.comparison_id as string;
    expect((await tool(GERMANY_KEY, 'list_differences', { comparison_id: id })).status).toBe(200);
    const stolen = await tool(UK_KEY, 'list_differences', { comparison_id: id });
    expect(stolen.status).toBe(422);
    expect(stolen.body.error.code).toBe('unknown_value');
    expect((await tool(UK_KEY, 'explain_difference', { comparison_id: id })).body.error.code).toBe('unknown_value');
  });
});

describe('conversations of scoped keys', () => {
  it('answers in scope through /chat, and a hidden company like a missing one', async () => {
    const chat = (key: string, message: string, sessionId?: string) => api.post('/chat').set(bearer(key)).send({ message, ...(sessionId ? { session_id: sessionId } : {}) });
    const own = await chat(GERMANY_KEY, 'Why does FI differ from BPC for company 1000 in December 2024?');
    expect(own.status).toBe(200);
    expect(own.body.answer).toContain('443,100.00');
    const hidden = await chat(GERMANY_KEY, 'Total amount in fi_reporting for company 2000 in December 2024');
    const missing = await chat(GERMANY_KEY, 'Total amount in fi_reporting for company 5000 in December 2024');
    expect(hidden.body.answer.replaceAll('2000', '<value>')).toBe(missing.body.answer.replaceAll('5000', '<value>'));
    expect(hidden.body.answer).not.toMatch(/Contoso Inc|USD/);
    // What the offline model offers to answer names the key's data only, though the open key's list names the others.
    const offers = async (key: string) => (await chat(key, 'What can you do?')).body.answer as string;
    expect(await offers(OPEN_KEY)).toMatch(/Contoso UK|company 2000/);
    expect(await offers(GERMANY_KEY)).not.toMatch(/Contoso UK|Contoso Inc|company 2000|company 3000|consolidation_mart.*2000/);
    // The UK key cannot read, continue or delete the Germany key's conversation.
    const session = own.body.session_id as string;
    expect((await api.get(`/sessions/${session}`).set(bearer(UK_KEY))).status).toBe(404);
    expect((await chat(UK_KEY, 'And by account?', session)).status).toBe(404);
    expect((await api.delete(`/sessions/${session}`).set(bearer(UK_KEY))).status).toBe(404);
    expect((await api.get(`/sessions/${session}`).set(bearer(GERMANY_KEY))).status).toBe(200);
  });

  it('writes an audit line per tool call naming the key and its scope, never the key itself', async () => {
    lines.length = 0;
    await tool(UK_KEY, 'query_source', { source: 'fi_reporting' });
    await api.post('/chat').set(bearer(GERMANY_KEY)).send({ message: 'Total amount in fi_reporting for company 1000 in December 2024' });
    const audits = lines.filter((line) => line.msg === 'tool call');
    expect(audits.map((line) => [line.key, line.scope, line.tool])).toEqual([
      ['uk-fi', 'company=3000; sources=bpc_reporting,fi_reporting', 'query_source'],
      ['germany', 'company=1000', 'query_source'],
    ]);
    const everything = JSON.stringify(lines);
    expect(everything).not.toContain(GERMANY_KEY);
    expect(everything).not.toContain(UK_KEY);
  });
});

describe('a keys file that is wrong', () => {
  const start = (file: string, environment: Record<string, string> = {}) => {
    writeFileSync(path.join(directory, 'bad.yaml'), file);
    return () => loadConfig({ API_KEYS_FILE: path.join(directory, 'bad.yaml'), APP_DB: path.join(directory, 'bad.db'), ...environment } as NodeJS.ProcessEnv);
  };

  it('stops the service with a message naming the entry, never the key', () => {
    expect(start('keys:\n  - name: a\n    key_env: MISSING_KEY\n')).toThrow(/API_KEYS_FILE: keys\[0\] \(a\): the environment variable MISSING_KEY is not set/);
    expect(start('keys:\n  - name: a\n    key_sha256: abc\n')).toThrow(/keys\[0\]\.key_sha256: must be the key's SHA-256/);
    expect(start('keys:\n  - name: a\n    key_env: K\n    key_sha256: ' + 'a'.repeat(64) + '\n', { K: 'k'.repeat(20) })).toThrow(/exactly one of key_env and key_sha256/);
    expect(start('keys:\n  - name: a\n    key_env: K\n  - name: a\n    key_env: L\n', { K: 'k'.repeat(20), L: 'l'.repeat(20) })).toThrow(/the name 'a' is used twice/);
    expect(start('keys:\n  - name: a\n    key_env: K\n', { K: 'short' })).toThrow(/must be 16 to 200 visible ASCII characters/);
    expect(start('keys: [')).toThrow(/not valid YAML or JSON/);
    try {
      start('keys:\n  - name: a\n    key_env: K\n    key_sha256: ' + 'a'.repeat(64) + '\n', { K: 'a-secret-key-value-123' })();
    } catch (error) {
      expect((error as Error).message).not.toContain('a-secret-key-value-123');
    }
  });

  it('stops the service when a scope names a source or dimension the catalog does not have', async () => {
    writeFileSync(path.join(directory, 'typo.json'), JSON.stringify({ keys: [{ name: 'typo', key_env: 'K', scopes: { compnay: ['1000'], sources: ['fi_reportin'] } }] }));
    const config = loadConfig({ API_KEYS_FILE: path.join(directory, 'typo.json'), APP_DB: path.join(directory, 'typo.db'), K: 'k'.repeat(20), LOG_LEVEL: 'silent' } as NodeJS.ProcessEnv);
    await expect(createService(config, pino({ level: 'silent' }))).rejects.toThrow(/API_KEYS_FILE: key 'typo': source 'fi_reportin' is not in the catalog.*dimension 'compnay' is in no source/s);
  });

  it('accepts a key given by its SHA-256, so the file holds no secret', async () => {
    const { createHash } = await import('node:crypto');
    const key = 'hashed-key-0123456789';
    writeFileSync(path.join(directory, 'hashed.yaml'), `keys:\n  - name: hashed\n    key_sha256: ${createHash('sha256').update(key).digest('hex')}\n    scopes: { company: ["2000"] }\n`);
    const hashed = await createService(loadConfig({ API_KEYS_FILE: path.join(directory, 'hashed.yaml'), APP_DB: path.join(directory, 'hashed.db'), LOG_LEVEL: 'silent' } as NodeJS.ProcessEnv), pino({ level: 'silent' }));
    try {
      const response = await supertest(hashed.app).post('/tools/query_source').set(bearer(key)).send({ source: 'fi_reporting', dimensions: ['company'] });
      expect(response.body.result.rows.map((row: { company: string }) => row.company)).toEqual(['2000']);
      expect((await supertest(hashed.app).post('/tools/list_sources').set(bearer('wrong-key-0123456789')).send({})).status).toBe(401);
    } finally {
      await hashed.close();
    }
  });
});
