/**
 * Discovers skills: every folder under the skills directory with a SKILL.md (frontmatter:
 * name, description, version, tags, enabled; body: instructions for the model) and an index.ts
 * whose default export declares the tools. A broken skill stops startup with a message naming
 * the file and line. Disabled skills (`enabled: false`, or SKILLS_DISABLED) are listed but
 * their tools are not imported. See docs/skills.md.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { ConfigurationError } from '../errors/index.ts';
import { closestMatch } from '../shared/closestMatch.ts';
import type { SkillModule, ToolDefinition } from './sdk/tools.ts';
import type { QuestionForm } from './questionForms.ts';
import { parseManifest, type ManifestResult, type SkillProblem } from './manifest.ts';
import { toolShapeProblems } from './toolShape.ts';
import { pageProblems, type SkillPage } from './sdk/pages.ts';
import { scheduleProblems, type ScheduleDefinition } from './sdk/schedules.ts';

export interface Skill {
  name: string;
  description: string;
  version: string;
  /** Free-form labels from the frontmatter (default none). */
  tags?: string[];
  /** False when the skill is disabled; its tools are then not loaded. Absent means enabled. */
  enabled?: boolean;
  /** Why a disabled skill is disabled: its SKILL.md says `enabled: false`, or SKILLS_DISABLED names it. */
  disabledBy?: 'manifest' | 'config';
  /** The SKILL.md body: the instructions `load_skill` returns to the model. */
  instructions: string;
  directory: string;
  tools: ToolDefinition[];
  /** The question forms the offline model answers with this skill's tools. */
  questions?: QuestionForm[];
  /** Work the scheduler runs for this skill (sdk/schedules.ts). */
  schedules?: ScheduleDefinition[];
  /** Pages the skill serves from its web/ folder (sdk/pages.ts). */
  pages?: SkillPage[];
}

export interface LoadSkillsOptions {
  /** Skill names disabled by configuration (SKILLS_DISABLED); each must name a skill folder. */
  disabled?: readonly string[];
  /**
   * Import every module of the skills afresh instead of reusing the module cache, so edited
   * files (index.ts and whatever it imports) take effect: the development reload uses it.
   */
  fresh?: boolean;
}

/** Skill folders of `directory`, sorted; folders starting with '.' or '_' are ignored. */
export function skillFolders(directory: string): string[] {
  if (!existsSync(directory) || !statSync(directory).isDirectory()) {
    throw new ConfigurationError(`SKILLS_DIR: ${directory} is not a directory.`);
  }
  return readdirSync(directory, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && !entry.name.startsWith('.') && !entry.name.startsWith('_') && entry.name !== 'node_modules')
    .map((entry) => entry.name)
    .sort();
}

/**
 * Loads every skill folder in `directory`, sorted by name, disabled ones included (without tools).
 * @throws ConfigurationError naming the file, the line and the problem.
 */
export async function loadSkills(directory: string, options: LoadSkillsOptions = {}): Promise<Skill[]> {
  const folders = skillFolders(directory);
  const disabled = new Set(options.disabled ?? []);
  const unknown = [...disabled].filter((name) => !folders.includes(name));
  if (unknown.length > 0) {
    const suggestions = unknown.map((name) => closestMatch(name, folders)).filter((name): name is string => name !== undefined);
    throw new ConfigurationError(
      `SKILLS_DISABLED names ${unknown.length === 1 ? 'a skill that does not exist' : 'skills that do not exist'}: ${unknown.map((n) => `'${n}'`).join(', ')}.` +
        `${suggestions.length > 0 ? ` Did you mean ${suggestions.map((n) => `'${n}'`).join(', ')}?` : ''}` +
        ` The skills in ${directory} are: ${folders.join(', ') || '(none)'}.`,
    );
  }
  const skills: Skill[] = [];
  for (const folder of folders) {
    const skillDirectory = path.join(directory, folder);
    skills.push(disabled.has(folder) ? disabledByConfig(skillDirectory) : await loadSkill(skillDirectory, options.fresh ?? false));
  }
  return skills;
}

/** What {@link checkManifest} found: the problems, and the manifest when it parsed. */
export interface CheckedManifest {
  problems: SkillProblem[];
  parsed: ManifestResult | undefined;
}

