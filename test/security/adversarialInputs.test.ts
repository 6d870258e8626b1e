/**
 * No input can stall the event loop: every parser and pattern the service runs on text a caller
 * controls answers adversarial input (long runs of blanks, repeated keywords, 64 KB strings)
 * within a few milliseconds, on the main thread; every string argument of every tool has a
 * length cap in its published JSON Schema, and an argument over it is refused at once with an
 * error that names the limit.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveFilters } from '../../src/catalog/filters.ts';
import { describePeriod, monthNumber, parsePeriod, parsePeriodSpan } from '../../src/catalog/periods.ts';
import { wantsEventStream } from '../../src/http/eventStream.ts';
import { moduleSpecifiers } from '../../src/http/routes/web.ts';
import { bearerToken } from '../../src/http/security/apiKeys.ts';
import { hostName } from '../../src/http/security/requestGuards.ts';
import { buildKnowledgeBase, shorten } from '../../src/knowledge/knowledgeBase.ts';
import { splitMarkdown, withoutClosingHashes } from '../../src/knowledge/passages.ts';
import { searchPhrases, searchTerms } from '../../src/knowledge/query.ts';
import { toModelProviderError } from '../../src/model/providerErrors.ts';
import { decodeCursor } from '../../src/sessions/sessionPaging.ts';
import { titleOf } from '../../src/sessions/sessionRecords.ts';
import { closestMatch, suggestionHint } from '../../src/shared/closestMatch.ts';
import { cut, oneLine } from '../../src/shared/messageText.ts';
import { redactUrls, safeUrl } from '../../src/shared/redact.ts';
import { oversizedArgument } from '../../src/skills/argumentGuard.ts';
import { describeValue } from '../../src/skills/answerText.ts';
import { sampleToolbox } from '../support/sampleContext.ts';
import { adversarialStrings, atLimit } from './adversarialCorpus.ts';

/** Generous for a shared 2-core machine, yet a thousand times below the 20 s the period parser took. */
const BOUND_MS = 50;

type Toolbox = Awaited<ReturnType<typeof sampleToolbox>>;
let toolbox: Toolbox;
beforeAll(async () => {
  toolbox = await sampleToolbox();
});
afterAll(() => toolbox?.close());

/** Runs `run` on every corpus string (and the at-limit ones); returns the slowest with its time. */
function slowest(run: (input: string) => unknown): { name: string; ms: number } {
  const inputs: [string, string][] = [...Object.entries(adversarialStrings), ...atLimit(200).map((text, index): [string, string] => [`at limit ${index}`, text])];
  let worst = { name: '', ms: 0 };
  for (const [name, input] of inputs) {
    const started = performance.now();
    try {
      run(input);
    } catch {
      // Refusing is fine; taking long is not.
    }
    const ms = performance.now() - started;
    if (ms > worst.ms) worst = { name, ms };
  }
  return worst;
}

