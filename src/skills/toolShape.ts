/**
 * What every tool declaration must satisfy, shared by the loader (which stops startup) and
 * `npm run skill:check` (which reports every problem with its file and line).
 */
import { z } from 'zod';
import type { ToolDefinition } from './sdk/tools.ts';
import { TOOL_NAME_PATTERN } from './manifest.ts';
import { BRIEF_FOR_MODEL_KEY } from './modelDefinition.ts';

/** The built-in tool's name; no skill may declare it. */
export const LOAD_SKILL_TOOL_NAME = 'load_skill';

/** The problems of one declared tool (empty when it is well formed). */
export function toolShapeProblems(tool: unknown): string[] {
  if (tool === null || typeof tool !== 'object') return [`a tool must be declared with defineTool({ name, description, input, handler }), got ${tool === null ? 'null' : typeof tool}`];
  const candidate = tool as Partial<ToolDefinition>;
  const problems: string[] = [];
  if (typeof candidate.name !== 'string' || !TOOL_NAME_PATTERN.test(candidate.name)) {
    problems.push(`tool name ${JSON.stringify(candidate.name)} must be snake_case (a-z, 0-9 and _, starting with a letter), at most 64 characters`);
  } else if (candidate.name === LOAD_SKILL_TOOL_NAME) {
    problems.push(`tool name '${LOAD_SKILL_TOOL_NAME}' is reserved for the service's built-in tool; choose another name`);
  }
  if (typeof candidate.description !== 'string' || candidate.description.trim().length < 10) {
    problems.push('description must tell the model what the tool does (at least 10 characters)');
  }
  if (!candidate.input || typeof (candidate.input as { safeParse?: unknown }).safeParse !== 'function') {
    problems.push('input must be a zod schema, e.g. z.strictObject({ ... })');
  }
  if (candidate.output !== undefined && typeof (candidate.output as { safeParse?: unknown }).safeParse !== 'function') {
    problems.push('output must be a zod schema of what the handler returns, e.g. z.object({ ... })');
  }
  if (typeof candidate.handler !== 'function') problems.push('handler must be a function (input, context) => result');
  for (const hook of ['summarize', 'present'] as const) {
    if (candidate[hook] !== undefined && typeof candidate[hook] !== 'function') problems.push(`${hook} must be a function of the result`);
  }
  return problems;
}

/** The JSON Schema of a tool's input as models and dashboards see it. @throws Error when zod cannot express it. */
export function inputJsonSchema(tool: ToolDefinition): Record<string, unknown> {
  // The mark briefForModel sets concerns the model's view only (modelDefinition.ts).
  const schema = z.toJSONSchema(tool.input, { io: 'input', unrepresentable: 'any', override: (context) => void delete (context.jsonSchema as Record<string, unknown>)[BRIEF_FOR_MODEL_KEY] }) as Record<string, unknown>;
  delete schema.$schema;
  return schema;
}

/**
 * The JSON Schema of a tool's result (`{}`, anything, for a tool without an output schema).
 * @throws Error when zod cannot express it.
 * @example
 * outputJsonSchema(defineTool({ ..., output: z.object({ rows: z.number() }) })) // { type: 'object', properties: { rows: ... }, ... }
 */
export function outputJsonSchema(tool: ToolDefinition): Record<string, unknown> {
  if (!tool.output) return {};
  const schema = z.toJSONSchema(tool.output, { io: 'output', unrepresentable: 'any' }) as Record<string, unknown>;
  delete schema.$schema;
  return schema;
}