/**
 * SKILL.md of a skill folder as startup judges it: present, well formed, its name the folder's.
 * The loader throws on the first problem; `npm run skill:check` reports them all.
 * @example
 * const { problems, parsed } = checkManifest('skills/data_analyst'); // problems: [] for a good skill
 */
export function checkManifest(directory: string): CheckedManifest {
  const folder = path.basename(directory);
  const manifestPath = path.join(directory, 'SKILL.md');
  if (!existsSync(manifestPath)) {
    return { parsed: undefined, problems: [{ file: manifestPath, line: 1, message: 'SKILL.md is missing: every skill folder needs one (frontmatter name, description, version; then the instructions)' }] };
  }
  const parsed = parseManifest(readFileSync(manifestPath, 'utf8'), manifestPath);
  if (!parsed.ok) return { parsed, problems: parsed.problems };
  if (parsed.manifest.name !== folder) {
    return { parsed, problems: [{ file: manifestPath, line: parsed.keyLines.name ?? 1, message: `frontmatter name '${parsed.manifest.name}' must equal the folder name '${folder}'` }] };
  }
  return { parsed, problems: [] };
}

/** One problem of a skill module's default export: about the export, a tool, or a question form. */
export interface ModuleProblem {
  message: string;
  /** The tool it is about (its index in `tools`, and its name when it has one). */
  tool?: { index: number; name: string | undefined };
  /** The question form it is about (its index in `questions`). */
  question?: number;
}

/**
 * The default export of a skill's index.ts as startup judges it: at least one tool, each of a
 * valid shape (toolShape.ts), well-formed question forms and schedules, and pages whose files are in
 * the skill's web/ folder (checked when `directory` is given). Shared with `npm run skill:check`.
 * @example
 * skillModuleProblems({ default: { tools: [] } }); // [{ message: 'must default-export defineSkill({ tools: [...] }) with at least one tool' }]
 */
export function skillModuleProblems(module: { default?: SkillModule } | undefined, directory?: string): ModuleProblem[] {
  const tools = module?.default?.tools;
  if (!Array.isArray(tools) || tools.length === 0) return [{ message: 'must default-export defineSkill({ tools: [...] }) with at least one tool' }];
  const problems: ModuleProblem[] = [];
  tools.forEach((tool: unknown, index) => {
    const name = typeof (tool as { name?: unknown } | null)?.name === 'string' ? (tool as { name: string }).name : undefined;
    for (const message of toolShapeProblems(tool)) problems.push({ message, tool: { index, name } });
  });
  const questions: unknown = module?.default?.questions ?? [];
  (Array.isArray(questions) ? questions : [questions]).forEach((form: unknown, index) => {
    const shape = form as Partial<QuestionForm> | null;
    if (!shape || typeof shape.name !== 'string' || typeof shape.score !== 'function' || typeof shape.plan !== 'function' || !Array.isArray(shape.examples)) {
      problems.push({ message: 'a question form needs a name, examples, score() and plan() (see defineQuestionForm)', question: index });
    }
  });
  for (const message of scheduleProblems(module?.default?.schedules)) problems.push({ message });
  for (const message of pageProblems(module?.default?.pages, directory)) problems.push({ message });
  return problems;
}

async function loadSkill(directory: string, fresh: boolean): Promise<Skill> {
  const folder = path.basename(directory);
  const manifestPath = path.join(directory, 'SKILL.md');
  const { parsed, problems } = checkManifest(directory);
  if (!parsed) throw new ConfigurationError(`Skill ${directory}: SKILL.md is missing.`);
  if (!parsed.ok) {
    throw new ConfigurationError(`Skill ${folder} is invalid:\n${problems.map((p) => `  ${p.file}:${p.line}: ${p.message}`).join('\n')}`);
  }
  if (problems.length > 0) throw new ConfigurationError(`Skill ${manifestPath}:${problems[0]!.line}: ${problems[0]!.message}.`);
  const { manifest, instructions } = parsed;
  const skill: Skill = {
    name: manifest.name,
    description: manifest.description,
    version: manifest.version,
    tags: manifest.tags,
    enabled: manifest.enabled,
    instructions,
    directory,
    tools: [],
  };
  if (!manifest.enabled) return { ...skill, disabledBy: 'manifest' };
  return { ...skill, ...(await importSkillParts(directory, fresh)) };
}

