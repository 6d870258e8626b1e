/**
 * Every tool of every skill describes its own results: it declares an output schema (which
 * `GET /skills` publishes), and what it returns on the sample data parses with that schema.
 * Outputs are checked here rather than on every call in production, to keep calls cheap.
 * The tools' `summarize` and `present` are exercised on the same results: one short line, and a
 * JSON-serialisable presentation whose rows exist in the result.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildKnowledgeBase } from '../../src/knowledge/knowledgeBase.ts';
import type { PresentationSpec } from '../../src/skills/presentation.ts';
import { sampleCalls as calls } from '../support/sampleCalls.ts';
import { sampleToolbox } from '../support/sampleContext.ts';

type Toolbox = Awaited<ReturnType<typeof sampleToolbox>>;
let toolbox: Toolbox;

beforeAll(async () => {
  toolbox = await sampleToolbox();
  toolbox.context.knowledge = buildKnowledgeBase(toolbox.registry.skills);
});
afterAll(() => toolbox.close());

/** Every list a presentation's views point at holds records. */
function expectRowsExist(spec: PresentationSpec, result: unknown): void {
  expect(JSON.parse(JSON.stringify(spec))).toEqual(spec);
  for (const view of spec.views) {
    if (view.rows) continue;
    const rows = (view.rowsAt ?? []).reduce<unknown>((value, step) => (value as Record<string | number, unknown> | undefined)?.[step], result);
    expect(Array.isArray(rows), `${view.title}: ${JSON.stringify(view.rowsAt)}`).toBe(true);
  }
}

describe('tool outputs', () => {
  it('every tool declares an output schema, published as JSON Schema', () => {
    for (const registered of toolbox.registry.list()) {
      expect(registered.tool.output, registered.tool.name).toBeDefined();
      expect(registered.outputSchema, registered.tool.name).toMatchObject({ type: 'object' });
    }
    // Each tool is exercised below: by the calls above, or by the examples it declares itself
    // (a new skill brings its own, so this test needs no edit for it).
    for (const name of Object.keys(calls)) expect(toolbox.registry.names(), name).toContain(name);
    const unexercised = toolbox.registry.names().filter((name) => !calls[name] && !toolbox.registry.get(name)!.tool.examples?.length);
    expect(unexercised).toEqual([]);
  });

  it('every tool returns what its output schema says, on the sample data', async () => {
    let comparisonId = '';
    const declared = toolbox.registry.names().filter((name) => !calls[name]).map((name) => [name, toolbox.registry.get(name)!.tool.examples ?? []] as const);
    for (const [name, list] of [...Object.entries(calls), ...declared]) {
      const registered = toolbox.registry.get(name)!;
      for (const args of list) {
        const filled = JSON.parse(JSON.stringify(args).replace('{comparison_id}', comparisonId));
        const outcome = await toolbox.registry.execute(name, filled, toolbox.context);
        expect(outcome, `${name} ${JSON.stringify(filled)}`).toMatchObject({ ok: true });
        if (!outcome.ok) continue;
        const parsed = registered.tool.output!.safeParse(outcome.result);
        expect(parsed.success ? [] : parsed.error.issues, `${name} ${JSON.stringify(filled)}`).toEqual([]);
        if (name === 'compare_sources' && !comparisonId) comparisonId = (outcome.result as { comparison_id: string }).comparison_id;

        const summary = toolbox.registry.summarize(name, outcome.result);
        if (registered.tool.summarize) {
          expect(summary, name).toMatch(new RegExp(`^${name}\\b`));
          expect(summary!.split('\n'), name).toHaveLength(1);
        }
        if (registered.tool.present) {
          expect(outcome.presentation, name).toBeDefined();
          expectRowsExist(outcome.presentation!, outcome.result);
        }
      }
    }
  });
});
