/**
 * Tools bound on demand: which definitions each model call carries, read from the messages.
 */
import path from 'node:path';
import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from '@langchain/core/messages';
import { beforeAll, describe, expect, it } from 'vitest';
import { boundTools, usedSkills } from '../../src/agent/toolBinding.ts';
import { projectRoot } from '../../src/config/config.ts';
import { loadSkills } from '../../src/skills/loader.ts';
import { SkillRegistry } from '../../src/skills/registry.ts';

let registry: SkillRegistry;
beforeAll(async () => {
  registry = new SkillRegistry(await loadSkills(path.join(projectRoot, 'skills')));
});

let ids = 0;
/** An assistant message calling `name`, answered. */
const called = (name: string, args: Record<string, unknown> = {}): BaseMessage[] => {
  const id = `call_${(ids += 1)}`;
  return [new AIMessage({ content: '', tool_calls: [{ id, name, args, type: 'tool_call' }] }), new ToolMessage({ tool_call_id: id, name, content: '{}' })];
};
const names = (messages: BaseMessage[]) => boundTools(messages, registry).definitions.map((definition) => definition.function.name);
const toolsOf = (skill: string) => registry.skill(skill)!.tools.map((tool) => tool.name);

describe('tools bound on demand', () => {
  it('starts a question with load_skill and the always-bound tools only', () => {
    expect(names([new HumanMessage('Which sources can I ask about?')])).toEqual(['load_skill', 'list_sources']);
  });

  it("binds a skill's tools after load_skill, in the skill's order, and appends the next skill after it", () => {
    const loadedAnalyst = [new HumanMessage('q'), ...called('load_skill', { name: 'data_analyst' })];
    expect(names(loadedAnalyst)).toEqual(['load_skill', ...toolsOf('data_analyst')]);
    const thenQuality = [...loadedAnalyst, ...called('load_skill', { name: 'data_quality' })];
    expect(names(thenQuality)).toEqual(['load_skill', ...toolsOf('data_analyst'), ...toolsOf('data_quality')]);
    // The earlier definitions keep their place: a provider's cached prefix survives.
    expect(names(thenQuality).slice(0, names(loadedAnalyst).length)).toEqual(names(loadedAnalyst));
  });

  it('binds the skill of a tool the model called without loading it, but not for an always-bound tool', () => {
    expect(usedSkills([...called('find_duplicates', { source: 'fi_reporting' })], registry)).toEqual(['data_quality']);
    expect(usedSkills([...called('list_sources')], registry)).toEqual([]);
    expect(usedSkills([...called('drop_tables'), ...called('load_skill', { name: 'no_such_skill' }), ...called('load_skill', { name: 42 })], registry)).toEqual([]);
  });

  it('counts what the definitions cost, growing with each bound skill', () => {
    const start = boundTools([new HumanMessage('q')], registry);
    const loaded = boundTools(called('load_skill', { name: 'movement_analysis' }), registry);
    expect(start.tokens).toBeGreaterThan(0);
    expect(start.tokens).toBeLessThan(300);
    expect(loaded.tokens).toBeGreaterThan(start.tokens);
    expect(loaded.skills).toEqual(['movement_analysis']);
  });
});