/** A skill SKILLS_DISABLED names: nothing is imported, and a broken SKILL.md does not stop startup. */
function disabledByConfig(directory: string): Skill {
  const folder = path.basename(directory);
  const manifestPath = path.join(directory, 'SKILL.md');
  const parsed = existsSync(manifestPath) ? parseManifest(readFileSync(manifestPath, 'utf8'), manifestPath) : undefined;
  const manifest = parsed?.ok ? parsed.manifest : (parsed?.partial ?? {});
  return {
    name: folder,
    description: manifest.description ?? '',
    version: manifest.version ?? '',
    tags: manifest.tags ?? [],
    enabled: false,
    disabledBy: 'config',
    instructions: parsed?.ok ? parsed.instructions : '',
    directory,
    tools: [],
  };
}

/** Imports `index.ts` and checks its default export: the tools and the offline question forms. */
async function importSkillParts(directory: string, fresh: boolean): Promise<Pick<Skill, 'tools' | 'questions' | 'schedules' | 'pages'>> {
  const folder = path.basename(directory);
  const modulePath = path.join(directory, 'index.ts');
  if (!existsSync(modulePath)) throw new ConfigurationError(`Skill ${folder}: ${modulePath} is missing (it declares the tools).`);
  let module: { default?: SkillModule };
  try {
    module = (await importSkillModule(modulePath, fresh)) as { default?: SkillModule };
  } catch (error) {
    throw new ConfigurationError(`Skill ${folder}: ${modulePath} failed to load: ${(error as Error).message}`);
  }
  const problems = skillModuleProblems(module, directory);
  const first = problems[0];
  if (first?.tool) {
    // All of the first broken tool's problems in one message.
    const { index, name } = first.tool;
    const messages = problems.filter((p) => p.tool?.index === index).map((p) => p.message);
    throw new ConfigurationError(`${modulePath} tools[${index}]${name !== undefined ? ` (${name})` : ''}: ${messages.join('; ')}.`);
  }
  if (first?.question !== undefined) throw new ConfigurationError(`${modulePath} questions[${first.question}]: ${first.message}.`);
  if (first) throw new ConfigurationError(`Skill ${folder}: ${modulePath} ${first.message}.`);
  const tools = module.default!.tools;
  const questions = module.default?.questions ?? [];
  return { tools, questions, schedules: module.default?.schedules ?? [], pages: module.default?.pages ?? [] };
}

let freshImports = 0;

/**
 * The skills built into the running service (scripts/launch.mjs: `npm start`, `npm run mcp`),
 * by the absolute path of their index.ts; undefined when the service runs as TypeScript.
 */
function builtSkills(): Map<string, () => Promise<unknown>> | undefined {
  return (globalThis as { [key: symbol]: { skills?: Map<string, () => Promise<unknown>> } | undefined })[Symbol.for('analyst-agent.build')]?.skills;
}

/**
 * Imports a skill module. A service started from its build (scripts/launch.mjs) takes the
 * skill from the build; a skill the build lacks is TypeScript that plain Node cannot import, so
 * it goes through tsx like a fresh import. `fresh` re-imports its whole module graph: tsx's
 * namespaced import gives every module a new `?namespace=` query, so files index.ts imports are
 * re-read too (a `?v=<n>` query on index.ts alone would reuse its imports from the cache).
 * Without tsx's API, falls back to the query string on index.ts.
 */
export async function importSkillModule(modulePath: string, fresh: boolean): Promise<unknown> {
  const url = pathToFileURL(modulePath).href;
  const built = builtSkills();
  if (!fresh && !built) return import(url);
  const fromBuild = fresh ? undefined : built?.get(path.resolve(modulePath));
  if (fromBuild) return fromBuild();
  freshImports += 1;
  let tsImport: ((specifier: string, parentURL: string) => Promise<unknown>) | undefined;
  try {
    ({ tsImport } = await import('tsx/esm/api'));
  } catch {
    tsImport = undefined;
  }
  if (tsImport) return tsImport(url, import.meta.url);
  return import(`${url}?v=${freshImports}`);
}
