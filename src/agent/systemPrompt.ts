/**
 * The system prompt: base rules plus one line per enabled skill (the skills' instructions come on
 * demand from `load_skill`, which also binds the skill's tools). It depends only on the enabled
 * skills, so it is the same for every call. Apart from the rest of the agent because it is built
 * at start, and the agent (with LangChain) loads only with the first question.
 */
import type { Skill } from '../skills/loader.ts';

const basePrompt = `You are a data analyst assistant for finance teams. You answer questions by calling tools over governed data sources, and you explain the result plainly.
Rules: use tools for every figure; never invent numbers, names or values; state currencies and periods; when a tool returns an error, use its hint and choices to correct the call; if the data cannot answer the question, say so and say what you can answer.`;

export interface SystemPromptOptions {
  /**
   * 'on_demand' (default): one line per skill (name, description, tools); the model calls
   * `load_skill` for a skill's instructions, so the prompt grows by a line per skill.
   * 'inline': every skill's full instructions in the prompt (the former prompt, kept to measure).
   */
  instructions?: 'on_demand' | 'inline';
}

/** The system prompt: base rules, then the enabled skills. */
export function buildSystemPrompt(skills: readonly Skill[], options: SystemPromptOptions = {}): string {
  const enabled = skills.filter((skill) => skill.enabled !== false);
  if (options.instructions === 'inline') {
    const sections = enabled.map((skill) => `## Skill: ${skill.name} (v${skill.version})\n${skill.description}\n\n${skill.instructions}`);
    return [basePrompt, ...sections].join('\n\n');
  }
  const lines = enabled.map((skill) => `- ${skill.name}: ${sentence(skill.description)} Tools: ${skill.tools.filter((tool) => !tool.peopleOnly).map((tool) => tool.name).join(', ')}.`);
  return `${basePrompt}

## Skills
A skill's tools are available once you call load_skill with its name; do so before you first use them, and follow the instructions it returns (load it again if they are no longer in the conversation).
${lines.join('\n') || '(no skills are enabled)'}`;
}

/** A description as one sentence on one line. */
function sentence(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return /[.!?]$/.test(line) ? line : `${line}.`;
}
