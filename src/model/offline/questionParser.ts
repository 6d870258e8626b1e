/**
 * Reads a plain-language question against the catalog: which sources, measure, filters
 * (company, period, version, account, partner), grouping and kind of question it is.
 * Deterministic and catalog-driven: names come from the catalog, not from a fixed list.
 */
import type { Catalog, Source } from '../../catalog/catalog.ts';
import { formatPeriod, monthNumber, parsePeriod, parsePeriodSpan } from '../../catalog/periods.ts';

export type QuestionKind =
  | 'list_sources'
  | 'query'
  | 'compare_sources'
  | 'compare_versions'
  | 'find_duplicates'
  | 'find_blank_values'
  | 'find_outlier_periods'
  | 'unsupported';

/** Data-quality checks of one source (the data_quality skill). */
export const dataQualityKinds: readonly QuestionKind[] = ['find_duplicates', 'find_blank_values', 'find_outlier_periods'];
export type FilterValue = string | string[] | { from: string; to: string };

export interface ParsedQuestion {
  kind: QuestionKind;
  /** Sources in the order the question names them. */
  sources: string[];
  measure: string | undefined;
  filters: Record<string, FilterValue>;
  dimensions: string[];
  /** Versions named, in order (e.g. ACTUAL, BUDGET). */
  versions: string[];
  /** "why …" questions get a drill-down after the comparison. */
  why: boolean;
  /** Dimensions a blank-value check is about ("a blank profit center" → profit_center). */
  blankDimensions: string[];
}

const versionWords: [RegExp, string][] = [
  [/\bactuals?\b/i, 'ACTUAL'],
  [/\b(?:budget|plan(?:ned)?)\b/i, 'BUDGET'],
  [/\b(?:forecast|fcst|outlook)\b/i, 'FORECAST'],
];

const dimensionSynonyms: Record<string, string[]> = {
  period: ['period', 'periods', 'month', 'months', 'monthly', 'fiscal period'],
  company: ['company', 'companies', 'company code', 'entity', 'entities'],
  group_account: ['group account', 'group accounts', 'account', 'accounts'],
  gl_account: ['gl account', 'gl accounts', 'g/l account'],
  partner_company: ['partner', 'partners', 'partner company', 'trading partner'],
  profit_center: ['profit center', 'profit centre', 'profit centers', 'profit centres'],
  document: ['document', 'documents', 'doc'],
  version: ['version', 'versions'],
  currency: ['currency', 'currencies'],
  segment: ['segment', 'segments'],
};

