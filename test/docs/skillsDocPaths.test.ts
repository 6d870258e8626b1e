/**
 * docs/skills.md is what an engineer adding a skill reads: every file it names must exist, so a
 * refactor that moves one fails here instead of leaving the guide pointing at nothing.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../../src/config/config.ts';

describe('docs/skills.md', () => {
  it('names only files that exist', () => {
    const text = readFileSync(path.join(projectRoot, 'docs/skills.md'), 'utf8');
    // Paths as the guide writes them: `src/skills/api.ts`, skills/data_analyst/questions.ts, …
    const named = [...new Set([...text.matchAll(/\b((?:src|skills|test|web|data|scripts|docs|bench)\/[\w./-]*\.(?:ts|js|md|yaml|json))\b/g)].map((match) => match[1]!))];
    // A new skill's own files are examples of what skill:new writes, not files of this repository.
    const examples = named.filter((file) => /^skills\/(cash_flow|my_skill|top_accounts|<)/.test(file));
    const missing = named.filter((file) => !examples.includes(file) && !existsSync(path.join(projectRoot, file)));
    expect(named.length).toBeGreaterThan(10);
    expect(missing).toEqual([]);
  });
});
