/**
 * Reads and validates a skill's SKILL.md: YAML frontmatter (name, description, version, tags,
 * enabled) between `---` lines, then the instructions for the model. Every problem carries the
 * line of SKILL.md it is about, so the loader and `npm run skill:check` can point at it.
 */
import { isMap, isScalar, isSeq, LineCounter, parseDocument, type Document } from 'yaml';
import { z } from 'zod';
import { closestMatch } from '../shared/closestMatch.ts';
import { cachedYaml, rememberYaml } from '../shared/yamlCache.ts';

/** One problem in a skill, at a file and line (1-based). */
export interface SkillProblem {
  file: string;
  line: number;
  message: string;
}

/** Skill folder names and frontmatter names: snake_case. */
export const SKILL_NAME_PATTERN = /^[a-z][a-z0-9_]*$/;
/** Tool names: snake_case, at most 64 characters (the OpenAI limit for function names). */
export const TOOL_NAME_PATTERN = /^[a-z][a-z0-9_]{0,63}$/;
/** The description is the skill's one line in the system prompt. */
export const MAX_SKILL_DESCRIPTION_CHARS = 300;

const versionPattern = /^\d+\.\d+\.\d+(?:[-+][0-9A-Za-z.+-]+)?$/;

export const manifestSchema = z.strictObject({
  name: z
    .string({ error: (issue) => (issue.input === undefined ? 'is required: the folder name, in snake_case' : 'must be a string') })
    .regex(SKILL_NAME_PATTERN, { error: 'must be snake_case (a-z, 0-9 and _, starting with a letter)' }),
  description: z
    .string({ error: (issue) => (issue.input === undefined ? 'is required: one sentence saying what the skill does' : 'must be a string') })
    .trim()
    .min(10, { error: 'must say in a sentence what the skill does (at least 10 characters)' })
    .max(MAX_SKILL_DESCRIPTION_CHARS, { error: `must fit on one line of the system prompt (at most ${MAX_SKILL_DESCRIPTION_CHARS} characters)` })
    .refine((text) => !/[\r\n]/.test(text), { error: 'must be one line (it is the skill\'s line in the system prompt)' }),
  version: z
    .string({ error: (issue) => (issue.input === undefined ? "is required: a version such as '1.0.0'" : "must be a version such as '1.0.0' (quote it if YAML reads it as a number)") })
    .regex(versionPattern, { error: "must be a version such as '1.0.0'" }),
  tags: z
    .array(z.string({ error: 'each tag must be a string' }).regex(/^[a-z0-9][a-z0-9_-]*$/, { error: 'each tag must be lowercase letters, digits, - or _' }), {
      error: 'must be a list of tags, e.g. [finance, reconciliation]',
    })
    .default([]),
  enabled: z.boolean({ error: 'must be true or false' }).default(true),
});

export type Manifest = z.infer<typeof manifestSchema>;
export const MANIFEST_KEYS = Object.keys(manifestSchema.shape);

export type ManifestResult =
  | {
      ok: true;
      manifest: Manifest;
      instructions: string;
      /** Line of SKILL.md where the instructions start. */
      bodyLine: number;
      /** Line of SKILL.md of each frontmatter key. */
      keyLines: Record<string, number>;
    }
  | { ok: false; problems: SkillProblem[]; partial: Partial<Manifest> };

/** What the parse cache keeps of a valid manifest: its value and the line of each key. */
const MANIFEST_CACHE = 'skill-manifest';

