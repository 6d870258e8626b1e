/**
 * Tokens charged to a key (questionHooks with `key` and `onModelTokens`, as /chat passes them):
 * the model's own counts when it reports usage, the agent's estimate when it reports none, so a
 * provider without usage cannot spend a key's budget for free. Scripted models, the real agent loop.
 */
import { AIMessage } from '@langchain/core/messages';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/logging/logger.ts';
import { runAgent, type ChatModelWithTools } from '../../src/agent/runLoop.ts';
import { createMetrics, type Metrics } from '../../src/observability/metrics.ts';
import { questionHooks } from '../../src/observability/questionTrace.ts';
import { sampleToolbox } from '../support/sampleContext.ts';

let toolbox: Awaited<ReturnType<typeof sampleToolbox>>;
beforeAll(async () => {
  toolbox = await sampleToolbox();
});
afterAll(() => toolbox?.close());

/** Asks one question of a model answering `replies` in turn; returns what each call was charged. */
async function ask(metrics: Metrics, replies: AIMessage[]): Promise<number[]> {
  let index = 0;
  const model = { invoke: async () => replies[index++] } as unknown as ChatModelWithTools;
  const charged: number[] = [];
  const logger = silentLogger();
  await runAgent({
    model,
    registry: toolbox.registry,
    systemPrompt: 'test',
    history: [],
    question: 'Which sources are available?',
    toolContext: { ...toolbox.context, logger },
    hooks: questionHooks({ logger, metrics, key: 'dashboards', onModelTokens: (tokens) => charged.push(tokens) }),
  });
  return charged;
}

async function byKey(metrics: Metrics, kind: string): Promise<number | undefined> {
  const { values } = await metrics.registry.getSingleMetric('model_tokens_by_key_total')!.get();
  return values.find((each) => each.labels.key === 'dashboards' && each.labels.kind === kind)?.value;
}

describe('model tokens charged to a key', () => {
  it('are the counts the model reports, call by call', async () => {
    const metrics = createMetrics({ provider: 'scripted' });
    const charged = await ask(metrics, [
      new AIMessage({ content: '', tool_calls: [{ id: 'call_1', name: 'list_sources', args: {}, type: 'tool_call' }], usage_metadata: { input_tokens: 300, output_tokens: 20, total_tokens: 320 } }),
      new AIMessage({ content: 'Three sources.', usage_metadata: { input_tokens: 900, output_tokens: 8, total_tokens: 908 } }),
    ]);
    expect(charged).toEqual([320, 908]);
    expect(await byKey(metrics, 'input')).toBe(1200);
    expect(await byKey(metrics, 'output')).toBe(28);
  });

  it('are the agent\'s estimate when the model reports no usage, never zero', async () => {
    const metrics = createMetrics({ provider: 'scripted' });
    const answer = 'There are three sources: fi_reporting, bpc_reporting and the consolidation mart.';
    const charged = await ask(metrics, [new AIMessage({ content: answer })]);
    expect(charged).toHaveLength(1);
    const input = (await byKey(metrics, 'input'))!;
    const output = (await byKey(metrics, 'output'))!;
    // The prompt (system prompt, question, tool definitions) is far larger than the answer.
    expect(input).toBeGreaterThan(output);
    expect(output).toBeGreaterThanOrEqual(Math.ceil(answer.length / 4));
    expect(charged[0]).toBe(input + output);
  });
});
