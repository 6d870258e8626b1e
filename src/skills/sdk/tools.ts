/**
 * The skill SDK's core: how a skill declares its tools (defineTool, defineSkill) and what a
 * handler receives (ToolContext: the catalog, the read-only data layer, a logger, a cancel
 * signal, the conversation's state, the knowledge search). Re-exported by src/skills/api.ts,
 * the one module skills import.
 */
import type { z } from 'zod';
import type { Catalog } from '../../catalog/catalog.ts';
import type { DataAccess } from '../../data/dataAccess.ts';
import type { Logger } from '../../logging/logger.ts';
import type { PresentationSpec } from '../presentation.ts';
import type { QuestionForm } from '../questionForms.ts';
import type { SkillPage } from './pages.ts';
import type { SkillRecords } from './records.ts';
import type { ScheduleDefinition } from './schedules.ts';

/** What a tool handler can use: the catalog, the read-only data layer, a logger, and a cancel signal. */
export interface ToolContext {
  catalog: Catalog;
  data: DataAccess;
  logger: Logger;
  signal?: AbortSignal;
  /** Search over the knowledge files skills ship (knowledge/NAME.md in a skill folder); set by the service. */
  knowledge?: KnowledgeBase;
  /**
   * Words naming data outside the caller's scope (src/scopes/hiddenWords.ts); a tool returning
   * prose (instructions, descriptions) leaves out the sentences naming one. Unset: nothing is hidden.
   */
  hiddenTerms?: readonly string[];
  /**
   * The conversation's durable state (the session store's artifacts), for values a follow-up
   * turn needs, such as a comparison behind a comparison_id. For /chat turns, the session's
   * state (shared by every instance); for POST /tools and MCP calls, the calling key's state in
   * this process. Absent only when a tool is called directly (tests, scripts).
   */
  state?: SessionState;
  /**
   * This skill's durable records (sdk/records.ts): JSON values by collection and id in the
   * application database, its own namespace, surviving restarts and seen by every instance.
   * Set by the service for every call; absent when a tool is called directly (tests, scripts).
   */
  records?: SkillRecords;
  /**
   * Who is calling: the API key's name, its stable identity, its data scope and the permissions
   * the keys file grants it (e.g. `sign_off`). Absent without API keys (everyone is anonymous)
   * and when a tool is called directly (tests, scripts).
   */
  caller?: ToolCaller;
  /**
   * Runs another tool of the service (any skill's, by name) for the same caller: its scope, its
   * records, its cancel signal. For a skill built on another's tool (a saved check runs
   * compare_sources); the result is what POST /tools/{name} would answer. Set by the service.
   */
  callTool?: (name: string, input: unknown) => Promise<ToolCallResult>;
  /**
   * Sends a notification to the service's webhooks (NOTIFY_WEBHOOK_URL), at most once per `key`
   * ever, retried until delivered; `{ queued: false }` when the key was sent before or no
   * webhook is configured. Set by the service.
   */
  notify?: (notification: SkillNotification) => Promise<{ queued: boolean }>;
}

/** Who calls a tool (ToolContext.caller). */
export interface ToolCaller {
  /** The key's name from the keys file, or `key:<identity>` for a key from API_KEYS. */
  name: string;
  /** A short stable hash standing for the key (never the key). */
  identity: string;
  /** The data the key may see; undefined: everything. */
  scope?: { sources?: string[] | undefined; values: Record<string, string[]> } | undefined;
  /** What the keys file lets the key do besides reading (`permissions: [sign_off]`). */
  permissions: readonly string[];
}

/** What a tool called through ToolContext.callTool answered. */
export type ToolCallResult = { ok: true; result: unknown } | { ok: false; error: { code: string; message: string; hint?: string; [detail: string]: unknown } };

/** A message for people and machines (ToolContext.notify). */
export interface SkillNotification {
  /** Sent at most once, ever: e.g. `check:fi_vs_bpc:2026-11-03T05:00Z:tie>break`. At most 200 characters. */
  key: string;
  /** A short machine name, e.g. `check.status_changed`. */
  event: string;
  /** One or two lines for people (a Slack webhook shows it). */
  text: string;
  /** Any JSON for machines. */
  data?: unknown;
}

