/**
 * The one rule for text a scoped key reads: what is hidden from it (sources, values) and every
 * word the catalog uses for it — source names, aliases and tables, values and their names,
 * measures only hidden sources have and their synonyms, columns that differ from their logical
 * name. A word that also names visible data is not hidden, so a key still reads about its own
 * data. Text is shown when it names none of these words; a knowledge passage also when what it
 * declares it concerns (front matter, src/knowledge/frontMatter.ts) is all visible.
 */
import type { Catalog, Source } from '../catalog/catalog.ts';
import type { KnowledgeConcerns } from '../skills/sdk/tools.ts';

/** What a scoped key must not read about. */
export interface HiddenData {
  /** Sources the key does not see. */
  sources: string[];
  /** Scoped dimension → the values the key may see; every other value of it is hidden. */
  allowed: Record<string, string[]>;
  /** Other dimensions → values only hidden sources declare (e.g. audit_trail ADJ_MANUAL). */
  values: Record<string, string[]>;
  /** Words that name hidden data: text naming one is not shown. */
  terms: string[];
}

/**
 * The hidden data of a scope: `allowed` are its scoped dimensions' values, `visible` the sources it sees.
 * @example
 * hiddenDataOf(catalog, new Map(), [fiReporting]).terms // ['consolidation_mart', 'conso', 'BPC', 'amount_gc', 'ADJ_MANUAL', …]
 */
export function hiddenDataOf(catalog: Catalog, allowed: ReadonlyMap<string, ReadonlySet<string>>, visible: readonly Source[]): HiddenData {
  const hiddenSources = [...catalog.sources.values()].filter((source) => !visible.includes(source));
  const seen = visibleVocabulary(visible, allowed);
  const visibleValues = new Map<string, Set<string>>();
  for (const source of visible) {
    for (const dimension of source.dimensions.values()) for (const code of codesOf(dimension)) add(visibleValues, dimension.name, code);
    for (const [dimension, value] of Object.entries(source.implied)) add(visibleValues, dimension, value);
  }

  const candidates = new Set<string>();
  const values = new Map<string, Set<string>>();
  for (const source of hiddenSources) {
    [source.name, ...source.aliases, source.table].forEach((term) => candidates.add(term));
    for (const measure of source.measures.values()) {
      if (seen.has(measure.name.toLowerCase())) continue;
      [measure.name, ...measure.synonyms, measure.column ?? ''].forEach((term) => candidates.add(term));
    }
    for (const dimension of source.dimensions.values()) {
      if (!visibleValues.has(dimension.name)) [dimension.name, ...dimension.synonyms, dimension.column].forEach((term) => candidates.add(term));
      if (allowed.has(dimension.name)) continue;
      for (const code of codesOf(dimension)) {
        if (visibleValues.get(dimension.name)?.has(code)) continue;
        add(values, dimension.name, code);
        [code, ...(dimension.values.get(code) ?? [])].forEach((term) => candidates.add(term));
      }
    }
  }
  // A word inside a visible name ('consolidation' of 'consolidation account') names visible data too.
  const visibleNames = [...seen].join('\n');
  const terms = new Set([...candidates].filter((term) => term.trim() && !mentionsAny(visibleNames, [term])));

  // Values outside a scoped dimension's list are hidden whatever else carries them (a partner company).
  for (const source of catalog.sources.values()) {
    for (const [name, codes] of allowed) {
      const dimension = source.dimensions.get(name);
      if (!dimension) continue;
      for (const code of codesOf(dimension)) {
        if (codes.has(code)) continue;
        terms.add(code);
        for (const label of dimension.values.get(code) ?? []) terms.add(label);
      }
    }
  }
  // A label shared with an allowed value (e.g. a group name) names visible data too: keep it.
  for (const source of visible) {
    for (const [name, codes] of allowed) for (const code of codes) for (const label of source.dimensions.get(name)?.values.get(code) ?? []) terms.delete(label);
  }
  return {
    sources: hiddenSources.map((source) => source.name),
    allowed: Object.fromEntries([...allowed].map(([name, codes]) => [name, [...codes]])),
    values: Object.fromEntries([...values].map(([name, codes]) => [name, [...codes]])),
    terms: [...terms],
  };
}

