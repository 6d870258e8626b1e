/**
 * Maps each tool name to its skill and runs tool calls: arguments are parsed and validated,
 * and every failure comes back as a structured error the model can act on, never a throw.
 * Besides the skills' tools it registers the built-in `load_skill`, which returns a skill's
 * instructions on demand (the system prompt only lists the skills, one line each).
 * It also answers for the tools what a result says in one line (`summarize`) and how the web
 * chat shows it (`present`), so the agent and the HTTP layer need no tool's name.
 */
import { cut } from '../shared/messageText.ts';
import type { z } from 'zod';
import { ConfigurationError, RecordConflictError, ToolError, type ToolErrorPayload } from '../errors/index.ts';
import { closestMatch, suggestionHint } from '../shared/closestMatch.ts';
import type { ToolCallResult, ToolContext, ToolDefinition } from './sdk/tools.ts';
import { oversizedArgument, pathText } from './argumentGuard.ts';
import { builtinSkill } from './loadSkillTool.ts';
import type { Skill } from './loader.ts';
import { finishPresentation, type PresentationSpec } from './presentation.ts';
import { modelToolDefinition, type ModelToolDefinition } from './modelDefinition.ts';
import { inputJsonSchema, LOAD_SKILL_TOOL_NAME, outputJsonSchema } from './toolShape.ts';
import { truncateForDisplay } from '../shared/truncate.ts';
import type { SkillRecords } from './sdk/records.ts';
import type { SkillPage } from './sdk/pages.ts';

/** A call's outcome; a success carries how the web chat shows it when the tool says (`present`). */
/** The most characters of a tool's one-line summary. */
const MAX_SUMMARY_CHARS = 300;

/** How deep tools calling tools (ToolContext.callTool) may go: a saved check runs a comparison, not a chain. */
const MAX_CALL_DEPTH = 3;
const CALL_DEPTH = Symbol('analyst.callDepth');
type NestedContext = ToolContext & { [CALL_DEPTH]?: number };

export type ToolOutcome = { ok: true; result: unknown; presentation?: PresentationSpec } | { ok: false; error: ToolErrorPayload['error'] };

export interface RegisteredTool {
  /** The skill declaring the tool; for the built-in `load_skill`, a pseudo-skill not in `skills`. */
  skill: Skill;
  tool: ToolDefinition;
  /** JSON Schema of the input, as models and dashboards see it. */
  inputSchema: Record<string, unknown>;
  /** JSON Schema of the result (`{}` for a tool without an output schema). */
  outputSchema: Record<string, unknown>;
  /** The definition the model is sent: the description and a compact view of the input (modelDefinition.ts). */
  modelDefinition: ModelToolDefinition;
  /** True for tools of the service itself (`load_skill`), not of a skill folder. */
  builtin?: boolean;
}

/** Tool name → skill and tool, built at startup (and again on each development reload). */
export class SkillRegistry {
  /** The enabled skills, in load order. */
  readonly skills: readonly Skill[];
  /** Skills that are present but disabled (SKILL.md `enabled: false`, or SKILLS_DISABLED); their tools are not registered. */
  readonly disabledSkills: readonly Skill[];
  private readonly tools = new Map<string, RegisteredTool>();
  private readonly pages = new Map<string, { skill: Skill; page: SkillPage }>();

  /**
   * @param options.recordsFor each skill's durable records (ToolContext.records), by skill name: the application database's
   * @param options.notifierFor each skill's ToolContext.notify, by skill name: the service's outbox
   * @throws ConfigurationError when two skills declare the same tool or page name, or a skill declares `load_skill`.
   */
  constructor(
    skills: readonly Skill[],
    private readonly options: { recordsFor?: (skill: string) => SkillRecords; notifierFor?: (skill: string) => NonNullable<ToolContext['notify']> } = {},
  ) {
    this.skills = skills.filter((skill) => skill.enabled !== false);
    this.disabledSkills = skills.filter((skill) => skill.enabled === false);
    for (const skill of this.skills) {
      for (const tool of skill.tools) {
        if (tool.name === LOAD_SKILL_TOOL_NAME) {
          throw new ConfigurationError(`Skill '${skill.name}' (${skill.directory}) declares the tool '${LOAD_SKILL_TOOL_NAME}', a name reserved for the service's built-in tool. Rename it.`);
        }
        const existing = this.tools.get(tool.name);
        if (existing) {
          throw new ConfigurationError(
            `Duplicate tool name '${tool.name}': declared by skill '${existing.skill.name}' (${existing.skill.directory}) and skill '${skill.name}' (${skill.directory}). Tool names must be unique across skills.`,
          );
        }
        this.tools.set(tool.name, registered(skill, tool));
      }
      for (const page of skill.pages ?? []) {
        const existing = this.pages.get(page.name);
        if (existing) {
          throw new ConfigurationError(
            `Duplicate page '${page.name}': declared by skill '${existing.skill.name}' (${existing.skill.directory}) and skill '${skill.name}' (${skill.directory}). Pages are served at /app/<name>, so their names must be unique across skills.`,
          );
        }
        this.pages.set(page.name, { skill, page });
      }
    }
    const builtin = builtinSkill(this);
    for (const tool of builtin.tools) this.tools.set(tool.name, registered(builtin, tool, true));
  }

