/**
 * `npm run skill:check`: validates every skill folder and reports each problem with its file
 * and line — SKILL.md frontmatter and instructions, the tools' names, descriptions, input and
 * output schemas, tool names declared twice (across skills too), that every tool has a test, and
 * the knowledge files' front matter (src/knowledge/checkKnowledge.ts).
 * It warns (without failing) when a tool's definition as the model is sent it is over
 * TOOL_DEFINITION_TOKEN_BUDGET: every bound definition goes with every model call.
 * What startup also checks (SKILL.md, the tools' shape, the question forms) is the loader's own
 * code (checkManifest, skillModuleProblems), so the two never disagree. It also refuses the
 * placeholder description `npm run skill:new` writes, and any import that leaves the skill's
 * folder for anything but the skill SDK, src/skills/api.ts (skillImports.ts): a skill is one folder.
 *
 * The test rule: a tool is tested when its name appears as a quoted string ('name', "name",
 * `name`) or in a `/tools/name` path in a `*.test.ts` file inside the skill's folder (for
 * example `skills/<skill>/test/`) or anywhere under the project's `test/` folder.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { Catalog } from '../catalog/catalog.ts';
import { projectRoot } from '../config/config.ts';
import { checkKnowledge } from '../knowledge/checkKnowledge.ts';
import type { SkillModule, ToolDefinition } from './api.ts';
import { checkManifest, importSkillModule, skillFolders, skillModuleProblems } from './loader.ts';
import type { SkillProblem } from './manifest.ts';
import { definitionTokens, modelToolDefinition } from './modelDefinition.ts';
import { isScaffoldDescription } from './scaffold.ts';
import { errorLocation, lineMatching, locateTool, mentionsTool, sourceFiles, testFiles } from './skillFiles.ts';
import { importProblems } from './skillImports.ts';
import { inputJsonSchema, LOAD_SKILL_TOOL_NAME, outputJsonSchema } from './toolShape.ts';

export type { SkillProblem };

/** OpenAI refuses function descriptions longer than this. */
export const MAX_TOOL_DESCRIPTION_CHARS = 1024;

/**
 * Most tokens (characters / 4) one tool's definition should take as the model is sent it: name,
 * description and compact input schema (modelDefinition.ts). Over it, skill:check warns.
 */
export const TOOL_DEFINITION_TOKEN_BUDGET = 250;

export interface CheckOptions {
  /** Folders whose `*.test.ts` files count as tests of any skill; default `<project>/test`. */
  testDirectories?: readonly string[];
  /** Import the skills' modules afresh (when checking again in one process). */
  fresh?: boolean;
  /** The catalog the knowledge files' front matter must name sources and dimensions of; without it, only their shape is checked. */
  catalog?: Catalog;
}

export interface CheckedSkill {
  name: string;
  directory: string;
  enabled: boolean;
  tools: string[];
}

export interface CheckReport {
  skills: CheckedSkill[];
  problems: SkillProblem[];
  /** What should be fixed but does not fail the check (a tool definition over its token budget). */
  warnings: SkillProblem[];
}

/** A tool or page a skill declares, and where. */
interface Declaration {
  skill: string;
  name: string;
  file: string;
  line: number;
  /** Whether its skill is enabled (startup loads only those; a clash with a disabled one is a warning). */
  enabled?: boolean;
}

