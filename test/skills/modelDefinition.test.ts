/**
 * What the model is sent of a tool: a compact view of its input schema. Validation stays whole
 * on the service's side, and dashboards keep the full JSON Schema.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { briefForModel, defineTool, filtersArgument, nameArgument } from '../../src/skills/api.ts';
import { definitionTokens, modelToolDefinition } from '../../src/skills/modelDefinition.ts';
import { SkillRegistry } from '../../src/skills/registry.ts';
import { inputJsonSchema } from '../../src/skills/toolShape.ts';

const nested = z.strictObject({ left: nameArgument(), right: nameArgument() });
const tool = defineTool({
  name: 'sample_tool',
  description: 'Answers sample questions.',
  input: z.strictObject({
    source: nameArgument().describe('e.g. fi_reporting'),
    names: z.array(nameArgument()).min(1).max(5).optional(),
    mode: z.enum(['fast', 'exact']).default('fast'),
    value: z.union([z.string().max(10), z.number(), z.null()]).optional(),
    filters: filtersArgument(),
    pair: briefForModel(nested.optional()).describe('two names, {"left", "right"}'),
  }),
  handler: () => 'ok',
});

describe('the model definition of a tool', () => {
  it('keeps names, types, enums, defaults, required and descriptions, and leaves out what only validates', () => {
    const { function: definition } = modelToolDefinition(tool);
    expect(definition).toMatchObject({ name: 'sample_tool', description: 'Answers sample questions.' });
    expect(definition.parameters).toEqual({
      type: 'object',
      properties: {
        source: { type: 'string', description: 'e.g. fi_reporting' },
        names: { type: 'array', items: { type: 'string' } },
        mode: { type: 'string', enum: ['fast', 'exact'], default: 'fast' },
        value: { type: ['string', 'number', 'null'] },
        filters: { type: 'object', description: expect.stringContaining('{dimension: value}') },
        pair: { type: 'object', description: 'two names, {"left", "right"}' },
      },
      required: ['source'],
    });
    expect(definitionTokens(modelToolDefinition(tool))).toBe(Math.ceil(JSON.stringify(modelToolDefinition(tool)).length / 4));
  });

  it('publishes the full schema to dashboards, without the model-only mark, and still validates every argument', async () => {
    const full = inputJsonSchema(tool);
    expect(JSON.stringify(full)).toContain('"maxLength":200');
    expect(full.properties).toMatchObject({ pair: { properties: { left: { type: 'string' } } } });
    expect(JSON.stringify(full)).not.toContain('modelBrief');
    const registry = new SkillRegistry([{ name: 'sample', description: 'A sample skill.', version: '1.0.0', instructions: 'Use it.', directory: '/sample', tools: [tool] }]);
    const context = { logger: { error: () => {} } } as never;
    expect(await registry.execute('sample_tool', { source: 'fi', pair: { left: 'a' } }, context)).toMatchObject({ ok: false, error: { code: 'invalid_arguments', message: expect.stringContaining('pair.right') } });
    expect(await registry.execute('sample_tool', { source: 'x'.repeat(201) }, context)).toMatchObject({ ok: false, error: { code: 'invalid_arguments' } });
    expect(await registry.execute('sample_tool', { source: 'fi', pair: { left: 'a', right: 'b' } }, context)).toMatchObject({ ok: true });
  });
});
