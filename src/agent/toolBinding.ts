/**
 * Which tool definitions a model call carries: tools are bound on demand. A question starts
 * with the built-in tools and the tools skills declare `alwaysBound`; a skill's other tools are
 * bound from the call after the model loads the skill (`load_skill`) or calls one of its tools,
 * and stay bound for the rest of the conversation. What is bound is read from the messages the
 * model is sent, so a follow-up question keeps its skills without any state of its own.
 *
 * The order is stable so providers' prompt caches keep working: built-in tools, the always-bound
 * tools (skill order, then tool order), then each bound skill's tools in the order the skills
 * were first used. A newly bound skill only appends to the list.
 */
import { AIMessage, type BaseMessage } from '@langchain/core/messages';
import type { ModelToolDefinition } from '../skills/modelDefinition.ts';
import type { RegisteredTool, SkillRegistry } from '../skills/registry.ts';
import { LOAD_SKILL_TOOL_NAME } from '../skills/toolShape.ts';
import { estimateDefinitionTokens } from './tokenEstimate.ts';

/** The definitions of one model call and what they cost. */
export interface BoundTools {
  definitions: ModelToolDefinition[];
  /** Enabled skills whose tools are bound, in the order they were first used. */
  skills: string[];
  /** Estimated tokens of the definitions, measured like the messages (tokenEstimate.ts). */
  tokens: number;
}

/**
 * The skills the conversation has used, in the order first used: loaded with load_skill, or
 * one of their tools called (other than an always-bound one). Unknown names are ignored.
 * @example
 * usedSkills([new AIMessage({ content: '', tool_calls: [{ name: 'load_skill', args: { name: 'data_analyst' }, id: '1' }] })], registry) // ['data_analyst']
 */
export function usedSkills(messages: readonly BaseMessage[], registry: SkillRegistry): string[] {
  const used: string[] = [];
  const use = (name: unknown) => {
    if (typeof name === 'string' && registry.skill(name) && !used.includes(name)) used.push(name);
  };
  for (const message of messages) {
    if (!AIMessage.isInstance(message)) continue;
    for (const call of message.tool_calls ?? []) {
      if (call.name === LOAD_SKILL_TOOL_NAME) use((call.args as { name?: unknown } | undefined)?.name);
      // An always-bound tool is there anyway: calling it does not ask for the rest of its skill.
      else if (registryEntry(registry, call.name)?.tool.alwaysBound !== true) use(registryEntry(registry, call.name)?.skill.name);
    }
  }
  return used;
}

/**
 * The definitions to bind for a call whose messages are `messages` (history and this turn).
 * @example
 * const { definitions, tokens } = boundTools([...history, ...turn], registry);
 */
export function boundTools(messages: readonly BaseMessage[], registry: SkillRegistry): BoundTools {
  const skills = usedSkills(messages, registry);
  const all = registry.list().filter((entry) => !entry.tool.peopleOnly);
  const builtin = all.filter((entry) => entry.builtin);
  const always = all.filter((entry) => !entry.builtin && entry.tool.alwaysBound === true);
  const loaded = skills.flatMap((skill) => all.filter((entry) => !entry.builtin && entry.skill.name === skill && entry.tool.alwaysBound !== true));
  const definitions = [...builtin, ...always, ...loaded].map((entry) => entry.modelDefinition);
  return { definitions, skills, tokens: estimateDefinitionTokens(definitions) };
}

/**
 * Every definition (a model whose tools are fixed has all of them bound).
 * @example
 * allTools(registry).definitions.length // registry.names().length
 */
export function allTools(registry: SkillRegistry): BoundTools {
  const definitions = registry.list().filter((entry) => !entry.tool.peopleOnly).map((entry) => entry.modelDefinition);
  return { definitions, skills: registry.skills.map((skill) => skill.name), tokens: estimateDefinitionTokens(definitions) };
}

function registryEntry(registry: SkillRegistry, name: string): RegisteredTool | undefined {
  const entry = registry.get(name);
  return entry && !entry.builtin ? entry : undefined;
}
