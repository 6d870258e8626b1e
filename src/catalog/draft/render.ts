/**
 * A catalog draft (guess.ts) as a commented YAML document (the `yaml` package's Document API):
 * the catalog itself, valid per schema.ts, plus `# CHECK:` comments before every guess a person
 * must confirm and a header saying what to edit before the service uses it. Everything that
 * depends on where the draft came from (the database's address, the connection note) is in the
 * header, so drafts of the same data on different engines differ only there.
 */
import { Document, isMap, isScalar, isSeq, type Node, type Pair, type YAMLMap } from 'yaml';
import type { FiscalYearGuess } from './fiscalYear.ts';
import type { AlignmentGuess, DimensionDraft, MeasureDraft, SourceDraft } from './guess.ts';

export interface RenderInput {
  sources: SourceDraft[];
  alignment: AlignmentGuess;
  /** Header lines (no leading `#`): where the draft came from, the connection note. */
  header: string[];
  /** Tables that did not become sources, with the reason. */
  notDrafted: { table: string; reason: string }[];
  /** Connections besides the default one (a DuckDB over files: `{ files: { files: { gl: gl.csv } } }`). */
  connections?: Record<string, { files: Record<string, string> }>;
  /** The fiscal year's first month, when the data declares it (fiscalYear.ts). */
  fiscalYear?: FiscalYearGuess;
  /** Subjects the data lacks, with the evidence (a CHECK comment): `not_held` of the catalog. */
  notHeld?: { terms: string[]; reason: string; basis: string }[];
}

/** What a person must do with any draft, whatever the database. */
const INSTRUCTIONS = [
  'Every guess to confirm is marked CHECK, and every description is a placeholder. Before use:',
  '  - describe each source, dimension and measure: the model reads the descriptions;',
  '  - check the logical names (the keys), synonyms and value names: columns the ERP dictionary knows',
  '    (bukrs, hkont, gjahr_monat, hsl…) got the words people use (company, account, period, amount),',
  '    master-data descriptions became value names; the bundled skills align on company and period',
  '    (comparison.default_align_on) and read amount, currency and version best under those names;',
  '  - add what a draft cannot know: aliases, more synonyms and value names, defaults.filters,',
  '    group_currency and not_held (subjects the data lacks).',
  'Then check it: start the service with CATALOG=<this file>; problems are reported with their line.',
];

const comment = (lines: readonly string[]) => lines.map((line) => ` ${line}`).join('\n');

/**
 * The draft as YAML text with comments.
 * @example
 * const yamlText = renderDraft({ sources, alignment: guessAlignOn(sources), header: ['Drafted from sqlite:data/sample.db'], notDrafted: [] });
 */
export function renderDraft(input: RenderInput): string {
  return draftDocument(input).toString({ lineWidth: 0, flowCollectionPadding: false });
}

/**
 * The draft as a YAML Document (comments included), for callers that edit it further.
 * @example
 * draftDocument(input).toJS().version; // 1
 */