/** Checks every skill folder of `directory`; never throws for a broken skill. */
export async function checkSkills(directory: string, options: CheckOptions = {}): Promise<CheckReport> {
  const problems: SkillProblem[] = [];
  let folders: string[];
  try {
    folders = skillFolders(directory);
  } catch (error) {
    return { skills: [], problems: [{ file: directory, line: 1, message: (error as Error).message }], warnings: [] };
  }
  const testDirectories = options.testDirectories ?? [path.join(projectRoot, 'test')];
  const sharedTests = testFiles(testDirectories);
  const skills: CheckedSkill[] = [];
  const declared: Declaration[] = [];
  const pages: Declaration[] = [];
  const warnings: SkillProblem[] = [];
  for (const folder of folders) {
    const skillDirectory = path.join(directory, folder);
    const result = await checkSkill(skillDirectory, options.fresh ?? false);
    problems.push(...byFileAndLine(result.problems), ...checkKnowledge(skillDirectory, options.catalog));
    warnings.push(...result.warnings);
    skills.push({ name: folder, directory: skillDirectory, enabled: result.enabled, tools: result.tools.map((t) => t.name) });
    declared.push(...result.tools.map((tool) => ({ ...tool, enabled: result.enabled })));
    pages.push(...(result.pages ?? []).map((page) => ({ ...page, enabled: result.enabled })));
    const tests = [...testFiles([skillDirectory]), ...sharedTests];
    for (const tool of result.tools) {
      if (!tests.some((test) => mentionsTool(test.text, tool.name))) {
        problems.push({
          file: tool.file,
          line: tool.line,
          message: `tool '${tool.name}' has no test: no *.test.ts in ${[skillDirectory, ...testDirectories].map((d) => `${display(d)}/`).join(' or ')} mentions '${tool.name}'`,
        });
      }
    }
  }
  // The same name in two places: each declaration is reported, pointing at the others.
  const tools = sharedNames(declared, (name, others) => `tool name '${name}' is also declared by ${others}; tool names must be unique across skills`);
  // Pages are served at /app/<name> (a name twice within one skill is pageProblems' to report).
  const pageNames = sharedNames(pages, (name, others) => `page name '${name}' is also declared by ${others}; pages are served at /app/<name>, so their names must be unique across skills`);
  problems.push(...tools.problems, ...pageNames.problems);
  warnings.push(...tools.warnings, ...pageNames.warnings);
  return { skills, problems: dedupe(problems), warnings };
}

/**
 * A message at each declaration whose name another declaration also has, naming the others'
 * skills and places. A problem when startup would refuse it: the declaration's skill is enabled
 * and another enabled skill declares the name, or its own skill declares it twice (that skill
 * could never load). Otherwise a warning: the clash is with a disabled skill, which startup skips.
 */
function sharedNames(declarations: readonly Declaration[], message: (name: string, others: string) => string): { problems: SkillProblem[]; warnings: SkillProblem[] } {
  const byName = new Map<string, Declaration[]>();
  for (const declaration of declarations) byName.set(declaration.name, [...(byName.get(declaration.name) ?? []), declaration]);
  const problems: SkillProblem[] = [];
  const warnings: SkillProblem[] = [];
  const enabled = (declaration: Declaration) => declaration.enabled !== false;
  for (const same of byName.values()) {
    if (same.length < 2) continue;
    for (const declaration of same) {
      const others = same.filter((other) => other !== declaration);
      const listed = others.map((other) => `skill '${other.skill}'${enabled(other) ? '' : ' (disabled)'} (${display(other.file)}:${other.line})`).join(', ');
      const found = { file: declaration.file, line: declaration.line, message: message(declaration.name, listed) };
      const refused = others.some((other) => other.skill === declaration.skill) || (enabled(declaration) && others.some(enabled));
      if (refused) problems.push(found);
      else {
        const disabled = [...new Set(same.filter((other) => !enabled(other)).map((other) => `'${other.skill}'`))];
        // With no enabled skill among them, one alone enables fine: two together would not.
        const consequence = !same.some(enabled) ? 'enabling two of them would fail startup' : disabled.length > 1 ? 'enabling any of them would fail startup' : 'enabling it would fail startup';
        const skipped = disabled.length > 1 ? `skills ${disabled.join(', ')} are disabled, so startup skips them` : `skill ${disabled[0]} is disabled, so startup skips it`;
        warnings.push({ ...found, message: `${found.message}; ${skipped}: ${consequence}` });
      }
    }
  }
  return { problems, warnings };
}