/** Values (JSON) kept with a conversation, surviving restarts and seen by every instance. */
export interface SessionState {
  get(key: string): Promise<unknown>;
  set(key: string, value: unknown): Promise<void>;
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

/**
 * What a knowledge passage is about, in catalog names: its file's front matter `concerns` and
 * its section's (src/knowledge/frontMatter.ts). A scoped key sees it only when all are visible.
 */
export interface KnowledgeConcerns {
  sources?: string[];
  /** Dimension → values, e.g. `{ company: ['1000'] }`. */
  values?: Record<string, string[]>;
}

/** Ranked full-text search over the skills' knowledge passages. */
export interface KnowledgeBase {
  /**
   * `shown` leaves passages out before the `limit` best are taken (a scope's hidden data).
   * @throws ToolError invalid_value for a query without searchable words, unknown_value for a skill without knowledge.
   */
  search(query: string, options?: { limit?: number; skill?: string; shown?: (passage: KnowledgePassage, concerns: KnowledgeConcerns) => boolean }): KnowledgePassage[];
  /** Names of the skills that ship knowledge files, sorted. */
  skills(): string[];
}

export interface ToolDefinition<Input extends z.ZodType = z.ZodType, Output extends z.ZodType = z.ZodType> {
  /** snake_case, unique across all skills: models and dashboards call tools by this name. */
  name: string;
  /**
   * Shown to the model on every call while the tool is bound: one or two sentences saying what
   * the tool answers and when to use it. Details, examples and edge cases belong in SKILL.md
   * (load_skill returns it once); `npm run skill:check` warns above a size budget.
   */
  description: string;
  /** A short human title for tool pickers (MCP clients show it); default: the name in words ("Compare sources"). */
  title?: string;
  /**
   * True for a tool people call (POST /tools, MCP, a board) but the chat model must not: it is
   * not offered to the model and refused when the model names it, so text planted in the data
   * cannot make the model sign off or delete something on a user's behalf.
   */
  peopleOnly?: true;
  /**
   * Bound from the first call of every question, before the model loads the skill: for a cheap
   * tool that orients the model (e.g. one listing what can be asked about). Default false: the
   * tool is bound once the model loads its skill or calls one of its tools.
   */
  alwaysBound?: boolean;
  /**
   * True for a tool that stores or deletes something (its skill's `records`): MCP clients are
   * told it is not read-only, so they ask before running it. Default: the tool only reads.
   */
  writes?: boolean;
  input: Input;
  /**
   * What the handler returns. `GET /skills` publishes it as `output_schema`; the tests parse every
   * tool's result on the sample data with it (it is not checked at run time, to keep calls cheap).
   * Optional for compatibility; every tool of this project declares one.
   */
  output?: Output;
  // Methods, not function properties: a typed tool then fits where any tool is expected, without casts.
  /** Returns a JSON-serialisable result; throw ToolError for failures the model can fix. */
  handler(input: z.infer<Input>, context: ToolContext): z.infer<Output> | Promise<z.infer<Output>>;
  /**
   * One line saying what a result found (counts, totals, the reading), at most ~300 characters.
   * Used when the context window shrinks old tool results and when a run ends at its step limit;
   * tools without one get a generic line built from the result's fields.
   */
  summarize?(result: z.infer<Output>): string;
  /**
   * Sample arguments that run on the bundled sample data. The project's output test runs them
   * and parses each result with `output`, so a new skill is checked without editing the test.
   */
  examples?: Record<string, unknown>[];
  /** How the web chat shows a result: tables, charts, side labels (see presentation.ts). `input` is the call's arguments. */
  present?(result: z.infer<Output>, input: z.infer<Input>): PresentationSpec;
}

/** A tool of any input and output, as the registry holds it. */
export type AnyToolDefinition = ToolDefinition<z.ZodType, z.ZodType>;

export interface SkillModule {
  tools: AnyToolDefinition[];
  /** Question forms the embedded offline model answers with these tools (see questionForms.ts). */
  questions?: QuestionForm[];
  /** Work the service runs on a schedule, once per due slot across instances (sdk/schedules.ts). */
  schedules?: ScheduleDefinition[];
  /** Pages the skill serves beside the chat, from its web/ folder (sdk/pages.ts). */
  pages?: SkillPage[];
}

/**
 * Declares one tool: the handler's argument is typed by `input`, its return value (and the
 * argument of `summarize` and `present`) by `output`.
 * @example
 * export const countRows = defineTool({
 *   name: 'count_rows',
 *   description: 'Count the rows of one source.',
 *   input: z.strictObject({ source: nameArgument() }),
 *   output: z.object({ source: z.string(), rows: z.number() }),
 *   handler: async ({ source }, { data }) => ({ source, rows: 0 }),
 *   summarize: (result) => `${result.source}: ${result.rows} rows`,
 * });
 */
export function defineTool<Input extends z.ZodType, Output extends z.ZodType = z.ZodUnknown>(tool: ToolDefinition<Input, Output>): ToolDefinition<Input, Output> {
  return tool;
}

/**
 * Declares a skill module; the default export of `skills/<name>/index.ts`.
 * @example
 * // skills/my_skill/index.ts
 * import { defineSkill } from '../../src/skills/api.ts';
 * import { countRows } from './countRows.ts';
 * import { countForm } from './questions.ts';
 *
 * export default defineSkill({ tools: [countRows], questions: [countForm] });
 */
export function defineSkill(skill: SkillModule): SkillModule {
  return skill;
}
