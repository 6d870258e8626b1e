/**
 * The knowledge base: every `knowledge/*.md` file of the loaded skills, split into passages
 * and indexed at startup in an in-memory SQLite FTS5 table (porter stemming, unicode61). A
 * search ranks passages by BM25 with the heading weighted above the body. FTS5 does the
 * matching (stems, prefixes) and counts the matched tokens per column; the score uses the
 * non-negative idf ln(1 + (N − n + 0.5) / (n + 0.5)), because FTS5's own bm25() gives a word
 * found in more than half the passages (in a small, focused corpus: "consolidation", "FI")
 * a weight of ~0. Each result carries a citation (file § heading path) so answers can say
 * where a rule comes from.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { ConfigurationError, ToolError } from '../errors/index.ts';
import { closestMatch, suggestionHint } from '../shared/closestMatch.ts';
import type { KnowledgeBase, KnowledgePassage } from '../skills/sdk/tools.ts';
import { withoutFrontMatter } from './frontMatter.ts';
import { HEADING_SEPARATOR, splitMarkdown, withoutClosingHashes, type Passage } from './passages.ts';
import { matchExpression, phraseExpression, searchPhrases, searchTerms } from './query.ts';

/** BM25 weight of a word in the passage's own heading, relative to the body (1). */
export const SECTION_WEIGHT = 4;
/** BM25 weight of a word in the headings above it (e.g. the file's title). */
export const CONTEXT_WEIGHT = 2;
/** Passage text returned by a search is cut to about this many characters. */
export const MAX_RESULT_CHARS = 800;
export const DEFAULT_SEARCH_LIMIT = 5;
const MAX_SEARCH_LIMIT = 50;
/** BM25 parameters: term-frequency saturation and length normalisation (the usual values). */
const K1 = 1.2;
const B = 0.75;

/** What the index needs of a skill: its name and folder (a loader Skill fits). */
export interface KnowledgeSkill {
  name: string;
  directory: string;
}

/** Summary of one indexed file. */
export interface KnowledgeDocument {
  skill: string;
  file: string;
  /** The file's first heading, or its name. */
  title: string;
  passages: number;
}

export interface KnowledgeIndex extends KnowledgeBase {
  /** Every indexed file, by skill then file name. */
  documents(): KnowledgeDocument[];
  /** Number of passages indexed. */
  size(): number;
  /** Frees the in-memory database; searching afterwards throws. */
  close(): void;
}

/**
 * Reads `<skill.directory>/knowledge/*.md` of every skill and indexes the passages.
 * Files are cited as `<skills folder name>/<skill folder>/knowledge/<file>`, e.g.
 * `skills/data_analyst/knowledge/currency.md`.
 * @throws ConfigurationError when a knowledge file cannot be read.
 */
export function buildKnowledgeBase(skills: readonly KnowledgeSkill[]): KnowledgeIndex {
  const passages: Passage[] = [];
  const documents: KnowledgeDocument[] = [];
  for (const skill of [...skills].sort((a, b) => a.name.localeCompare(b.name))) {
    for (const { absolute, cited } of knowledgeFiles(skill)) {
      let text: string;
      try {
        text = readFileSync(absolute, 'utf8');
      } catch (error) {
        throw new ConfigurationError(`Skill ${skill.name}: knowledge file ${absolute} cannot be read: ${(error as Error).message}`);
      }
      const found = splitMarkdown(text, { skill: skill.name, file: cited });
      passages.push(...found);
      documents.push({ skill: skill.name, file: cited, title: firstHeading(text) ?? path.basename(cited, '.md'), passages: found.length });
    }
  }
  return indexPassages(passages, documents);
}