async function checkSkill(directory: string, fresh: boolean): Promise<{ problems: SkillProblem[]; warnings: SkillProblem[]; tools: Declaration[]; pages?: Declaration[]; enabled: boolean }> {
  const folder = path.basename(directory);
  const problems: SkillProblem[] = [];
  const warnings: SkillProblem[] = [];
  const manifestPath = path.join(directory, 'SKILL.md');
  // The loader's own checks first (the same code startup runs), then what only skill:check adds.
  const { parsed, problems: manifestProblems } = checkManifest(directory);
  problems.push(...manifestProblems);
  let enabled = parsed?.ok ? parsed.manifest.enabled : (parsed?.partial.enabled ?? true);
  if (parsed?.ok) {
    if (parsed.instructions.length === 0) {
      problems.push({ file: manifestPath, line: parsed.bodyLine, message: 'SKILL.md has no instructions after the frontmatter: write what the model must know to use the tools (load_skill returns it)' });
    }
    if (isScaffoldDescription(parsed.manifest.description)) {
      problems.push({
        file: manifestPath,
        line: parsed.keyLines.description ?? 1,
        message: `frontmatter 'description' is still the placeholder 'npm run skill:new' wrote: say in one line what ${folder} does (it is the skill's line in the system prompt)`,
      });
    }
  }
  if (!/^[a-z][a-z0-9_]*$/.test(folder)) {
    problems.push({ file: manifestPath, line: 1, message: `folder name '${folder}' must be snake_case (it is the skill's name)` });
  }

  // Imports of src/ internals or of another skill: what breaks a skill when the service changes.
  problems.push(...importProblems(directory));

  const modulePath = path.join(directory, 'index.ts');
  if (!existsSync(modulePath)) {
    problems.push({ file: modulePath, line: 1, message: 'index.ts is missing: it must default-export defineSkill({ tools: [...] })' });
    return { problems, warnings, tools: [], enabled };
  }
  let module: { default?: SkillModule };
  try {
    module = (await importSkillModule(modulePath, fresh)) as { default?: SkillModule };
  } catch (error) {
    const where = errorLocation(error, directory) ?? { file: modulePath, line: 1 };
    problems.push({ ...where, message: `failed to load: ${loadFailure(error)}` });
    return { problems, warnings, tools: [], enabled };
  }
  const exportLine = lineMatching(modulePath, /export\s+default/) ?? 1;
  const moduleProblems = skillModuleProblems(module, directory);
  const tools = module.default?.tools;
  if (!Array.isArray(tools) || tools.length === 0) {
    problems.push(...moduleProblems.map((p) => ({ file: modulePath, line: exportLine, message: p.message })));
    return { problems, warnings, tools: [], enabled };
  }
  const sources = sourceFiles(directory);
  const declared: Declaration[] = [];
  const seen: string[] = [];
  tools.forEach((tool: unknown, index) => {
    const name = typeof (tool as { name?: unknown } | null)?.name === 'string' ? (tool as { name: string }).name : undefined;
    const occurrence = name !== undefined ? seen.filter((other) => other === name).length : 0;
    if (name !== undefined) seen.push(name);
    const where = (name !== undefined ? locateTool(sources, name, occurrence) : undefined) ?? { file: modulePath, line: exportLine };
    const label = name !== undefined ? `tool '${name}'` : `tools[${index}]`;
    const shape = moduleProblems.filter((p) => p.tool?.index === index).map((p) => p.message);
    for (const message of shape) problems.push({ ...where, message: `${label}: ${message}` });
    if (shape.length > 0) {
      if (name !== undefined) declared.push({ skill: folder, name, ...where });
      return;
    }
    const definition = tool as ToolDefinition;
    problems.push(...definitionProblems(definition).map((message) => ({ ...where, message: `${label}: ${message}` })));
    const size = definitionSize(definition);
    if (size !== undefined && size > TOOL_DEFINITION_TOKEN_BUDGET) {
      warnings.push({
        ...where,
        message: `${label}: its definition takes ${size} tokens, over the budget of ${TOOL_DEFINITION_TOKEN_BUDGET} (it is sent on every model call while bound): say in a sentence or two what it answers and when to use it, and move details and examples to SKILL.md`,
      });
    }
    declared.push({ skill: folder, name: definition.name, ...where });
  });
  for (const problem of moduleProblems) {
    if (problem.question !== undefined) problems.push({ file: modulePath, line: exportLine, message: `questions[${problem.question}]: ${problem.message}` });
    // The export's own problems (schedules, pages), as startup reports them.
    else if (problem.tool === undefined) problems.push({ file: modulePath, line: exportLine, message: problem.message });
  }
  const declaredPages = Array.isArray(module.default?.pages) ? module.default.pages : [];
  const pages = [...new Set(declaredPages.map((page) => page?.name).filter((name): name is string => typeof name === 'string'))].map((name) => ({ skill: folder, name, file: modulePath, line: exportLine }));
  return { problems, warnings, tools: declared, pages, enabled };
}

