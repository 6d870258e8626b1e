/**
 * The skills' knowledge files (`<skill folder>/knowledge/*.md`, the files the knowledge base
 * indexes) as MCP resources, one per file, addressed `analyst://knowledge/<skill>/<file>`.
 * Listed from the enabled skills at each request, so a skill reload shows at once; a read
 * only serves a URI the listing holds, so no URI can reach any other file. For a key with a
 * data scope, text naming hidden data (values, their names, hidden sources) is left out, as the
 * knowledge search leaves out such passages: a sentence that names it, a file whose name does.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { firstHeading, knowledgeFiles } from '../knowledge/knowledgeBase.ts';
import { mentionsAny, withoutMentions } from '../scopes/scopedCatalog.ts';
import type { Skill } from '../skills/loader.ts';

/** The scheme and authority of every knowledge URI. */
const KNOWLEDGE_URI_PREFIX = 'analyst://knowledge/';
const MARKDOWN = 'text/markdown';

/** One knowledge file as an MCP resource. */
export interface KnowledgeResource {
  uri: string;
  /** `<skill>/<file>`, e.g. `data_analyst/currency.md`. */
  name: string;
  /** The file's first heading, or its name. */
  title: string;
  description: string;
  mimeType: string;
  /** Where it is read from; never sent to clients. */
  absolutePath: string;
}

/**
 * Every knowledge file of the skills, by skill then file name (the knowledge base's order),
 * without the files whose name mentions one of `hiddenTerms`.
 * @example
 * knowledgeResources(registry.skills)[0]?.uri // 'analyst://knowledge/data_analyst/consolidation.md'
 */
export function knowledgeResources(skills: readonly Pick<Skill, 'name' | 'directory'>[], hiddenTerms: readonly string[] = []): KnowledgeResource[] {
  const resources: KnowledgeResource[] = [];
  for (const skill of [...skills].sort((a, b) => a.name.localeCompare(b.name))) {
    for (const { absolute: absolutePath, cited } of knowledgeFiles(skill)) {
      const file = path.basename(absolutePath);
      if (mentionsAny(file, hiddenTerms)) continue;
      resources.push({
        uri: `${KNOWLEDGE_URI_PREFIX}${encodeURIComponent(skill.name)}/${encodeURIComponent(file)}`,
        name: `${skill.name}/${file}`,
        title: withoutMentions(firstHeading(readFileSync(absolutePath, 'utf8')) ?? '', hiddenTerms) || file,
        description: `Knowledge of the skill ${skill.name}, cited in answers as ${cited}.`,
        mimeType: MARKDOWN,
        absolutePath,
      });
    }
  }
  return resources;
}

/**
 * The text of the knowledge file at `uri` without the sentences naming `hiddenTerms`;
 * undefined when no enabled skill offers that URI (to this caller).
 * @example
 * readKnowledgeResource(registry.skills, 'analyst://knowledge/data_analyst/currency.md')?.text
 */
export function readKnowledgeResource(skills: readonly Pick<Skill, 'name' | 'directory'>[], uri: string, hiddenTerms: readonly string[] = []): { resource: KnowledgeResource; text: string } | undefined {
  if (!uri.startsWith(KNOWLEDGE_URI_PREFIX)) return undefined;
  // Looked up among the listed files, never joined into a path: '..' or another folder cannot be named.
  const resource = knowledgeResources(skills, hiddenTerms).find((candidate) => candidate.uri === uri);
  return resource ? { resource, text: withoutMentions(readFileSync(resource.absolutePath, 'utf8'), hiddenTerms) } : undefined;
}