/** Parses `text`; `defaultYear` completes months named without a year ("December"). */
export function parseQuestion(text: string, catalog: Catalog): ParsedQuestion {
  const sources = findSources(text, catalog);
  const involved = (sources.length ? sources : [...catalog.sources.keys()].slice(0, 1)).map((name) => catalog.sources.get(name)!);
  const has = (dimension: string) => involved.every((source) => source.dimensions.has(dimension));
  const versions = findVersions(text);
  const filters: Record<string, FilterValue> = {};

  const companies = findCompanies(text, involved);
  if (companies.length && has('company')) filters.company = companies.length === 1 ? companies[0]! : companies;
  const periods = findPeriods(text, defaultYear(catalog));
  if (periods && has('period')) filters.period = periods;
  const partner = /\bpartner(?:\s+company)?\s*[:#]?\s*(\d{3,5})\b/i.exec(text)?.[1];
  if (partner && has('partner_company')) filters.partner_company = partner;
  Object.assign(filters, findAccounts(text, involved));
  if (versions.length === 1 && has('version')) filters.version = versions[0]!;

  const why = /\bwhy\b|\bexplain\b|\bcause\b/i.test(text);
  const comparing = /\bcompare|comparison|\bvs\.?\b|versus|against|differ|difference|reconcil|variance|gap\b/i.test(text);
  const blankDimensions = findBlankDimensions(text, involved);
  let kind: QuestionKind;
  if (/\b(which|what)\b[^?]*\b(sources?|tables?|data sets?|datasets?|data)\b[^?]*\b(exist|available|have|there|can)\b|\blist (?:the |all )?sources\b|\bwhat can you\b/i.test(text)) kind = 'list_sources';
  else if (sources.length < 2 && (duplicateWords.test(text) || (why && tooHighWords.test(text)))) kind = 'find_duplicates';
  else if (sources.length < 2 && (blankDimensions.length > 0 || blankValueWords.test(text))) kind = 'find_blank_values';
  else if (sources.length < 2 && outlierWords.test(text)) kind = 'find_outlier_periods';
  else if (sources.length >= 2) kind = 'compare_sources';
  else if (versions.length >= 2 || (comparing && /variance|budget/i.test(text) && versions.length >= 1)) kind = 'compare_versions';
  else if (sources.length === 1 || Object.keys(filters).length > 0 || /\b(total|sum|amount|revenue|how much|show|breakdown)\b/i.test(text)) kind = 'query';
  else kind = 'unsupported';
  // One version named ("budget variance"): compare actuals against it, actual first.
  if (kind === 'compare_versions' && versions.length < 2) versions.splice(0, versions.length, 'ACTUAL', versions[0] === 'ACTUAL' || !versions[0] ? 'BUDGET' : versions[0]);

  return {
    kind,
    sources,
    measure: findMeasure(text, involved),
    filters,
    dimensions: findDimensions(text, involved),
    versions,
    why,
    blankDimensions,
  };
}

/** "duplicate records", "why is December doubled", "loaded twice", "double counted". */
const duplicateWords = /\bduplicat\w*|\bdoubled?\b|\btwice\b|\bdouble[- ]?count\w*|\b(?:loaded|posted|booked|counted) (?:two|2|several|multiple) times\b/i;
/** With "why" and one source: a total that is too high is first checked for duplicated records. */
const tooHighWords = /\btoo (?:high|large|big|much)\b|\binflated\b|\boverstated\b|\bhigher than (?:expected|usual|normal|before)\b/i;
/** "unusual periods", "outliers", "which months stand out". */
const outlierWords = /\b(?:unusual|outliers?|anomal\w*|abnormal|spikes?|stands? out|standing out|odd|strange|suspicious|irregular)\b/i;
/** "blank values", "empty fields": a blank check of every dimension. */
const blankValueWords = /\b(?:blank|empty|null|unassigned|not assigned|missing master data)\s+(?:values?|fields?|entries|master data|dimensions?|attributes?)\b/i;
/** "a blank profit center or segment": the words after it, up to the next clause, name the dimensions. */
const blankTrigger = /\b(?:blank|empty|null|unassigned|not assigned|without(?:\s+(?:an?|any))?)\s+([a-z /_]{2,60}?)(?=\s+(?:in|for|of|on|at|by|from|during|and\s+(?:which|what|how|where)|values?)\b|[?.;,!]|$)/gi;

/** Dimensions named right after "blank", "empty", "without a" …, e.g. "blank profit center or segment". */
function findBlankDimensions(text: string, sources: Source[]): string[] {
  const has = (dimension: string) => sources.every((source) => source.dimensions.has(dimension));
  const names = new Map<string, string>();
  for (const [dimension, synonyms] of Object.entries(dimensionSynonyms)) for (const synonym of synonyms) names.set(synonym, dimension);
  for (const source of sources) for (const name of source.dimensions.keys()) names.set(name.replace(/_/g, ' '), name);
  const spellings = [...names.keys()].sort((x, y) => y.length - x.length);
  const found: { at: number; dimension: string }[] = [];
  for (const match of text.matchAll(blankTrigger)) {
    let words = match[1]!.toLowerCase().replace(/_/g, ' ');
    for (const spelling of spellings) {
      const hit = new RegExp(`\\b${escape(spelling)}\\b`).exec(words);
      if (!hit) continue;
      // Blank out the words found, keeping positions, so "profit center" does not also match "center".
      words = `${words.slice(0, hit.index)}${' '.repeat(spelling.length)}${words.slice(hit.index + spelling.length)}`;
      const dimension = names.get(spelling)!;
      if (has(dimension)) found.push({ at: (match.index ?? 0) + hit.index, dimension });
    }
  }
  return [...new Set(found.sort((x, y) => x.at - y.at).map((f) => f.dimension))];
}

/** Sources named in the text, by position: by name, catalog alias ("FI", "BPC") or unambiguous first word ("consolidation"). */
function findSources(text: string, catalog: Catalog): string[] {
  const names = [...catalog.sources.keys()];
  const firstWords = names.map((name) => name.split('_')[0]!);
  const found: { name: string; at: number }[] = [];
  names.forEach((name, index) => {
    const spellings = [name, name.replace(/_/g, ' '), ...catalog.sources.get(name)!.aliases];
    const firstWord = firstWords[index]!;
    if (firstWords.filter((word) => word === firstWord).length === 1 && firstWord.length >= 2) spellings.push(firstWord);
    let at = -1;
    for (const spelling of spellings) {
      const match = new RegExp(`(?<![A-Za-z0-9_])${escape(spelling)}(?![A-Za-z0-9])`, 'i').exec(text);
      if (match && (at === -1 || match.index < at)) at = match.index;
    }
    if (at !== -1) found.push({ name, at });
  });
  return found.sort((x, y) => x.at - y.at).map((f) => f.name);
}

function findVersions(text: string): string[] {
  return versionWords
    .map(([pattern, version]) => ({ version, at: text.search(pattern) }))
    .filter((v) => v.at !== -1)
    .sort((x, y) => x.at - y.at)
    .map((v) => v.version);
}

function findCompanies(text: string, sources: Source[]): string[] {
  const listed = /\b(?:compan(?:y|ies)|company codes?|comp\.? ?codes?|entit(?:y|ies)|cc)\s*[:#]?\s*((?:\d{3,5})(?:\s*(?:,|and|&|\/|or)\s*\d{3,5})*)/i.exec(text);
  if (listed) return [...listed[1]!.matchAll(/\d{3,5}/g)].map((m) => m[0]);
  // A bare code counts only when the catalog lists it as a company (so "2024" is never a company).
  const known = new Set(sources.flatMap((source) => source.dimensions.get('company')?.examples ?? []));
  return [...text.matchAll(/(?<![\d-/.])\b(\d{4})\b(?![\d-/.])/g)].map((m) => m[1]!).filter((code) => known.has(code));
}

function defaultYear(catalog: Catalog): number {
  const years = [...catalog.sources.values()].flatMap((source) =>
    [...source.dimensions.values()].filter((d) => d.type === 'period').flatMap((d) => d.examples.map((e) => Number(e.slice(0, 4)))),
  );
  return years.length ? Math.max(...years.filter(Number.isFinite)) : new Date().getFullYear();
}

/** Periods named in the text: a span (Q4 2024, 2024, H1), one or more periods, or a from–to range. */
export function findPeriods(text: string, year: number): FilterValue | undefined {
  const range = /\b(?:from|between)\s+(.+?)\s+(?:to|and|until|-)\s+(.+?)(?=[?.,;]|$|\s+(?:for|in|of|by|per)\b)/i.exec(text);
  if (range) {
    const from = periodOf(range[1]!, year) ?? parsePeriodSpan(range[1]!)?.from;
    const to = periodOf(range[2]!, year) ?? parsePeriodSpan(range[2]!)?.to;
    if (from && to) return { from, to };
  }
  const quarter = /\b(q[1-4]|h[12])\s*(?:of\s+)?(\d{4})?\b/i.exec(text) ?? /\bquarter\s*([1-4])\s*(?:of\s+)?(\d{4})?\b/i.exec(text);
  if (quarter) {
    const span = quarter[1]!.length === 1 ? `Q${quarter[1]}` : quarter[1]!;
    return parsePeriodSpan(`${span} ${quarter[2] ?? year}`);
  }
  const found: { at: number; period: string }[] = [];
  const patterns = [
    /\b(\d{4}0(?:0[1-9]|1[0-6]))\b/g, // 2024012
    /\b(\d{4}[-/.](?:0?[1-9]|1[0-6]))\b(?![-/.]\d)/g, // 2024-12
    /\b((?:0?[1-9]|1[0-2])[/.]\d{4})\b/g, // 12/2024
    /\b(p(?:eriod)?\s*\d{1,2}(?:\s*(?:of\s+)?\d{4})?)\b/gi, // P12, period 12 2024
    /\b((?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?(?:\s*,?\s*\d{4})?)\b/gi, // December 2024, Dec
  ];
  for (const pattern of patterns) {
    for (const match of text.matchAll(pattern)) {
      // "may" is usually the verb unless a year follows it.
      if (/^may\.?$/i.test(match[1]!.trim())) continue;
      const period = periodOf(match[1]!, year);
      if (period && !found.some((f) => f.period === period)) found.push({ at: match.index ?? 0, period });
    }
  }
  if (found.length === 0) {
    const wholeYear = /\b(?:fy\s*|fiscal year\s+|in\s+|for\s+|year\s+)(\d{4})\b/i.exec(text);
    return wholeYear ? parsePeriodSpan(wholeYear[1]!) : undefined;
  }
  const periods = found.sort((x, y) => x.at - y.at).map((f) => f.period);
  return periods.length === 1 ? periods[0]! : periods;
}

function periodOf(fragment: string, year: number): string | undefined {
  const text = fragment.trim().replace(/\s+of\s+/i, ' ');
  const direct = parsePeriod(text);
  if (direct) return direct;
  const bareP = /^p(?:eriod)?\s*(\d{1,2})$/i.exec(text);
  if (bareP) return parsePeriod(`P${bareP[1]} ${year}`);
  const month = monthNumber(text);
  if (month) return formatPeriod(year, month);
  return undefined;
}

function findAccounts(text: string, sources: Source[]): Record<string, FilterValue> {
  const has = (dimension: string) => sources.every((source) => source.dimensions.has(dimension));
  const groups = [...new Set([...text.matchAll(/\b(G\d{5,10})\b/gi)].map((m) => m[1]!.toUpperCase()))];
  if (groups.length && has('group_account')) return { group_account: groups.length === 1 ? groups[0]! : groups };
  const gl = /\b(?:gl\s+)?account\s*[:#]?\s*(\d{5,10})\b/i.exec(text)?.[1];
  if (!gl) return {};
  if (has('gl_account')) return { gl_account: gl };
  // Group accounts are the GL account with the catalog's prefix (G4000000 for 4000000).
  const prefix = sources[0]?.dimensions.get('group_account')?.examples[0]?.replace(/\d+$/, '');
  return has('group_account') && prefix !== undefined ? { group_account: `${prefix}${gl}` } : {};
}

function findMeasure(text: string, sources: Source[]): string | undefined {
  const names = [...new Set(sources.flatMap((source) => [...source.measures.keys()]))];
  const available = (name: string) => sources.every((source) => source.measures.has(name));
  const explicit = names.filter((name) => new RegExp(`\\b${escape(name)}\\b`, 'i').test(text)).sort((x, y) => y.length - x.length)[0];
  if (explicit && available(explicit)) return explicit;
  if (/group currency|\bin eur\b|translated/i.test(text) && available('amount_gc')) return 'amount_gc';
  if (/\bytd\b|year[- ]to[- ]date/i.test(text) && available('amount_ytd')) return 'amount_ytd';
  if (/\bquantit(?:y|ies)\b|\bunits\b/i.test(text) && available('quantity')) return 'quantity';
  if (/\bhow many (?:lines|rows|postings)\b|\bline count\b|\bnumber of (?:lines|rows|postings)\b/i.test(text) && available('line_count')) return 'line_count';
  return undefined;
}

function findDimensions(text: string, sources: Source[]): string[] {
  const has = (dimension: string) => sources.every((source) => source.dimensions.has(dimension));
  const found: { at: number; dimension: string }[] = [];
  // "by company and group account": the clause runs to the next preposition (or "and" + another clause).
  const clauses = [...text.matchAll(/\b(?:by|per|for each|each|split by|broken down by|breakdown by|grouped by)\s+([a-z/ ]{2,40}?)(?=\s+(?:and\s+(?:for|in|of|then|what|which|how|show|compare)|for|in|of|between|from|with)\b|[?,.;]|$)/gi)];
  if (/\bmonthly\b|\bmonth by month\b/i.test(text)) found.push({ at: text.search(/monthly|month by month/i), dimension: 'period' });
  for (const clause of clauses) {
    for (const part of clause[1]!.split(/\s*(?:,|and|&)\s*/)) {
      const words = part.trim().toLowerCase();
      const dimension = resolveDimensionWords(words, sources);
      if (dimension && has(dimension)) found.push({ at: clause.index ?? 0, dimension });
    }
  }
  return [...new Set(found.sort((x, y) => x.at - y.at).map((f) => f.dimension))];
}

function resolveDimensionWords(words: string, sources: Source[]): string | undefined {
  const asName = words.replace(/[\s/]+/g, '_');
  if (sources.every((source) => source.dimensions.has(asName))) return asName;
  const candidates = Object.entries(dimensionSynonyms)
    .filter(([, synonyms]) => synonyms.includes(words))
    .map(([dimension]) => dimension);
  // "account" prefers the group account when every source has it (it aligns across sources).
  return candidates.find((dimension) => sources.every((source) => source.dimensions.has(dimension)));
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