  /**
   * A page of an enabled skill by name (served at /app/<name>), with its skill.
   * @example
   * registry.page('checks'); // { skill: { name: 'month_end_close', … }, page: { name: 'checks', title: 'Close board', framable: true } }
   */
  page(name: string): { skill: Skill; page: SkillPage } | undefined {
    return this.pages.get(name);
  }

  /** An enabled skill by name. */
  skill(name: string): Skill | undefined {
    return this.skills.find((skill) => skill.name === name);
  }

  /** Every tool, in skill order. */
  list(): RegisteredTool[] {
    return [...this.tools.values()];
  }

  get(name: string): RegisteredTool | undefined {
    return this.tools.get(name);
  }

  names(): string[] {
    return [...this.tools.keys()];
  }

  /**
   * Runs one tool call. `rawArguments` may be an object or a JSON string (as some providers send).
   * Never throws: unknown tools, malformed or invalid arguments and handler failures all
   * become `{ok: false, error}`. Unexpected errors are reported to `onUnexpectedError`, not to the caller.
   */
  async execute(name: string, rawArguments: unknown, context: ToolContext): Promise<ToolOutcome> {
    try {
      const registered = this.tools.get(name);
      if (!registered) throw this.unknownToolError(name);
      const input = parseArguments(rawArguments);
      const parsed = registered.tool.input.safeParse(input);
      if (!parsed.success) throw invalidArguments(name, parsed.error.issues.map((issue) => ({ path: pathText(issue.path) || '(arguments)', message: describeIssue(issue, registered) })), registered);
      // The tool's schema gave the precise limits; this ceiling covers schemas that forgot one.
      const oversized = oversizedArgument(input);
      if (oversized) throw invalidArguments(name, [{ path: oversized.path || '(arguments)', message: oversized.message }], registered);
      const result = await registered.tool.handler(parsed.data, this.contextFor(registered.skill.name, context));
      const presented = this.present(name, result, parsed.data);
      // Rows hold YYYYPPP codes: the chat needs the catalog's fiscal year to name their months; the sides' names are computed here, once.
      const presentation = presented && finishPresentation(presented, context.catalog?.fiscalYearStart ?? 1, result);
      return { ok: true, result, ...(presentation ? { presentation } : {}) };
    } catch (error) {
      if (ToolError.isInstance(error)) return { ok: false, error: error.toPayload().error };
      // A record changed under the tool (another call or instance wrote it first): nothing was written, and a new call reads it afresh.
      if (RecordConflictError.isInstance(error)) {
        return { ok: false, error: { code: 'conflict', message: error.message, hint: 'Call the tool again: it reads the record as it is now.', collection: error.collection, id: error.id, found: error.found ?? null } };
      }
      context.logger.error({ err: error, tool: name }, 'tool failed unexpectedly');
      return {
        ok: false,
        error: {
          code: 'internal_error',
          message: `The tool '${name}' failed unexpectedly.`,
          hint: 'Try again with different arguments or another tool; the error was logged for the operators.',
        },
      };
    }
  }

  /**
   * The context a skill's handler gets: its own records and notifier (the namespace is the
   * skill's name, never the caller's choice), and `callTool` for the same caller, a few calls deep.
   */
  private contextFor(skill: string, context: ToolContext, depth = (context as NestedContext)[CALL_DEPTH] ?? 0): ToolContext {
    const { records: _records, notify: _notify, callTool: _callTool, ...shared } = context;
    const records = this.options.recordsFor?.(skill);
    const notify = this.options.notifierFor?.(skill);
    const callTool = async (name: string, input: unknown): Promise<ToolCallResult> => {
      if (depth >= MAX_CALL_DEPTH) return { ok: false, error: { code: 'invalid_request', message: `A tool may call tools at most ${MAX_CALL_DEPTH} deep; '${name}' was not run.` } };
      const outcome = await this.execute(name, input, { ...shared, [CALL_DEPTH]: depth + 1 } as ToolContext);
      return outcome.ok ? { ok: true, result: outcome.result } : outcome;
    };
    return { ...shared, ...(records ? { records } : {}), ...(notify ? { notify } : {}), callTool, [CALL_DEPTH]: depth } as ToolContext;
  }

  /**
   * The tool's own one-line summary of a successful result; undefined when the tool has none
   * (or it failed: a summary must never break a run), so the caller falls back to a generic one.
   * @example
   * registry.summarize('count_rows', { source: 'fi', rows: 3 }) // 'fi: 3 rows'
   */
  summarize(name: string, result: unknown): string | undefined {
    const tool = this.tools.get(name)?.tool;
    if (!tool?.summarize) return undefined;
    try {
      const line = tool.summarize(result);
      // One line of bounded length, whatever a tool writes: the context window and the iteration-cap note rely on it.
      return typeof line === 'string' && line.trim() !== '' ? cut(line, MAX_SUMMARY_CHARS) : undefined;
    } catch {
      return undefined;
    }
  }

