/**
 * The skills' knowledge files (`<skill folder>/knowledge/*.md`, the files the knowledge base
 * indexes) as MCP resources, one per file, addressed `analyst://knowledge/<skill>/<file>`.
 * Listed from the enabled skills at each request, so a skill reload shows at once; a read
 * only serves a URI the listing holds, so no URI can reach any other file. A key with a data
 * scope reads by the knowledge search's rule (src/scopes/hiddenWords.ts): only the sections that
 * concern nothing hidden and name nothing hidden, of the files with any such section.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { firstHeading, knowledgeFiles } from '../knowledge/knowledgeBase.ts';
import { HEADING_SEPARATOR, splitMarkdown } from '../knowledge/passages.ts';
import { mentionsAny, showsPassage, type HiddenData } from '../scopes/hiddenWords.ts';
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
 * Every knowledge file of the skills, by skill then file name (the knowledge base's order); for
 * a scoped key (`hidden`), those with a section it may read and a name naming nothing hidden.
 * @example
 * knowledgeResources(registry.skills)[0]?.uri // 'analyst://knowledge/data_analyst/consolidation.md'
 */
export function knowledgeResources(skills: readonly Pick<Skill, 'name' | 'directory'>[], hidden?: HiddenData): KnowledgeResource[] {
  return listed(skills, hidden).map(({ resource }) => resource);
}

/**
 * The text of the knowledge file at `uri` (for a scoped key, its sections the key may read);
 * undefined when no enabled skill offers that URI (to this caller).
 * @example
 * readKnowledgeResource(registry.skills, 'analyst://knowledge/data_analyst/currency.md')?.text
 */
export function readKnowledgeResource(skills: readonly Pick<Skill, 'name' | 'directory'>[], uri: string, hidden?: HiddenData): { resource: KnowledgeResource; text: string } | undefined {
  if (!uri.startsWith(KNOWLEDGE_URI_PREFIX)) return undefined;
  // Looked up among the listed files, never joined into a path: '..' or another folder cannot be named.
  return listed(skills, hidden).find((candidate) => candidate.resource.uri === uri);
}

/** The files a caller may read, with the text it reads of each. */
function listed(skills: readonly Pick<Skill, 'name' | 'directory'>[], hidden: HiddenData | undefined): { resource: KnowledgeResource; text: string }[] {
  const files: { resource: KnowledgeResource; text: string }[] = [];
  for (const skill of [...skills].sort((a, b) => a.name.localeCompare(b.name))) {
    for (const { absolute: absolutePath, cited } of knowledgeFiles(skill)) {
      const file = path.basename(absolutePath);
      const raw = readFileSync(absolutePath, 'utf8');
      const text = hidden ? visibleSections(raw, skill.name, cited, hidden) : raw;
      if (hidden && (!text || mentionsAny(file, hidden.terms))) continue;
      const title = firstHeading(raw) ?? '';
      const resource = {
        uri: `${KNOWLEDGE_URI_PREFIX}${encodeURIComponent(skill.name)}/${encodeURIComponent(file)}`,
        name: `${skill.name}/${file}`,
        title: hidden && mentionsAny(title, hidden.terms) ? file : title || file,
        description: `Knowledge of the skill ${skill.name}, cited in answers as ${cited}.`,
        mimeType: MARKDOWN,
        absolutePath,
      };
      files.push({ resource, text });
    }
  }
  return files;
}

/**
 * The sections of a knowledge file a scoped key may read, as Markdown under their headings:
 * the passages the knowledge search would show it, whole (never cut). Empty when there are none.
 */
function visibleSections(markdown: string, skill: string, file: string, hidden: HiddenData): string {
  const lines: string[] = [];
  let written: string[] = [];
  for (const passage of splitMarkdown(markdown, { skill, file, title: '', maxChars: Number.POSITIVE_INFINITY })) {
    if (!showsPassage(hidden, `${passage.heading}\n${passage.body}`, passage.concerns ?? {})) continue;
    const path = passage.heading ? passage.heading.split(HEADING_SEPARATOR) : [];
    // Headings not yet written above this section (a file's title once, then each section's own).
    const shared = path.findIndex((part, level) => written[level] !== part);
    for (let level = shared === -1 ? path.length : shared; level < path.length; level += 1) lines.push(`${'#'.repeat(level + 1)} ${path[level]}`, '');
    written = path;
    lines.push(passage.body, '');
  }
  return lines.join('\n').trim();
}