/** Indexes passages given directly (tests, or knowledge from elsewhere). */
export function indexPassages(passages: readonly Passage[], documents: readonly KnowledgeDocument[] = documentsOf(passages)): KnowledgeIndex {
  const database = new Database(':memory:');
  // section: the passage's own heading; context: the headings above it (the file's title, ...).
  database.exec("CREATE VIRTUAL TABLE passage USING fts5(section, context, body, tokenize = 'porter unicode61 remove_diacritics 2')");
  const insert = database.prepare('INSERT INTO passage (rowid, section, context, body) VALUES (?, ?, ?, ?)');
  database.transaction(() =>
    passages.forEach((p, index) => {
      const parts = p.heading.split(HEADING_SEPARATOR);
      insert.run(index + 1, plain(parts.pop() ?? ''), plain(parts.join(HEADING_SEPARATOR)), plain(p.body));
    }),
  )();

  // Token counts per passage (heading + body), for BM25's length normalisation.
  database.exec("CREATE VIRTUAL TABLE passage_tokens USING fts5vocab(passage, 'instance')");
  const lengths = new Float64Array(passages.length + 1);
  for (const row of database.prepare('SELECT doc, count(*) AS tokens FROM passage_tokens GROUP BY doc').all() as { doc: number; tokens: number }[]) {
    lengths[row.doc] = row.tokens;
  }
  const averageLength = passages.length ? lengths.reduce((sum, n) => sum + n, 0) / passages.length : 1;
  // Per term: the passages it matches, with the matched tokens marked in each column.
  const matchTerm = database.prepare(
    `SELECT rowid AS id, ${[0, 1, 2].map((column) => `highlight(passage, ${column}, char(1), char(2))`).join(', ')} FROM passage WHERE passage MATCH ?`,
  );
  const skillNames = [...new Set(passages.map((p) => p.skill))].sort();

  /** BM25 of every passage matching at least one expression; FTS5 does the matching (stems, prefixes, phrases). */
  const rank = (expressions: readonly string[]): Map<number, number> => {
    const scores = new Map<number, number>();
    for (const expression of expressions) {
      const rows = matchTerm.raw(true).all(expression) as [number, string | null, string | null, string | null][];
      if (rows.length === 0) continue;
      const idf = Math.log(1 + (passages.length - rows.length + 0.5) / (rows.length + 0.5));
      for (const [id, section, context, body] of rows) {
        const frequency = SECTION_WEIGHT * marks(section) + CONTEXT_WEIGHT * marks(context) + marks(body);
        const norm = K1 * (1 - B + (B * (lengths[id] ?? averageLength)) / averageLength);
        scores.set(id, (scores.get(id) ?? 0) + (idf * frequency * (K1 + 1)) / (frequency + norm));
      }
    }
    return scores;
  };

  const search: KnowledgeBase['search'] = (query, options = {}) => {
    const terms = searchTerms(typeof query === 'string' ? query : '');
    if (terms.length === 0) {
      throw new ToolError('invalid_value', `The query ${JSON.stringify(shorten(String(query ?? ''), 100))} has no words to search for.`, {
        // Examples that name no source, measure or value a data scope could hide: the hint reaches every key.
        hint: "Ask with the topic's words, e.g. 'why two sources differ', 'duplicated delta load' or 'fiscal periods'.",
        details: { query },
      });
    }
    if (options.skill !== undefined && !skillNames.includes(options.skill)) {
      throw new ToolError('unknown_value', `No skill named '${options.skill}' has knowledge files.`, {
        hint: `${suggestionHint(options.skill, skillNames)} Leave skill out to search every skill.`,
        details: { choices: skillNames, closest: closestMatch(options.skill, skillNames) ?? null },
      });
    }
    const wanted = Number.isFinite(options.limit) ? Math.trunc(options.limit as number) : DEFAULT_SEARCH_LIMIT;
    const limit = Math.min(Math.max(wanted, 1), MAX_SEARCH_LIMIT);
    // Each word on its own, and each compound word ("year-to-date") also as a phrase.
    const expressions = [...terms.map((term) => matchExpression([term])), ...searchPhrases(query).map(phraseExpression)];
    const ranked = [...rank(expressions)]
      .map(([id, score]) => ({ id, score, passage: passages[id - 1] }))
      .filter((hit): hit is { id: number; score: number; passage: Passage } => hit.passage !== undefined && (options.skill === undefined || hit.passage.skill === options.skill))
      .sort((x, y) => y.score - x.score || x.id - y.id);
    const results: KnowledgePassage[] = [];
    for (const { passage, score } of ranked) {
      const result: KnowledgePassage = {
        citation: `${passage.file} § ${passage.heading}`,
        skill: passage.skill,
        file: passage.file,
        heading: passage.heading,
        text: shorten(passage.body, MAX_RESULT_CHARS),
        score: Math.round(score * 1000) / 1000,
      };
      // Judged on the whole passage, not the shortened text: a hidden word past the cut still hides it.
      if (options.shown && !options.shown({ ...result, text: passage.body }, passage.concerns ?? {})) continue;
      results.push(result);
      if (results.length === limit) break;
    }
    return results;
  };

  return {
    search,
    skills: () => [...skillNames],
    documents: () => documents.map((d) => ({ ...d })),
    size: () => passages.length,
    close: () => database.close(),
  };
}