  /**
   * How the web chat shows a successful result, from the tool's `present` (`input`: the parsed
   * arguments); undefined when it has none or it failed on this result (the chat then shows the
   * result's first list of records). {@link execute} adds it to every successful outcome.
   * @example
   * registry.present('count_rows', { source: 'fi', rows: 3 }, { source: 'fi' }) // { views: [...] } or undefined
   */
  present(name: string, result: unknown, input: unknown): PresentationSpec | undefined {
    const tool = this.tools.get(name)?.tool;
    if (!tool?.present || result === null || typeof result !== 'object') return undefined;
    try {
      return tool.present(result, input);
    } catch {
      return undefined;
    }
  }

  /** The error for a tool name no skill declares, with the valid names and the closest one. */
  unknownToolError(name: string): ToolError {
    const choices = this.names();
    return new ToolError('unknown_tool', `There is no tool named '${truncateForDisplay(name)}'.`, {
      hint: suggestionHint(name, choices),
      details: { choices, closest: closestMatch(name, choices) ?? null },
    });
  }
}

/**
 * A tool with its JSON Schemas and model definition, each converted from zod on first use and
 * kept: converting every tool's at startup was a twentieth of a start, and a process that only
 * runs tools (a test, a dashboard's calls) may never need them.
 */
function registered(skill: Skill, tool: ToolDefinition, builtin?: true): RegisteredTool {
  const convert = <T>(kind: 'input' | 'output', toJson: (tool: ToolDefinition) => T) => {
    try {
      return toJson(tool);
    } catch (error) {
      throw new ConfigurationError(`Tool '${tool.name}': its ${kind} schema cannot be expressed as JSON Schema: ${(error as Error).message}`);
    }
  };
  let inputSchema: Record<string, unknown> | undefined;
  let outputSchema: Record<string, unknown> | undefined;
  let modelDefinition: ModelToolDefinition | undefined;
  return {
    skill,
    tool,
    ...(builtin ? { builtin } : {}),
    get inputSchema() {
      return (inputSchema ??= convert('input', inputJsonSchema));
    },
    get outputSchema() {
      return (outputSchema ??= convert('output', outputJsonSchema));
    },
    get modelDefinition() {
      return (modelDefinition ??= convert('input', modelToolDefinition));
    },
  };
}

function parseArguments(raw: unknown): unknown {
  if (raw === undefined || raw === null || raw === '') return {};
  if (typeof raw === 'string') {
    try {
      return JSON.parse(raw);
    } catch (error) {
      throw new ToolError('malformed_arguments', `The arguments are not valid JSON: ${(error as Error).message}.`, {
        hint: 'Send the arguments again as one complete JSON object.',
        details: { received: truncateForDisplay(raw, 501) },
      });
    }
  }
  return raw;
}

function invalidArguments(name: string, issues: { path: string; message: string }[], registered: RegisteredTool): ToolError {
  const properties = Object.keys((registered.inputSchema.properties as Record<string, unknown> | undefined) ?? {});
  const required = (registered.inputSchema.required as string[] | undefined) ?? [];
  return new ToolError('invalid_arguments', `Invalid arguments for '${name}': ${issues.map((i) => `${i.path}: ${i.message}`).join('; ')}`, {
    hint: `Arguments of '${name}': ${properties.map((p) => (required.includes(p) ? `${p} (required)` : p)).join(', ') || 'none'}.`,
    details: { issues },
  });
}

function describeIssue(issue: z.core.$ZodIssue, registered: RegisteredTool): string {
  if (issue.code === 'unrecognized_keys') {
    const known = Object.keys((registered.inputSchema.properties as Record<string, unknown> | undefined) ?? {});
    const parts = issue.keys.map((key) => {
      const closest = closestMatch(key, known);
      return `'${pathText([key])}' is not an argument${closest ? ` (did you mean '${closest}'?)` : ''}`;
    });
    return parts.join('; ');
  }
  // "Invalid key in record" alone does not say what is wrong with the key (e.g. its length).
  if (issue.code === 'invalid_key') return `invalid name: ${issue.issues.map((inner) => inner.message).join('; ')}`;
  // "Invalid input" for a union hides why: say what the form the caller chose got wrong (e.g. a length).
  if (issue.code === 'invalid_union') {
    const tried = issue.errors.filter((branch) => !branch.some((inner) => inner.code === 'invalid_type' && inner.path.length === 0));
    const chosen = tried.find((branch) => branch.some((inner) => inner.code === 'too_big')) ?? (tried.length === 1 ? tried[0] : undefined);
    if (chosen) return chosen.map((inner) => `${inner.path.length ? `${pathText(inner.path)}: ` : ''}${describeIssue(inner, registered)}`).join('; ');
  }
  return issue.message;
}
