/**
 * SQL injection: every hostile string of the corpus (and every wrongly typed value) goes
 * through every argument of every tool over `POST /tools/{name}` against the real service on
 * a copy of the sample database. Only built SELECT statements may run: no 500, no SQL error
 * leaking, every returned statement is one SELECT/WITH with the hostile text bound (never
 * inlined), the data file stays byte-identical and no ATTACHed file appears.
 */
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig, projectRoot } from '../../src/config/config.ts';
import { openDataDatabase } from '../../src/data/database.ts';
import { silentLogger } from '../../src/logging/logger.ts';
import { createService, type Service } from '../../src/service.ts';
import { temporaryDirectory } from '../support/catalogFixture.ts';
import { ATTACH_TARGETS, HOSTILE_STRINGS, HOSTILE_VALUES } from './injectionCorpus.ts';

type Args = Record<string, unknown>;
/** One tool argument a hostile value is put into. `stringsOnly`: the value becomes an object key. */
interface Slot {
  tool: string;
  argument: string;
  build: (value: unknown) => Args;
  stringsOnly?: boolean;
}

const STACK_TRACE = /\n\s+at\s+\S+\s+\(|node:internal|\.ts:\d+:\d+/;
/** Error text of SQLite or better-sqlite3 (the error codes are upper case: 'sqlite_master' is not one). */
const SQL_ERROR_LEAKS = [/SQLITE_[A-Z]{3,}/, /SqliteError/, /syntax error|unrecognized token|near "[^"]*": |no such (table|column|function)|readonly database|incomplete input|unable to open database/i];

const period = '2024012';
const valid = { source: 'fi_reporting' };

/** Every argument of every tool. `comparison_id` is filled in once a real comparison exists. */
/**
 * Slots for the tools not listed in slots() (a skill added as one folder): every string in the
 * arguments of each example the tool declares, replaced by each hostile value in turn.
 */
function exampleSlots(): Slot[] {
  const listed = new Set(slots('cmp_x').map((slot) => slot.tool));
  const found: Slot[] = [];
  for (const name of service.registry.names().filter((tool) => !listed.has(tool))) {
    for (const example of service.registry.get(name)!.tool.examples ?? []) {
      const visit = (value: unknown, replace: (v: unknown) => Args, at: string) => {
        if (typeof value === 'string') found.push({ tool: name, argument: at, build: replace });
        else if (Array.isArray(value)) value.forEach((item, index) => visit(item, (v) => replace(value.map((old, i) => (i === index ? v : old))), `${at}[${index}]`));
        else if (value && typeof value === 'object') for (const [key, item] of Object.entries(value)) visit(item, (v) => replace({ ...(value as Args), [key]: v }), at ? `${at}.${key}` : key);
      };
      visit(example, (v) => v as Args, '');
    }
  }
  return found;
}

function slots(comparisonId: string): Slot[] {
  const compareBase = { source_a: 'fi_reporting', source_b: 'bpc_reporting', measure: 'amount', filters: { company: '1000', period } };
  const q = (argument: string, build: (v: unknown) => Args, stringsOnly = false): Slot => ({ tool: 'query_source', argument, build, stringsOnly });
  const c = (argument: string, build: (v: unknown) => Args, stringsOnly = false): Slot => ({ tool: 'compare_sources', argument, build, stringsOnly });
  const e = (argument: string, build: (v: unknown) => Args, stringsOnly = false): Slot => ({ tool: 'explain_difference', argument, build, stringsOnly });
  const b = (argument: string, build: (v: unknown) => Args, stringsOnly = false): Slot => ({ tool: 'find_blank_values', argument, build, stringsOnly });
  const d = (argument: string, build: (v: unknown) => Args, stringsOnly = false): Slot => ({ tool: 'find_duplicates', argument, build, stringsOnly });
  const o = (argument: string, build: (v: unknown) => Args, stringsOnly = false): Slot => ({ tool: 'find_outlier_periods', argument, build, stringsOnly });
  return [
    { tool: 'list_sources', argument: '(extra key)', build: (v) => ({ [String(v)]: 1 }), stringsOnly: true },
    { tool: 'list_sources', argument: '(extra value)', build: (v) => ({ source: v }) },

    q('source', (v) => ({ source: v })),
    q('measures[]', (v) => ({ ...valid, measures: [v] })),
    q('measures', (v) => ({ ...valid, measures: v })),
    q('dimensions[]', (v) => ({ ...valid, dimensions: ['company', v] })),
    q('filters key', (v) => ({ ...valid, filters: { [String(v)]: '1000' } }), true),
    // One statement binds the value in all four forms (the existence check runs after it).
    q('filters value, list, range from, range to', (v) => ({
      ...valid,
      filters: { company: v, group_account: ['G4000000', v], profit_center: { from: v }, document: { from: '0', to: v } },
    })),
    q('filters value (alone)', (v) => ({ ...valid, filters: { company: v } })),
    q('filters period value', (v) => ({ ...valid, filters: { period: v } })),
    q('filters period range', (v) => ({ ...valid, filters: { period: { from: '2024001', to: v } } })),
    q('filters', (v) => ({ ...valid, filters: v })),
    q('order_by string', (v) => ({ ...valid, dimensions: ['company'], order_by: v })),
    q('order_by list item', (v) => ({ ...valid, dimensions: ['company'], order_by: ['company', v] })),
    q('order_by field', (v) => ({ ...valid, dimensions: ['company'], order_by: [{ field: v, direction: 'desc' }] })),
    q('order_by direction', (v) => ({ ...valid, dimensions: ['company'], order_by: [{ field: 'amount', direction: v }] })),
    q('limit', (v) => ({ ...valid, limit: v })),
    q('(extra key)', (v) => ({ ...valid, [String(v)]: 'x' }), true),

    c('source_a', (v) => ({ ...compareBase, source_a: v })),
    c('source_b', (v) => ({ ...compareBase, source_b: v })),
    c('measure', (v) => ({ ...compareBase, measure: v })),
    c('measure.a', (v) => ({ ...compareBase, measure: { a: v, b: 'amount' } })),
    c('measure.b', (v) => ({ ...compareBase, measure: { a: 'amount', b: v } })),
    c('align_on[]', (v) => ({ ...compareBase, align_on: ['company', v] })),
    c('filters key', (v) => ({ ...compareBase, filters: { [String(v)]: '1000' } }), true),
    c('filters value', (v) => ({ ...compareBase, filters: { company: v, period } })),
    c('filters_a value, filters_b list and range', (v) => ({
      ...compareBase,
      filters_a: { group_account: v },
      filters_b: { version: [v], group_account: { from: v, to: 'G9' } },
    })),
    c('filters_a key', (v) => ({ ...compareBase, filters_a: { [String(v)]: 'x' } }), true),
    c('filters_b key', (v) => ({ ...compareBase, filters_b: { [String(v)]: 'x' } }), true),
    c('thresholds', (v) => ({ ...compareBase, thresholds: { match: { absolute: v } } })),
    c('top', (v) => ({ ...compareBase, top: v })),

    { tool: 'list_differences', argument: 'comparison_id', build: (v) => ({ comparison_id: v }) },
    { tool: 'list_differences', argument: 'offset', build: (v) => ({ comparison_id: comparisonId, offset: v }) },
    { tool: 'list_differences', argument: 'limit', build: (v) => ({ comparison_id: comparisonId, limit: v }) },
    { tool: 'list_differences', argument: 'status[]', build: (v) => ({ comparison_id: comparisonId, status: [v] }) },

    e('comparison_id', (v) => ({ comparison_id: v })),
    e('key value', (v) => ({ comparison_id: comparisonId, key: { company: v, period } })),
    e('key name', (v) => ({ comparison_id: comparisonId, key: { [String(v)]: '1000' } }), true),
    e('dimensions[]', (v) => ({ comparison_id: comparisonId, dimensions: [v] })),
    e('comparison.source_a', (v) => ({ comparison: { ...compareBase, source_a: v } })),
    e('comparison.filters value', (v) => ({ comparison: { ...compareBase, filters: { company: v, period } } })),

    b('source', (v) => ({ source: v })),
    b('dimensions[]', (v) => ({ ...valid, dimensions: [v] })),
    b('filters key', (v) => ({ ...valid, filters: { [String(v)]: '1000' } }), true),
    b('filters value', (v) => ({ ...valid, filters: { company: v, period } })),

    d('source', (v) => ({ source: v })),
    d('key[]', (v) => ({ ...valid, key: ['document', v] })),
    d('ignore[]', (v) => ({ ...valid, ignore: [v] })),
    d('measure', (v) => ({ ...valid, measure: v })),
    d('filters key', (v) => ({ ...valid, filters: { [String(v)]: '1000' } }), true),
    d('filters value', (v) => ({ ...valid, filters: { load_request: v, period } })),
    d('limit', (v) => ({ ...valid, limit: v })),

    o('source', (v) => ({ source: v })),
    o('measure', (v) => ({ ...valid, measure: v })),
    o('by[]', (v) => ({ ...valid, by: [v] })),
    o('filters key', (v) => ({ ...valid, filters: { [String(v)]: '1000' } }), true),
    o('filters value', (v) => ({ ...valid, filters: { company: v } })),
    o('threshold', (v) => ({ ...valid, threshold: v })),
    o('limit', (v) => ({ ...valid, limit: v })),

    { tool: 'search_knowledge', argument: 'query', build: (v) => ({ query: v }) },
    { tool: 'search_knowledge', argument: 'skill', build: (v) => ({ query: 'eliminations', skill: v }) },
    { tool: 'search_knowledge', argument: 'limit', build: (v) => ({ query: 'eliminations', limit: v }) },

    { tool: 'load_skill', argument: 'name', build: (v) => ({ name: v }) },
  ];
}

const sha256 = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');

let directory: string;
let dataCopy: string;
let hashBefore: string;
let mtimeBefore: number;
let filesBefore: string[];
let attachTargetsBefore: Map<string, number | null>;
let service: Service;
let server: Server;
let baseUrl: string;
let comparisonId: string;

interface Outcome {
  label: string;
  status: number;
  contentType: string;
  text: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
}

async function post(name: string, args: unknown, label: string): Promise<Outcome> {
  const response = await fetch(`${baseUrl}/tools/${encodeURIComponent(name)}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(args),
  });
  const text = await response.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { label, status: response.status, contentType: response.headers.get('content-type') ?? '', text, body };
}

/** Runs the jobs with a few requests in flight at once. */
async function runAll<T>(jobs: (() => Promise<T>)[], concurrency = 8): Promise<T[]> {
  const results: T[] = new Array(jobs.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < jobs.length) {
        const index = next++;
        results[index] = await jobs[index]!();
      }
    }),
  );
  return results;
}

/** Whether the text is a hostile string that must never show up inside an executed statement. */
const mustStayBound = (value: unknown): value is string => typeof value === 'string' && value.length >= 3 && /[^A-Za-z0-9_ ]/.test(value);

/** The checks every response must pass, whatever the input. */
function checkOutcome(outcome: Outcome, hostile: unknown): void {
  const { label } = outcome;
  expect(outcome.status, `${label}: ${outcome.text.slice(0, 300)}`).not.toBeGreaterThanOrEqual(500);
  expect([200, 400, 404, 413, 422], label).toContain(outcome.status);
  expect(outcome.text, label).not.toMatch(STACK_TRACE);
  // The hostile text may be echoed back (as data, in messages): look for SQL errors around it.
  const echoed = typeof hostile === 'string' && hostile.length > 0 ? JSON.stringify(hostile).slice(1, -1) : undefined;
  const text = echoed ? outcome.text.split(echoed).join(' ') : outcome.text;
  for (const leak of SQL_ERROR_LEAKS) expect(text, label).not.toMatch(leak);
  if (outcome.status === 200) {
    expect(outcome.body, label).toMatchObject({ ok: true });
    const sql = (outcome.body.result as { sql?: unknown } | undefined)?.sql;
    if (sql !== undefined) {
      for (const statement of Array.isArray(sql) ? sql : [sql]) {
        expect(typeof statement, label).toBe('string');
        const text = (statement as string).trim();
        expect(text, label).toMatch(/^(SELECT|WITH)\b/i);
        // One statement: no second statement stacked after a semicolon.
        expect(text.replace(/;\s*$/, ''), label).not.toContain(';');
        if (mustStayBound(hostile)) expect(text.includes(hostile), `${label}: hostile text inlined into SQL`).toBe(false);
      }
    }
    return;
  }
  expect(outcome.contentType, label).toMatch(/^application\/problem\+json/);
  expect(typeof outcome.body?.type, label).toBe('string');
  if (outcome.status === 422 || (outcome.status === 404 && outcome.body.type === '/problems/tool-not-found')) {
    // A structured tool error: a code the model can act on, a message, never an internal error.
    expect(typeof outcome.body.error?.code, label).toBe('string');
    expect(outcome.body.error.code, label).not.toBe('internal_error');
    expect(typeof outcome.body.error.message, label).toBe('string');
  }
}

function attachTargetState(): Map<string, number | null> {
  return new Map(ATTACH_TARGETS.map((file) => [file, existsSync(file) ? statSync(file).mtimeMs : null]));
}

beforeAll(async () => {
  directory = temporaryDirectory('analyst-security-');
  dataCopy = path.join(directory, 'data.db');
  copyFileSync(path.join(projectRoot, 'data/sample.db'), dataCopy);
  hashBefore = sha256(dataCopy);
  mtimeBefore = statSync(dataCopy).mtimeMs;
  attachTargetsBefore = attachTargetState();
  const config = loadConfig({
    LOG_LEVEL: 'silent',
    MODEL_PROVIDER: 'offline',
    DATA_DB: dataCopy,
    APP_DB: path.join(directory, 'app.db'),
    QUERY_WORKERS: '2',
    // Thousands of requests in a few seconds: no rate limit, no API key for this test.
    RATE_LIMIT_PER_MINUTE: '0',
    API_KEYS: '',
  } as NodeJS.ProcessEnv);
  service = await createService(config, silentLogger());
  server = service.app.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  filesBefore = readdirSync(directory).sort();

  const compared = await post('compare_sources', { source_a: 'fi_reporting', source_b: 'bpc_reporting', measure: 'amount', filters: { company: '1000', period: '2024012' } }, 'setup');
  expect(compared.status).toBe(200);
  comparisonId = compared.body.result.comparison_id as string;
});

afterAll(async () => {
  await new Promise<void>((resolve) => server?.close(() => resolve()));
  await service?.close();
});

describe('SQL injection through every tool argument', () => {
  it('the corpus is large and varied', () => {
    expect(HOSTILE_STRINGS.length).toBeGreaterThanOrEqual(40);
    expect(new Set(HOSTILE_STRINGS).size).toBe(HOSTILE_STRINGS.length);
    expect(HOSTILE_STRINGS.some((s) => s.includes('\u0000'))).toBe(true);
    expect(HOSTILE_STRINGS.some((s) => s.length >= 10_000)).toBe(true);
  });

  it('covers every tool the service offers', async () => {
    const skills = (await (await fetch(`${baseUrl}/skills`)).json()) as { skills: { tools: { name: string }[] }[] };
    const offered = new Set([...skills.skills.flatMap((s) => s.tools.map((t) => t.name)), ...service.registry.names()]);
    const covered = new Set([...slots(comparisonId), ...exampleSlots()].map((slot) => slot.tool));
    expect([...offered].filter((name) => !covered.has(name))).toEqual([]);
  });

  it('answers every hostile argument with a result or a structured 4xx, running only bound SELECTs', async () => {
    const all = [...slots(comparisonId), ...exampleSlots()];
    const jobs: (() => Promise<void>)[] = [];
    const tally = { ok: 0, rejected: 0 };
    for (const slot of all) {
      for (const [index, value] of [...HOSTILE_STRINGS, ...HOSTILE_VALUES].entries()) {
        if (slot.stringsOnly && typeof value !== 'string') continue;
        const label = `${slot.tool} ${slot.argument} #${index} ${JSON.stringify(value)?.slice(0, 60)}`;
        jobs.push(async () => {
          const outcome = await post(slot.tool, slot.build(value), label);
          checkOutcome(outcome, value);
          if (outcome.status === 200) tally.ok += 1;
          else tally.rejected += 1;
        });
      }
    }
    // The hostile text as a tool name: a 404 with the read-only choices.
    for (const [index, value] of HOSTILE_STRINGS.entries()) {
      if (value.length === 0 || value.length > 1_000) continue;
      jobs.push(async () => {
        const outcome = await post(value, {}, `tool name #${index}`);
        checkOutcome(outcome, value);
        if (outcome.status === 404 && outcome.body?.type === '/problems/tool-not-found') {
          expect(outcome.body.error.code).toBe('unknown_tool');
        }
      });
    }
    await runAll(jobs);
    expect(jobs.length).toBeGreaterThan(2_500);
    // Some hostile values are harmless data (e.g. '1000', '%'): they reach SQL, bound, and answer.
    expect(tally.ok).toBeGreaterThan(50);
    expect(tally.rejected).toBeGreaterThan(1_000);
  }, 120_000);

  it('treats LIKE wildcards and quotes in values as literal text, not patterns', async () => {
    for (const value of ['%', '_', '1%', "1000' OR '1'='1", '1000\u0000']) {
      const outcome = await post('query_source', { source: 'fi_reporting', filters: { company: value } }, `literal ${JSON.stringify(value)}`);
      checkOutcome(outcome, value);
      // No company is literally called that: an unknown_value error listing the real ones, not every row.
      expect(outcome.status, outcome.text).toBe(422);
      // The value comes back as the literal text that was looked up (bound, not interpreted).
      expect(outcome.body.error).toMatchObject({ code: 'unknown_value', dimension: 'company', value: value.trim() });
      expect(outcome.body.error.choices).toEqual(expect.arrayContaining(['1000', '2000', '3000']));
    }
  });

  it('the data connection refuses every write, ATTACH and pragma change itself (read-only + query_only)', () => {
    const database = openDataDatabase(dataCopy);
    try {
      const statements = [
        'DROP TABLE fi_reporting',
        "DELETE FROM fi_reporting",
        "INSERT INTO fi_reporting (compcode) VALUES ('pwned')",
        'UPDATE fi_reporting SET cs_trn_lc = 0',
        'CREATE TABLE pwned (a)',
        `ATTACH DATABASE '${ATTACH_TARGETS[0]}' AS x`,
        // Refused too, but SQLite creates the (empty) target file before refusing: see the report.
        `VACUUM INTO '${path.join(temporaryDirectory('analyst-security-vacuum-'), 'copy.db')}'`,
      ];
      for (const statement of statements) expect(() => database.exec(statement), statement).toThrow();
      // A pragma write is refused too, or at least leaves the guard on.
      try {
        database.exec('PRAGMA query_only = 0');
      } catch {
        // refused: fine
      }
      expect(() => database.exec('DELETE FROM fi_reporting')).toThrow();
      // SQL cannot load extensions.
      expect(() => database.prepare("SELECT load_extension('/tmp/evil.so')").get()).toThrow();
    } finally {
      database.close();
    }
  });

  it('leaves the data file byte-identical and creates no file', () => {
    expect(sha256(dataCopy)).toBe(hashBefore);
    expect(statSync(dataCopy).mtimeMs).toBe(mtimeBefore);
    // Only the application database (and its WAL files) may have appeared next to the copy.
    const extra = readdirSync(directory).filter((file) => !filesBefore.includes(file) && !file.startsWith('app.db'));
    expect(extra).toEqual([]);
    expect(existsSync(`${dataCopy}-journal`) || existsSync(`${dataCopy}-wal`)).toBe(false);
    expect(attachTargetState()).toEqual(attachTargetsBefore);
  });
});