/** Tokens of the definition the model is sent (undefined when its schema cannot be expressed: a problem already). */
function definitionSize(tool: ToolDefinition): number | undefined {
  try {
    return definitionTokens(modelToolDefinition(tool));
  } catch {
    return undefined;
  }
}

/** Problems beyond the shape the loader requires: description length, JSON Schema of the input and output. */
function definitionProblems(tool: ToolDefinition): string[] {
  const problems: string[] = [];
  if (tool.description.length > MAX_TOOL_DESCRIPTION_CHARS) {
    problems.push(`description is ${tool.description.length} characters; models accept at most ${MAX_TOOL_DESCRIPTION_CHARS} (move details to SKILL.md)`);
  }
  try {
    const schema = inputJsonSchema(tool);
    if (schema.type !== 'object') problems.push(`input must be an object schema (z.strictObject({ ... })): models send tool arguments as a JSON object, got ${JSON.stringify(schema.type ?? Object.keys(schema))}`);
  } catch (error) {
    problems.push(`input cannot be expressed as JSON Schema: ${firstLine((error as Error).message)}`);
  }
  try {
    outputJsonSchema(tool);
  } catch (error) {
    problems.push(`output cannot be expressed as JSON Schema (GET /skills publishes it): ${firstLine((error as Error).message)}`);
  }
  if (tool.name === LOAD_SKILL_TOOL_NAME) problems.push(`'${LOAD_SKILL_TOOL_NAME}' is the service's built-in tool`);
  return problems;
}

/** The useful line of an import failure: esbuild's "ERROR: …" line, else the message's first line. */
function loadFailure(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const esbuild = /ERROR:\s*(.+)/.exec(message);
  return esbuild?.[1]?.trim() ?? firstLine(message);
}

/** Problems grouped by file (in the order files first appear), by line within a file. */
function byFileAndLine(problems: readonly SkillProblem[]): SkillProblem[] {
  const files = [...new Set(problems.map((p) => p.file))];
  return problems
    .map((problem, index) => ({ problem, index }))
    .sort((a, b) => files.indexOf(a.problem.file) - files.indexOf(b.problem.file) || a.problem.line - b.problem.line || a.index - b.index)
    .map(({ problem }) => problem);
}

function firstLine(text: string): string {
  return text.split('\n').find((line) => line.trim() !== '')?.trim() ?? text;
}

function dedupe(problems: SkillProblem[]): SkillProblem[] {
  const seen = new Set<string>();
  return problems.filter((p) => {
    const key = `${p.file}:${p.line}:${p.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** A path as the user reads it: relative to the current directory when inside it. */
export function display(file: string): string {
  const relative = path.relative(process.cwd(), file);
  return relative && !relative.startsWith('..') && !path.isAbsolute(relative) ? relative.split(path.sep).join('/') : file;
}

/** `file:line: message` lines, one per problem. */
export function formatProblems(problems: readonly SkillProblem[]): string[] {
  return problems.map((p) => `${display(p.file)}:${p.line}: ${p.message}`);
}