function draftDocument(input: RenderInput): Document {
  const document = new Document({
    version: 1,
    ...(input.fiscalYear ? { fiscal_year_start: input.fiscalYear.month } : {}),
    ...(input.connections ? { connections: input.connections } : {}),
    comparison: {
      default_align_on: input.alignment.alignOn,
      thresholds: { match: { absolute: 0.01, percent: 0.01 }, minor: { absolute: 1000, percent: 1 } },
    },
    sources: Object.fromEntries(input.sources.map((source) => [source.name, sourceDocument(source)])),
    ...(input.notHeld?.length ? { not_held: input.notHeld.map(({ terms, reason }) => ({ terms, reason })) } : {}),
  });
  const notDrafted = input.notDrafted.map((t) => `Not drafted: table ${t.table}: ${t.reason}.`);
  document.commentBefore = comment([...input.header, '', ...INSTRUCTIONS, ...(notDrafted.length ? ['', ...notDrafted] : [])]);

  if (input.fiscalYear) commentKey(document, ['fiscal_year_start'], [`CHECK: the fiscal year starts in month ${input.fiscalYear.month}: ${input.fiscalYear.basis}. Months are read as periods of it.`]);
  if (input.notHeld?.length) commentKey(document, ['not_held'], input.notHeld.map(({ basis }) => `CHECK: ${basis}. Questions about these subjects are declined with the reason.`));
  for (const index of input.notHeld?.keys() ?? []) flow(document, ['not_held', index, 'terms']);
  commentKey(document, ['comparison', 'default_align_on'], input.alignment.checks);
  commentKey(document, ['comparison', 'thresholds'], [
    'CHECK: tolerances of a comparison, in the measure\'s units: match if the absolute difference and the percent are',
    'both within match, minor within minor, else major. Set them to your reconciliation rules.',
  ]);
  for (const path of [['comparison', 'default_align_on'], ['comparison', 'thresholds', 'match'], ['comparison', 'thresholds', 'minor']]) flow(document, path);
  for (const source of input.sources) {
    const at = ['sources', source.name];
    commentKey(document, at, source.checks);
    for (const dimension of source.dimensions) {
      commentKey(document, [...at, 'dimensions', dimension.name], dimension.checks);
      flow(document, [...at, 'dimensions', dimension.name, 'examples']);
      flow(document, [...at, 'dimensions', dimension.name, 'synonyms']);
      for (const value of Object.keys(dimension.values)) flow(document, [...at, 'dimensions', dimension.name, 'values', value]);
      if (dimension.cardinalityNote) commentValue(document, [...at, 'dimensions', dimension.name, 'cardinality'], dimension.cardinalityNote);
    }
    for (const measure of source.measures) {
      commentKey(document, [...at, 'measures', measure.name], measure.checks);
      flow(document, [...at, 'measures', measure.name, 'synonyms']);
    }
    for (const key of ['aliases', 'implied']) flow(document, [...at, key]);
    if (source.defaultMeasure) {
      flow(document, [...at, 'defaults', 'measures']);
      commentKey(document, [...at, 'defaults'], ['CHECK: the measure a question without one gets.']);
    }
  }
  return document;
}

function sourceDocument(source: SourceDraft) {
  return {
    description: source.description,
    ...(source.connection ? { connection: source.connection } : {}),
    ...(source.aliases.length ? { aliases: source.aliases } : {}),
    table: source.table,
    ...(Object.keys(source.implied).length ? { implied: source.implied } : {}),
    dimensions: Object.fromEntries(source.dimensions.map((d) => [d.name, dimensionDocument(d)])),
    measures: Object.fromEntries(source.measures.map((m) => [m.name, measureDocument(m)])),
    ...(source.defaultMeasure ? { defaults: { measures: [source.defaultMeasure] } } : {}),
  };
}

function dimensionDocument(dimension: DimensionDraft) {
  return {
    column: dimension.column,
    ...(dimension.type === 'period' ? { type: 'period', format: dimension.format ?? 'YYYYPPP' } : {}),
    ...(dimension.yearColumn ? { year_column: dimension.yearColumn } : {}),
    description: dimension.description,
    examples: dimension.examples,
    ...(dimension.cardinality === 'high' ? { cardinality: 'high' } : {}),
    ...(dimension.synonyms.length ? { synonyms: dimension.synonyms } : {}),
    ...(Object.keys(dimension.values).length ? { values: dimension.values } : {}),
  };
}

function measureDocument(measure: MeasureDraft) {
  return {
    ...(measure.column ? { column: measure.column } : {}),
    aggregation: measure.aggregation,
    description: measure.description,
    ...(measure.currency_dimension ? { currency_dimension: measure.currency_dimension } : {}),
    ...(measure.unit ? { unit: measure.unit } : {}),
    ...(measure.synonyms.length ? { synonyms: measure.synonyms } : {}),
  };
}

/** The pair of the last key of `path` in its parent map. */
function pairAt(document: Document, path: string[]): Pair<Node, unknown> | undefined {
  const parent = path.length === 1 ? document.contents : document.getIn(path.slice(0, -1), true);
  if (!isMap(parent)) return undefined;
  return (parent as YAMLMap<Node, unknown>).items.find((pair) => isScalar(pair.key) && pair.key.value === path.at(-1));
}

/** Comment lines before a key. */
function commentKey(document: Document, path: string[], lines: readonly string[]): void {
  const key = pairAt(document, path)?.key;
  if (lines.length > 0 && key) key.commentBefore = comment(lines);
}

/** A comment after a scalar value, on its line. */
function commentValue(document: Document, path: string[], text: string): void {
  const node = document.getIn(path, true);
  if (isScalar(node)) node.comment = ` ${text}`;
}

/** Short lists and pairs on one line (`[a, b]`, `{ absolute: 1, percent: 1 }`). */
function flow(document: Document, path: (string | number)[]): void {
  const node = document.getIn(path, true);
  if (isSeq(node) || isMap(node)) node.flow = true;
}
