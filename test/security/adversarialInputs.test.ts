/**
 * No input can stall the event loop: every parser and pattern the service runs on text a caller
 * controls answers adversarial input (long runs of blanks, repeated keywords, 64 KB strings),
 * even ten times larger than a request can carry, within the test's timeout (a backtracking
 * pattern or a quadratic scan would take minutes at that size); every string argument of every
 * tool has a length cap in its published JSON Schema, and an argument over it is refused with an
 * error that names the limit. How many milliseconds each takes is `npm run bench:latency`'s figure.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildKnowledgeBase } from '../../src/knowledge/knowledgeBase.ts';
import { sampleToolbox } from '../support/sampleContext.ts';
import { adversarialCorpus, adversarialStrings, atLimit, LONG } from './adversarialCorpus.ts';
import { adversarialParsers, answer, corpusInputs } from './adversarialParsers.ts';

type Toolbox = Awaited<ReturnType<typeof sampleToolbox>>;
let toolbox: Toolbox;
beforeAll(async () => {
  toolbox = await sampleToolbox();
});
afterAll(() => toolbox?.close());

describe('parsers and patterns answer adversarial text ten times larger than a request', () => {
  // Built once: 24 inputs of about 650 KB.
  const huge = corpusInputs(adversarialCorpus(LONG * 10));
  const parsers = adversarialParsers(() => toolbox.context.catalog.sources.get('fi_reporting')!);

  it.each(parsers)('%s', (_name, run) => {
    const outcomes = huge.map(([input, text]) => `${input}: ${answer(run, text)}`);
    // Answered, or refused with a tool error; never a runaway (a stack overflow, a string too long).
    expect(outcomes.filter((outcome) => !/: (answered|ToolError)$/.test(outcome))).toEqual([]);
  });

  it('searches the knowledge base with a query at its length limit', () => {
    const knowledge = buildKnowledgeBase(toolbox.registry.skills);
    const outcomes = [...atLimit(500), 'year-to-date '.repeat(38)].map((query) => answer((text) => knowledge.search(text), query));
    // 'year-to-date …' has searchable words: it is answered; the others may be refused.
    expect(outcomes.at(-1)).toBe('answered');
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
        // An enum or a constant (a union's `kind`) is bounded by its values.
        if (typeof slot.schema.maxLength !== 'number' && slot.schema.enum === undefined && slot.schema.const === undefined) unbounded.push(`${tool.name}: ${slot.path.join('.')}`);
      }
    }
    expect(unbounded).toEqual([]);
    expect(toolbox.registry.list().length).toBeGreaterThanOrEqual(9);
  });

  it('refuses each adversarial string in each slot, naming the limit', async () => {
    const vague: string[] = [];
    let calls = 0;
    for (const { tool, inputSchema } of toolbox.registry.list()) {
      const base = baseArguments[tool.name];
      if (!base) continue;
      for (const slot of stringSlots(inputSchema)) {
        if (slot.schema.enum !== undefined || slot.schema.const !== undefined) continue;
        for (const [name, text] of Object.entries(adversarialStrings)) {
          const args = withValue(base, slot.path, text);
          const outcome = await toolbox.registry.execute(tool.name, args, toolbox.context);
          calls += 1;
          const where = `${tool.name} ${slot.path.join('.')} ← ${name}`;
          const error = outcome.ok ? undefined : outcome.error;
          if (error?.code !== 'invalid_arguments' || !/<=\s?\d+|at most \d+/.test(error.message)) vague.push(`${where}: ${JSON.stringify(error ?? 'ok').slice(0, 200)}`);
        }
      }
    }
    expect(calls).toBeGreaterThan(300);
    expect(vague).toEqual([]);
  });

  it('answers period filters at the length limit (they reach the parser) with invalid_value', async () => {
    for (const value of atLimit(200)) {
      for (const [tool, args] of [
        ['query_source', { source: 'fi_reporting', filters: { period: value } }],
        ['query_source', { source: 'fi_reporting', filters: { period: { from: value, to: '2024012' } } }],
        ['compare_sources', { ...baseArguments.compare_sources, filters: { period: value } }],
        ['find_outlier_periods', { source: 'fi_reporting', filters: { period: [value] } }],
      ] as const) {
        const outcome = await toolbox.registry.execute(tool, args, toolbox.context);
        expect(outcome, `${tool} ${value.slice(0, 12)}…`).toMatchObject({ ok: false, error: { code: 'invalid_value' } });
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
