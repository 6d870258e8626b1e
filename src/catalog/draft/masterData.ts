/**
 * Master data in a drafted database: a table that names the keys of another table's dimension
 * (`t001`: company code → "Northwind Traders Japan KK"; `skat`: account → "Revenue from domestic
 * sales"). Such a table is not drafted as a source: its descriptions become the value names
 * (`values`, schema.ts) of the matching dimension in every other source, and an account whose
 * description says revenue (or expenses) also answers to that word. Recognised by shape (a
 * unique key, a description column, no amounts) and by the key being a dimension elsewhere
 * (the same dictionary concept, vocabulary.ts, or the same column name).
 */
import type { Engine } from '../../data/engines/engine.ts';
import { quoteIdentifier } from '../../data/dialect.ts';
import { valueText } from './columnRole.ts';
import type { SourceDraft } from './guess.ts';
import type { TableProfile } from './introspect.ts';
import { logicalName } from './logicalNames.ts';
import { termOf, VALUE_WORDS } from './vocabulary.ts';

export interface MasterData {
  table: string;
  /** The key column, and the concept (or column name) it matches in other sources. */
  key: string;
  matches: string;
  /** Description columns, best (longest text) first. */
  labels: string[];
  /** The language key column and the language kept (SKAT holds one text per language). */
  language?: { column: string; value: string };
}

/** Value names read per master table at most (a chart of accounts can be long). */
export const MAX_VALUE_NAMES = 1000;
const ENGLISH = ['E', 'EN', 'en', 'ENG'];

/**
 * Whether a table is master data for a dimension of the other drafted sources.
 * @example
 * masterDataOf(t001Profile, sources); // { table: 't001', key: 'bukrs', matches: 'company', labels: ['butxt'] }
 */
export function masterDataOf(profile: TableProfile, others: readonly SourceDraft[]): MasterData | undefined {
  if (profile.sampled || profile.rows === 0) return undefined;
  const terms = profile.columns.map((column) => ({ column, term: termOf(column.column) }));
  // Amounts make it a fact table, however few its rows.
  if (terms.some(({ column, term }) => term?.role === 'measure' || column.kind === 'decimal')) return undefined;
  const labels = terms
    .filter(({ column, term }) => term?.role === 'label' && column.kind === 'text')
    .sort((a, b) => averageLength(b.column.top) - averageLength(a.column.top))
    .map(({ column }) => column.column);
  if (labels.length === 0) return undefined;
  const languageColumn = terms.find(({ term }) => term?.role === 'language')?.column;
  const languages = languageColumn ? Math.max(1, languageColumn.distinct) : 1;
  for (const { column, term } of terms) {
    if (labels.includes(column.column) || term?.role === 'language') continue;
    if (column.distinct * languages < profile.rows) continue;
    const matches = term?.role === 'dimension' ? term.name : logicalName(column.column);
    const elsewhere = others.some((source) => source.table !== profile.table && source.dimensions.some((d) => (d.concept ?? logicalName(d.column)) === matches && d.type === 'text'));
    if (!elsewhere) continue;
    const language = languageColumn && languageColumn.distinct > 1 ? { column: languageColumn.column, value: valueText(languageColumn.top.find((t) => ENGLISH.includes(valueText(t.value)))?.value ?? languageColumn.top[0]!.value) } : undefined;
    return { table: profile.table, key: column.column, matches, labels, ...(language ? { language } : {}) };
  }
  return undefined;
}

/**
 * Reads a master table's names and writes them as value names of the matching dimensions.
 * @returns what was named, for the report: per source and dimension, the count of names and of revenue/expense words.
 * @example
 * await applyValueNames(engine, master, sources); // [{ source: 'gl_extract', dimension: 'account', names: 7, words: { revenue: 2, expenses: 5 } }]
 */
export async function applyValueNames(engine: Engine, master: MasterData, sources: SourceDraft[]): Promise<{ source: string; dimension: string; names: number; words: Record<string, number>; truncated: boolean }[]> {
  const columns = [master.key, ...master.labels].map(quoteIdentifier).join(', ');
  const where = master.language ? ` WHERE ${quoteIdentifier(master.language.column)} = ${engine.kind === 'postgres' ? '$1' : '?'}` : '';
  const rows = await engine.all(`SELECT ${columns} FROM ${quoteIdentifier(master.table)}${where} ORDER BY 1 LIMIT ${MAX_VALUE_NAMES + 1}`, master.language ? [master.language.value] : []);
  const truncated = rows.length > MAX_VALUE_NAMES;
  const account = master.matches === 'account';
  const names = new Map<string, string[]>();
  for (const [key, ...labels] of rows.slice(0, MAX_VALUE_NAMES)) {
    if (key === null || key === undefined) continue;
    const texts = [...new Set(labels.filter((label) => label !== null && String(label).trim() !== '').map((label) => String(label).trim()))];
    const word = account ? VALUE_WORDS.find(({ pattern }) => texts.some((text) => pattern.test(text)))?.name : undefined;
    if (word && !texts.some((text) => text.toLowerCase() === word)) texts.push(word);
    if (texts.length > 0) names.set(valueText(key), texts);
  }
  const applied = [];
  for (const source of sources) {
    for (const dimension of source.dimensions) {
      if ((dimension.concept ?? logicalName(dimension.column)) !== master.matches || dimension.type !== 'text') continue;
      // A copy per dimension: shared arrays would be written as YAML anchors and aliases.
      dimension.values = Object.fromEntries([...names].map(([value, labels]) => [value, [...labels]]));
      const words: Record<string, number> = {};
      for (const labels of names.values()) for (const { name } of VALUE_WORDS) if (labels.includes(name)) words[name] = (words[name] ?? 0) + 1;
      dimension.checks.push(`CHECK: value names read from ${master.table}.${master.labels.join(', ')}${master.language ? ` (${master.language.column} = ${master.language.value})` : ''}${Object.keys(words).length ? `; ${Object.entries(words).map(([w, n]) => `${n} called ${w} from the description`).join(', ')}` : ''}${truncated ? `; only the first ${MAX_VALUE_NAMES}` : ''}.`);
      applied.push({ source: source.name, dimension: dimension.name, names: names.size, words, truncated });
    }
  }
  return applied;
}

function averageLength(top: readonly { value: unknown }[]): number {
  return top.length === 0 ? 0 : top.reduce((sum, t) => sum + valueText(t.value).length, 0) / top.length;
}