/**
 * Whether a scoped key may read a passage: it concerns nothing hidden and names nothing hidden.
 * @example
 * showsPassage(hidden, 'Top-side entries exist only in BPC.', {}) // false for a key without bpc_reporting
 */
export function showsPassage(hidden: HiddenData, text: string, concerns: KnowledgeConcerns): boolean {
  return !concernsHidden(hidden, concerns) && !mentionsAny(text, hidden.terms);
}

/**
 * Whether declared concerns name a hidden source or value; a name the catalog does not know
 * counts as hidden (a typo must not show a passage to everyone).
 * @example
 * concernsHidden(hiddenOfCompany1000, { values: { company: ['2000'] } }) // true
 */
export function concernsHidden(hidden: HiddenData, concerns: KnowledgeConcerns): boolean {
  const visible = (source: string) => !hidden.sources.includes(source);
  if ((concerns.sources ?? []).some((source) => !visible(source))) return true;
  return Object.entries(concerns.values ?? {}).some(([dimension, codes]) => {
    const allowed = hidden.allowed[dimension];
    return codes.some((code) => (allowed ? !allowed.includes(code) : (hidden.values[dimension] ?? []).includes(code)));
  });
}

/** Every name of visible data, lower-cased: sources, dimensions, measures, their synonyms and values. */
function visibleVocabulary(visible: readonly Source[], allowed: ReadonlyMap<string, ReadonlySet<string>>): Set<string> {
  const words: string[] = [];
  for (const source of visible) {
    words.push(source.name, ...source.aliases, source.table, ...Object.keys(source.implied), ...Object.values(source.implied));
    for (const measure of source.measures.values()) words.push(measure.name, ...measure.synonyms, measure.column ?? '');
    for (const dimension of source.dimensions.values()) {
      words.push(dimension.name, ...dimension.synonyms, dimension.column);
      const codes = allowed.get(dimension.name);
      for (const code of codesOf(dimension)) if (!codes || codes.has(code)) words.push(code, ...(dimension.values.get(code) ?? []));
    }
  }
  return new Set(words.filter(Boolean).map((word) => word.toLowerCase()));
}

function codesOf(dimension: { values: Map<string, string[]>; examples: string[] }): string[] {
  return [...new Set([...dimension.values.keys(), ...dimension.examples])];
}

function add(map: Map<string, Set<string>>, key: string, value: string): void {
  const set = map.get(key) ?? new Set<string>();
  set.add(value);
  map.set(key, set);
}

/**
 * `text` without the sentences that name one of `terms` (whole words, any case), line by line
 * so Markdown keeps its headings, lists and paragraphs.
 * @example
 * withoutMentions('# Loads\nEUR for 1000. USD for 2000.', ['2000']) // '# Loads\nEUR for 1000.'
 */
export function withoutMentions(text: string, terms: readonly string[]): string {
  if (!mentionsAny(text, terms)) return text;
  return text
    .split('\n')
    .map((line) =>
      line
        .split(/(?<=[.;!?])[ \t]+/)
        .filter((sentence) => !mentionsAny(sentence, terms))
        .join(' '),
    )
    .join('\n');
}

/** One pattern per list of terms: a scope's hidden terms are checked against many texts. */
const patterns = new WeakMap<readonly string[], RegExp>();

/**
 * Whether `text` names any of `terms` as a whole word (so '1000' is not found in '10000'), any case.
 * @example
 * mentionsAny('EUR for 1000.', ['2000', '1000']) // true
 */
export function mentionsAny(text: string, terms: readonly string[]): boolean {
  if (terms.length === 0) return false;
  let pattern = patterns.get(terms);
  if (!pattern) {
    const alternatives = terms.map((term) => term.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|');
    pattern = new RegExp(`(?<![\\p{L}\\p{N}_])(?:${alternatives})(?![\\p{L}\\p{N}_])`, 'iu');
    patterns.set(terms, pattern);
  }
  return pattern.test(text);
}
