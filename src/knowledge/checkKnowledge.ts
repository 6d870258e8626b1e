/**
 * `npm run skill:check`'s look at a skill's knowledge files: each one's front matter must parse
 * and name only sections the file has (as at startup), and, given the catalog, only sources and
 * dimensions it declares. A misspelt name is safe at run time (it counts as hidden, so every
 * scoped key loses the passage) but silently so; the check says where.
 */
import { readFileSync } from 'node:fs';
import type { Catalog } from '../catalog/catalog.ts';
import type { KnowledgeConcerns } from '../skills/sdk/tools.ts';
import type { SkillProblem } from '../skills/manifest.ts';
import { readFrontMatter } from './frontMatter.ts';
import { knowledgeFiles } from './knowledgeBase.ts';
import { splitMarkdown } from './passages.ts';

/**
 * Problems of the knowledge files of the skill in `directory`, each at line 1 of its file.
 * @example
 * checkKnowledge('skills/data_analyst', catalog) // [{ file: '…/sources.md', line: 1, message: "front matter names source 'bpc' …" }]
 */
export function checkKnowledge(directory: string, catalog?: Catalog): SkillProblem[] {
  const problems: SkillProblem[] = [];
  for (const { absolute, cited } of knowledgeFiles({ name: 'check', directory })) {
    const problem = (message: string) => problems.push({ file: absolute, line: 1, message });
    try {
      const text = readFileSync(absolute, 'utf8').replace(/\r\n?/g, '\n');
      splitMarkdown(text, { skill: 'check', file: cited });
      if (!catalog) continue;
      const { frontMatter } = readFrontMatter(text, cited);
      for (const concerns of [frontMatter.concerns, ...Object.values(frontMatter.sections)]) unknownNames(concerns, catalog).forEach(problem);
    } catch (error) {
      problem((error as Error).message);
    }
  }
  return problems;
}

function unknownNames(concerns: KnowledgeConcerns, catalog: Catalog): string[] {
  const sources = [...catalog.sources.keys()];
  const dimensions = new Set([...catalog.sources.values()].flatMap((source) => [...source.dimensions.keys(), ...Object.keys(source.implied)]));
  return [
    ...(concerns.sources ?? []).filter((name) => !catalog.sources.has(name)).map((name) => `front matter names source '${name}', which is not in the catalog (sources: ${sources.join(', ')})`),
    ...Object.keys(concerns.values ?? {}).filter((name) => !dimensions.has(name)).map((name) => `front matter names dimension '${name}', which no source of the catalog has`),
  ];
}
