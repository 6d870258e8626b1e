/**
 * A tool's definition as the model is sent it: name, description and a compact view of the
 * input schema. Every model call carries the bound tools' definitions, so they are kept lean:
 * the zod schema still validates every argument (and its errors name the limits), while the
 * model sees only what it needs to write a call — property names, types, enums, required,
 * defaults and one short description each. Size limits, patterns and closed-object markers are
 * left out; a record (`z.record`, e.g. filters) shows as an object described in words; an
 * argument marked {@link briefForModel} shows only its type and description.
 * `GET /skills` and `POST /tools` keep publishing the full schema (toolShape.ts).
 */
import { z } from 'zod';
import type { ToolDefinition } from './sdk/tools.ts';

/** A tool definition in the OpenAI chat-completions format, as bound to the model. */
export interface ModelToolDefinition {
  type: 'function';
  function: { name: string; description: string; parameters: Record<string, unknown> };
}

/** The zod metadata key of {@link briefForModel}; never part of a published schema. */
export const BRIEF_FOR_MODEL_KEY = 'modelBrief';

/** Characters per token of the definitions' size measure (skill:check, docs/models.md's figures). */
const DEFINITION_CHARS_PER_TOKEN = 4;

/**
 * Marks an argument whose schema the model need not see in full (a nested copy of another
 * tool's arguments, say): its definition shows the argument's type and description only. The
 * schema validates as before.
 * @example
 * period: briefForModel(periodSchema).describe('a period ("2024011"), a span ("Q3 2024") or {"from","to"}'),
 */
export function briefForModel<Schema extends z.ZodType>(schema: Schema): Schema {
  return schema.meta({ [BRIEF_FOR_MODEL_KEY]: true }) as Schema;
}

/** Keywords that only validate: zod enforces them, the model does not need them to write a call. */
const VALIDATION_ONLY = new Set(['$schema', 'minLength', 'maxLength', 'minItems', 'maxItems', 'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'pattern', 'propertyNames', 'format', BRIEF_FOR_MODEL_KEY]);

/**
 * The model's view of a tool's input (see the module comment).
 * @throws Error when zod cannot express the input as JSON Schema.
 * @example
 * modelJsonSchema(countRows) // { type: 'object', properties: { source: { type: 'string', description: … } }, required: ['source'] }
 */
function modelJsonSchema(tool: ToolDefinition): Record<string, unknown> {
  const schema = z.toJSONSchema(tool.input, {
    io: 'input',
    unrepresentable: 'any',
    override: (context) => {
      if (z.globalRegistry.get(context.zodSchema)?.[BRIEF_FOR_MODEL_KEY] !== true) return;
      const { type, description } = context.jsonSchema;
      for (const key of Object.keys(context.jsonSchema)) delete (context.jsonSchema as Record<string, unknown>)[key];
      Object.assign(context.jsonSchema, type === undefined ? {} : { type }, description === undefined ? {} : { description });
    },
  }) as Record<string, unknown>;
  return compact(schema, true) as Record<string, unknown>;
}

/**
 * The definition bound to the model for a tool.
 * @example
 * modelToolDefinition(countRows) // { type: 'function', function: { name: 'count_rows', description: 'Count the rows of one source.', parameters: { … } } }
 */
export function modelToolDefinition(tool: ToolDefinition): ModelToolDefinition {
  return { type: 'function', function: { name: tool.name, description: tool.description, parameters: modelJsonSchema(tool) } };
}

/**
 * Tokens a definition takes in a request, measured as characters of its JSON / 4 (the one
 * measure of skill:check's budget and of docs/models.md's figures).
 * @example
 * definitionTokens(modelToolDefinition(countRows)) // 40
 */
export function definitionTokens(definition: ModelToolDefinition | readonly ModelToolDefinition[]): number {
  return Math.ceil(JSON.stringify(definition).length / DEFINITION_CHARS_PER_TOKEN);
}

function compact(node: unknown, topLevel = false): unknown {
  if (Array.isArray(node)) return node.map((item) => compact(item));
  if (node === null || typeof node !== 'object') return node;
  const source = node as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(source)) {
    if (VALIDATION_ONLY.has(key)) continue;
    // `false` closes an object (validated anyway); a schema is a record's values, said in words instead.
    if (key === 'additionalProperties') continue;
    if (key === 'properties') {
      out.properties = Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([name, property]) => [name, compact(property)]));
    } else if (key === 'anyOf' || key === 'oneOf') {
      Object.assign(out, collapseUnion((value as unknown[]).map((member) => compact(member)) as Record<string, unknown>[]));
    } else {
      out[key] = compact(value);
    }
  }
  // A closed top level with no properties still says it takes an (empty) object.
  if (topLevel && out.type === 'object' && out.properties === undefined) out.properties = {};
  return out;
}

/** A union of plain types becomes one type list; nested unions are flattened. */
function collapseUnion(members: Record<string, unknown>[]): Record<string, unknown> {
  const flat = members.flatMap((member) => (Array.isArray(member.anyOf) && Object.keys(member).length === 1 ? (member.anyOf as Record<string, unknown>[]) : [member]));
  const plain = flat.every((member) => Object.keys(member).every((key) => key === 'type') && member.type !== undefined);
  if (plain) return { type: [...new Set(flat.flatMap((member) => member.type as string | string[]))] };
  return { anyOf: flat };
}