describe('parsers and patterns answer adversarial text within milliseconds', () => {
  const source = () => toolbox.context.catalog.sources.get('fi_reporting')!;
  const parsers: [string, (input: string) => unknown][] = [
    ['parsePeriod', parsePeriod],
    ['parsePeriodSpan', parsePeriodSpan],
    ['monthNumber', monthNumber],
    ['describePeriod', describePeriod],
    ['resolveFilters (period value, no schema in front)', (input) => resolveFilters(source(), { period: input })],
    ['resolveFilters (period range bounds)', (input) => resolveFilters(source(), { period: { from: input, to: input } })],
    ['searchTerms', searchTerms],
    ['searchPhrases', searchPhrases],
    ['splitMarkdown', (input) => splitMarkdown(`# Title\n${input}\n## ${input}\n`, { skill: 's', file: 'f.md' })],
    ['withoutClosingHashes', withoutClosingHashes],
    ['shorten', (input) => shorten(input, 700)],
    ['moduleSpecifiers', moduleSpecifiers],
    ['closestMatch', (input) => closestMatch(input, ['fi_reporting', 'bpc_reporting', 'consolidation_mart'])],
    ['suggestionHint', (input) => suggestionHint(input, ['fi_reporting', 'bpc_reporting'])],
    ['redactUrls', redactUrls],
    ['safeUrl', safeUrl],
    ['hostName', hostName],
    ['bearerToken', bearerToken],
    ['decodeCursor', decodeCursor],
    ['titleOf', titleOf],
    ['oneLine', oneLine],
    ['cut', (input) => cut(input, 200)],
    ['describeValue', (input) => describeValue('period', input)],
    ['oversizedArgument', (input) => oversizedArgument({ filters: { [input]: input } })],
    ['toModelProviderError', (input) => toModelProviderError(new Error(input))],
    ['wantsEventStream', (input) => wantsEventStream(undefined, input)],
  ];

  it.each(parsers)('%s', (_name, parser) => {
    const worst = slowest(parser);
    expect(worst.ms, `slowest input: ${worst.name}`).toBeLessThan(BOUND_MS);
  });

  it('searches the knowledge base with a query at its length limit', () => {
    const knowledge = buildKnowledgeBase(toolbox.registry.skills);
    for (const query of [...atLimit(500), 'year-to-date '.repeat(38)]) {
      const started = performance.now();
      try {
        knowledge.search(query);
      } catch {
        // a query without searchable words is refused
      }
      expect(performance.now() - started, query.slice(0, 20)).toBeLessThan(BOUND_MS);
    }
  });
});

type Json = Record<string, unknown>;
type Segment = string | number;

/** Where a string can go in a JSON Schema: values, and record keys (`<key>`). */
function stringSlots(schema: unknown, path: Segment[] = []): { path: Segment[]; schema: Json }[] {
  if (!schema || typeof schema !== 'object') return [];
  const node = schema as Json;
  const found = [...['anyOf', 'oneOf', 'allOf'].flatMap((key) => ((node[key] as unknown[]) ?? []).flatMap((branch) => stringSlots(branch, path)))];
  const types = Array.isArray(node.type) ? node.type : [node.type];
  if (types.includes('string')) found.push({ path, schema: node });
  for (const [name, property] of Object.entries((node.properties as Json) ?? {})) found.push(...stringSlots(property, [...path, name]));
  if (node.additionalProperties && typeof node.additionalProperties === 'object') {
    found.push({ path: [...path, '<key>'], schema: (node.propertyNames as Json) ?? {} });
    found.push(...stringSlots(node.additionalProperties, [...path, 'period']));
  }
  if (node.items) found.push(...stringSlots(node.items, [...path, 0]));
  return found;
}

/** Minimal valid arguments per tool; a slot is then overwritten with the adversarial string. */
const baseArguments: Record<string, Json> = {
  query_source: { source: 'fi_reporting' },
  compare_sources: { source_a: 'fi_reporting', source_b: 'bpc_reporting', measure: 'amount' },
  list_differences: { comparison_id: 'cmp_unknown' },
  explain_difference: { comparison_id: 'cmp_unknown' },
  find_duplicates: { source: 'fi_reporting' },
  find_blank_values: { source: 'fi_reporting' },
  find_outlier_periods: { source: 'fi_reporting' },
  search_knowledge: { query: 'currency translation' },
  load_skill: { name: 'data_analyst' },
};

/** A copy of `base` with `value` at `path` (objects and arrays made on the way; `<key>` puts it in a key). */
function withValue(base: Json, path: Segment[], value: string): Json {
  const copy = structuredClone(base);
  let node: Record<string | number, unknown> = copy;
  path.forEach((segment, index) => {
    const last = index === path.length - 1;
    if (segment === '<key>') {
      Object.assign(node, { [value]: '1000' });
      return;
    }
    if (last) node[segment] = value;
    else {
      const next = path[index + 1];
      const existing = node[segment];
      if (existing === null || typeof existing !== 'object') node[segment] = typeof next === 'number' ? [] : {};
      node = node[segment] as Record<string | number, unknown>;
    }
  });
  return copy;
}

