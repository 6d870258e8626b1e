/**
 * The front matter of a knowledge file: YAML between `---` lines at the top, declaring which
 * catalog sources and values the file (`concerns`) and single sections (`sections`, by heading)
 * are about. A scoped key is shown a passage only when everything it concerns is visible to it
 * (src/scopes/hiddenWords.ts), so declaring is how a passage about hidden data stays hidden even
 * where its words do not give it away. Other keys are ignored; a malformed block stops startup.
 *
 * ---
 * concerns: { sources: [fi_reporting] }
 * sections:
 *   "Choosing a source": { sources: [consolidation_mart, bpc_reporting] }
 *   "How much a duplicate load adds": { values: { company: ["1000"] } }
 * ---
 */
import { parse } from 'yaml';
import { z } from 'zod';
import { ConfigurationError } from '../errors/index.ts';
import { cachedYaml, rememberYaml } from '../shared/yamlCache.ts';
import type { KnowledgeConcerns } from '../skills/sdk/tools.ts';

export interface KnowledgeFrontMatter {
  /** What every passage of the file concerns. */
  concerns: KnowledgeConcerns;
  /** Own heading of a section → what it (and the sections under it) concerns besides. */
  sections: Record<string, KnowledgeConcerns>;
}

const names = z.array(z.union([z.string(), z.number()]).transform(String));
const concernsSchema = z.strictObject({ sources: names.optional(), values: z.record(z.string(), names).optional() });
const schema = z.looseObject({ concerns: concernsSchema.optional(), sections: z.record(z.string(), concernsSchema).optional() });

const blockPattern = /^---\n(?:([\s\S]*?)\n)?---[ \t]*(?:\n|$)/;

/**
 * The front matter of `markdown` (line ends already `\n`) and the text after it.
 * @throws ConfigurationError naming `file` when the block is not YAML of the shape above.
 * @example
 * readFrontMatter('---\nconcerns: { sources: [bpc_reporting] }\n---\n# BPC', 'bpc.md').frontMatter.concerns // { sources: ['bpc_reporting'] }
 */
export function readFrontMatter(markdown: string, file: string): { frontMatter: KnowledgeFrontMatter; body: string } {
  const match = blockPattern.exec(markdown);
  if (!match) return { frontMatter: { concerns: {}, sections: {} }, body: markdown };
  const yamlText = match[1] ?? '';
  // A block parsed before is read back from the cache: parsing every file's block was half of indexing the knowledge at start.
  const cached = cachedYaml(yamlText);
  let document: unknown;
  try {
    document = (cached ? cached.value : parse(yamlText)) ?? {};
  } catch (error) {
    throw new ConfigurationError(`Knowledge file ${file}: the front matter is not valid YAML: ${(error as Error).message.split('\n')[0]}`);
  }
  const parsed = schema.safeParse(document);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ConfigurationError(`Knowledge file ${file}: front matter ${issue?.path.join('.') || '(top)'}: ${issue?.message ?? 'invalid'} (expected concerns: { sources: [...], values: { dimension: [...] } } and sections: { heading: concerns })`);
  }
  if (!cached) rememberYaml(yamlText, document);
  return { frontMatter: { concerns: parsed.data.concerns ?? {}, sections: parsed.data.sections ?? {} }, body: markdown.slice(match[0].length) };
}

/**
 * `markdown` without its front matter block (a YAML comment is no heading), malformed or not.
 * @example
 * withoutFrontMatter('---\n# a comment\n---\n# Title') // '# Title'
 */
export function withoutFrontMatter(markdown: string): string {
  const text = markdown.replace(/\r\n?/g, '\n');
  const match = blockPattern.exec(text);
  return match ? text.slice(match[0].length) : text;
}

/**
 * Both declarations in one: every source and value either names.
 * @example
 * mergeConcerns({ sources: ['a'] }, { values: { company: ['1000'] } }) // { sources: ['a'], values: { company: ['1000'] } }
 */
export function mergeConcerns(...all: readonly KnowledgeConcerns[]): KnowledgeConcerns {
  const sources = new Set(all.flatMap((concerns) => concerns.sources ?? []));
  const values: Record<string, string[]> = {};
  for (const concerns of all) {
    for (const [dimension, codes] of Object.entries(concerns.values ?? {})) values[dimension] = [...new Set([...(values[dimension] ?? []), ...codes])];
  }
  return { ...(sources.size ? { sources: [...sources] } : {}), ...(Object.keys(values).length ? { values } : {}) };
}
