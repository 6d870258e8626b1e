/**
 * A new skill's questions are answered by the offline model with no change to the core: a
 * skill folder that declares a tool and a question form is loaded, its intent words join the
 * vocabulary, and POST /chat answers through its tool.
 */
import { rmSync, writeFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import supertest from 'supertest';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig, projectRoot } from '../../../src/config/config.ts';
import { silentLogger } from '../../../src/logging/logger.ts';
import { createService } from '../../../src/service.ts';
import { temporarySkillsDirectory } from '../../../src/skills/testing.ts';

const skills = temporarySkillsDirectory('skill-forms-');
afterAll(() => rmSync(path.dirname(skills), { recursive: true, force: true }));

describe('question forms of a new skill', () => {
  it('answers the new skill questions offline, through its own tool', async () => {
    const folder = path.join(skills, 'dimension_counter');
    mkdirSync(folder);
    writeFileSync(path.join(folder, 'SKILL.md'), '---\nname: dimension_counter\ndescription: Counts the dimensions of a source.\nversion: 0.1.0\n---\nUse count_dimensions to tell how many dimensions a source has.\n');
    const api = JSON.stringify(path.join(projectRoot, 'src/skills/api.ts'));
    writeFileSync(
      path.join(folder, 'index.ts'),
      `import { z } from 'zod';
import { defineQuestionForm, defineSkill, defineTool } from ${api};
const countDimensions = defineTool({
  name: 'count_dimensions',
  description: 'How many dimensions a source has.',
  input: z.strictObject({ source: z.string().max(100) }),
  handler: ({ source }, context) => ({ source, dimensions: context.catalog.sources.get(source)?.dimensions.size ?? 0 }),
});
const form = defineQuestionForm({
  name: 'count_dimensions',
  intents: { dimension_count: ['how many dimensions', 'number of dimensions'] },
  examples: ['How many dimensions does fi_reporting have?'],
  score: (q) => (q.intents.has('dimension_count') && q.sources.length === 1 ? 9 : 0),
  plan: (q, done) => done.length === 0
    ? { toolCalls: [{ name: 'count_dimensions', args: { source: q.sources[0] } }] }
    : { answer: \`\${done[0].result.source} has \${done[0].result.dimensions} dimensions.\` },
});
export default defineSkill({ tools: [countDimensions], questions: [form] });
`,
    );
    const service = await createService(loadConfig({ LOG_LEVEL: 'silent', SKILLS_DIR: skills, APP_DB: path.join(path.dirname(skills), 'app.db') } as NodeJS.ProcessEnv), silentLogger());
    try {
      const response = await supertest(service.app).post('/chat').send({ message: 'How many dimensions does fi_reporting have?' });
      expect(response.status).toBe(200);
      expect(response.body.tool_calls.map((c: { name: string }) => c.name)).toEqual(['count_dimensions']);
      expect(response.body.answer).toBe('fi_reporting has 12 dimensions.');
      const capabilities = await supertest(service.app).post('/chat').send({ message: 'what can you do?' });
      expect(capabilities.body.answer).toContain('How many dimensions does fi_reporting have?');
    } finally {
      await service.close();
    }
  });
});
