/**
 * Splits a knowledge file (Markdown) into passages: one per section under a `#`, `##` or
 * `###` heading, each keeping its heading path ("Currency translation › Average vs closing
 * rate"). Sections longer than the passage limit are cut between paragraphs (then lines,
 * sentences, words), so every passage stays a readable, citable unit. Each passage carries what
 * its file's front matter declares it concerns (frontMatter.ts), never the front matter's text.
 */
import { ConfigurationError } from '../errors/index.ts';
import type { KnowledgeConcerns } from '../skills/sdk/tools.ts';
import { mergeConcerns, readFrontMatter } from './frontMatter.ts';

/** One searchable unit of a knowledge file. */
export interface Passage {
  skill: string;
  /** Path of the file as cited, e.g. "skills/data_analyst/knowledge/currency.md". */
  file: string;
  /** Heading path joined with " › "; the file's title for text before the first heading. */
  heading: string;
  body: string;
  /** The catalog sources and values it is about: the file's declaration and its sections'. */
  concerns?: KnowledgeConcerns;
}

/** Passages longer than this many characters are split. */
export const MAX_PASSAGE_CHARS = 1_500;

/** Separator between the levels of a heading path. */
export const HEADING_SEPARATOR = ' › ';

// `(\S.*)` rather than `(.+?)[ \t]*$`: the lazy form rescanned trailing blanks at every step (quadratic).
const headingPattern = /^ {0,3}(#{1,3})[ \t]+(\S.*)$/;
const fencePattern = /^ {0,3}(`{3,}|~{3,})/;

/**
 * Passages of one Markdown document, in document order. A YAML front matter block is read for
 * what the passages concern and left out of their text; headings inside fenced code blocks and
 * headings deeper than `###` count as text.
 * @param title heading of text before the first heading (default: the file name without `.md`)
 * @throws ConfigurationError when the front matter is malformed or declares a section the file does not have.
 */
export function splitMarkdown(
  markdown: string,
  where: { skill: string; file: string; title?: string; maxChars?: number },
): Passage[] {
  const maxChars = where.maxChars ?? MAX_PASSAGE_CHARS;
  const title = where.title ?? defaultTitle(where.file);
  const { frontMatter, body: content } = readFrontMatter(markdown.replace(/\r\n?/g, '\n'), where.file);
  const lines = content.split('\n');
  const passages: Passage[] = [];
  const path: (string | undefined)[] = [];
  const headingsSeen = new Set<string>();
  let heading = title;
  let concerns = frontMatter.concerns;
  let body: string[] = [];
  let fence: string | undefined;

  const flush = () => {
    const text = body.join('\n').trim();
    body = [];
    if (!text) return;
    for (const chunk of splitLong(text, maxChars)) passages.push({ skill: where.skill, file: where.file, heading, body: chunk, concerns });
  };

  for (const line of lines) {
    const fenceMatch = fencePattern.exec(line);
    if (fenceMatch) {
      const marker = fenceMatch[1] ?? '';
      if (fence === undefined) fence = marker;
      else if (marker[0] === fence[0] && marker.length >= fence.length) fence = undefined;
      body.push(line);
      continue;
    }
    const match = fence === undefined ? headingPattern.exec(line) : null;
    const text = match ? cleanHeading(match[2] ?? '') : '';
    if (!match || !text) {
      body.push(line);
      continue;
    }
    flush();
    const level = (match[1] ?? '#').length;
    path.length = level - 1;
    path[level - 1] = text;
    const parts = path.filter((part): part is string => Boolean(part));
    heading = parts.join(HEADING_SEPARATOR);
    headingsSeen.add(text);
    // A section's declaration holds for the sections under it too.
    concerns = mergeConcerns(frontMatter.concerns, ...parts.map((part) => frontMatter.sections[part] ?? {}));
  }
  flush();
  const unknown = Object.keys(frontMatter.sections).filter((section) => !headingsSeen.has(section));
  if (unknown.length) throw new ConfigurationError(`Knowledge file ${where.file}: the front matter declares sections it does not have: ${unknown.join(', ')} (name a section by its heading text)`);
  return passages;
}

/** "skills/x/knowledge/currency-rates.md" → "currency rates". */
function defaultTitle(file: string): string {
  const name = file.split('/').pop() ?? file;
  return name.replace(/\.md$/i, '').replace(/[-_]+/g, ' ').trim() || name;
}

/**
 * A heading without its closing `#` sequence ("Title ##" → "Title"), read from the end by hand:
 * the pattern `[ \t]+#+$` rescanned each run of blanks, quadratic in a long line.
 * @example
 * withoutClosingHashes('Currency translation ##'); // 'Currency translation'
 */
export function withoutClosingHashes(text: string): string {
  const trimmed = text.trimEnd();
  let end = trimmed.length;
  while (end > 0 && trimmed[end - 1] === '#') end -= 1;
  // No closing sequence, or nothing but hashes (cleanHeading empties that).
  if (end === trimmed.length || end === 0) return trimmed;
  const before = trimmed[end - 1];
  return before === ' ' || before === '\t' ? trimmed.slice(0, end).trimEnd() : trimmed;
}

/** Drops a closing `#` sequence and inline code/emphasis markers from a heading. */
function cleanHeading(raw: string): string {
  return withoutClosingHashes(raw)
    .replace(/^#+$/, '')
    .replace(/`/g, '')
    .replace(/(\*\*|__)(.+?)\1/g, '$2')
    .replace(/\s+/g, ' ')
    .trim();
}

/** Cuts a section into pieces of at most `maxChars`: between paragraphs, else lines, sentences, words. */
export function splitLong(text: string, maxChars: number): string[] {
  if (text.length <= maxChars) return [text];
  return pack(paragraphs(text), maxChars, '\n\n', (paragraph) =>
    pack(paragraph.split('\n'), maxChars, '\n', (line) =>
      pack(line.split(/(?<=[.!?;:])\s+/), maxChars, ' ', (sentence) => pack(sentence.split(/\s+/), maxChars, ' ', hardCut(maxChars))),
    ),
  );
}

/** Paragraphs separated by blank lines; a fenced code block stays in one paragraph. */
function paragraphs(text: string): string[] {
  const result: string[] = [];
  let current: string[] = [];
  let fence: string | undefined;
  for (const line of text.split('\n')) {
    const fenceMatch = fencePattern.exec(line);
    if (fenceMatch) {
      const marker = fenceMatch[1] ?? '';
      if (fence === undefined) fence = marker;
      else if (marker[0] === fence[0] && marker.length >= fence.length) fence = undefined;
    }
    if (fence === undefined && !fenceMatch && line.trim() === '') {
      if (current.length) result.push(current.join('\n'));
      current = [];
    } else {
      current.push(line);
    }
  }
  if (current.length) result.push(current.join('\n'));
  return result;
}

/** Greedily joins pieces into chunks of at most `maxChars`; a piece too long on its own goes to `tooLong`. */
function pack(pieces: string[], maxChars: number, joiner: string, tooLong: (piece: string) => string[]): string[] {
  const chunks: string[] = [];
  let current = '';
  for (const raw of pieces) {
    const piece = raw.trim() === '' ? '' : raw;
    if (!piece) continue;
    if (piece.length > maxChars) {
      if (current) chunks.push(current);
      current = '';
      chunks.push(...tooLong(piece));
      continue;
    }
    if (!current) current = piece;
    else if (current.length + joiner.length + piece.length <= maxChars) current += joiner + piece;
    else {
      chunks.push(current);
      current = piece;
    }
  }
  if (current) chunks.push(current);
  return chunks.map((chunk) => chunk.trim()).filter(Boolean);
}

function hardCut(maxChars: number): (word: string) => string[] {
  return (word) => {
    const pieces: string[] = [];
    for (let start = 0; start < word.length; start += maxChars) pieces.push(word.slice(start, start + maxChars));
    return pieces;
  };
}
