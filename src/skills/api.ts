/**
 * The contract between the service and a skill module: a skill declares tools, each with a
 * name, a description for the model, a zod input schema and a handler. `npm run skill:new -- <name>`
 * scaffolds a new one; docs/skills.md is the full contract.
 */
import type { z } from 'zod';
import type { Catalog } from '../catalog/catalog.ts';
import type { DataAccess } from '../data/dataAccess.ts';
import type { Logger } from '../logging/logger.ts';

import type { QuestionForm } from './questionForms.ts';

export { ToolError } from '../errors/index.ts';
// Length caps every string argument should carry (see src/shared/inputLimits.ts).
export { MAX_NAME_CHARS, MAX_VALUE_CHARS, nameArgument, valueArgument } from '../shared/inputLimits.ts';
export { defineQuestionForm } from './questionForms.ts';
export { describeFilters, errorAnswer, sideLabels, textFormat, type TextFormat } from './answerText.ts';
export { scopeOn, sourceFor } from './questionScope.ts';
export type { CompletedCall, FilterValue, FormContext, PlanStep, PlannedCall, QuestionForm, Understanding } from './questionForms.ts';

/** What a tool handler can use: the catalog, the read-only data layer, a logger, and a cancel signal. */
export interface ToolContext {
  catalog: Catalog;
  data: DataAccess;
  logger: Logger;
  signal?: AbortSignal;
  /** Search over the knowledge files skills ship (knowledge/NAME.md in a skill folder); set by the service. */
  knowledge?: KnowledgeBase;
}

/** One passage of a knowledge file as a search returns it. */
export interface KnowledgePassage {
  /** E.g. "skills/data_analyst/knowledge/currency.md § Currency translation › Average vs closing rate". */
  citation: string;
  skill: string;
  /** Path of the file, e.g. "skills/data_analyst/knowledge/currency.md". */
  file: string;
  /** Heading path, e.g. "Currency translation › Average vs closing rate". */
  heading: string;
  text: string;
  /** BM25 relevance, higher is better; only comparable within one search. */
  score: number;
}

/** Ranked full-text search over the skills' knowledge passages. */
export interface KnowledgeBase {
  /** @throws ToolError invalid_value for a query without searchable words, unknown_value for a skill without knowledge. */
  search(query: string, options?: { limit?: number; skill?: string }): KnowledgePassage[];
  /** Names of the skills that ship knowledge files, sorted. */
  skills(): string[];
}

export interface ToolDefinition<Input extends z.ZodType = z.ZodType> {
  /** snake_case, unique across all skills: models and dashboards call tools by this name. */
  name: string;
  /** Shown to the model: say what the tool answers and when to use it. */
  description: string;
  input: Input;
  /** Returns a JSON-serialisable result; throw ToolError for failures the model can fix. */
  handler: (input: z.infer<Input>, context: ToolContext) => unknown | Promise<unknown>;
}

export interface SkillModule {
  tools: ToolDefinition[];
  /** Question forms the embedded offline model answers with these tools (see questionForms.ts). */
  questions?: QuestionForm[];
}

/** Declares one tool, keeping the handler's argument typed by its schema. */
export function defineTool<Input extends z.ZodType>(tool: ToolDefinition<Input>): ToolDefinition {
  return tool as unknown as ToolDefinition;
}

/** Declares a skill module; the default export of `skills/<name>/index.ts`. */
export function defineSkill(skill: SkillModule): SkillModule {
  return skill;
}
