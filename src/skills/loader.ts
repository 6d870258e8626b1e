/**
 * Discovers skills: every folder under the skills directory with a SKILL.md (frontmatter:
 * name, description, version; body: instructions for the model) and an index.ts whose
 * default export declares the tools. A broken skill stops startup with a precise message.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { ConfigurationError } from '../errors/index.ts';
import type { SkillModule, ToolDefinition } from './api.ts';

export interface Skill {
  name: string;
  description: string;
  version: string;
  /** The SKILL.md body: instructions added to the system prompt. */
  instructions: string;
  directory: string;
  tools: ToolDefinition[];
}

const frontmatterSchema = z.object({
  name: z.string().regex(/^[a-z][a-z0-9_]*$/, { error: 'must be snake_case' }),
  description: z.string().min(10, { error: 'must say in a sentence what the skill does' }),
  version: z.string().regex(/^\d+\.\d+\.\d+/, { error: "must be a version such as '1.0.0'" }),
});

const toolNamePattern = /^[a-z][a-z0-9_]{0,63}$/;

/**
 * Loads every skill folder in `directory`, sorted by name. Folders starting with '.' or '_' are ignored.
 * @throws ConfigurationError naming the file and the problem.
 */
export async function loadSkills(directory: string): Promise<Skill[]> {
  if (!existsSync(directory) || !statSync(directory).isDirectory()) {
    throw new ConfigurationError(`SKILLS_DIR: ${directory} is not a directory.`);
  }
  const folders = readdirSync(directory, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && !entry.name.startsWith('.') && !entry.name.startsWith('_'))
    .map((entry) => entry.name)
    .sort();
  const skills: Skill[] = [];
  for (const folder of folders) skills.push(await loadSkill(path.join(directory, folder)));
  return skills;
}

async function loadSkill(directory: string): Promise<Skill> {
  const folder = path.basename(directory);
  const manifestPath = path.join(directory, 'SKILL.md');
  if (!existsSync(manifestPath)) throw new ConfigurationError(`Skill ${directory}: SKILL.md is missing.`);
  const { frontmatter, body } = splitFrontmatter(readFileSync(manifestPath, 'utf8'), manifestPath);
  const parsed = frontmatterSchema.safeParse(frontmatter);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `  ${manifestPath}: frontmatter '${i.path.join('.')}': ${i.message}`);
    throw new ConfigurationError(`Skill ${folder} is invalid:\n${problems.join('\n')}`);
  }
  if (parsed.data.name !== folder) {
    throw new ConfigurationError(`Skill ${manifestPath}: frontmatter name '${parsed.data.name}' must equal the folder name '${folder}'.`);
  }
  const modulePath = path.join(directory, 'index.ts');
  if (!existsSync(modulePath)) throw new ConfigurationError(`Skill ${folder}: ${modulePath} is missing (it declares the tools).`);
  let module: { default?: SkillModule };
  try {
    module = (await import(pathToFileURL(modulePath).href)) as { default?: SkillModule };
  } catch (error) {
    throw new ConfigurationError(`Skill ${folder}: ${modulePath} failed to load: ${(error as Error).message}`);
  }
  const tools = module.default?.tools;
  if (!Array.isArray(tools) || tools.length === 0) {
    throw new ConfigurationError(`Skill ${folder}: ${modulePath} must default-export defineSkill({ tools: [...] }) with at least one tool.`);
  }
  tools.forEach((tool, index) => checkTool(tool, `${modulePath} tools[${index}]`));
  return { ...parsed.data, instructions: body.trim(), directory, tools };
}

function checkTool(tool: ToolDefinition, where: string): void {
  if (!tool || typeof tool.name !== 'string' || !toolNamePattern.test(tool.name)) {
    throw new ConfigurationError(`${where}: tool name ${JSON.stringify(tool?.name)} must be snake_case, at most 64 characters.`);
  }
  if (typeof tool.description !== 'string' || tool.description.trim().length < 10) {
    throw new ConfigurationError(`${where} (${tool.name}): description must tell the model what the tool does.`);
  }
  if (!tool.input || typeof (tool.input as { safeParse?: unknown }).safeParse !== 'function') {
    throw new ConfigurationError(`${where} (${tool.name}): input must be a zod schema.`);
  }
  if (typeof tool.handler !== 'function') throw new ConfigurationError(`${where} (${tool.name}): handler must be a function.`);
}

function splitFrontmatter(text: string, file: string): { frontmatter: unknown; body: string } {
  const match = /^---\r?\n([\s\S]*?)\r?\n---\r?\n?([\s\S]*)$/.exec(text);
  if (!match) throw new ConfigurationError(`Skill ${file}: must start with a '---' YAML frontmatter block (name, description, version).`);
  try {
    return { frontmatter: parseYaml(match[1] ?? ''), body: match[2] ?? '' };
  } catch (error) {
    throw new ConfigurationError(`Skill ${file}: frontmatter is not valid YAML: ${(error as Error).message.split('\n')[0]}`);
  }
}
