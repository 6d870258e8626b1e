/**
 * npx tsx scripts/skillPromptSize.ts
 * Measures the system prompt (estimated tokens, src/agent/tokenEstimate.ts) with the skills in
 * skills/ and with ten more skills scaffolded by skill:new into a temporary SKILLS_DIR, for the
 * on-demand prompt (one line per skill + load_skill) and the former one (all instructions inline).
 * Prints a Markdown table; the README's Skills section quotes it.
 */
import { rmSync } from 'node:fs';
import path from 'node:path';
import { SystemMessage } from '@langchain/core/messages';
import { buildSystemPrompt } from '../src/agent/turnPreparation.ts';
import { CHARS_PER_TOKEN, estimateTokens } from '../src/agent/tokenEstimate.ts';
import { projectRoot } from '../src/config/config.ts';
import { loadSkills, type Skill } from '../src/skills/loader.ts';
import { SkillRegistry } from '../src/skills/registry.ts';
import { scaffoldSkill } from '../src/skills/scaffold.ts';
import { temporarySkillsDirectory } from '../src/skills/testing.ts';

const promptTokens = (skills: readonly Skill[], instructions: 'on_demand' | 'inline') => estimateTokens([new SystemMessage(buildSystemPrompt(skills, { instructions }))]);
/** The tool definitions sent with every request (name, description, JSON Schema), estimated the same way. */
const toolTokens = (registry: SkillRegistry, withLoadSkill: boolean) =>
  Math.ceil(
    JSON.stringify(
      registry
        .list()
        .filter((entry) => withLoadSkill || !entry.builtin)
        .map((entry) => ({ type: 'function', function: { name: entry.tool.name, description: entry.tool.description, parameters: entry.inputSchema } })),
    ).length / CHARS_PER_TOKEN,
  );

const real = (await loadSkills(path.join(projectRoot, 'skills'))).filter((skill) => skill.enabled !== false);
const generatedDirectory = temporarySkillsDirectory('prompt-size-');
try {
  for (let index = 1; index <= 10; index += 1) scaffoldSkill({ name: `generated_${String(index).padStart(2, '0')}`, skillsDirectory: generatedDirectory });
  const generated = await loadSkills(generatedDirectory);
  const rows = [
    { label: `${real.length} real skills (${real.map((s) => s.name).join(', ')})`, skills: real },
    { label: `${real.length} real + 10 generated skills`, skills: [...real, ...generated] },
  ];
  const lines = [
    '| Skills | Tools | System prompt, on demand (now) | System prompt, all instructions inline (before) | Tool definitions per request |',
    '|---|---:|---:|---:|---:|',
  ];
  for (const row of rows) {
    const registry = new SkillRegistry(row.skills);
    lines.push(
      `| ${row.label} | ${registry.names().length - 1} + load_skill | ${promptTokens(row.skills, 'on_demand')} | ${promptTokens(row.skills, 'inline')} | ${toolTokens(registry, true)} (before: ${toolTokens(registry, false)}) |`,
    );
  }
  const none = promptTokens([], 'on_demand');
  const perSkill = (instructions: 'on_demand' | 'inline') => Math.round((promptTokens([...real, ...generated], instructions) - promptTokens(real, instructions)) / generated.length);
  process.stdout.write(
    `${lines.join('\n')}\n\nEach generated skill adds ${perSkill('on_demand')} tokens to the prompt on demand, ${perSkill('inline')} inline. ` +
      `Base prompt without skills: ${none} tokens. Estimated tokens (characters / ${CHARS_PER_TOKEN} + message overhead, src/agent/tokenEstimate.ts).\n`,
  );
} finally {
  rmSync(path.dirname(generatedDirectory), { recursive: true, force: true });
}