/** Parses SKILL.md's text; `file` is only used in the problems. */
export function parseManifest(text: string, file: string): ManifestResult {
  const problem = (line: number, message: string): SkillProblem => ({ file, line, message });
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  if (lines[0]?.trimEnd() !== '---') {
    return { ok: false, partial: {}, problems: [problem(1, "must start with a '---' YAML frontmatter block (name, description, version), closed by another '---' line")] };
  }
  const end = lines.findIndex((line, index) => index > 0 && line.trimEnd() === '---');
  if (end < 0) {
    return { ok: false, partial: {}, problems: [problem(1, "the frontmatter block is not closed: add a '---' line after the last key")] };
  }
  const yamlText = lines.slice(1, end).join('\n');
  const body = lines.slice(end + 1).join('\n');
  // The frontmatter starts on line 2 (line 1 is the opening '---'); the body after the closing one.
  const firstYamlLine = 2;
  const bodyLine = end + 2;
  // A valid manifest read before comes back from the parse cache, with its key lines.
  const cached = cachedYaml(yamlText, MANIFEST_CACHE)?.value as { value: unknown; keyLines: Record<string, number> } | undefined;
  const known = cached ? manifestSchema.safeParse(cached.value) : undefined;
  if (cached && known?.success) return { ok: true, manifest: known.data, instructions: body.trim(), bodyLine, keyLines: cached.keyLines };
  const lineCounter = new LineCounter();
  const document = parseDocument(yamlText, { lineCounter, prettyErrors: false });
  if (document.errors.length > 0) {
    return {
      ok: false,
      partial: {},
      problems: document.errors.map((error) => {
        const offset = error.pos[0];
        return problem(firstYamlLine - 1 + lineCounter.linePos(offset).line, `frontmatter is not valid YAML: ${error.message.split('\n')[0]}`);
      }),
    };
  }
  const value: unknown = document.toJS();
  const lineOf = (path: readonly PropertyKey[]) => firstYamlLine - 1 + yamlLine(document, lineCounter, path);
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return { ok: false, partial: {}, problems: [problem(1, 'frontmatter must be a YAML mapping of name, description, version (and optionally tags, enabled)')] };
  }
  const parsed = manifestSchema.safeParse(value);
  if (parsed.success) {
    const keyLines = Object.fromEntries(Object.keys(value).map((key) => [key, lineOf([key])]));
    rememberYaml(yamlText, { value, keyLines }, MANIFEST_CACHE);
    return { ok: true, manifest: parsed.data, instructions: body.trim(), bodyLine, keyLines };
  }
  const problems = parsed.error.issues.flatMap((issue) => {
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => {
        const closest = closestMatch(key, MANIFEST_KEYS);
        return problem(lineOf([key]), `frontmatter '${key}': unknown key${closest ? ` (did you mean '${closest}'?)` : ''}; the keys are ${MANIFEST_KEYS.join(', ')}`);
      });
    }
    return [problem(lineOf(issue.path), `frontmatter '${issue.path.map(String).join('.')}': ${issue.message}`)];
  });
  problems.sort((a, b) => a.line - b.line);
  return { ok: false, problems, partial: partialManifest(value as Record<string, unknown>) };
}

/** The valid fields of an invalid frontmatter, e.g. to list a disabled skill whose manifest is broken. */
function partialManifest(value: Record<string, unknown>): Partial<Manifest> {
  const partial: Partial<Manifest> = {};
  for (const key of MANIFEST_KEYS as (keyof Manifest)[]) {
    const field = manifestSchema.shape[key].safeParse(value[key]);
    if (field.success && value[key] !== undefined) (partial as Record<string, unknown>)[key] = field.data;
  }
  return partial;
}

/**
 * The 1-based line (within the YAML text) of the node at `path`: the deepest key or item found.
 * A missing top-level key gives 0 (the opening '---').
 */
function yamlLine(document: Document, lineCounter: LineCounter, path: readonly PropertyKey[]): number {
  let node: unknown = document.contents;
  // 0 stands for the opening '---' line: where a missing key is reported.
  let line = 0;
  for (const key of path) {
    if (isMap(node)) {
      const pair = node.items.find((item) => isScalar(item.key) && String(item.key.value) === String(key));
      if (!pair) break;
      const range = isScalar(pair.key) ? pair.key.range : undefined;
      if (range) line = lineCounter.linePos(range[0]).line;
      node = pair.value;
    } else if (isSeq(node) && typeof key === 'number') {
      const item = node.items[key] as { range?: [number, number, number] } | undefined;
      if (!item) break;
      if (item.range) line = lineCounter.linePos(item.range[0]).line;
      node = item;
    } else {
      break;
    }
  }
  return line;
}