/**
 * The Markdown files directly in a skill's knowledge folder, sorted by name, with the path they
 * are cited by (`skills/<skill folder>/knowledge/<file>`); the knowledge base indexes these, the
 * MCP server lists them as resources.
 * @example
 * knowledgeFiles({ name: 'data_analyst', directory: 'skills/data_analyst' })[0]?.cited; // 'skills/data_analyst/knowledge/consolidation.md'
 */
export function knowledgeFiles(skill: KnowledgeSkill): { absolute: string; cited: string }[] {
  const folder = path.join(skill.directory, 'knowledge');
  if (!existsSync(folder) || !statSync(folder).isDirectory()) return [];
  const prefix = [path.basename(path.dirname(path.resolve(skill.directory))), path.basename(path.resolve(skill.directory)), 'knowledge'].join('/');
  return readdirSync(folder, { withFileTypes: true })
    .filter((entry) => entry.isFile() && /\.md$/i.test(entry.name) && !entry.name.startsWith('.'))
    .map((entry) => entry.name)
    .sort()
    .map((name) => ({ absolute: path.join(folder, name), cited: `${prefix}/${name}` }));
}

/**
 * The first level 1–3 heading of a Markdown text, without `#`s or backticks.
 * @example
 * firstHeading('# Currency translation\n…'); // 'Currency translation'
 */
export function firstHeading(markdown: string): string | undefined {
  // Linear forms (see passages.ts): `(\S.*)` and withoutClosingHashes instead of lazy matching.
  const match = /^ {0,3}#{1,3}[ \t]+(\S.*)$/m.exec(withoutFrontMatter(markdown));
  return match?.[1] ? withoutClosingHashes(match[1]).replace(/`/g, '').trim() || undefined : undefined;
}

function documentsOf(passages: readonly Passage[]): KnowledgeDocument[] {
  const byFile = new Map<string, KnowledgeDocument>();
  for (const p of passages) {
    const known = byFile.get(p.file);
    if (known) known.passages += 1;
    else byFile.set(p.file, { skill: p.skill, file: p.file, title: p.heading.split(' › ')[0] ?? p.heading, passages: 1 });
  }
  return [...byFile.values()];
}

/** Control characters are never content; removing them keeps highlight()'s markers unambiguous. */
function plain(text: string): string {
  return text.replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, ' ');
}

/** Number of matched tokens FTS5's highlight() marked in a column's text. */
function marks(highlighted: string | null): number {
  if (!highlighted) return 0;
  let count = 0;
  for (let index = highlighted.indexOf('\u0001'); index !== -1; index = highlighted.indexOf('\u0001', index + 1)) count += 1;
  return count;
}

/** Cuts text to about `max` characters at a word boundary, ending with '…'. */
export function shorten(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.slice(0, max);
  const space = cut.search(/\s\S*$/);
  return `${(space > max * 0.75 ? cut.slice(0, space) : cut).trimEnd()}…`;
}
