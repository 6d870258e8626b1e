/**
 * Reading the README and docs/ pages as a reader's browser would: fenced blocks, links, heading
 * anchors (GitHub's rule), and comparing an example's shown output with the real response.
 * Used by the README tests (test/docs/readme*.test.ts).
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** One fenced block: its language, the words after it (`output`), its text and where it starts. */
export interface FencedBlock {
  lang: string;
  attributes: string[];
  text: string;
  line: number;
}

/** The README and every page under docs/, as paths relative to the project. */
export function documentationFiles(): string[] {
  const pages = readdirSync(path.join(projectRoot, 'docs')).filter((name) => name.endsWith('.md'));
  return ['README.md', ...pages.sort().map((name) => `docs/${name}`)];
}

export const readDoc = (file: string): string => readFileSync(path.join(projectRoot, file), 'utf8');

/**
 * The fenced blocks of a Markdown text, in order.
 * @example fencedBlocks('```sh\nnpm test\n```') // [{ lang: 'sh', attributes: [], text: 'npm test', line: 1 }]
 */
export function fencedBlocks(markdown: string): FencedBlock[] {
  const blocks: FencedBlock[] = [];
  const lines = markdown.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const open = /^(`{3,})\s*([\w-]*)\s*(.*)$/.exec(lines[i]!);
    if (!open) continue;
    const body: string[] = [];
    let j = i + 1;
    while (j < lines.length && !lines[j]!.startsWith(open[1]!)) body.push(lines[j++]!);
    blocks.push({ lang: open[2]!, attributes: open[3]!.split(/\s+/).filter(Boolean), text: body.join('\n'), line: i + 1 });
    i = j;
  }
  return blocks;
}

/** The text outside fenced blocks and inline code, where links and headings are. */
function prose(markdown: string): string[] {
  let fence = false;
  return markdown.split('\n').map((line) => {
    if (/^`{3,}/.test(line)) {
      fence = !fence;
      return '';
    }
    return fence ? '' : line.replace(/`[^`]*`/g, '');
  });
}

/**
 * GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens, repeats numbered.
 * @example headingAnchors('# Data where it lives: SQLite, DuckDB\n## Data where it lives: SQLite, DuckDB') // ['data-where-it-lives-sqlite-duckdb', 'data-where-it-lives-sqlite-duckdb-1']
 */
export function headingAnchors(markdown: string): string[] {
  const seen = new Map<string, number>();
  let fence = false;
  const anchors: string[] = [];
  for (const line of markdown.split('\n')) {
    if (/^`{3,}/.test(line)) fence = !fence;
    const heading = fence ? null : /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!heading) continue;
    const base = heading[1]!.toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/ /g, '-');
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.push(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}

/** Every link target in a Markdown text that is not a URL (`docs/data.md#engines`, `#access`), with its line. */
export function relativeLinks(markdown: string): { target: string; line: number }[] {
  const links: { target: string; line: number }[] = [];
  prose(markdown).forEach((line, index) => {
    for (const match of line.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
      const target = match[1]!;
      if (/^[a-z][\w+.-]*:/i.test(target)) continue; // https:, mailto:
      links.push({ target, line: index + 1 });
    }
  });
  return links;
}

/** Prose lines (outside code) that match one of `patterns`, as `file:line: text`. */
export function proseMatches(file: string, markdown: string, patterns: RegExp[]): string[] {
  return prose(markdown).flatMap((line, index) => (patterns.some((pattern) => pattern.test(line)) ? [`${file}:${index + 1}: ${line.trim()}`] : []));
}

/**
 * Where `actual` differs from the part of it the README shows: every key shown must be there with
 * the value shown, arrays as long as shown, and a string `<…>` stands for any value (an id).
 * @example shownDifferences({ ok: true, id: '<id>' }, { ok: true, id: 'x1', ms: 3 }) // []
 */
export function shownDifferences(shown: unknown, actual: unknown, at = '$'): string[] {
  if (typeof shown === 'string' && /^<[^>]+>$/.test(shown)) return actual === undefined ? [`${at}: missing`] : [];
  if (Array.isArray(shown)) {
    if (!Array.isArray(actual)) return [`${at}: shown a list, got ${JSON.stringify(actual)}`];
    if (actual.length !== shown.length) return [`${at}: shown ${shown.length} items, got ${actual.length}: ${JSON.stringify(actual).slice(0, 400)}`];
    return shown.flatMap((item, index) => shownDifferences(item, actual[index], `${at}[${index}]`));
  }
  if (shown !== null && typeof shown === 'object') {
    if (actual === null || typeof actual !== 'object' || Array.isArray(actual)) return [`${at}: shown an object, got ${JSON.stringify(actual)}`];
    return Object.entries(shown).flatMap(([key, value]) => shownDifferences(value, (actual as Record<string, unknown>)[key], `${at}.${key}`));
  }
  return Object.is(shown, actual) ? [] : [`${at}: shown ${JSON.stringify(shown)}, got ${JSON.stringify(actual)}`];
}