describe('every string argument of every tool is bounded', () => {
  it('declares a maxLength on every string slot (record keys included) in the published schemas', () => {
    const unbounded: string[] = [];
    for (const { tool, inputSchema } of toolbox.registry.list()) {
      for (const slot of stringSlots(inputSchema)) {
        if (typeof slot.schema.maxLength !== 'number' && slot.schema.enum === undefined) unbounded.push(`${tool.name}: ${slot.path.join('.')}`);
      }
    }
    expect(unbounded).toEqual([]);
    expect(toolbox.registry.list().length).toBeGreaterThanOrEqual(9);
  });

  it('refuses each adversarial string in each slot within milliseconds, naming the limit', async () => {
    const slow: string[] = [];
    const vague: string[] = [];
    let calls = 0;
    for (const { tool, inputSchema } of toolbox.registry.list()) {
      const base = baseArguments[tool.name];
      if (!base) continue;
      for (const slot of stringSlots(inputSchema)) {
        if (slot.schema.enum !== undefined) continue;
        for (const [name, text] of Object.entries(adversarialStrings)) {
          const args = withValue(base, slot.path, text);
          const started = performance.now();
          const outcome = await toolbox.registry.execute(tool.name, args, toolbox.context);
          const ms = performance.now() - started;
          calls += 1;
          const where = `${tool.name} ${slot.path.join('.')} ← ${name}`;
          if (ms > BOUND_MS) slow.push(`${where}: ${ms.toFixed(0)} ms`);
          const error = outcome.ok ? undefined : outcome.error;
          if (error?.code !== 'invalid_arguments' || !/<=\s?\d+|at most \d+/.test(error.message)) vague.push(`${where}: ${JSON.stringify(error ?? 'ok').slice(0, 200)}`);
        }
      }
    }
    expect(calls).toBeGreaterThan(300);
    expect(slow).toEqual([]);
    expect(vague).toEqual([]);
  });

  it('answers period filters at the length limit (they reach the parser) within milliseconds', async () => {
    for (const value of atLimit(200)) {
      for (const [tool, args] of [
        ['query_source', { source: 'fi_reporting', filters: { period: value } }],
        ['query_source', { source: 'fi_reporting', filters: { period: { from: value, to: '2024012' } } }],
        ['compare_sources', { ...baseArguments.compare_sources, filters: { period: value } }],
        ['find_outlier_periods', { source: 'fi_reporting', filters: { period: [value] } }],
      ] as const) {
        const started = performance.now();
        const outcome = await toolbox.registry.execute(tool, args, toolbox.context);
        expect(performance.now() - started, `${tool} ${value.slice(0, 12)}…`).toBeLessThan(BOUND_MS);
        expect(outcome).toMatchObject({ ok: false, error: { code: 'invalid_value' } });
      }
    }
  });

  it('refuses __proto__, constructor and prototype as filter or key dimensions (never drops them)', async () => {
    for (const name of ['__proto__', 'constructor', 'prototype']) {
      for (const [tool, json] of [
        ['query_source', `{"source":"fi_reporting","filters":{"${name}":"1000"}}`],
        ['compare_sources', `{"source_a":"fi_reporting","source_b":"bpc_reporting","measure":"amount","filters_a":{"${name}":"1000"}}`],
        ['find_blank_values', `{"source":"fi_reporting","filters":{"${name}":"1000"}}`],
        ['explain_difference', `{"comparison":{"source_a":"fi_reporting","source_b":"bpc_reporting","measure":"amount"},"key":{"${name}":"1000"}}`],
      ] as const) {
        const outcome = await toolbox.registry.execute(tool, JSON.parse(json), toolbox.context);
        expect(outcome, `${tool} with ${name}`).toMatchObject({ ok: false, error: { code: 'unknown_dimension' } });
      }
    }
  });
});
