/**
 * The built-in `load_skill` tool. The system prompt lists each skill in one line; before using
 * a skill's tools the model calls `load_skill({name})` and gets the skill's instructions (the
 * SKILL.md body) and its tools' descriptions, and the agent binds the skill's tools from the next
 * call on (src/agent/toolBinding.ts). So neither the prompt nor the tool definitions grow with every skill.
 * For a scoped key, sentences naming data outside its scope are left out (ToolContext.hiddenTerms).
 */
import { z } from 'zod';
import { withoutMentions } from '../scopes/hiddenWords.ts';
import { closestMatch, suggestionHint } from '../shared/closestMatch.ts';
import { nameArgument } from '../shared/inputLimits.ts';
import { ToolError } from '../errors/index.ts';
import { defineTool, type ToolDefinition } from './sdk/tools.ts';
import type { Skill } from './loader.ts';
import { LOAD_SKILL_TOOL_NAME } from './toolShape.ts';

/** What `load_skill` reads: the registry's enabled and disabled skills. */
export interface SkillSource {
  readonly skills: readonly Skill[];
  readonly disabledSkills: readonly Skill[];
}

/** The result of `load_skill`. */
export interface LoadedSkill {
  skill: string;
  version: string;
  description: string;
  instructions: string;
  tools: { name: string; description: string }[];
}

export function loadSkillTool(source: SkillSource): ToolDefinition {
  return defineTool({
    name: LOAD_SKILL_TOOL_NAME,
    description: "Make a skill's tools available and get its instructions. Call it once per conversation, before you first use the skill.",
    input: z.strictObject({
      name: nameArgument().describe('a skill listed in the system prompt'),
    }),
    output: z.object({
      skill: z.string(),
      version: z.string(),
      description: z.string(),
      instructions: z.string(),
      tools: z.array(z.object({ name: z.string(), description: z.string() })),
    }),
    handler: ({ name }, context): LoadedSkill => {
      const skill = source.skills.find((candidate) => candidate.name === name);
      if (!skill) throw unknownSkill(name, source);
      // A scoped key reads no sentence naming data outside its scope, as in MCP prompts and knowledge.
      const shown = (text: string) => withoutMentions(text, context.hiddenTerms ?? []);
      return {
        skill: skill.name,
        version: skill.version,
        description: shown(skill.description),
        instructions: shown(skill.instructions),
        tools: skill.tools.map((tool) => ({ name: tool.name, description: shown(tool.description) })),
      };
    },
    summarize: (result) => `${LOAD_SKILL_TOOL_NAME} ${result.skill}: instructions loaded (${result.tools.map((tool) => tool.name).join(', ')}).`,
  });
}

function unknownSkill(name: string, source: SkillSource): ToolError {
  const choices = source.skills.map((skill) => skill.name);
  if (source.disabledSkills.some((skill) => skill.name === name)) {
    return new ToolError('invalid_value', `The skill '${name}' is disabled on this service.`, {
      hint: `Answer with the enabled skills: ${choices.join(', ') || 'none'}.`,
      details: { choices },
    });
  }
  return new ToolError('invalid_value', `There is no skill named '${name}'.`, {
    hint: suggestionHint(name, choices),
    details: { choices, closest: closestMatch(name, choices) ?? null },
  });
}

/** The pseudo-skill holding the built-in tools; it is not listed among the skills. */
export function builtinSkill(source: SkillSource): Skill {
  return {
    name: 'builtin',
    description: "Tools of the service itself: load_skill returns a skill's instructions on demand.",
    version: '1.0.0',
    tags: [],
    enabled: true,
    instructions: '',
    directory: '(built into the service: src/skills/loadSkillTool.ts)',
    tools: [loadSkillTool(source)],
  };
}
